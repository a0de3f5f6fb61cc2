/*
 * Commit cost as a table grows (issue 12, "Costs that grow with the table"):
 * one-row commits to a table of 20,000 live files and commits, next to the
 * same commits to a new table, measured side by side in one run and
 * reported as ratios.
 *
 * Two tables of the same schema (the seed-shaped events of ingest_bench.c):
 *   new  created, one one-row append: 1 live file;
 *   big  created, one real one-row append, then FILES-1 more commits of one
 *        file each, synthesised (the append's add line with a fresh path,
 *        its data file hard-linked under that name, no fsync), then a
 *        checkpoint at the last version as a writer makes every
 *        delta.checkpointInterval commits: FILES live files, FILES commits.
 *
 * Phase 1, library: one warm handle per table (as a long-lived stream
 * holds); each round appends one row to each table (inlet_table_append) and
 * takes one floor sample (temp write + fsync + link + dir fsync in an empty
 * directory), in an order that rotates every round, so both tables see the
 * same disk conditions. Per table: wall time and CPU time (getrusage) per
 * commit.
 *
 * Phase 2, `inlet ingest TABLE --source file:SRC --follow --max-rows 1`: one
 * ingester process per table, running the whole phase; each round appends one
 * record to each table's source file (rotating order) and waits for the
 * ingester's batch event (--json on a pipe). Per batch: the ingester's CPU
 * time (/proc/PID/schedstat, ns), and the wall time from the write to the
 * event, which includes up to 100 ms of the file source's polling at end of
 * file (the same distribution for both tables), so CPU is the figure to read.
 *
 * Every 10th version (delta.checkpointInterval) also writes a checkpoint of
 * all live files: O(files) by nature, amortised over 10 commits. The report
 * gives those commits' mean separately from the others'.
 *
 *   growth_bench DIR INLET [ROUNDS] [FILES]   (defaults 200 rounds, 20000 files)
 *
 * INLET is the `inlet` binary. Uses only the public API plus POSIX.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "inlet/inlet.h"

#define SCHEMA "event_id long, user string, amount double, event_time timestamp"

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "growth_bench: %s: %s\n", what,
          err ? inlet_errmsg(err) : (errno ? strerror(errno) : "failed"));
  exit(1);
}

/* The NDJSON record of event @p i (one line with its newline). */
static int record(char *out, size_t cap, int64_t i) {
  uint32_t h = (uint32_t)((uint64_t)i * 2654435761u);
  uint32_t cents = (h >> 4) % 1000000;
  return snprintf(out, cap,
                  "{\"event_id\":%lld,\"user\":\"user_%u\",\"amount\":%u.%02u,"
                  "\"event_time\":\"2023-11-14T22:13:20.%06uZ\"}\n",
                  (long long)i, (h >> 8) % 1000, cents / 100, cents % 100, h % 1000000);
}

static void one_row(inlet_batch *b, inlet_text_reader *rd, int64_t i) {
  inlet_error err = INLET_ERROR_INIT;
  char line[256];
  int n = record(line, sizeof line, i);
  memset(b, 0, sizeof *b);
  if (inlet_batch_init(b, inlet_text_reader_schema(rd), &err) < 0 ||
      inlet_text_reader_append(rd, b, line, (size_t)n - 1, &err) < 0)
    die("batch", &err);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die(path, NULL);
  static char buf[1 << 16];
  *len = fread(buf, 1, sizeof buf - 1, f);
  buf[*len] = '\0';
  fclose(f);
  return buf;
}

/* Synthesises commits 2..files of @p table, each adding one file: the add
 * line of commit 1 with a fresh path, whose data file is a hard link to
 * commit 1's. */
static void synth_files(const char *table, int64_t files) {
  char p1[4300];
  snprintf(p1, sizeof p1, "%s/_delta_log/%020d.json", table, 1);
  size_t len;
  char *log = slurp(p1, &len);
  char *add = strstr(log, "{\"add\":{\"path\":\"");
  if (!add) die("commit 1 has no add", NULL);
  char *nl = strchr(add, '\n');
  if (nl) *nl = '\0';
  char *path = add + strlen("{\"add\":{\"path\":\"");
  char *path_end = strchr(path, '"');
  if (!path_end) die("commit 1: bad add path", NULL);
  char data[4400];
  snprintf(data, sizeof data, "%s/%.*s", table, (int)(path_end - path), path);
  for (int64_t v = 2; v <= files; v++) {
    char name[64], link_to[4400], commit[4300];
    snprintf(name, sizeof name, "part-%05lld-synth-c000.snappy.parquet", (long long)v);
    snprintf(link_to, sizeof link_to, "%s/%s", table, name);
    if (link(data, link_to) != 0) die("link data file", NULL);
    snprintf(commit, sizeof commit, "%s/_delta_log/%020lld.json", table, (long long)v);
    FILE *f = fopen(commit, "wx");
    if (!f) die("synth commit", NULL);
    fprintf(f,
            "{\"commitInfo\":{\"timestamp\":%lld,\"operation\":\"WRITE\",\"operationParameters\":"
            "{\"mode\":\"Append\",\"partitionBy\":\"[]\"},\"readVersion\":%lld,"
            "\"isBlindAppend\":true,\"engineInfo\":\"growth_bench\"}}\n"
            "{\"add\":{\"path\":\"%s\"%s\n",
            (long long)(1700000000000 + v), (long long)(v - 1), name, path_end + 1);
    if (fclose(f) != 0) die("synth commit", NULL);
  }
}

typedef struct tbl {
  const char *label;
  char path[4200];
  int64_t files;
  inlet_table *t;        /* phase 1 handle */
  double *lat, *cpu;     /* phase 1, per round */
  int64_t *ver;          /* phase 1 commit versions */
  double *i_lat, *i_cpu; /* phase 2, per round */
  int64_t *i_ver;
  char src[4300];
  pid_t pid;
  FILE *events;
} tbl;

static void build(tbl *b, const char *dir, const inlet_schema *s, inlet_text_reader *rd) {
  inlet_error err = INLET_ERROR_INIT;
  snprintf(b->path, sizeof b->path, "%s/%s", dir, b->label);
  inlet_table *t = NULL;
  if (inlet_table_create(&t, b->path, s, NULL, &err) < 0) die("create", &err);
  inlet_batch bt;
  one_row(&bt, rd, 0);
  if (inlet_table_append(t, &bt, 1, NULL, NULL, &err) < 0) die("append", &err);
  inlet_batch_reset(&bt);
  inlet_table_free(t);
  if (b->files > 1) {
    synth_files(b->path, b->files);
    if (inlet_table_open(&t, b->path, &err) < 0) die("open", &err);
    int64_t cv = -1;
    if (inlet_table_checkpoint(t, &cv, &err) < 0) die("checkpoint", &err);
    inlet_table_free(t);
  }
}

/* ns of CPU the process has used (/proc/PID/schedstat). */
static double proc_cpu_ms(pid_t pid) {
  char p[64];
  snprintf(p, sizeof p, "/proc/%d/schedstat", (int)pid);
  FILE *f = fopen(p, "r");
  unsigned long long ns = 0;
  if (!f || fscanf(f, "%llu", &ns) != 1) die("read schedstat", NULL);
  fclose(f);
  return (double)ns / 1e6;
}

/* Starts `inlet ingest` on @p b's table, following its source file. */
static void start_ingester(tbl *b, const char *inlet, const char *dir) {
  snprintf(b->src, sizeof b->src, "%s/%s.ndjson", dir, b->label);
  FILE *f = fopen(b->src, "w");
  if (!f || fclose(f) != 0) die("source file", NULL);
  int fds[2];
  if (pipe(fds) != 0) die("pipe", NULL);
  char source[4400];
  snprintf(source, sizeof source, "file:%s", b->src);
  b->pid = fork();
  if (b->pid < 0) die("fork", NULL);
  if (b->pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl(inlet, inlet, "ingest", b->path, "--source", source, "--follow", "--max-rows", "1",
          "--json", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  b->events = fdopen(fds[0], "r");
  if (!b->events) die("fdopen", NULL);
  char line[4096];
  if (!fgets(line, sizeof line, b->events) || !strstr(line, "\"started\""))
    die("ingest start", NULL);
}

/* Reads events until the next batch; returns its version. */
static int64_t wait_batch(tbl *b) {
  char line[8192];
  while (fgets(line, sizeof line, b->events)) {
    if (!strstr(line, "\"event\":\"batch\"")) continue;
    const char *v = strstr(line, "\"version\":");
    return v ? atoll(v + 10) : -1;
  }
  die("ingester ended", NULL);
  return -1;
}

static void stop_ingester(tbl *b) {
  kill(b->pid, SIGTERM);
  int st;
  waitpid(b->pid, &st, 0);
  fclose(b->events);
}

typedef struct summary {
  double p50, p90, mean, cpu_p50, cpu_mean, plain_mean, ckpt_mean, plain_cpu, ckpt_cpu;
  int n_ckpt;
} summary;

static summary summarise(double *lat, double *cpu, const int64_t *ver, int n) {
  summary s;
  memset(&s, 0, sizeof s);
  double ps = 0, cs = 0, pc = 0, cc = 0;
  int np = 0;
  for (int i = 0; i < n; i++) {
    if (ver[i] % 10 == 0) {
      cs += lat[i];
      cc += cpu[i];
      s.n_ckpt++;
    } else {
      ps += lat[i];
      pc += cpu[i];
      np++;
    }
  }
  s.plain_mean = np ? ps / np : 0;
  s.plain_cpu = np ? pc / np : 0;
  s.ckpt_mean = s.n_ckpt ? cs / s.n_ckpt : 0;
  s.ckpt_cpu = s.n_ckpt ? cc / s.n_ckpt : 0;
  s.mean = mean(lat, n);
  s.cpu_mean = mean(cpu, n);
  s.p90 = pct(lat, n, 0.9);
  s.p50 = pct(lat, n, 0.5);
  s.cpu_p50 = pct(cpu, n, 0.5);
  return s;
}

static void report(const char *what, tbl *t, int n, bool ingest) {
  summary a = ingest ? summarise(t[0].i_lat, t[0].i_cpu, t[0].i_ver, n)
                     : summarise(t[0].lat, t[0].cpu, t[0].ver, n);
  summary b = ingest ? summarise(t[1].i_lat, t[1].i_cpu, t[1].i_ver, n)
                     : summarise(t[1].lat, t[1].cpu, t[1].ver, n);
  printf("\n%s, %d rounds (ms)\n", what, n);
  printf("%-22s %8s %8s %8s %8s %8s %10s %10s %10s %10s\n", "table", "p50", "p90", "mean",
         "cpu p50", "cpu mean", "plain mean", "plain cpu", "ckpt mean", "ckpt cpu");
  for (int k = 0; k < 2; k++) {
    summary *s = k ? &b : &a;
    char label[64];
    snprintf(label, sizeof label, "%s (%lld files)", t[k].label, (long long)t[k].files);
    printf("%-22s %8.2f %8.2f %8.2f %8.3f %8.3f %10.2f %10.3f %10.2f %10.3f\n", label, s->p50,
           s->p90, s->mean, s->cpu_p50, s->cpu_mean, s->plain_mean, s->plain_cpu, s->ckpt_mean,
           s->ckpt_cpu);
  }
  printf("ratio big/new: p50 %.3fx, mean %.3fx, cpu p50 %.3fx, cpu mean %.3fx, "
         "plain-commit mean %.3fx (cpu %.3fx), checkpoint-commit mean %.3fx (cpu %.3fx; %d "
         "and %d of them)\n",
         b.p50 / a.p50, b.mean / a.mean, b.cpu_p50 / a.cpu_p50, b.cpu_mean / a.cpu_mean,
         b.plain_mean / a.plain_mean, b.plain_cpu / a.plain_cpu,
         a.ckpt_mean > 0 ? b.ckpt_mean / a.ckpt_mean : 0,
         a.ckpt_cpu > 0 ? b.ckpt_cpu / a.ckpt_cpu : 0, a.n_ckpt, b.n_ckpt);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: growth_bench DIR INLET [ROUNDS] [FILES]\n");
    return 2;
  }
  const char *dir = argv[1], *inlet = argv[2];
  int rounds = argc > 3 ? atoi(argv[3]) : 200;
  int64_t files = argc > 4 ? atoll(argv[4]) : 20000;
  if (rounds < 1 || files < 2) die("ROUNDS >= 1 and FILES >= 2", NULL);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) die(dir, NULL);
  char empty[4200];
  snprintf(empty, sizeof empty, "%s/floor-empty", dir);
  mkdir(empty, 0755);
  int empty_fd = open(empty, O_RDONLY | O_DIRECTORY);
  if (empty_fd < 0) die("open floor dir", NULL);

  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, SCHEMA, &err) < 0) die("schema", &err);
  inlet_text_reader *rd = NULL;
  if (inlet_text_reader_open_memory(&rd, "", 0, &s, NULL, &err) < 0) die("reader", &err);
  tbl t[2];
  memset(t, 0, sizeof t);
  t[0].label = "new";
  t[0].files = 1;
  t[1].label = "big";
  t[1].files = files;
  double t0 = now_ms();
  for (int k = 0; k < 2; k++) {
    build(&t[k], dir, &s, rd);
    t[k].lat = calloc((size_t)rounds, sizeof(double));
    t[k].cpu = calloc((size_t)rounds, sizeof(double));
    t[k].ver = calloc((size_t)rounds, sizeof(int64_t));
    t[k].i_lat = calloc((size_t)rounds, sizeof(double));
    t[k].i_cpu = calloc((size_t)rounds, sizeof(double));
    t[k].i_ver = calloc((size_t)rounds, sizeof(int64_t));
    if (!t[k].lat || !t[k].cpu || !t[k].ver || !t[k].i_lat || !t[k].i_cpu || !t[k].i_ver)
      die("out of memory", NULL);
    if (inlet_table_open(&t[k].t, t[k].path, &err) < 0) die("open", &err);
  }
  printf("tables built in %.1f s: new (1 file), big (%lld files and commits, checkpointed)\n",
         (now_ms() - t0) / 1e3, (long long)files);

  /* Warm the handles: a stream's writer has made commits before. */
  for (int k = 0; k < 2; k++) {
    inlet_batch b;
    one_row(&b, rd, 1);
    if (inlet_table_append(t[k].t, &b, 1, NULL, NULL, &err) < 0) die("append", &err);
    inlet_batch_reset(&b);
  }
  double *flr = calloc((size_t)rounds, sizeof(double));
  if (!flr) die("out of memory", NULL);
  for (int i = 0; i < rounds; i++) {
    inlet_batch b;
    one_row(&b, rd, 10 + i);
    for (int j = 0; j < 3; j++) {
      int slot = (i + j) % 3;
      if (slot == 0) {
        if ((flr[i] = floor_once(empty_fd, i)) < 0) die("floor sample", NULL);
        continue;
      }
      tbl *x = &t[slot - 1];
      double c0 = cpu_ms(), w0 = now_ms();
      int64_t v = -1;
      if (inlet_table_append(x->t, &b, 1, NULL, &v, &err) < 0) die("append", &err);
      x->lat[i] = now_ms() - w0;
      x->cpu[i] = cpu_ms() - c0;
      x->ver[i] = v;
    }
    inlet_batch_reset(&b);
  }
  floor_cleanup(empty_fd, rounds);
  printf("commit floor (temp write + fsync + link + dir fsync), empty directory: p50 %.2f ms, "
         "mean %.2f ms\n",
         pct(flr, rounds, 0.5), mean(flr, rounds));
  report("library: inlet_table_append of one row through a warm handle", t, rounds, false);
  for (int k = 0; k < 2; k++)
    inlet_table_free(t[k].t);

  for (int k = 0; k < 2; k++)
    start_ingester(&t[k], inlet, dir);
  /* The first batch of a fresh ingester loads the table: not a steady state. */
  for (int k = 0; k < 2; k++) {
    char line[256];
    int n = record(line, sizeof line, 5);
    FILE *f = fopen(t[k].src, "a");
    if (!f || fwrite(line, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) die("source", NULL);
    wait_batch(&t[k]);
  }
  for (int i = 0; i < rounds; i++) {
    for (int j = 0; j < 2; j++) {
      tbl *x = &t[(i + j) % 2];
      char line[256];
      int n = record(line, sizeof line, 100000 + i);
      double c0 = proc_cpu_ms(x->pid), w0 = now_ms();
      FILE *f = fopen(x->src, "a");
      if (!f || fwrite(line, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) die("source", NULL);
      x->i_ver[i] = wait_batch(x);
      x->i_lat[i] = now_ms() - w0;
      x->i_cpu[i] = proc_cpu_ms(x->pid) - c0;
    }
  }
  for (int k = 0; k < 2; k++)
    stop_ingester(&t[k]);
  report("inlet ingest --follow --max-rows 1: one record per batch (cpu = the ingester's)", t,
         rounds, true);
  printf("(plain = commits at versions not divisible by 10; ckpt = the others, which also write a "
         "checkpoint of every live file)\n");

  for (int k = 0; k < 2; k++) {
    free(t[k].lat);
    free(t[k].cpu);
    free(t[k].ver);
    free(t[k].i_lat);
    free(t[k].i_cpu);
    free(t[k].i_ver);
  }
  free(flr);
  close(empty_fd);
  inlet_text_reader_free(rd);
  inlet_schema_reset(&s);
  return 0;
}
