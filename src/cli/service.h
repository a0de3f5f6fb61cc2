/*
 * The service side of a long-running command (`ingest`, `maintain
 * --follow`): Prometheus
 * metrics and a health check over HTTP (libmicrohttpd, its own thread), and
 * systemd readiness, status and watchdog notifications (libsystemd's
 * sd_notify). Fed from the command's progress callback; reads the table's
 * file counts itself, through its own table handle, when scraped.
 */
#ifndef INLET_CLI_SERVICE_H
#define INLET_CLI_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "inlet/inlet.h"

typedef struct cli_service cli_service;

typedef struct cli_service_options {
  const char *listen;     /* "HOST:PORT" (":PORT" = every interface, port 0 = any), or NULL */
  int64_t stall_ms;       /* /healthz answers 503 after this long without progress */
  bool notify;            /* sd_notify even without NOTIFY_SOCKET in the environment */
  const char *table;      /* location, for the table label and the file counts */
  const char *source;     /* for the source label */
  const char *open_table; /* location the scrape opens for file counts (NULL: none) */
  /* How to open it (storage settings of --config); NULL: the environment's. */
  const inlet_table_open_options *open_options;
  bool maintain; /* `maintain --follow`: maintenance metrics, fed by cli_service_pass */
} cli_service_options;

/* What one maintenance pass did (`maintain --follow`). */
typedef struct cli_maintain_pass {
  bool ok;        /* false: the pass failed (retried next interval) */
  bool compacted; /* compaction ran */
  inlet_compact_result compact;
  inlet_log_cleanup_result log;
  inlet_vacuum_result vacuum;
  int64_t checkpoints; /* new checkpoints seen after the pass (0 or 1) */
  bool described;      /* desc holds the table after the pass */
  inlet_table_description desc;
} cli_maintain_pass;

/* Starts what @p o asks for (nothing: *out = NULL, 0). The bound address is
 * printed to standard error ("metrics on http://HOST:PORT/metrics").
 * 0, or -1 with a message in @p errbuf. */
int cli_service_start(cli_service **out, const cli_service_options *o, char *errbuf, size_t cap);
/* Every progress event of the run (any thread but one at a time). */
void cli_service_progress(cli_service *s, const inlet_ingest_progress *p);
/* Every pass of `maintain --follow`. */
void cli_service_pass(cli_service *s, const cli_maintain_pass *p);
/* STOPPING=1 to systemd, the HTTP thread joined, everything freed. NULL is fine. */
void cli_service_stop(cli_service *s);

#endif /* INLET_CLI_SERVICE_H */
