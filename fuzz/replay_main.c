/*
 * Replay driver: runs a libFuzzer harness's LLVMFuzzerTestOneInput over
 * every file of the corpus directories (or files) given as arguments, plus
 * a few deterministic pseudo-random inputs, so each fuzzer's corpus is an
 * ordinary ctest test in sanitizer builds without clang's libFuzzer
 * (fuzz/CMakeLists.txt). A harness signals a failure by crashing or
 * aborting; the driver itself fails only when it cannot read an input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) return -1;
  /* An exact-size copy, so a harness overread is a sanitizer error. */
  uint8_t *exact = malloc(len ? len : 1);
  if (!exact) {
    free(buf);
    return -1;
  }
  memcpy(exact, buf, len);
  free(buf);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of @p dir in name order; returns the count or -1. */
static int run_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0; /* a fuzzer may have no seed corpus yet */
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **bigger = realloc(names, cap * sizeof *names);
      if (!bigger) break;
      names = bigger;
    }
    names[n++] = strdup(de->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_names);
  int count = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (run_file(path) < 0)
        count = -1;
      else if (count >= 0)
        count++;
    }
    free(names[i]);
  }
  free(names);
  return count;
}

int main(int argc, char **argv) {
  int total = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      int c = run_dir(argv[i]);
      if (c < 0)
        failed++;
      else
        total += c;
    } else if (stat(argv[i], &st) == 0) {
      if (run_file(argv[i]) < 0)
        failed++;
      else
        total++;
    }
  }
  /* Deterministic extra inputs: empty, and xorshift bytes of varied sizes. */
  LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
  total++;
  uint64_t x = 0x2545F4914F6CDD1Dull;
  for (int k = 0; k < 64; k++) {
    size_t len = 1 + (size_t)(k * 37 % 257);
    uint8_t *buf = malloc(len);
    if (!buf) return 1;
    for (size_t j = 0; j < len; j++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      buf[j] = (uint8_t)x;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    total++;
  }
  printf("%d passed, %d failed\n", total, failed);
  return failed ? 1 : 0;
}
