/*
 * `inlet parquet schema FILE`: prints the file's schema as DDL, one column
 * per line ("name type [not null]"), in the form --schema accepts.
 */
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet parquet schema FILE\n"
    "Prints the file's schema as DDL (the form --schema and create accept).\n";

/* Back-quotes names that the DDL parser would not read as plain words. */
static void print_name(const char *name) {
  bool plain = *name != '\0';
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '_'))
      plain = false;
  if (plain) {
    fputs(name, stdout);
    return;
  }
  putchar('`');
  for (const char *p = name; *p; p++) {
    if (*p == '`') putchar('`');
    putchar(*p);
  }
  putchar('`');
}

static int cmd_parquet_schema(const cli_args *a) {
  const char *const *pos = a->pos;
  if (a->n_pos != 1) return cli_usage_error(usage, "parquet schema: missing FILE");
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, pos[0], NULL, &err) < 0) return cli_fail(&err);
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  char type[4096];
  for (int32_t i = 0; i < s->n_fields; i++) {
    inlet_field_type_name(&s->fields[i], type, sizeof type);
    print_name(s->fields[i].name);
    printf(" %s%s\n", type, s->fields[i].nullable ? "" : " not null");
  }
  inlet_parquet_reader_free(r);
  return CLI_OK;
}

const cli_command cli_cmd_parquet_schema = {"parquet schema",
                                            cmd_parquet_schema,
                                            "FILE",
                                            "print a Parquet file's schema as DDL",
                                            usage,
                                            NULL,
                                            0,
                                            1};
