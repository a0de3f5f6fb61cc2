/*
 * The --config FILE of the CLI (config.h): read whole (bounded), parsed by
 * libinih one line per reader call so every key keeps its line number,
 * checked against the command table, and kept for cli_parse.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <strings.h>
#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* Bounds of what we read: a configuration file, not a data file. */
#define CONFIG_MAX_BYTES (1 << 20)
#define CONFIG_MAX_LINE 16384

#define CONFIG_USAGE "usage: inlet <command> --config FILE"

static cli_config_entry *entries;
static int n_entries;
static char *config_path;

/* [storage] keys, the inlet_storage_options field each sets, and the
 * environment variables that win over it. */
typedef struct storage_key {
  const char *key;
  size_t offset;
  const char *env[3];
} storage_key;

#define SK(k, field, ...)                                                                          \
  {                                                                                                \
    k, offsetof(inlet_storage_options, field), {                                                   \
      __VA_ARGS__                                                                                  \
    }                                                                                              \
  }
static const storage_key storage_keys[] = {
    SK("aws-access-key-id", aws_access_key_id, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
       "AWS_PROFILE"),
    SK("aws-secret-access-key", aws_secret_access_key, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
       "AWS_PROFILE"),
    SK("aws-session-token", aws_session_token, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
       "AWS_PROFILE"),
    SK("aws-profile", aws_profile, "AWS_PROFILE", "AWS_ACCESS_KEY_ID"),
    SK("aws-region", aws_region, "AWS_REGION", "AWS_DEFAULT_REGION"),
    SK("aws-endpoint-url", aws_endpoint_url, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"),
    SK("azure-connection-string", azure_connection_string, "AZURE_STORAGE_CONNECTION_STRING"),
    SK("azure-account", azure_account, "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_CONNECTION_STRING"),
    SK("azure-key", azure_key, "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN",
       "AZURE_STORAGE_CONNECTION_STRING"),
    SK("azure-sas-token", azure_sas_token, "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN",
       "AZURE_STORAGE_CONNECTION_STRING"),
    SK("azure-endpoint", azure_endpoint, NULL),
};
#define N_STORAGE_KEYS (int)(sizeof storage_keys / sizeof storage_keys[0])

static inlet_storage_options storage;

bool cli_parse_bool(const char *s, bool *out) {
  static const char *const yes[] = {"true", "1", "yes", "on"}, *const no[] = {"false", "0", "no",
                                                                              "off"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) return *out = true;
    if (strcasecmp(s, no[i]) == 0) return !(*out = false);
  }
  return false;
}

void cli_env_name(char *out, size_t cap, const char *command, const char *option) {
  size_t n = (size_t)snprintf(out, cap, "INLET_%s_%s", command, option);
  for (size_t i = 0; i < n && i < cap; i++) {
    if (out[i] == '-' || out[i] == ' ') out[i] = '_';
    out[i] = (char)toupper((unsigned char)out[i]);
  }
}

static char *normalize(const char *s, bool section) {
  char *o = strdup(s);
  if (!o) return NULL;
  for (char *p = o; *p; p++) {
    *p = (char)tolower((unsigned char)*p);
    if (*p == '_' || (section && *p == ' ')) *p = '-';
  }
  return o;
}

/* The command a normalized section names ("parquet-cat"), or NULL. */
static const cli_command *section_command(const char *section) {
  for (int i = 0; i < cli_n_commands; i++) {
    char *n = normalize(cli_commands[i]->name, true);
    bool eq = n && strcmp(n, section) == 0;
    free(n);
    if (eq) return cli_commands[i];
  }
  return NULL;
}

static const cli_opt *command_opt(const cli_command *c, const char *key) {
  for (int k = 0; k < c->n_opts; k++)
    if (strcmp(c->opts[k].name, key) == 0) return &c->opts[k];
  return NULL;
}

/* The option @p key of any command (for [global]), or NULL. */
static const cli_opt *any_opt(const char *key) {
  for (int i = 0; i < cli_n_commands; i++) {
    const cli_opt *o = command_opt(cli_commands[i], key);
    if (o) return o;
  }
  return NULL;
}

static const storage_key *find_storage_key(const char *key) {
  for (int i = 0; i < N_STORAGE_KEYS; i++)
    if (strcmp(storage_keys[i].key, key) == 0) return &storage_keys[i];
  return NULL;
}

typedef struct parse_state {
  const char *data;
  size_t len, off;
  int line; /* of the line last handed to inih */
  int rc;   /* CLI_OK, or the exit code of the error reported */
} parse_state;

/* inih's reader: exactly one line per call (lines were checked to fit). */
static char *read_line(char *str, int num, void *stream) {
  parse_state *ps = stream;
  if (ps->off >= ps->len || num < 2) return NULL;
  const char *start = ps->data + ps->off, *nl = memchr(start, '\n', ps->len - ps->off);
  size_t n = nl ? (size_t)(nl - start) + 1 : ps->len - ps->off;
  if (n > (size_t)num - 1) n = (size_t)num - 1;
  memcpy(str, start, n);
  str[n] = '\0';
  ps->off += n;
  ps->line++;
  return str;
}

/* A usage error about the file at line @p line. */
static int file_error(parse_state *ps, int line, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int file_error(parse_state *ps, int line, const char *hint, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (hint)
    ps->rc = cli_usage_hint(CONFIG_USAGE, hint, "%s:%d: %s", config_path, line, msg);
  else
    ps->rc = cli_usage_error(CONFIG_USAGE, "%s:%d: %s", config_path, line, msg);
  return 0;
}

/* "did you mean KEY?" among the names a section accepts. */
static const char *nearest_key(const char *section, const cli_command *c, const char *key) {
  const char *names[128];
  int n = 0;
  if (strcmp(section, "storage") == 0) {
    for (int i = 0; i < N_STORAGE_KEYS; i++)
      names[n++] = storage_keys[i].key;
  } else if (c) {
    for (int k = 0; k < c->n_opts && n < 127; k++)
      names[n++] = c->opts[k].name;
    names[n++] = "log-format";
  } else {
    names[n++] = "log-format";
    for (int i = 0; i < cli_n_commands; i++)
      for (int k = 0; k < cli_commands[i]->n_opts && n < 128; k++)
        names[n++] = cli_commands[i]->opts[k].name;
  }
  return cli_nearest(key, names, n);
}

static int on_entry(void *user, const char *section, const char *name, const char *value) {
  parse_state *ps = user;
  char *sec = normalize(*section ? section : "global", true), *key = normalize(name, false),
       *val = strdup(value);
  cli_config_entry *grown =
      sec && key && val ? realloc(entries, sizeof *entries * (size_t)(n_entries + 1)) : NULL;
  if (!grown) {
    free(sec);
    free(key);
    free(val);
    ps->rc = cli_error("out of memory");
    return 0;
  }
  entries = grown;
  entries[n_entries++] = (cli_config_entry){sec, key, val, ps->line};
  const cli_command *c = NULL;
  const cli_opt *o = NULL;
  bool known_section = strcmp(sec, "global") == 0 || strcmp(sec, "storage") == 0 ||
                       (c = section_command(sec)) != NULL;
  if (!known_section)
    return file_error(ps, ps->line, NULL,
                      "unknown section [%s] (a command, [global] or [storage]) for key '%s'",
                      section, name);
  if (strcmp(sec, "storage") == 0) {
    if (!find_storage_key(key)) {
      const char *near = nearest_key(sec, NULL, key);
      char hint[160];
      snprintf(hint, sizeof hint, "did you mean %s?", near ? near : "");
      return file_error(ps, ps->line, near ? hint : NULL, "unknown key '%s' in [storage]", name);
    }
  } else if (strcmp(key, "log-format") != 0) {
    o = c ? command_opt(c, key) : any_opt(key);
    if (!o) {
      const char *near = nearest_key(sec, c, key);
      char hint[160];
      snprintf(hint, sizeof hint, "did you mean %s?", near ? near : "");
      return file_error(ps, ps->line, near ? hint : NULL, "unknown key '%s' in [%s]%s", name,
                        *section ? section : "global", c ? "" : " (no command has that option)");
    }
  }
  /* A key given twice is a mistake unless the option repeats. */
  if (!o || o->kind != CLI_LIST)
    for (int i = 0; i < n_entries - 1; i++)
      if (strcmp(entries[i].section, sec) == 0 && strcmp(entries[i].key, key) == 0)
        return file_error(ps, ps->line, NULL, "'%s' given twice in [%s] (first at line %d)", name,
                          *section ? section : "global", entries[i].line);
  return 1;
}

int cli_config_load(const char *path) {
  cli_config_free();
  config_path = strdup(path);
  if (!config_path) return cli_error("out of memory");
  FILE *f = fopen(path, "rb");
  if (!f) {
    int e = errno;
    char fields[32];
    int code = e == ENOENT ? CLI_NOT_FOUND : CLI_IO;
    snprintf(fields, sizeof fields, "\"exit_code\":%d", code);
    cli_log("error", e == ENOENT ? "not_found" : "io_error", fields, "--config %s: cannot open: %s",
            path, strerror(e));
    return code;
  }
  char *data = malloc(CONFIG_MAX_BYTES + 1);
  size_t len = data ? fread(data, 1, CONFIG_MAX_BYTES + 1, f) : 0;
  int read_errno = errno;
  bool read_error = ferror(f) != 0;
  fclose(f);
  if (!data) return cli_error("out of memory");
  parse_state ps = {data, len, 0, 0, CLI_OK};
  if (read_error || len > CONFIG_MAX_BYTES) {
    free(data);
    if (read_error) {
      cli_log("error", "io_error", "\"exit_code\":7", "--config %s: cannot read: %s", path,
              strerror(read_errno));
      return CLI_IO;
    }
    return cli_usage_error(CONFIG_USAGE, "--config %s: larger than %d bytes", path,
                           CONFIG_MAX_BYTES);
  }
  /* inih gets one whole line per read: check they fit (and hold no NUL). */
  int line = 1;
  for (size_t i = 0, start = 0; i <= len; i++) {
    if (i < len && data[i] == '\0') {
      free(data);
      return cli_usage_error(CONFIG_USAGE, "%s:%d: not a text file (a NUL byte)", path, line);
    }
    if (i == len || data[i] == '\n') {
      if (i - start + 3 > CONFIG_MAX_LINE) {
        free(data);
        return cli_usage_error(CONFIG_USAGE, "%s:%d: line longer than %d bytes", path, line,
                               CONFIG_MAX_LINE - 3);
      }
      start = i + 1;
      line++;
    }
  }
  ini_use_stack = false;
  ini_allow_realloc = false;
  ini_max_line = CONFIG_MAX_LINE;
  ini_allow_multiline = false;
  ini_allow_no_value = false;
  ini_stop_on_first_error = true;
  int r = ini_parse_stream(read_line, &ps, on_entry, &ps);
  free(data);
  if (ps.rc != CLI_OK) return ps.rc;
  if (r > 0)
    return cli_usage_error(
        CONFIG_USAGE, "%s:%d: not a [section] or key = value line (or an unclosed '[')", path, r);
  if (r != 0) return cli_error("--config %s: cannot parse (%d)", path, r);
  return CLI_OK;
}

void cli_config_free(void) {
  for (int i = 0; i < n_entries; i++) {
    free(entries[i].section);
    free(entries[i].key);
    if (entries[i].value) memset(entries[i].value, 0, strlen(entries[i].value));
    free(entries[i].value);
  }
  free(entries);
  entries = NULL;
  n_entries = 0;
  free(config_path);
  config_path = NULL;
  memset(&storage, 0, sizeof storage);
}

const char *cli_config_path(void) {
  return config_path ? config_path : "";
}

static int values_in(const char *section, const char *key, const cli_config_entry **out, int cap) {
  int n = 0;
  for (int i = 0; i < n_entries; i++)
    if (strcmp(entries[i].section, section) == 0 && strcmp(entries[i].key, key) == 0) {
      if (n < cap) out[n] = &entries[i];
      n++;
    }
  return n;
}

int cli_config_values(const char *command, const char *key, const cli_config_entry **out, int cap) {
  if (!n_entries) return 0;
  char *sec = normalize(command, true);
  int n = sec ? values_in(sec, key, out, cap) : 0;
  free(sec);
  return n ? n : values_in("global", key, out, cap);
}

const inlet_storage_options *cli_config_storage(void) {
  static const inlet_storage_options init = INLET_STORAGE_OPTIONS_INIT;
  storage = init;
  bool any = false;
  for (int i = 0; i < n_entries; i++) {
    if (strcmp(entries[i].section, "storage") != 0) continue;
    const storage_key *k = find_storage_key(entries[i].key);
    bool shadowed = false;
    for (int e = 0; k && e < 3 && k->env[e]; e++) {
      const char *v = getenv(k->env[e]);
      shadowed |= v && *v;
    }
    if (!k || shadowed) continue;
    *(const char **)((char *)&storage + k->offset) = entries[i].value;
    any = true;
  }
  return any ? &storage : NULL;
}
