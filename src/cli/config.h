/*
 * Where options come from besides the command line: the environment
 * (INLET_<COMMAND>_<OPTION>) and an INI file (--config FILE or
 * INLET_CONFIG), read with libinih. Precedence: command line, then
 * environment, then file (cli_parse applies it to every option of every
 * command). The file has a section per command ([ingest], [vacuum],
 * [parquet-cat]), a [global] section (or keys before any section) whose
 * options apply to every command that has them, and a [storage] section
 * with object-store settings and secrets, which are never printed.
 * docs/CONFIG.md describes the format.
 */
#ifndef INLET_CLI_CONFIG_H
#define INLET_CLI_CONFIG_H

#include <stdbool.h>

#include "cli.h"

/* Reads and checks @p path: every section and key must be known (a usage
 * error naming FILE:LINE and the key otherwise). Returns CLI_OK or the exit
 * code of the reported error. */
int cli_config_load(const char *path);
void cli_config_free(void);

/* One key = value line of the file. */
typedef struct cli_config_entry {
  char *section; /* normalized: lower case, '-' for '_' and ' '; "global" for the top */
  char *key;     /* normalized: lower case, '-' for '_' */
  char *value;
  int line;
} cli_config_entry;

/*
 * The values of option @p key for command @p command ("parquet cat"):
 * those of its own section when it has the key, else those of [global].
 * Fills at most @p cap entries in file order; returns how many there are.
 */
int cli_config_values(const char *command, const char *key, const cli_config_entry **out, int cap);

/* The file's path ("" when none was loaded), for messages. */
const char *cli_config_path(void);

/* The object-store settings of [storage], leaving out those the
 * environment sets (the environment wins); NULL when there are none. */
const inlet_storage_options *cli_config_storage(void);

/* Parses a boolean: true/false, 1/0, yes/no, on/off (any case). */
bool cli_parse_bool(const char *s, bool *out);

/* The environment variable of an option: INLET_<COMMAND>_<OPTION>, upper
 * case, dashes and spaces as underscores ("INLET_PARQUET_CAT_LIMIT"). */
void cli_env_name(char *out, size_t cap, const char *command, const char *option);

#endif /* INLET_CLI_CONFIG_H */
