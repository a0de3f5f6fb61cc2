/*
 * Validation of storage-relative paths (storage.h). Every path that comes
 * from a Delta log (add/remove actions, checkpoints) passes through here
 * before it reaches a backend, so nothing read from a table can name a file
 * outside the table's root.
 *
 * Rules: non-empty, relative (no leading '/'), '/'-separated components
 * that are neither empty ("a//b", trailing '/'), "." nor "..", no NUL byte,
 * at most INLET_PATH_MAX bytes. A backslash is an ordinary byte on POSIX
 * and is allowed: rejecting it would refuse legal file names, and no POSIX
 * call treats it as a separator. (An object-store or Windows backend must
 * apply its own stricter check.)
 */
#include "storage/storage.h"
#include "util/util.h"

int inlet_path_check_len(const char *path, size_t len, inlet_error *err) {
  if (!path || len == 0) return inlet_fail(err, INLET_EINVAL, "empty path");
  if (len > INLET_PATH_MAX)
    return inlet_fail(err, INLET_EINVAL, "path of %zu bytes exceeds the %d-byte limit", len,
                      INLET_PATH_MAX);
  if (memchr(path, '\0', len))
    return inlet_fail(err, INLET_EINVAL, "path \"%.*s\" contains a NUL byte",
                      (int)strnlen(path, len), path);
  if (path[0] == '/')
    return inlet_fail(err, INLET_EINVAL, "absolute path \"%.*s\" not allowed", (int)len, path);
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && path[i] != '/') continue;
    size_t clen = i - start;
    const char *c = path + start;
    if (clen == 0)
      return inlet_fail(err, INLET_EINVAL, "path \"%.*s\" has an empty component", (int)len, path);
    if ((clen == 1 && c[0] == '.') || (clen == 2 && c[0] == '.' && c[1] == '.'))
      return inlet_fail(err, INLET_EINVAL, "path \"%.*s\" has a \"%.*s\" component", (int)len, path,
                        (int)clen, c);
    start = i + 1;
  }
  return 0;
}

int inlet_path_check(const char *path, inlet_error *err) {
  if (!path) return inlet_fail(err, INLET_EINVAL, "empty path");
  return inlet_path_check_len(path, strlen(path), err);
}
