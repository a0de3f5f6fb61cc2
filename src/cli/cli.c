/*
 * The option parser of the command table (cli.h): long options read
 * against a command's typed option list, values checked by kind, errors
 * reported as one line naming the wrong argument plus a hint.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "log.h"

extern char **environ;

struct cli_value {
  bool given;
  const char *text;  /* CLI_STRING, CLI_INT, CLI_SIZE: the last value */
  int64_t num;       /* CLI_INT, CLI_SIZE */
  const char **list; /* CLI_LIST: owned vector of borrowed strings */
  int n;             /* occurrences */
  char *owned;       /* a copy of an environment value split into lines */
};

int cli_error(const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cli_log("error", "error", "\"exit_code\":1", "%s", msg);
  return CLI_FAIL;
}

/* "usage: inlet parquet cat FILE ..." -> "parquet cat": the words after
 * "inlet" up to the first argument (upper case, bracket, option). */
static void command_of_usage(const char *usage, char *out, size_t cap) {
  out[0] = '\0';
  const char *p = strstr(usage, "inlet ");
  if (!p) return;
  p += 6;
  size_t n = 0;
  while (*p && *p != '\n') {
    const char *w = p;
    while (*p && *p != ' ' && *p != '\n')
      p++;
    size_t len = (size_t)(p - w);
    if (len == 0 || !(w[0] >= 'a' && w[0] <= 'z')) break;
    if (n + len + 2 > cap) break;
    if (n) out[n++] = ' ';
    memcpy(out + n, w, len);
    n += len;
    out[n] = '\0';
    while (*p == ' ')
      p++;
  }
}

static int usage_v(const char *usage, const char *hint, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static int usage_v(const char *usage, const char *hint, const char *fmt, va_list ap) {
  char msg[4096], see[160] = "inlet --help";
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (usage) {
    char cmd[128];
    command_of_usage(usage, cmd, sizeof cmd);
    if (cmd[0] && strcmp(cmd, "<command>") != 0) snprintf(see, sizeof see, "inlet %s --help", cmd);
  }
  if (cli_log_get_format() == CLI_LOG_JSON) {
    char *fields = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&fields, &len);
    if (f) {
      fputs("\"exit_code\":2,\"hint\":", f);
      if (hint)
        cli_json_string(f, hint);
      else
        fputs("null", f);
      fputs(",\"help\":", f);
      cli_json_string(f, see);
      if (fclose(f) != 0) {
        free(fields);
        fields = NULL;
      }
    }
    cli_log("error", "usage_error", fields, "%s", msg);
    free(fields);
    return CLI_USAGE;
  }
  if (hint)
    cli_log("error", "usage_error", NULL, "%s; %s", msg, hint);
  else
    cli_log("error", "usage_error", NULL, "%s", msg);
  if (usage) cli_log("error", "usage_error", NULL, "see '%s'", see);
  return CLI_USAGE;
}

int cli_usage_error(const char *usage, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = usage_v(usage, NULL, fmt, ap);
  va_end(ap);
  return rc;
}

int cli_usage_hint(const char *usage, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = usage_v(usage, hint, fmt, ap);
  va_end(ap);
  return rc;
}

int cli_exit_code(int inlet_code) {
  switch (inlet_code) {
  case INLET_ENOTFOUND: return CLI_NOT_FOUND;
  case INLET_ECONFLICT: return CLI_CONFLICT;
  case INLET_ECORRUPT: return CLI_CORRUPT;
  case INLET_EUNSUPPORTED: return CLI_UNSUPPORTED;
  case INLET_EIO: return CLI_IO;
  case INLET_EREJECTED: return CLI_REJECTED;
  default: return CLI_FAIL;
  }
}

/* The event name of an exit code's kind. */
static const char *failure_event(int code) {
  switch (code) {
  case CLI_NOT_FOUND: return "not_found";
  case CLI_CONFLICT: return "conflict";
  case CLI_CORRUPT: return "corrupt";
  case CLI_UNSUPPORTED: return "unsupported";
  case CLI_IO: return "io_error";
  case CLI_REJECTED: return "rejected";
  default: return "error";
  }
}

int cli_parse_max_rejected(const char *s, int64_t *n, double *pct) {
  size_t len = strlen(s);
  char *end = NULL;
  if (len == 0 || len > 30) return -1;
  for (size_t i = 0; i < len; i++) /* plain decimal digits, a point only before a '%' */
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && s[len - 1] == '%') ||
          (s[i] == '%' && i == len - 1)))
      return -1;
  errno = 0;
  if (s[len - 1] == '%') {
    double v = strtod(s, &end);
    if (errno || end != s + len - 1 || !(v >= 0 && v <= 100)) return -1;
    *pct = v;
    *n = -1;
    return 0;
  }
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < 0) return -1;
  *n = v;
  *pct = -1;
  return 0;
}

int cli_fail(const inlet_error *err) {
  return cli_fail_fmt(err, "%s", inlet_errmsg(err));
}

int cli_fail_fmt(const inlet_error *err, const char *fmt, ...) {
  char msg[4096], fields[32];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int code = cli_exit_code(err ? err->code : 0);
  snprintf(fields, sizeof fields, "\"exit_code\":%d", code);
  cli_log("error", failure_event(code), fields, "%s", msg);
  return code;
}

/* Edit distance of two short strings, a swap of neighbours counting as one
 * edit ("scna" is one from "scan"); longer strings count as far apart. */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return (size_t)-1;
  size_t d[64][64];
  for (size_t i = 0; i <= la; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[la][lb];
}

const char *cli_nearest(const char *word, const char *const *names, int n) {
  size_t limit = strlen(word) / 3;
  if (limit < 1) limit = 1;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (int i = 0; i < n; i++) {
    size_t d = distance(word, names[i]);
    /* A prefix of a name ("--lim") is as good as a near miss. */
    if (strlen(word) >= 3 && strncmp(names[i], word, strlen(word)) == 0) d = 1;
    if (d < best_d) {
      best = names[i];
      best_d = d;
    }
  }
  return best;
}

const char *cli_format_bytes(char *buf, size_t cap, int64_t bytes) {
  static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    snprintf(buf, cap, "%lld B", (long long)bytes);
    return buf;
  }
  double v = (double)bytes;
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    u++;
  }
  /* Two decimals, without trailing zeros: "4.08 KiB", "1.5 GiB", "128 MiB". */
  char num[32];
  snprintf(num, sizeof num, "%.2f", v);
  size_t n = strlen(num);
  while (num[n - 1] == '0')
    num[--n] = '\0';
  if (num[n - 1] == '.') num[--n] = '\0';
  snprintf(buf, cap, "%s %s", num, unit[u]);
  return buf;
}

const char *cli_format_time(char *buf, size_t cap, int64_t ms) {
  time_t secs = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  struct tm tm;
  if (!gmtime_r(&secs, &tm)) {
    snprintf(buf, cap, "%lld ms", (long long)ms);
    return buf;
  }
  int frac = (int)(ms - (int64_t)secs * 1000);
  snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
  return buf;
}

bool cli_parse_size(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  if (!s || !(*s >= '0' && *s <= '9')) return false;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return false;
  unsigned shift = 0;
  if (*end) {
    switch (*end) {
    case 'k':
    case 'K': shift = 10; break;
    case 'm':
    case 'M': shift = 20; break;
    case 'g':
    case 'G': shift = 30; break;
    default: return false;
    }
    end++;
    if (*end == 'i' && end[1] == 'B')
      end += 2;
    else if (*end == 'B')
      end++;
    if (*end) return false;
  }
  if (v > ((unsigned long long)INT64_MAX >> shift)) return false;
  *out = (int64_t)(v << shift);
  return true;
}

static bool parse_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  if (!s || !*s || !((*s >= '0' && *s <= '9') || *s == '-' || *s == '+')) return false;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end) return false;
  *out = v;
  return true;
}

/* "needs a positive integer", "needs an integer from 2 to 1000000", ... */
static void describe_range(char *out, size_t cap, const cli_opt *o) {
  const char *what = o->kind == CLI_SIZE ? "byte count" : "integer";
  if (o->max == INT64_MAX && o->min == 0)
    snprintf(out, cap, "a non-negative %s", what);
  else if (o->max == INT64_MAX && o->min == 1)
    snprintf(out, cap, "a positive %s", what);
  else if (o->max == INT64_MAX)
    snprintf(out, cap, "%s %s of at least %lld", o->kind == CLI_SIZE ? "a" : "an", what,
             (long long)o->min);
  else
    snprintf(out, cap, "%s %s from %lld to %lld", o->kind == CLI_SIZE ? "a" : "an", what,
             (long long)o->min, (long long)o->max);
}

static const cli_opt *find_opt(const cli_command *cmd, const char *name, size_t len) {
  for (int k = 0; k < cmd->n_opts; k++)
    if (strlen(cmd->opts[k].name) == len && strncmp(cmd->opts[k].name, name, len) == 0)
      return &cmd->opts[k];
  return NULL;
}

/* @p origin names where @p text came from in messages: "--retain",
 * "INLET_VACUUM_RETAIN", "inlet.ini:3: retain". */
static int set_value(const cli_command *cmd, struct cli_value *v, const cli_opt *o,
                     const char *origin, const char *text) {
  v->given = true;
  v->n++;
  v->text = text;
  if (o->kind == CLI_LIST) {
    const char **l = realloc(v->list, sizeof *l * (size_t)v->n);
    if (!l) return cli_error("out of memory");
    v->list = l;
    l[v->n - 1] = text;
    return CLI_OK;
  }
  if (o->kind != CLI_INT && o->kind != CLI_SIZE) return CLI_OK;
  bool ok = o->kind == CLI_SIZE ? cli_parse_size(text, &v->num) : parse_int(text, &v->num);
  if (!ok || v->num < o->min || v->num > o->max) {
    char range[128];
    describe_range(range, sizeof range, o);
    return cli_usage_error(cmd->help, "%s needs %s%s, not '%s'", origin, range,
                           o->kind == CLI_SIZE ? " (e.g. 4096, 64K, 128M, 1G)" : "", text);
  }
  return CLI_OK;
}

static int unknown_option(const cli_command *cmd, const char *name, size_t len) {
  const char *names[64];
  int n = 0;
  for (int k = 0; k < cmd->n_opts && n < 64; k++)
    names[n++] = cmd->opts[k].name;
  char word[128];
  snprintf(word, sizeof word, "%.*s", (int)(len < 127 ? len : 127), name);
  const char *near = cli_nearest(word, names, n);
  char hint[160];
  if (near) snprintf(hint, sizeof hint, "did you mean --%s?", near);
  return cli_usage_hint(cmd->help, near ? hint : NULL, "unknown option '--%.*s'", (int)len, name);
}

/* A flag's value from the environment or the file. */
static int set_flag(const cli_command *cmd, struct cli_value *v, const char *origin,
                    const char *text) {
  bool on;
  if (!cli_parse_bool(text, &on))
    return cli_usage_error(cmd->help, "%s: '%s' is not a boolean (true/false, 1/0, yes/no)", origin,
                           text);
  v->given = on;
  v->n = on;
  return CLI_OK;
}

/* The option's values from the environment: one per line for a list. */
static int from_env(const cli_command *cmd, struct cli_value *v, const cli_opt *o, const char *name,
                    const char *text) {
  if (o->kind == CLI_FLAG) return set_flag(cmd, v, name, text);
  if (o->kind != CLI_LIST) return set_value(cmd, v, o, name, text);
  v->owned = strdup(text);
  if (!v->owned) return cli_error("out of memory");
  for (char *line = v->owned, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (!*line) continue;
    int rc = set_value(cmd, v, o, name, line);
    if (rc != CLI_OK) return rc;
  }
  return CLI_OK;
}

/* The option's values from the --config file. */
static int from_file(const cli_command *cmd, struct cli_value *v, const cli_opt *o,
                     const cli_config_entry *const *e, int n) {
  for (int i = 0; i < n; i++) {
    char origin[4200];
    snprintf(origin, sizeof origin, "%s:%d: %s", cli_config_path(), e[i]->line, e[i]->key);
    int rc = o->kind == CLI_FLAG ? set_flag(cmd, v, origin, e[i]->value)
                                 : set_value(cmd, v, o, origin, e[i]->value);
    if (rc != CLI_OK) return rc;
  }
  return CLI_OK;
}

/* INLET_<COMMAND>_<X> where X is none of the command's options: ignored,
 * with a warning (a misspelled variable would otherwise go unnoticed). */
static void warn_unknown_env(const cli_command *cmd) {
  char prefix[128];
  cli_env_name(prefix, sizeof prefix, cmd->name, "");
  size_t pl = strlen(prefix);
  for (char **e = environ; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq || strncmp(*e, prefix, pl) != 0) continue;
    size_t len = (size_t)(eq - *e);
    bool known = len == pl + 10 && strncmp(*e + pl, "LOG_FORMAT", 10) == 0;
    const char *names[128];
    int n = 0;
    for (int k = 0; k < cmd->n_opts && !known; k++) {
      char name[160];
      cli_env_name(name, sizeof name, cmd->name, cmd->opts[k].name);
      known = strlen(name) == len && strncmp(name, *e, len) == 0;
      if (n < 128) names[n++] = cmd->opts[k].name;
    }
    if (known) continue;
    /* The nearest option, compared as an option name ("max-row"). */
    char word[128];
    size_t wl = len - pl < sizeof word - 1 ? len - pl : sizeof word - 1;
    for (size_t i = 0; i < wl; i++)
      word[i] = (*e)[pl + i] == '_' ? '-' : (char)((*e)[pl + i] | 0x20);
    word[wl] = '\0';
    const char *near = cli_nearest(word, names, n);
    char name[160];
    snprintf(name, sizeof name, "%.*s", (int)(len < 159 ? len : 159), *e);
    char *fields = NULL;
    size_t flen = 0;
    FILE *f = open_memstream(&fields, &flen);
    if (f) {
      fputs("\"variable\":", f);
      cli_json_string(f, name);
      if (fclose(f) != 0) {
        free(fields);
        fields = NULL;
      }
    }
    cli_log("warning", "unknown_variable", fields, "ignoring %s: %s has no option --%s%s%s%s", name,
            cmd->name, word, near ? " (did you mean --" : "", near ? near : "", near ? "?)" : "");
    free(fields);
  }
}

/* Options not on the command line: from the environment, else the file.
 * CLI_MERGE lists take all three, file first. */
static int defaults(const cli_command *cmd, cli_args *out) {
  warn_unknown_env(cmd);
  for (int k = 0; k < cmd->n_opts; k++) {
    const cli_opt *o = &cmd->opts[k];
    struct cli_value *v = &out->values[k];
    bool merge = o->kind == CLI_LIST && (o->flags & CLI_MERGE);
    if (v->given && !merge) continue;
    /* A merged list: set aside the command line's values, add the others
     * first, then put them back at the end. */
    const char **cli_list_values = merge ? v->list : NULL;
    int n_cli = merge ? v->n : 0;
    if (merge) *v = (struct cli_value){0};
    char env_name[160];
    cli_env_name(env_name, sizeof env_name, cmd->name, o->name);
    const char *env = getenv(env_name);
    const cli_config_entry *e[256];
    int n = cli_config_values(cmd->name, o->name, e, 256);
    if (n > 256) {
      free(cli_list_values);
      return cli_usage_error(cmd->help, "%s: more than 256 values of '%s'", cli_config_path(),
                             o->name);
    }
    int rc = CLI_OK;
    if (merge) {
      rc = from_file(cmd, v, o, e, n);
      if (rc == CLI_OK && env && *env) rc = from_env(cmd, v, o, env_name, env);
      for (int i = 0; i < n_cli && rc == CLI_OK; i++)
        rc = set_value(cmd, v, o, o->name, cli_list_values[i]);
      free(cli_list_values);
    } else if (env && *env) {
      rc = from_env(cmd, v, o, env_name, env);
    } else {
      rc = from_file(cmd, v, o, e, n);
    }
    if (rc != CLI_OK) return rc;
  }
  return CLI_OK;
}

void cli_print_help(const cli_command *cmd, FILE *f) {
  fputs(cmd->help, f);
  if (cmd->n_opts == 0) return;
  char example[160], section[64];
  cli_env_name(example, sizeof example, cmd->name, cmd->opts[0].name);
  snprintf(section, sizeof section, "%s", cmd->name);
  for (char *p = section; *p; p++)
    if (*p == ' ') *p = '-';
  fprintf(f,
          "\n  Every option can also be set in the environment (%s, ...; a flag as\n"
          "  true/false) or under [%s] in a --config FILE; the command line wins over the\n"
          "  environment, the environment over the file (see 'inlet --help').\n",
          example, section);
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out) {
  memset(out, 0, sizeof *out);
  out->cmd = cmd;
  out->pos = calloc((size_t)argc + 1, sizeof *out->pos);
  out->values = calloc((size_t)cmd->n_opts + 1, sizeof *out->values);
  if (!out->pos || !out->values) return cli_error("out of memory");
  bool only_pos = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_pos && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
      cli_print_help(cmd, stdout);
      return CLI_HELP_SHOWN;
    }
    if (!only_pos && strcmp(a, "--") == 0) {
      only_pos = true;
      continue;
    }
    if (only_pos || a[0] != '-' || a[1] == '\0') {
      if (out->n_pos >= cmd->max_pos)
        return cli_usage_error(cmd->help, "unexpected argument '%s'", a);
      out->pos[out->n_pos++] = a;
      continue;
    }
    if (a[1] != '-') {
      /* "-limit": a single dash where two were meant. */
      const cli_opt *o = find_opt(cmd, a + 1, strlen(a + 1));
      char hint[160];
      if (o) snprintf(hint, sizeof hint, "did you mean --%s?", o->name);
      return cli_usage_hint(cmd->help, o ? hint : NULL, "unknown option '%s'", a);
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    const cli_opt *o = find_opt(cmd, name, nlen);
    if (!o) return unknown_option(cmd, name, nlen);
    struct cli_value *v = &out->values[o - cmd->opts];
    if (o->kind == CLI_FLAG) {
      if (eq) return cli_usage_error(cmd->help, "option '--%s' takes no value", o->name);
      v->given = true;
      v->n++;
      continue;
    }
    const char *text;
    if (eq) {
      text = eq + 1;
    } else {
      if (i + 1 >= argc) return cli_usage_error(cmd->help, "option '--%s' needs a value", o->name);
      text = argv[++i];
    }
    char origin[160];
    snprintf(origin, sizeof origin, "--%s", o->name);
    int rc = set_value(cmd, v, o, origin, text);
    if (rc != CLI_OK) return rc;
  }
  return defaults(cmd, out);
}

void cli_args_reset(cli_args *a) {
  if (a->values)
    for (int k = 0; a->cmd && k < a->cmd->n_opts; k++) {
      free(a->values[k].list);
      free(a->values[k].owned);
    }
  free(a->values);
  free(a->pos);
  memset(a, 0, sizeof *a);
}

static const struct cli_value *value_of(const cli_args *a, const char *name, cli_kind k1,
                                        cli_kind k2) {
  for (int k = 0; k < a->cmd->n_opts; k++) {
    const cli_opt *o = &a->cmd->opts[k];
    if (strcmp(o->name, name) != 0) continue;
    if (o->kind != k1 && o->kind != k2) break;
    return &a->values[k];
  }
  fprintf(stderr, "inlet: internal error: %s has no option --%s of that kind\n", a->cmd->name,
          name);
  abort();
}

bool cli_flag(const cli_args *a, const char *name) {
  return value_of(a, name, CLI_FLAG, CLI_FLAG)->given;
}

const char *cli_string(const cli_args *a, const char *name) {
  const struct cli_value *v = value_of(a, name, CLI_STRING, CLI_STRING);
  return v->given ? v->text : NULL;
}

bool cli_int(const cli_args *a, const char *name, int64_t *out) {
  const struct cli_value *v = value_of(a, name, CLI_INT, CLI_SIZE);
  if (v->given) *out = v->num;
  return v->given;
}

const char *const *cli_list(const cli_args *a, const char *name, int *n) {
  const struct cli_value *v = value_of(a, name, CLI_LIST, CLI_LIST);
  *n = v->n;
  return v->list;
}

static bool declares(const cli_command *cmd, const char *name) {
  for (int i = 0; i < cmd->n_opts; i++)
    if (strcmp(cmd->opts[i].name, name) == 0) return true;
  return false;
}

inlet_table_open_options cli_table_options(const cli_args *a) {
  inlet_table_open_options o = INLET_TABLE_OPEN_OPTIONS_INIT;
  o.storage = cli_config_storage();
  o.single_writer = declares(a->cmd, "single-writer") && cli_flag(a, "single-writer");
  /* The commands with --threads load snapshots (and write v2 checkpoints'
   * sidecars) on that many threads too; the others on one. */
  o.threads = declares(a->cmd, "threads") ? cli_threads(a) : 1;
  return o;
}

int32_t cli_threads(const cli_args *a) {
  int64_t n = 0;
  if (cli_int(a, "threads", &n)) return (int32_t)n;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus < 1 ? 1 : cpus > 1024 ? 1024 : (int32_t)cpus;
}

int cli_table_open(const cli_args *a, const char *location, inlet_table **out, inlet_error *err) {
  cli_log_set_table(location);
  inlet_table_open_options o = cli_table_options(a);
  return inlet_table_open_with(out, location, &o, err);
}

/* Milliseconds since the epoch from digits, or an ISO-8601 timestamp in the
 * one grammar of inlet_timestamp_parse (UTC unless a zone is given). */
int cli_parse_as_of(const char *s, int64_t *ms, inlet_error *err) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s && !*end) {
    *ms = v;
    return 0;
  }
  int64_t us;
  if (inlet_timestamp_parse(&us, s, err) < 0) return -1;
  *ms = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
  return 0;
}

/* Splits "a,b, c" into names (trimmed); *names owns one buffer at [0]. */
int cli_split_columns(char ***names, int32_t *n, const char *list) {
  size_t len = strlen(list);
  char *buf = malloc(len + 1);
  char **v = calloc(len / 2 + 2, sizeof *v);
  if (!buf || !v) {
    free(buf);
    free(v);
    return -1;
  }
  memcpy(buf, list, len + 1);
  int32_t k = 0;
  char *p = buf;
  for (;;) {
    char *e = strchr(p, ',');
    if (e) *e = 0;
    while (*p == ' ')
      p++;
    char *t = p + strlen(p);
    while (t > p && t[-1] == ' ')
      *--t = 0;
    if (*p) v[k++] = p;
    if (!e) break;
    p = e + 1;
  }
  if (k == 0) v[0] = buf; /* keep the buffer reachable for free() */
  *names = v;
  *n = k;
  return 0;
}
