/*
 * What the CLI tells people and log collectors on standard error: errors,
 * warnings and service events, as text ("inlet: ...") or, with
 * `--log-format json` (any command; or INLET_LOG_FORMAT=json), as JSON lines
 * carrying ts (UTC, ms), level, event, command, table, message and the
 * event's own fields (docs/JSON.md).
 */
#ifndef INLET_CLI_LOG_H
#define INLET_CLI_LOG_H

#include <stdbool.h>
#include <stdio.h>

typedef enum cli_log_format { CLI_LOG_TEXT = 0, CLI_LOG_JSON } cli_log_format;

/* Parses "text" or "json"; false otherwise. */
bool cli_log_set_format(const char *name);
cli_log_format cli_log_get_format(void);
/* Context every later line carries (borrowed; must outlive the command). */
void cli_log_set_command(const char *command);
void cli_log_set_table(const char *table);

/*
 * One line. @p level: "error", "warning" or "info"; @p event: a snake_case
 * name ("usage_error", "ingest_summary", ...); @p fields: more JSON members
 * ("\"rows\":5,\"lag_ms\":null"), or NULL. Text lines are "inlet: MESSAGE"
 * ("inlet: warning: MESSAGE" for warnings); @p fields are JSON-only.
 */
void cli_log(const char *level, const char *event, const char *fields, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends @p s as a JSON string (quotes included) to the stream @p f. */
void cli_json_string(FILE *f, const char *s);

#endif /* INLET_CLI_LOG_H */
