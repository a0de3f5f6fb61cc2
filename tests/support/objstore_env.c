/*
 * Emulator lifecycle for object-store tests (objstore_env.h).
 */
#include "objstore_env.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "storage/storage.h"
#include "testutil.h"

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  socklen_t len = sizeof a;
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  close(fd);
  return ntohs(a.sin_port);
}

void tu_emulators_start(tu_emulators *e, bool s3, bool azure) {
  memset(e, 0, sizeof *e);
  snprintf(e->dir, sizeof e->dir, "%s", tu_mkdtemp("emulators"));
  if (s3) {
    e->s3rver_port = free_port();
    e->proxy_port = free_port();
  }
  if (azure) e->azurite_port = free_port();
  int out[2];
  assert_int_equal(pipe(out), 0);
  char script[4096], p1[16], p2[16], p3[16];
  snprintf(script, sizeof script, "%s/emulators.mjs", INLET_OBJSTORE_DIR);
  snprintf(p1, sizeof p1, "%d", e->s3rver_port);
  snprintf(p2, sizeof p2, "%d", e->proxy_port);
  snprintf(p3, sizeof p3, "%d", e->azurite_port);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    char *argv[14];
    int k = 0;
    argv[k++] = (char *)INLET_NODE;
    /* s3rver encrypts ListObjectsV2 continuation tokens with DES, which
     * OpenSSL 3 keeps in its legacy provider. */
    argv[k++] = (char *)"--openssl-legacy-provider";
    argv[k++] = script;
    argv[k++] = (char *)"--dir";
    argv[k++] = e->dir;
    if (s3) {
      argv[k++] = (char *)"--s3rver-port";
      argv[k++] = p1;
      argv[k++] = (char *)"--proxy-port";
      argv[k++] = p2;
    }
    if (azure) {
      argv[k++] = (char *)"--azurite-port";
      argv[k++] = p3;
    }
    argv[k] = NULL;
    execv(INLET_NODE, argv);
    _exit(127);
  }
  setpgid(pid, pid);
  close(out[1]);
  e->pid = pid;
  /* Wait for READY; Azurite can take a minute to start on a loaded machine. */
  char buf[512];
  size_t len = 0;
  time_t deadline = time(NULL) + 300;
  while (time(NULL) < deadline) {
    struct pollfd p = {out[0], POLLIN, 0};
    int r = poll(&p, 1, 1000);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t k = read(out[0], buf + len, sizeof buf - 1 - len);
    if (k <= 0) break;
    len += (size_t)k;
    buf[len] = 0;
    if (strstr(buf, "READY")) break;
  }
  close(out[0]);
  if (!strstr(buf, "READY")) {
    tu_emulators_stop(e);
    fail_msg("object-store emulators did not start: %s", buf);
  }
}

void tu_emulators_stop(tu_emulators *e) {
  if (e->pid > 0) {
    kill(-e->pid, SIGTERM);
    int st;
    for (int i = 0; i < 100; i++) {
      if (waitpid(e->pid, &st, WNOHANG) == e->pid) {
        e->pid = 0;
        break;
      }
      usleep(50000);
    }
    if (e->pid > 0) {
      kill(-e->pid, SIGKILL);
      waitpid(e->pid, &st, 0);
    }
    e->pid = 0;
  }
  if (e->dir[0]) tu_rmtree(e->dir);
  e->dir[0] = 0;
}

typedef struct sink {
  char *data;
  size_t len;
} sink;

static size_t on_data(char *p, size_t size, size_t n, void *ud) {
  sink *s = ud;
  char *nd = realloc(s->data, s->len + size * n + 1);
  if (!nd) return 0;
  s->data = nd;
  memcpy(s->data + s->len, p, size * n);
  s->len += size * n;
  s->data[s->len] = 0;
  return size * n;
}

int tu_proxy_ctl(const tu_emulators *e, const char *method, const char *path, const char *json,
                 char **resp) {
  CURL *c = curl_easy_init();
  assert_non_null(c);
  char url[256];
  snprintf(url, sizeof url, "http://127.0.0.1:%d%s", e->proxy_port, path);
  sink s = {NULL, 0};
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  if (json) curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
  CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK) fail_msg("proxy control %s: %s", path, curl_easy_strerror(rc));
  if (resp)
    *resp = s.data;
  else
    free(s.data);
  return (int)status;
}

void tu_proxy_faults(const tu_emulators *e, const char *rules_json, int latency_ms) {
  char body[8192];
  snprintf(body, sizeof body, "{\"rules\":%s,\"latencyMs\":%d,\"seed\":7}", rules_json, latency_ms);
  assert_int_equal(tu_proxy_ctl(e, "POST", "/__proxy/faults", body, NULL), 200);
}

long tu_proxy_stat(const tu_emulators *e, const char *field) {
  char *r = NULL;
  assert_int_equal(tu_proxy_ctl(e, "GET", "/__proxy/stats", NULL, &r), 200);
  char key[64];
  snprintf(key, sizeof key, "\"%s\":", field);
  char *p = r ? strstr(r, key) : NULL;
  long v = p ? strtol(p + strlen(key), NULL, 10) : -1;
  free(r);
  return v;
}

int tu_proxy_open_uploads(const tu_emulators *e) {
  char *r = NULL;
  assert_int_equal(tu_proxy_ctl(e, "GET", "/__proxy/stats", NULL, &r), 200);
  int n = 0;
  for (char *p = r; p && (p = strstr(p, "\"id\":")); p++)
    n++;
  free(r);
  return n;
}

const char *tu_azurite_connection_string(const tu_emulators *e) {
  static char cs[512];
  snprintf(cs, sizeof cs,
           "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
           "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
           "K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:%d/devstoreaccount1;",
           e->azurite_port);
  return cs;
}

void tu_emulators_env(const tu_emulators *e) {
  char ep[64];
  snprintf(ep, sizeof ep, "http://127.0.0.1:%d", e->proxy_port);
  unsetenv("AWS_PROFILE");
  unsetenv("AWS_ENDPOINT_URL_S3");
  setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
  setenv("AWS_REGION", "us-east-1", 1);
  setenv("AWS_ENDPOINT_URL", ep, 1);
  setenv("AZURE_STORAGE_CONNECTION_STRING", tu_azurite_connection_string(e), 1);
}

void tu_upload_dir(const char *dir, const char *url) {
  tu_result r;
  assert_int_equal(tu_sh(&r, "cd '%s' && find . -type f | sed 's|^\\./||'", dir), 0);
  assert_int_equal(r.status, 0);
  inlet_storage *st = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_storage_open_url(&st, url, NULL, &err) < 0) fail_msg("open %s: %s", url, err.message);
  int n = 0;
  for (char *save = NULL, *rel = strtok_r(r.out, "\n", &save); rel;
       rel = strtok_r(NULL, "\n", &save)) {
    char path[8300];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    size_t len = 0;
    char *data = tu_read_file(path, &len);
    assert_non_null(data);
    if (st->ops->put_bytes(st, rel, data, len, &err) < 0)
      fail_msg("upload %s: %s", rel, err.message);
    free(data);
    n++;
  }
  assert_true(n > 2);
  st->ops->free(st);
  tu_result_free(&r);
}
