/*
 * Issue 12, "Crashes (critical)": partition values and data-file creation
 * failures on partitioned tables, end to end through the real binary.
 *   - any failure to create a data file of a partitioned table (the
 *     partition directory cannot be made; the table directory deleted under
 *     a --follow ingester; a read-only filesystem) is a clean error: an exit
 *     status, a message, the table untouched — never a signal;
 *   - a partition value that cannot name a directory (escaped "k=value" over
 *     255 bytes, a NUL byte, invalid UTF-8) is a rejected record with its
 *     reason in the dead letters, and ingestion goes on; `append` reports the
 *     record's line and stops (or skips it with --skip-bad); the limit is
 *     counted on the escaped name, to the byte;
 *   - values that can name a directory (separators, '%', control bytes,
 *     "..", UTF-8) are escaped as Spark does and read back exactly.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "ingest_support.h"

typedef struct fx {
  char dir[400];
  char table[512];
  char src[512];
  char source[600];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("ingest_pvals"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  snprintf(f->src, sizeof f->src, "%s/in.ndjson", f->dir);
  snprintf(f->source, sizeof f->source, "file:%s", f->src);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tu_result r;
  tu_sh(&r, "umount '%s/ro' 2>/dev/null", f->dir);
  tu_result_free(&r);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void write_text(const char *path, const char *mode, const char *text) {
  FILE *fp = fopen(path, mode);
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
}

/* A sanitizer build reports a crash on stderr and may still exit with 1:
 * a clean error is a failure exit status (1-8, cli.h) with a message and no
 * such report. */
static void assert_clean_error(const tu_result *r, const char *needle) {
  if (r->status < 1 || r->status > 8 || strstr(r->err, "runtime error") ||
      strstr(r->err, "Sanitizer") || !strstr(r->err, needle))
    fail_msg("expected a clean error naming \"%s\", got status %d: %s", needle, r->status, r->err);
}

static int64_t table_version(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t v = inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

static int64_t count_rows(const char *table) {
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --format ndjson | wc -l", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  int64_t n = strtoll(r.out, NULL, 10);
  tu_result_free(&r);
  return n;
}

/* A regular file where the partition directory k=x must go: creating the
 * data file fails, for ingest and append alike, with a message and exit 1. */
static void test_partition_crash__data_file_create_failure_is_clean_error(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  char blocker[700];
  snprintf(blocker, sizeof blocker, "%s/k=x", f->table);
  write_text(blocker, "w", "not a directory\n");
  write_text(f->src, "w", "{\"id\":1,\"k\":\"x\"}\n{\"id\":2,\"k\":\"y\"}\n");
  tu_result r;
  for (int attempt = 0; attempt < 2; attempt++) { /* the retry must not crash either */
    tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, f->table, f->source);
    assert_clean_error(&r, "k=x");
    tu_result_free(&r);
  }
  tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, f->table, f->src);
  assert_clean_error(&r, "k=x");
  tu_result_free(&r);
  assert_int_equal(table_version(f->table), 0);
  /* No data file was left behind for k=y either. */
  tu_sh(&r, "find '%s' -name '*.parquet' | wc -l", f->table);
  assert_int_equal(strtoll(r.out, NULL, 10), 0);
  tu_result_free(&r);
  /* Once the obstacle is gone, the same input goes in whole. */
  unlink(blocker);
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, f->table, f->source);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(count_rows(f->table), 2);
}

/* The table directory removed while a --follow ingester runs: the next
 * batch fails cleanly (exit status 1, not a signal). */
static void test_partition_crash__table_deleted_under_follow_ingester(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  write_text(f->src, "w", "{\"id\":1,\"k\":\"a\"}\n");
  char out[700];
  snprintf(out, sizeof out, "%s/ingest.log", f->dir);
  const char *args[] = {"ingest",   f->table,        "--source", f->source,
                        "--follow", "--max-latency", "50ms",     NULL};
  pid_t pid = ing_spawn(out, args);
  int64_t v = -1;
  for (int i = 0; i < 400 && v < 1; i++) {
    ing_sleep_ms(25);
    v = table_version(f->table);
  }
  assert_int_equal(v, 1);
  tu_rmtree(f->table);
  write_text(f->src, "a", "{\"id\":2,\"k\":\"b\"}\n");
  int st = -1;
  for (int i = 0; i < 400; i++) {
    int ws;
    if (waitpid(pid, &ws, WNOHANG) == pid) {
      st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
      break;
    }
    ing_sleep_ms(25);
  }
  if (st < 0) {
    kill(pid, SIGKILL);
    ing_wait(pid);
    fail_msg("the ingester did not stop after its table was deleted");
  }
  tu_result res = {.status = st};
  res.err = tu_read_file(out, NULL);
  assert_non_null(res.err);
  /* Which step notices first depends on timing: creating the data file
   * under k=b, or the writer catching up with a log that is gone. */
  bool names_it = strstr(res.err, "k=b") || strstr(res.err, "no _delta_log directory");
  assert_clean_error(&res, names_it && !strstr(res.err, "k=b") ? "no _delta_log directory" : "k=b");
  tu_result_free(&res);
}

/* A read-only filesystem under the table (a tmpfs remounted read-only; needs
 * mount(2), which the test environment grants to root). */
static void test_partition_crash__read_only_filesystem_is_clean_error(void **state) {
  fx *f = *state;
  char mnt[700], table[800];
  snprintf(mnt, sizeof mnt, "%s/ro", f->dir);
  snprintf(table, sizeof table, "%s/t", mnt);
  mkdir(mnt, 0777);
  tu_result r;
  tu_sh(&r, "mount -t tmpfs -o size=8m tmpfs '%s'", mnt);
  if (r.status != 0) {
    tu_result_free(&r);
    skip(); /* no mount privilege here: the blocked-directory case still runs */
  }
  tu_result_free(&r);
  ing_create_table(table, "id long, k string", "--partition-by k");
  write_text(f->src, "w", "{\"id\":1,\"k\":\"a\"}\n");
  tu_sh(&r, "mount -o remount,ro '%s'", mnt);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  for (int attempt = 0; attempt < 2; attempt++) {
    tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, table, f->source);
    assert_clean_error(&r, "Read-only file system");
    tu_result_free(&r);
    tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, table, f->src);
    assert_clean_error(&r, "Read-only file system");
    tu_result_free(&r);
  }
  assert_int_equal(table_version(table), 0);
  tu_sh(&r, "umount '%s'", mnt);
  tu_result_free(&r);
}

/* A free loopback port: the kernel picks one for a moment. */
static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = -1;
  if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) close(fd);
  return port;
}

static char *repeat(char c, int n) {
  char *s = malloc((size_t)n + 1);
  memset(s, c, (size_t)n);
  s[n] = '\0';
  return s;
}

/* The reproduction of issue 12: a 300-byte value among good records. */
static void test_partition_value__too_long_is_rejected_record_and_ingest_goes_on(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  char *a300 = repeat('a', 300);
  FILE *fp = fopen(f->src, "w");
  fprintf(fp, "{\"id\":1,\"k\":\"x\"}\n{\"id\":2,\"k\":\"%s\"}\n{\"id\":3,\"k\":\"y\"}\n", a300);
  fclose(fp);
  tu_result r;
  for (int run = 0; run < 2; run++) {
    tu_sh(&r, "'%s' ingest '%s' --source '%s' --once --app-id P", INLET_BIN, f->table, f->source);
    if (r.status != 0) fail_msg("ingest failed (%d): %s", r.status, r.err);
    assert_null(strstr(r.err, "runtime error"));
    tu_result_free(&r);
  }
  assert_int_equal(count_rows(f->table), 2);
  assert_int_equal(table_version(f->table), 1);
  /* The dead letter holds the record and says why. */
  tu_sh(&r, "cat '%s'/_errors/P/*.ndjson", f->table);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, a300));
  assert_non_null(strstr(r.out, "partition column \\\"k\\\""));
  assert_non_null(strstr(r.out, "over the 255-byte limit"));
  assert_string_equal(strchr(r.out, '\n') + 1, ""); /* one record, one line */
  tu_result_free(&r);
  /* The commit counts it as rejected. */
  tu_sh(&r, "'%s' history '%s' --json", INLET_BIN, f->table);
  assert_non_null(strstr(r.out, "\"numRejectedRows\":1"));
  tu_result_free(&r);
  free(a300);
}

/* The 255-byte limit is on the escaped directory name "k=<value>": 253
 * plain bytes fit, 254 do not; 84 ':' (252 escaped) fit, 85 (255) do not.
 * UTF-8 bytes count as themselves. */
/* A partition column name that leaves no room for NAME=__HIVE_DEFAULT_PARTITION__
 * in one directory name could never hold a null row: create refuses it,
 * naming the limit; a name one byte shorter is accepted and takes a null. */
static void test_partition_value__column_name_too_long_refused_by_create(void **state) {
  fx *f = *state;
  char *n229 = repeat('n', 229), *n228 = repeat('n', 228);
  tu_result r;
  tu_sh(&r, "'%s' create '%s' --schema 'id long, %s string' --partition-by %s", INLET_BIN, f->table,
        n229, n229);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "is too long"));
  assert_non_null(strstr(r.err, "255-byte limit"));
  tu_result_free(&r);
  struct stat sb;
  char log[4300];
  snprintf(log, sizeof log, "%s/_delta_log/00000000000000000000.json", f->table);
  assert_int_not_equal(stat(log, &sb), 0);
  tu_sh(&r,
        "'%s' create '%s' --schema 'id long, %s string' --partition-by %s && "
        "printf '{\"id\":1}\\n' > '%s' && "
        "'%s' ingest '%s' --source '%s' --once --app-id L",
        INLET_BIN, f->table, n228, n228, f->src, INLET_BIN, f->table, f->source);
  if (r.status != 0) fail_msg("create/ingest failed (%d): %s", r.status, r.err);
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --format ndjson --columns id", INLET_BIN, f->table);
  assert_string_equal(r.out, "{\"id\":1}\n");
  tu_result_free(&r);
  free(n229);
  free(n228);
}

static void test_partition_value__limit_counts_escaped_bytes(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  char *a253 = repeat('a', 253), *a254 = repeat('a', 254), *c84 = repeat(':', 84),
       *c85 = repeat(':', 85);
  /* "é" is 2 bytes: 126 of them + 'a' = 253 bytes. */
  char e126[300] = "";
  for (int i = 0; i < 126; i++)
    strcat(e126, "\xc3\xa9");
  strcat(e126, "a");
  FILE *fp = fopen(f->src, "w");
  fprintf(fp,
          "{\"id\":1,\"k\":\"%s\"}\n{\"id\":2,\"k\":\"%s\"}\n{\"id\":3,\"k\":\"%s\"}\n"
          "{\"id\":4,\"k\":\"%s\"}\n{\"id\":5,\"k\":\"%s\"}\n{\"id\":6,\"k\":\"%se\"}\n",
          a253, a254, c84, c85, e126, e126);
  fclose(fp);
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once --app-id L", INLET_BIN, f->table, f->source);
  if (r.status != 0) fail_msg("ingest failed (%d): %s", r.status, r.err);
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --format ndjson --columns id | sort", INLET_BIN, f->table);
  assert_string_equal(r.out, "{\"id\":1}\n{\"id\":3}\n{\"id\":5}\n");
  tu_result_free(&r);
  tu_sh(&r, "cat '%s'/_errors/L/*.ndjson | grep -c 'over the 255-byte limit'", f->table);
  assert_int_equal(strtoll(r.out, NULL, 10), 3);
  tu_result_free(&r);
  /* The accepted names are 254 (84 ':') and 255 bytes on disk. */
  tu_sh(&r, "cd '%s' && ls -d k=* | LC_ALL=C awk '{ print length($0) }' | sort -u", f->table);
  assert_string_equal(r.out, "254\n255\n");
  tu_result_free(&r);
  free(a253);
  free(a254);
  free(c84);
  free(c85);
}

/* Values that can name a directory are escaped as Spark escapes them
 * (escapePathName: '}' and ' ' stay) and read back exactly; the table stays
 * inside its root. */
static void test_partition_value__special_bytes_escape_and_read_back(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  static const char *const vals[] = {"a/b",         "..",        ".",           "%41",
                                     "x=y",         "q?*#'\\\"", "tab\\tnl\\n", "\\u0001ctl",
                                     "caf\xc3\xa9", "[]{}^:",    "  spaces  "};
  FILE *fp = fopen(f->src, "w");
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
    fprintf(fp, "{\"id\":%zu,\"k\":\"%s\"}\n", i, vals[i]);
  fclose(fp);
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, f->table, f->source);
  if (r.status != 0) fail_msg("ingest failed (%d): %s", r.status, r.err);
  tu_result_free(&r);
  /* Every directory is one component directly under the table. */
  tu_sh(&r, "cd '%s' && find . -name '*.parquet' | awk -F/ 'NF != 3' | wc -l", f->table);
  assert_int_equal(strtoll(r.out, NULL, 10), 0);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && ls -d k=* | sort", f->table);
  assert_non_null(strstr(r.out, "k=a%2Fb\n"));
  assert_non_null(strstr(r.out, "k=%2541\n"));
  assert_non_null(strstr(r.out, "k=x%3Dy\n"));
  assert_non_null(strstr(r.out, "k=tab%09nl%0A\n"));
  assert_non_null(strstr(r.out, "k=%01ctl\n"));
  assert_non_null(strstr(r.out, "k=caf\xc3\xa9\n"));
  assert_non_null(strstr(r.out, "k=%5B%5D%7B}%5E%3A\n"));
  assert_non_null(strstr(r.out, "k=..\n"));
  tu_result_free(&r);
  /* Scan returns the values as given (canonical NDJSON of the input). */
  tu_sh(&r,
        "'%s' scan '%s' --format ndjson --columns id,k | sort > '%s/got' && "
        "'%s' parquet convert '%s' '%s/in.parquet' --schema 'id long, k string' && "
        "'%s' parquet cat '%s/in.parquet' --format ndjson | sort > '%s/want' && "
        "cmp '%s/got' '%s/want'",
        INLET_BIN, f->table, f->dir, INLET_BIN, f->src, f->dir, INLET_BIN, f->dir, f->dir, f->dir,
        f->dir);
  if (r.status != 0) fail_msg("read back differs: %s %s", r.out, r.err);
  tu_result_free(&r);
}

/* Partition values that look alike to a directory name or a grouping key
 * stay apart: a null and the string "__HIVE_DEFAULT_PARTITION__" share a
 * directory (their rows go to two files, each with its own
 * partitionValues); control bytes 0x1e and 0x1f and values that move a byte
 * between two columns are their own partitions in compaction's bins (a
 * one-byte value "\x1e" was once binned with nulls and became null: a
 * finding of test_chaos), and describe counts each as a partition. Read
 * back exactly after three appends and after compaction, which rewrites
 * each partition on its own. */
static void test_partition_value__look_alike_values_stay_apart(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, a string, b string", "--partition-by a,b");
  static const char *const vals[][2] = {{NULL, "x"},
                                        {"\\u001e", "x"},
                                        {"__HIVE_DEFAULT_PARTITION__", "x"},
                                        {"p\\u001f", "q"},
                                        {"p", "\\u001fq"},
                                        {NULL, NULL},
                                        {"\\u001e", "\\u001e"},
                                        {"\\u001f", NULL},
                                        {NULL, "\\u001f"},
                                        {"r\\u0002", "s"},
                                        {"r", "\\u0002s"},
                                        {"\\u0001null", "x"}};
  size_t n_vals = sizeof vals / sizeof vals[0];
  FILE *all = fopen(f->src, "w");
  assert_non_null(all);
  tu_result r;
  for (int round = 0; round < 3; round++) {
    char part[600];
    snprintf(part, sizeof part, "%s/round%d.ndjson", f->dir, round);
    FILE *fp = fopen(part, "w");
    assert_non_null(fp);
    for (size_t i = 0; i < n_vals; i++) {
      char a[64], b[64];
      snprintf(a, sizeof a, vals[i][0] ? "\"%s\"" : "null", vals[i][0]);
      snprintf(b, sizeof b, vals[i][1] ? "\"%s\"" : "null", vals[i][1]);
      fprintf(fp, "{\"id\":%d,\"a\":%s,\"b\":%s}\n", round * 100 + (int)i, a, b);
      fprintf(all, "{\"id\":%d,\"a\":%s,\"b\":%s}\n", round * 100 + (int)i, a, b);
    }
    fclose(fp);
    tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, f->table, part);
    if (r.status != 0) fail_msg("append failed (%d): %s", r.status, r.err);
    tu_result_free(&r);
  }
  fclose(all);
  /* describe counts each of them as a partition of its own. */
  tu_sh(&r, "'%s' describe '%s' --json", INLET_BIN, f->table);
  assert_int_equal(r.status, 0);
  json_error_t je;
  json_t *d = json_loads(r.out, 0, &je);
  assert_non_null(d);
  assert_int_equal(json_integer_value(json_object_get(d, "partitions")), n_vals);
  json_decref(d);
  tu_result_free(&r);
  tu_sh(&r,
        "'%s' parquet convert '%s' '%s/in.parquet' --schema 'id long, a string, b string' && "
        "'%s' parquet cat '%s/in.parquet' --format ndjson | sort > '%s/want'",
        INLET_BIN, f->src, f->dir, INLET_BIN, f->dir, f->dir);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      /* Each of the partitions holds three files (one per append): each is
       * one group of its own. */
      tu_sh(&r, "'%s' compact '%s' --min-files 2 --json", INLET_BIN, f->table);
      if (r.status != 0) fail_msg("compact failed (%d): %s", r.status, r.err);
      json_t *j = json_loads(r.out, 0, &je);
      assert_non_null(j);
      json_t *groups = json_object_get(j, "groups");
      assert_int_equal(json_array_size(groups), n_vals);
      for (size_t g = 0; g < n_vals; g++) {
        json_t *grp = json_array_get(groups, g);
        assert_int_equal(json_integer_value(json_object_get(grp, "input_files")), 3);
        assert_int_equal(json_integer_value(json_object_get(grp, "rows")), 3);
      }
      json_decref(j);
      tu_result_free(&r);
    }
    tu_sh(&r,
          "'%s' scan '%s' --format ndjson --columns id,a,b | sort > '%s/got' && "
          "cmp '%s/got' '%s/want'",
          INLET_BIN, f->table, f->dir, f->dir, f->dir);
    if (r.status != 0) fail_msg("read back differs (pass %d): %s %s", pass, r.out, r.err);
    tu_result_free(&r);
  }
}

/* The same from a Redis stream: the bad entry is a dead letter, the stream
 * goes on, a second run finds nothing new (it stopped nothing for good). */
static void test_partition_value__too_long_from_redis_is_rejected_record(void **state) {
  fx *f = *state;
  tu_result r;
  tu_sh(&r, "command -v redis-server");
  assert_int_equal(r.status, 0); /* scripts/install-deps.sh test installs it */
  tu_result_free(&r);
  int port = free_port();
  assert_true(port > 0);
  tu_sh(&r,
        "redis-server --port %d --bind 127.0.0.1 --save '' --appendonly no --daemonize yes "
        "--dir '%s' --pidfile '%s/redis.pid' >/dev/null && "
        "for i in $(seq 100); do redis-cli -p %d ping >/dev/null 2>&1 && break; sleep 0.05; done",
        port, f->dir, f->dir, port);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  char *a300 = repeat('a', 300);
  tu_sh(&r,
        "redis-cli -p %d XADD events '*' data '{\"id\":1,\"k\":\"x\"}' >/dev/null && "
        "redis-cli -p %d XADD events '*' data '{\"id\":2,\"k\":\"%s\"}' >/dev/null && "
        "redis-cli -p %d XADD events '*' data '{\"id\":3,\"k\":\"y\"}' >/dev/null",
        port, port, a300, port);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  for (int run = 0; run < 2; run++) {
    tu_sh(&r, "'%s' ingest '%s' --source redis://127.0.0.1:%d/events --once --app-id R", INLET_BIN,
          f->table, port);
    if (r.status != 0) fail_msg("ingest failed (%d): %s", r.status, r.err);
    tu_result_free(&r);
  }
  assert_int_equal(count_rows(f->table), 2);
  tu_sh(&r, "cat '%s'/_errors/R/*.ndjson", f->table);
  assert_non_null(strstr(r.out, "over the 255-byte limit"));
  assert_non_null(strstr(r.out, a300));
  tu_result_free(&r);
  tu_sh(&r, "kill $(cat '%s/redis.pid')", f->dir);
  tu_result_free(&r);
  free(a300);
}

/* `append` reports the record's line and stops; --skip-bad skips it. CSV
 * input too, and Parquet input names the row. */
static void test_partition_value__append_reports_record(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  char *a300 = repeat('a', 300);
  FILE *fp = fopen(f->src, "w");
  fprintf(fp, "{\"id\":1,\"k\":\"x\"}\n\n{\"id\":2,\"k\":\"%s\"}\n{\"id\":3,\"k\":\"y\"}\n", a300);
  fclose(fp);
  tu_result r;
  tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, f->table, f->src);
  assert_clean_error(&r, "line 3: partition column \"k\"");
  tu_result_free(&r);
  assert_int_equal(table_version(f->table), 0);
  tu_sh(&r, "find '%s' -name '*.parquet' | wc -l", f->table);
  assert_int_equal(strtoll(r.out, NULL, 10), 0);
  tu_result_free(&r);
  tu_sh(&r, "'%s' append '%s' '%s' --skip-bad", INLET_BIN, f->table, f->src);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "appended 2 rows"));
  assert_non_null(strstr(r.err, "line 3: skipped bad record: partition column \"k\""));
  tu_result_free(&r);
  /* CSV. */
  char csv[700];
  snprintf(csv, sizeof csv, "%s/in.csv", f->dir);
  fp = fopen(csv, "w");
  fprintf(fp, "id,k\n4,z\n5,%s\n", a300);
  fclose(fp);
  tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, f->table, csv);
  assert_clean_error(&r, "line 3: partition column \"k\"");
  tu_result_free(&r);
  /* Parquet: the row group and row. */
  tu_sh(&r, "'%s' parquet convert '%s' '%s/in.parquet' --schema 'id long, k string'", INLET_BIN,
        f->src, f->dir);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  tu_sh(&r, "'%s' append '%s' '%s/in.parquet'", INLET_BIN, f->table, f->dir);
  assert_clean_error(&r, "row group 0: row 1: partition column \"k\"");
  tu_result_free(&r);
  assert_int_equal(count_rows(f->table), 2);
  free(a300);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_partition_crash__data_file_create_failure_is_clean_error,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_crash__table_deleted_under_follow_ingester,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_crash__read_only_filesystem_is_clean_error,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_partition_value__too_long_is_rejected_record_and_ingest_goes_on, setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_value__too_long_from_redis_is_rejected_record,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_value__column_name_too_long_refused_by_create,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_value__limit_counts_escaped_bytes, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_partition_value__special_bytes_escape_and_read_back,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_value__append_reports_record, setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_value__look_alike_values_stay_apart, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
