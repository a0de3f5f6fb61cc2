/*
 * Where a table (or an output file) lives: a local path, or a URL of an
 * object store, and the settings to reach it.
 *
 * Locations: "/path", "relative/dir", "file:///abs/path", "s3://bucket/prefix"
 * (AWS S3 and S3-compatible stores: MinIO, Cloudflare R2, Ceph RGW),
 * "az://container/prefix" and
 * "abfss://container@account.dfs.core.windows.net/prefix" (Azure Blob
 * Storage / ADLS Gen2 through the Blob API). docs/STORAGE.md describes the
 * URL forms, where credentials come from and what each store guarantees.
 */
#ifndef INLET_STORAGE_PUBLIC_H
#define INLET_STORAGE_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>

#include "inlet/common.h"
#include "inlet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Settings for opening storage by URL. Every field is optional (NULL / 0 /
 * -1 = unset); an unset field falls back to the environment the way the AWS
 * CLI and the Azure CLI read it, then to the profile files, then to a
 * default (docs/STORAGE.md lists the order). Strings are borrowed for the
 * call only. Secrets given here are never printed.
 */
typedef struct inlet_storage_options {
  int version; /* INLET_STORAGE_OPTIONS_VERSION */
  /* S3 and S3-compatible stores */
  const char *aws_access_key_id;
  const char *aws_secret_access_key;
  const char *aws_session_token;
  const char *aws_region;
  const char *aws_profile;      /* a profile in ~/.aws/credentials and ~/.aws/config */
  const char *aws_endpoint_url; /* MinIO, R2, s3rver: "http://127.0.0.1:9000" */
  int s3_path_style;            /* -1: path style iff a custom endpoint is set; 0; 1 */
  /* Azure Blob Storage / ADLS Gen2 */
  const char *azure_connection_string;
  const char *azure_account;
  const char *azure_key;       /* shared key, base64 */
  const char *azure_sas_token; /* "sv=...&sig=..." with or without a leading '?' */
  const char *azure_endpoint;  /* blob endpoint, "http://127.0.0.1:10000/devstoreaccount1" */
  /* Transfers (0: default) */
  size_t part_size;        /* multipart / block size above which uploads split; 8 MiB */
  int parts_in_flight;     /* parts uploaded at once; 4 */
  int max_in_flight;       /* concurrent requests of one handle; 16 */
  int max_attempts;        /* per request; 8 */
  long timeout_ms;         /* per attempt without a large body; 120000 */
  long stall_timeout_ms;   /* an attempt moving no byte this long fails; 30000 */
  long connect_timeout_ms; /* 10000 */
  long backoff_base_ms;    /* 100 */
  long backoff_max_ms;     /* 10000 */
  /* posix (file:// and plain paths): create the root if missing */
  bool create;
} inlet_storage_options;
#define INLET_STORAGE_OPTIONS_VERSION 1
#define INLET_STORAGE_OPTIONS_INIT                                                                 \
  {                                                                                                \
    INLET_STORAGE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, -1, NULL, NULL, NULL, NULL, \
        NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, false                                                     \
  }

/** True if @p location is a URL of an object store (s3://, az://, abfs://,
 * abfss://), as opposed to a local path or file:// URL. */
INLET_API bool inlet_location_is_url(const char *location);

/**
 * Copies the local file @p local_path to @p location (a local path or any
 * URL above, the object's full name: "s3://bucket/out/rows.parquet"),
 * streaming it in parts (memory bounded by the part size). The object
 * appears whole or not at all; an existing object or file of that name is
 * replaced. @p opts may be NULL (settings from the environment).
 * @return 0, INLET_EINVAL (bad location), INLET_ENOTFOUND, INLET_EIO,
 *         INLET_ENOMEM.
 */
INLET_API int inlet_location_upload(const char *local_path, const char *location,
                                    const inlet_storage_options *opts, inlet_error *err);

#ifdef __cplusplus
}
#endif

#endif /* INLET_STORAGE_PUBLIC_H */
