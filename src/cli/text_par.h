/*
 * Text output of `scan --threads N` formatted on N threads of the CLI's own
 * (issue 18): the scan decodes on its pool, but formatting NDJSON or CSV
 * costs several times the decoding, so one formatting thread would cap the
 * scaling. Each batch is cut into ranges of rows, each formatted alone into a
 * part by a rows_only text writer (include/inlet/text.h) on a formatting
 * thread, and the caller's thread writes the parts through the output's
 * writer in the order the batches came (or as they finish, any_order), which
 * adds the header and the separators: the bytes are those one writer writes.
 * At most 2N ranges (of 64Ki values) and their parts are held, with the
 * batches they come from, so memory is bounded by the thread count and the
 * batch size, not the table. Not for TABLE (its widths depend on earlier rows).
 */
#ifndef INLET_CLI_TEXT_PAR_H
#define INLET_CLI_TEXT_PAR_H

#include <stdbool.h>

#include "inlet/inlet.h"

typedef struct cli_text_par cli_text_par;

/* Starts @p threads formatting threads for rows of @p schema in the format of
 * @p wo (not TABLE), whose parts go to @p whole (borrowed: the output's
 * writer, made with @p wo). @return 0, INLET_EINVAL, INLET_ENOMEM. */
int cli_text_par_new(cli_text_par **out, int threads, const inlet_schema *schema,
                     const inlet_text_writer_options *wo, inlet_text_writer *whole, bool any_order,
                     inlet_error *err);
/* Takes the rows of @p b (moved: @p b is left zeroed) to be formatted and
 * written, writing the parts that are ready; waits while every slot is
 * taken. @return 0, or the first error in output order of a part before (a
 * formatting or a write error), returned again by every later call. */
int cli_text_par_put(cli_text_par *p, inlet_batch *b, inlet_error *err);
/* Waits for every batch put and writes its part. @return as above. */
int cli_text_par_flush(cli_text_par *p, inlet_error *err);
/* Stops the threads and drops what is not written. NULL-safe. */
void cli_text_par_free(cli_text_par *p);

#endif /* INLET_CLI_TEXT_PAR_H */
