/*
 * Locations to backends (storage.h inlet_storage_open_url):
 *   s3://bucket[/prefix]                           S3 and S3-compatible stores
 *   az://container[/prefix]                        Azure Blob (account from settings)
 *   abfss://container@account.dfs.core.windows.net[/prefix]
 *                                                  ADLS Gen2, served through the Blob API
 *   file:///abs/path, or a plain path              the POSIX backend
 * Prefixes lose leading and trailing slashes and must pass the path check
 * (no "..", no empty components), so a table root cannot escape itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <strings.h>
#include <unistd.h>

#include "storage/objstore_int.h"
#include "util/util.h"

static bool has_scheme(const char *s, const char *scheme) {
  size_t n = strlen(scheme);
  return strncasecmp(s, scheme, n) == 0 && strncmp(s + n, "://", 3) == 0;
}

bool inlet_storage_is_object_url(const char *loc) {
  return loc && (has_scheme(loc, "s3") || has_scheme(loc, "az") || has_scheme(loc, "abfss") ||
                 has_scheme(loc, "abfs") || has_scheme(loc, "gs"));
}

/* Splits "name/rest/of/prefix" into name and a normalised prefix. */
static int split(const char *url, const char *s, char **name, char **prefix, inlet_error *err) {
  size_t nl = strcspn(s, "/");
  if (nl == 0) return inlet_fail(err, INLET_EINVAL, "%s: no bucket or container name", url);
  *name = inlet_strndup(s, nl);
  const char *p = s + nl;
  while (*p == '/')
    p++;
  size_t pl = strlen(p);
  while (pl && p[pl - 1] == '/')
    pl--;
  *prefix = inlet_strndup(p, pl);
  if (!*name || !*prefix) {
    inlet_free(*name);
    inlet_free(*prefix);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  int rc = 0;
  if (pl) {
    inlet_error pe = INLET_ERROR_INIT;
    if (inlet_path_check(*prefix, &pe) < 0)
      rc = inlet_fail(err, INLET_EINVAL, "%s: bad prefix: %s", url, pe.message);
  }
  if (rc == 0 && (strchr(*name, '?') || strchr(*name, '#') || strchr(*prefix, '?')))
    rc = inlet_fail(err, INLET_EINVAL, "%s: query strings and fragments are not part of a location",
                    url);
  if (rc < 0) {
    inlet_free(*name);
    inlet_free(*prefix);
    *name = *prefix = NULL;
  }
  return rc;
}

int inlet_storage_open_url(inlet_storage **out, const char *url, const inlet_storage_options *opts,
                           inlet_error *err) {
  *out = NULL;
  if (!url || !url[0]) return inlet_fail(err, INLET_EINVAL, "empty location");
  if (opts && opts->version != INLET_STORAGE_OPTIONS_VERSION)
    return inlet_fail(err, INLET_EINVAL, "storage options version %d, expected %d", opts->version,
                      INLET_STORAGE_OPTIONS_VERSION);
  bool create = opts && opts->create;
  if (has_scheme(url, "file")) {
    const char *p = url + 7;
    if (strncmp(p, "localhost/", 10) == 0) p += 9;
    if (p[0] != '/')
      return inlet_fail(err, INLET_EINVAL, "%s: a file URL needs an absolute path (file:///path)",
                        url);
    return inlet_storage_posix_open(out, p, create, err);
  }
  if (has_scheme(url, "s3")) {
    char *bucket, *prefix;
    TRY(split(url, url + 5, &bucket, &prefix, err));
    inlet_s3_config c;
    int rc = inlet_s3_config_resolve(&c, bucket, prefix, opts, err);
    inlet_free(bucket);
    inlet_free(prefix);
    TRY(rc);
    return inlet_storage_s3_open(out, &c, opts, err);
  }
  if (has_scheme(url, "az")) {
    char *container, *prefix;
    TRY(split(url, url + 5, &container, &prefix, err));
    inlet_azure_config c;
    int rc = inlet_azure_config_resolve(&c, container, prefix, NULL, opts, err);
    inlet_free(container);
    inlet_free(prefix);
    TRY(rc);
    return inlet_storage_azure_open(out, &c, opts, err);
  }
  if (has_scheme(url, "abfss") || has_scheme(url, "abfs")) {
    const char *s = strstr(url, "://") + 3;
    const char *at = strchr(s, '@');
    const char *slash = strchr(s, '/');
    if (!at || (slash && slash < at) || at == s)
      return inlet_fail(err, INLET_EINVAL,
                        "%s: expected abfss://container@account.dfs.core.windows.net/prefix", url);
    const char *host = at + 1;
    size_t hl = strcspn(host, "/");
    size_t al = strcspn(host, ".");
    if (al == 0 || al >= hl)
      return inlet_fail(err, INLET_EINVAL, "%s: no storage account in the host name", url);
    char *account = inlet_strndup(host, al);
    size_t cl = (size_t)(at - s);
    size_t rest = strlen(host + hl);
    char *cp = inlet_malloc(cl + rest + 1);
    if (!account || !cp) {
      inlet_free(account);
      inlet_free(cp);
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
    memcpy(cp, s, cl);
    memcpy(cp + cl, host + hl, rest + 1);
    char *container, *prefix;
    int rc = split(url, cp, &container, &prefix, err);
    inlet_free(cp);
    if (rc < 0) {
      inlet_free(account);
      return rc;
    }
    inlet_azure_config c;
    rc = inlet_azure_config_resolve(&c, container, prefix, account, opts, err);
    inlet_free(account);
    inlet_free(container);
    inlet_free(prefix);
    TRY(rc);
    return inlet_storage_azure_open(out, &c, opts, err);
  }
  if (has_scheme(url, "gs"))
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "%s: Google Cloud Storage is designed (docs/STORAGE.md) but not built yet",
                      url);
  if (strstr(url, "://"))
    return inlet_fail(err, INLET_EINVAL,
                      "%s: unknown scheme (expected s3://, az://, abfss://, file:// or a path)",
                      url);
  return inlet_storage_posix_open(out, url, create, err);
}

bool inlet_location_is_url(const char *location) {
  return inlet_storage_is_object_url(location);
}

int inlet_location_upload(const char *local_path, const char *location,
                          const inlet_storage_options *opts, inlet_error *err) {
  FAIL_IF(!local_path || !location || !location[0], err, INLET_EINVAL, "upload: empty path");
  /* The storage root is the location's parent, the object its last part. */
  const char *slash = strrchr(location, '/');
  bool url = inlet_storage_is_object_url(location);
  FAIL_IF(!slash || !slash[1] || (url && slash < strstr(location, "://") + 3), err, INLET_EINVAL,
          "%s: no object name after the bucket or container", location);
  char *parent = inlet_strndup(location, (size_t)(slash - location) + (slash == location));
  if (!parent) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  const char *name = slash + 1;
  inlet_storage *st = NULL;
  int rc = inlet_storage_open_url(&st, parent, opts, err);
  inlet_free(parent);
  TRY(rc);
  int fd = open(local_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    rc = inlet_fail(err, errno == ENOENT ? INLET_ENOTFOUND : INLET_EIO, "cannot read %s: %s",
                    local_path, strerror(errno));
    st->ops->free(st);
    return rc;
  }
  /* Creates are put-if-absent: an existing object of that name goes first. */
  inlet_error ignore = INLET_ERROR_INIT;
  (void)st->ops->remove(st, name, &ignore);
  inlet_wfile *w = NULL;
  rc = st->ops->create(st, name, &w, err);
  enum { CHUNK = 1 << 20 };
  char *buf = rc == 0 ? inlet_malloc(CHUNK) : NULL;
  if (rc == 0 && !buf) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  while (rc == 0) {
    ssize_t n = read(fd, buf, CHUNK);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) rc = inlet_fail(err, INLET_EIO, "cannot read %s: %s", local_path, strerror(errno));
    if (n <= 0) break;
    rc = inlet_wfile_append(w, buf, (size_t)n, err);
  }
  inlet_free(buf);
  close(fd);
  if (w) {
    if (rc == 0)
      rc = inlet_wfile_close(w, true, err);
    else
      inlet_wfile_abort(w);
  }
  st->ops->free(st);
  if (rc < 0) inlet_error_prefix(err, "uploading %s to %s", local_path, location);
  return rc;
}
