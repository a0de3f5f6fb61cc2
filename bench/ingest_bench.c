/*
 * Ingest benchmark (issue 5, "Operability", bench/): end-to-end NDJSON file
 * -> Delta table throughput of the real `inlet ingest` binary with its
 * default batch settings, measured from outside (wall time, the child's user
 * + system CPU time and peak RSS from wait4), then a check of the table's log:
 * every commit holds at most 1,000,000 rows and carries the exactly-once txn
 * actions (Delta PROTOCOL.md "Transaction Identifiers").
 *
 *   ingest_bench gen FILE ROWS          seed-shaped NDJSON events
 *   ingest_bench run INLET TABLE FILE [THREADS]
 *                                       create TABLE, time `inlet ingest` (with
 *                                       --threads THREADS when given, else the
 *                                       CLI's default: online CPUs)
 *
 * Row i of the data uses h = (i * 2654435761) mod 2^32, the formulas of
 * parquet_bench.c and duckdb_side.mjs: event_id i, user "user_" + (h >> 8) %
 * 1000, amount ((h >> 4) % 1000000) / 100, event_time 1700000000 s + i ms +
 * h % 1000 us as an ISO-8601 UTC timestamp. Prints one JSON line.
 *
 * Kafka (issue 15, bench/kafka_bench.sh), against librdkafka's mock cluster
 * (tests/tools/kafka_mock: 3 brokers, topic "events" of 6 partitions):
 *
 *   ingest_bench kafka MOCK INLET DIR EVENTS
 *       produces EVENTS events into the mock cluster and writes the same
 *       values to DIR/events.ndjson, then times `inlet ingest --once` from
 *       the cluster and `inlet ingest` from the file, each into a new table
 *       (default batch settings). EVENTS is at most 240,000: the mock
 *       broker keeps about 5 MB a partition and deletes older messages.
 *   ingest_bench kafka-long MOCK INLET DIR EVENTS
 *       one `inlet ingest` following the cluster while EVENTS events are
 *       produced in rounds (never more than 30,000 a partition ahead of the
 *       table); peak RSS and CPU time of the whole run.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void civil(int64_t days, int *y, int *m, int *d) {
  /* days since 1970-01-01 -> proleptic Gregorian date (H. Hinnant's algorithm) */
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = (int)(yoe + era * 400 + (*m <= 2));
}

static int gen(const char *path, int64_t rows) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  static char buf[1 << 20];
  setvbuf(f, buf, _IOFBF, sizeof buf);
  for (int64_t i = 0; i < rows; i++) {
    uint32_t h = (uint32_t)((uint64_t)i * 2654435761u);
    int64_t us = INT64_C(1700000000000000) + i * 1000 + h % 1000;
    int64_t secs = us / 1000000, frac = us % 1000000;
    int y, mo, d;
    civil(secs / 86400, &y, &mo, &d);
    int64_t sod = secs % 86400;
    uint32_t cents = (h >> 4) % 1000000;
    fprintf(f,
            "{\"event_id\":%" PRId64 ",\"user\":\"user_%u\",\"amount\":%u.%02u,"
            "\"event_time\":\"%04d-%02d-%02dT%02d:%02d:%02d.%06dZ\"}\n",
            i, (h >> 8) % 1000, cents / 100, cents % 100, y, mo, d, (int)(sod / 3600),
            (int)(sod / 60 % 60), (int)(sod % 60), (int)frac);
  }
  if (fclose(f) != 0) {
    perror(path);
    return 1;
  }
  struct stat st;
  if (stat(path, &st) != 0) return 1;
  printf("{\"side\":\"gen\",\"rows\":%" PRId64 ",\"bytes\":%lld}\n", rows, (long long)st.st_size);
  return 0;
}

/* Runs argv, returns its exit status; *ru gets its resource usage. */
static int run_child(char *const argv[], struct rusage *ru, int quiet_stdout) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (quiet_stdout) {
      FILE *n = freopen("/dev/null", "w", stdout);
      (void)n;
    }
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  while (wait4(pid, &st, 0, ru) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Scans every commit of TABLE/_delta_log: rows per commit (numRecords of its
 * add actions) and whether it has the ingester's txn actions. */
static int check_log(const char *table, int64_t *commits, int64_t *rows, int64_t *max_rows,
                     int64_t *without_txn) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/_delta_log", table);
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *e;
  *commits = *rows = *max_rows = *without_txn = 0;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n != 25 || strcmp(e->d_name + 20, ".json") != 0) continue;
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    FILE *f = fopen(p, "r");
    if (!f) continue;
    int64_t c_rows = 0;
    int has_txn = 0, has_add = 0;
    static char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "{\"txn\"", 6) == 0) has_txn = 1;
      if (strncmp(line, "{\"add\"", 6) == 0) {
        has_add = 1;
        const char *nr = strstr(line, "numRecords");
        if (nr) {
          nr += strlen("numRecords");
          while (*nr && (*nr < '0' || *nr > '9'))
            nr++;
          c_rows += strtoll(nr, NULL, 10);
        }
      }
    }
    fclose(f);
    if (!has_add) continue; /* e.g. the create commit */
    (*commits)++;
    *rows += c_rows;
    if (c_rows > *max_rows) *max_rows = c_rows;
    if (!has_txn) (*without_txn)++;
  }
  closedir(d);
  return 0;
}

static int run(char *inlet, char *table, const char *file, const char *threads) {
  struct stat st;
  if (stat(file, &st) != 0) {
    perror(file);
    return 1;
  }
  struct rusage ru;
  char *create[] = {inlet,
                    "create",
                    table,
                    "--schema",
                    "event_id long not null, user string, amount double, event_time timestamp",
                    NULL};
  if (run_child(create, &ru, 1) != 0) {
    fprintf(stderr, "ingest_bench: inlet create %s failed\n", table);
    return 1;
  }
  char src[4096];
  snprintf(src, sizeof src, "file:%s", file);
  char threads_arg[32], threads_json[32] = "null";
  snprintf(threads_arg, sizeof threads_arg, "%d", threads ? atoi(threads) : 0);
  if (threads) snprintf(threads_json, sizeof threads_json, "%s", threads_arg);
  char *ingest[] = {inlet,     "ingest",    table,       "--source", src,
                    "--quiet", "--threads", threads_arg, NULL};
  if (threads == NULL) ingest[6] = NULL;
  double t0 = now_s();
  int rc = run_child(ingest, &ru, 1);
  double secs = now_s() - t0;
  if (rc != 0) {
    fprintf(stderr, "ingest_bench: inlet ingest exited %d\n", rc);
    return 1;
  }
  double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
  int64_t commits, rows, max_rows, without_txn;
  if (check_log(table, &commits, &rows, &max_rows, &without_txn) != 0) {
    fprintf(stderr, "ingest_bench: cannot read %s/_delta_log\n", table);
    return 1;
  }
  printf("{\"side\":\"inlet\",\"op\":\"ingest\",\"threads\":%s,\"rows\":%" PRId64 ",\"bytes\":%lld,"
         "\"seconds\":%.3f,\"cpu_seconds\":%.3f,\"user_seconds\":%.3f,"
         "\"rows_per_s_wall\":%.0f,\"rows_per_s_cpu\":%.0f,\"mb_per_s_wall\":%.1f,"
         "\"mb_per_s_cpu\":%.1f,\"max_rss_kb\":%ld,\"commits\":%" PRId64
         ",\"max_rows_per_commit\":%" PRId64 ",\"commits_without_txn\":%" PRId64 "}\n",
         threads_json, rows, (long long)st.st_size, secs, cpu,
         (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6, (double)rows / secs,
         (double)rows / cpu, (double)st.st_size / 1e6 / secs, (double)st.st_size / 1e6 / cpu,
         ru.ru_maxrss, commits, max_rows, without_txn);
  return (max_rows > 1000000 || without_txn > 0) ? 2 : 0;
}

/* ---- Kafka ----------------------------------------------------------------------- */

typedef struct mock {
  pid_t pid;
  FILE *to, *from;
  char bootstrap[512];
} mock;

static int mock_start(mock *m, const char *path) {
  int in[2], out[2];
  if (pipe(in) < 0 || pipe(out) < 0) return -1;
  m->pid = fork();
  if (m->pid < 0) return -1;
  if (m->pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execl(path, path, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  m->to = fdopen(in[1], "w");
  m->from = fdopen(out[0], "r");
  char line[1024];
  if (!fgets(line, sizeof line, m->from) || sscanf(line, "bootstrap %511s", m->bootstrap) != 1) {
    fprintf(stderr, "ingest_bench: %s did not start\n", path);
    return -1;
  }
  return 0;
}

/* Sends one command; 0 on its "ok" answer. */
static int mock_cmd(mock *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int mock_cmd(mock *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(m->to, fmt, ap);
  va_end(ap);
  fputc('\n', m->to);
  fflush(m->to);
  char line[8192];
  if (!fgets(line, sizeof line, m->from)) return -1;
  if (strncmp(line, "ok", 2) == 0) return 0;
  fprintf(stderr, "ingest_bench: kafka_mock: %s", line);
  return -1;
}

static void mock_stop(mock *m) {
  fclose(m->to);
  fclose(m->from);
  int st;
  waitpid(m->pid, &st, 0);
}

static int create_table(char *inlet, char *table) {
  struct rusage ru;
  char *create[] = {
      inlet, "create", table, "--schema", "id long not null, k string, v long, ts timestamp", NULL};
  if (run_child(create, &ru, 1) == 0) return 0;
  fprintf(stderr, "ingest_bench: inlet create %s failed\n", table);
  return -1;
}

static double cpu_of(const struct rusage *ru) {
  return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
         (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* Times one `inlet ingest` (argv) into @p table; prints a JSON object and
 * returns the table's rows (or -1). */
static int64_t timed_ingest(const char *side, char *const argv[], const char *table) {
  struct rusage ru;
  fflush(stdout); /* the child would write what is buffered again */
  double t0 = now_s();
  int rc = run_child(argv, &ru, 1);
  double secs = now_s() - t0;
  int64_t commits, rows, max_rows, without_txn;
  if (rc != 0 || check_log(table, &commits, &rows, &max_rows, &without_txn) != 0) {
    fprintf(stderr, "ingest_bench: %s ingest exited %d\n", side, rc);
    return -1;
  }
  double cpu = cpu_of(&ru);
  printf("\"%s\":{\"rows\":%" PRId64 ",\"seconds\":%.3f,\"cpu_seconds\":%.3f,"
         "\"events_per_s_wall\":%.0f,\"events_per_s_cpu\":%.0f,\"max_rss_kb\":%ld,"
         "\"commits\":%" PRId64 ",\"commits_without_txn\":%" PRId64 "}",
         side, rows, secs, cpu, (double)rows / secs, (double)rows / cpu, ru.ru_maxrss, commits,
         without_txn);
  return without_txn ? -1 : rows;
}

static int kafka_rate(const char *mock_path, char *inlet, const char *dir, int64_t events) {
  if (events < 1 || events > 240000) {
    fprintf(stderr, "ingest_bench: kafka: 1 .. 240000 events (the mock broker's retention)\n");
    return 2;
  }
  mock m;
  if (mock_start(&m, mock_path) < 0) return 1;
  char ktable[4096], ftable[4096], file[4096], src[1024], fsrc[4200];
  snprintf(ktable, sizeof ktable, "%s/kafka-table", dir);
  snprintf(ftable, sizeof ftable, "%s/file-table", dir);
  snprintf(file, sizeof file, "%s/events.ndjson", dir);
  snprintf(src, sizeof src, "kafka://%s/events", m.bootstrap);
  snprintf(fsrc, sizeof fsrc, "file:%s", file);
  int rc = 1;
  if (mock_cmd(&m, "produce events 0 %lld", (long long)events) < 0 ||
      mock_cmd(&m, "ndjson %s 0 %lld", file, (long long)events) < 0 ||
      create_table(inlet, ktable) < 0 || create_table(inlet, ftable) < 0)
    goto done;
  char *kafka[] = {inlet,
                   "ingest",
                   ktable,
                   "--source",
                   src,
                   "--once",
                   "--quiet",
                   "--kafka-property",
                   "session.timeout.ms=6000",
                   NULL};
  char *fromfile[] = {inlet, "ingest", ftable, "--source", fsrc, "--quiet", NULL};
  printf("{\"events\":%lld,", (long long)events);
  int64_t kr = timed_ingest("kafka", kafka, ktable);
  printf(",");
  /* The same run again with nothing new: the fixed cost of joining the
   * group (an empty group's first rebalance waits 3 s, as a broker's
   * group.initial.rebalance.delay.ms does), reading the watermarks and
   * leaving. The mock broker keeps a group that its last member left
   * "joining" for the session timeout less 1 s (a real broker empties it):
   * wait that out first. */
  sleep(6);
  int64_t er = kr < 0 ? -1 : timed_ingest("kafka_nothing_new", kafka, ktable);
  printf(",");
  int64_t fr = er < 0 ? -1 : timed_ingest("file", fromfile, ftable);
  printf("}\n");
  fflush(stdout);
  if (kr != events || fr != events) {
    fprintf(stderr, "ingest_bench: rows kafka %lld, file %lld, want %lld\n", (long long)kr,
            (long long)fr, (long long)events);
    goto done;
  }
  rc = 0;
done:
  mock_stop(&m);
  return rc;
}

static int kafka_long(const char *mock_path, char *inlet, const char *dir, int64_t events) {
  const int64_t round = 60000, ahead = 180000; /* 30,000 a partition */
  mock m;
  if (mock_start(&m, mock_path) < 0) return 1;
  char table[4096], src[1024];
  snprintf(table, sizeof table, "%s/kafka-long", dir);
  snprintf(src, sizeof src, "kafka://%s/events", m.bootstrap);
  int rc = 1;
  if (create_table(inlet, table) < 0) goto done;
  char *argv[] = {inlet, "ingest", table, "--source", src, "--quiet", NULL};
  fflush(stdout);
  double t0 = now_s();
  pid_t pid = fork();
  if (pid == 0) {
    FILE *n = freopen("/dev/null", "w", stdout);
    (void)n;
    execv(argv[0], argv);
    _exit(127);
  }
  int64_t produced = 0, rows = 0, commits = 0, max_rows, without_txn;
  while (rows < events) {
    if (check_log(table, &commits, &rows, &max_rows, &without_txn) != 0) break;
    if (produced < events && produced - rows + round <= ahead) {
      int64_t c = events - produced < round ? events - produced : round;
      if (mock_cmd(&m, "produce events %lld %lld", (long long)produced, (long long)c) < 0) break;
      produced += c;
    } else {
      struct timespec ts = {0, 100000000L};
      nanosleep(&ts, NULL);
    }
    if (now_s() - t0 > 3600) break;
  }
  double secs = now_s() - t0;
  fflush(stdout);
  kill(pid, SIGTERM);
  struct rusage ru;
  int st = 0;
  while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
  }
  check_log(table, &commits, &rows, &max_rows, &without_txn);
  double cpu = cpu_of(&ru);
  printf("{\"events\":%lld,\"rows\":%" PRId64 ",\"seconds\":%.3f,\"cpu_seconds\":%.3f,"
         "\"events_per_s_wall\":%.0f,\"events_per_s_cpu\":%.0f,\"max_rss_kb\":%ld,"
         "\"commits\":%" PRId64 ",\"commits_without_txn\":%" PRId64 ",\"exit\":%d}\n",
         (long long)events, rows, secs, cpu, (double)rows / secs, (double)rows / cpu, ru.ru_maxrss,
         commits, without_txn, WIFEXITED(st) ? WEXITSTATUS(st) : 128);
  rc = rows == events && without_txn == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
done:
  mock_stop(&m);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "gen") == 0) return gen(argv[2], strtoll(argv[3], NULL, 10));
  if (argc == 5 && strcmp(argv[1], "run") == 0) return run(argv[2], argv[3], argv[4], NULL);
  if (argc == 6 && strcmp(argv[1], "run") == 0 &&
      strspn(argv[5], "0123456789") == strlen(argv[5]) && argv[5][0] != '\0')
    return run(argv[2], argv[3], argv[4], argv[5]);
  if (argc == 6 && strcmp(argv[1], "kafka") == 0)
    return kafka_rate(argv[2], argv[3], argv[4], strtoll(argv[5], NULL, 10));
  if (argc == 6 && strcmp(argv[1], "kafka-long") == 0)
    return kafka_long(argv[2], argv[3], argv[4], strtoll(argv[5], NULL, 10));
  fprintf(stderr, "usage: ingest_bench gen FILE ROWS | run INLET TABLE FILE [THREADS]\n"
                  "       ingest_bench kafka|kafka-long KAFKA_MOCK INLET DIR EVENTS\n");
  return 2;
}
