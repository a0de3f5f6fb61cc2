/*
 * Which partition values can name a directory: the rule that decides whether
 * a row's partition directory can be created, applied per record by ingest
 * and append (a value that cannot be a path component is a rejected record
 * with a reason, and the stream goes on) and again by the table writer
 * before it creates any file of a batch.
 *
 * A row's directory is "<column>=<value>" for each partition column, joined
 * by '/', both sides escaped as Spark's escapePathName does
 * (delta_hive_escape): the bytes 0x01-0x1F and 0x7F and the characters
 * " # % ' * / : = ? \ { [ ] ^ become %XX (upper-case hex); every other byte,
 * UTF-8 sequences included, is kept as is. A null is
 * __HIVE_DEFAULT_PARTITION__. add.partitionValues keeps the value itself.
 *
 * Refused (INLET_EINVAL; the reason names the column):
 *   - a value holding a NUL byte: no path can hold one;
 *   - a value that is not UTF-8: add.partitionValues is a JSON string and
 *     add.path a URI, both UTF-8 (a JSON writer would drop the value);
 *   - a directory name "<column>=<value>" over 255 bytes once escaped:
 *     NAME_MAX of Linux filesystems (ext4, xfs, btrfs, tmpfs);
 *   - a data file path (table root, partition directories, file name) of
 *     PATH_MAX (4096) bytes or more: the OS cannot open it.
 * Values of other types than string print in at most 64 escaped bytes, so
 * only their column name can make them too long.
 */
#include <stdio.h>

#include "delta/delta.h"
#include "util/util.h"

bool delta_hive_needs_escape(unsigned char c) {
  return c < 0x20 || c == 0x7F || (c && strchr("\"#%'*/:=?\\{[]^", (int)c) != NULL);
}

size_t delta_hive_escaped_len(const char *s, size_t n) {
  size_t len = n;
  for (size_t i = 0; i < n; i++)
    if (delta_hive_needs_escape((unsigned char)s[i])) len += 2;
  return len;
}

#define NULL_NAME "__HIVE_DEFAULT_PARTITION__"

int delta_partition_column_name_check(const char *column, inlet_error *err) {
  size_t name_len = delta_hive_escaped_len(column, strlen(column));
  FAIL_IF(name_len + 1 + strlen(NULL_NAME) > DELTA_PART_NAME_MAX, err, INLET_EINVAL,
          "partition column name \"%.40s...\" is too long: its directories NAME=VALUE "
          "(%zu bytes escaped, plus the value) would not fit the %d-byte limit of a "
          "directory name",
          column, name_len, DELTA_PART_NAME_MAX);
  return 0;
}

int delta_partition_component_check(const char *column, const char *value, size_t n, size_t *len,
                                    inlet_error *err) {
  size_t name_len = delta_hive_escaped_len(column, strlen(column));
  size_t value_len = value ? delta_hive_escaped_len(value, n) : sizeof NULL_NAME - 1;
  *len = name_len + 1 + value_len;
  if (value && memchr(value, '\0', n))
    return inlet_fail(err, INLET_EINVAL, "partition column \"%s\": value contains a NUL byte",
                      column);
  if (value && !inlet_utf8_valid((const uint8_t *)value, n))
    return inlet_fail(err, INLET_EINVAL, "partition column \"%s\": value is not valid UTF-8",
                      column);
  if (*len > DELTA_PART_NAME_MAX)
    return inlet_fail(err, INLET_EINVAL,
                      "partition column \"%s\": value of %zu bytes makes a directory name of %zu "
                      "bytes (\"%s=\" and the value, escaped), over the %d-byte limit of a file "
                      "name",
                      column, n, *len, column, DELTA_PART_NAME_MAX);
  return 0;
}

int delta_partition_path_check(size_t root_len, size_t dir_len, inlet_error *err) {
  size_t total = root_len + 1 + dir_len + 1 + DELTA_DATA_FILE_NAME_MAX;
  if (total >= DELTA_DATA_PATH_MAX)
    return inlet_fail(err, INLET_EINVAL,
                      "partition directories of %zu bytes make a data file path of about %zu "
                      "bytes, over the %d-byte limit of a path",
                      dir_len, total, DELTA_DATA_PATH_MAX - 1);
  return 0;
}

int delta_partition_row_check(const inlet_batch *b, int64_t row, const int32_t *cols,
                              int32_t n_cols, size_t root_len, inlet_error *err) {
  size_t dir_len = 0;
  for (int32_t p = 0; p < n_cols; p++) {
    const inlet_field *f = &b->schema.fields[cols[p]];
    const inlet_array *a = &b->columns[cols[p]];
    size_t len = 0;
    if (f->type.id == INLET_TYPE_STRING && inlet_array_is_valid(a, row)) {
      int32_t lo = a->offsets[row], hi = a->offsets[row + 1];
      /* An array of empty strings may have no value buffer at all. */
      const char *v = a->values ? (const char *)a->values + lo : "";
      TRY(delta_partition_component_check(f->name, v, (size_t)(hi - lo), &len, err));
    } else {
      /* Other types print short: only a long column name can fail. */
      len = delta_hive_escaped_len(f->name, strlen(f->name)) + 1 + 64;
      if (len > DELTA_PART_NAME_MAX) {
        char *v = NULL;
        TRY(delta_partition_value_format(&v, f, a, row, err));
        int rc = delta_partition_component_check(f->name, v, v ? strlen(v) : 0, &len, err);
        inlet_free(v);
        TRY(rc);
      }
    }
    dir_len += len + (p ? 1 : 0);
  }
  return n_cols ? delta_partition_path_check(root_len, dir_len, err) : 0;
}
