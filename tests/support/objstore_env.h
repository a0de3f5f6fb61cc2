/*
 * Starts and stops the object-store emulators for tests
 * (tests/support/objstore/emulators.mjs, installed into the build tree by
 * tests/CMakeLists.txt): s3rver, the SigV4-verifying / If-None-Match-enforcing
 * / fault-injecting proxy in front of it, and Azurite. Everything listens on
 * 127.0.0.1 ports picked free at start; stop kills the emulators' process
 * group (started by this process).
 */
#ifndef INLET_OBJSTORE_ENV_H
#define INLET_OBJSTORE_ENV_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct tu_emulators {
  pid_t pid; /* process group leader, 0 when not running */
  int s3rver_port, proxy_port, azurite_port;
  char dir[4096];
} tu_emulators;

/* Starts s3rver + proxy when @p s3, Azurite when @p azure; fails the test
 * (cmocka) if they do not come up within a few minutes. */
void tu_emulators_start(tu_emulators *e, bool s3, bool azure);
void tu_emulators_stop(tu_emulators *e);

/* Calls the proxy's control API; returns the HTTP status, *resp (malloc'd,
 * may be NULL) the body. */
int tu_proxy_ctl(const tu_emulators *e, const char *method, const char *path, const char *json,
                 char **resp);
/* Installs fault rules (a JSON array) and latency; "[]" clears. */
void tu_proxy_faults(const tu_emulators *e, const char *rules_json, int latency_ms);
/* Reads an integer field of /__proxy/stats ("injected", "requests"). */
long tu_proxy_stat(const tu_emulators *e, const char *field);
/* Number of multipart uploads the proxy saw started and neither completed
 * nor aborted. */
int tu_proxy_open_uploads(const tu_emulators *e);

/* The Azurite connection string for the running emulator (static buffer). */
const char *tu_azurite_connection_string(const tu_emulators *e);

/* Points the environment at the emulators: AWS_* credentials, region and
 * endpoint (the checking proxy) for s3://, AZURE_STORAGE_CONNECTION_STRING
 * for az:// (AWS_PROFILE and AWS_ENDPOINT_URL_S3 unset). */
void tu_emulators_env(const tu_emulators *e);
/* Copies every file below local @p dir to the store at @p url (through
 * inlet's storage layer, put_bytes); fails the test on any error. */
void tu_upload_dir(const char *dir, const char *url);

#endif
