/*
 * Scalars of the expression language: the comparable kind of each column
 * type, reading a row as such a value, the total order every comparison
 * and every skipping decision uses, and literals converted with the text
 * import rules (batch/text_int.h), so expressions accept exactly the
 * dates, timestamps and decimals that ingestion accepts; decimals stay
 * exact (no floating point).
 */
#include <math.h>
#include <stdio.h>

#include "batch/batch.h"
#include "expr/expr.h"

expr_kind expr_kind_of(const inlet_type *t) {
  switch (t->id) {
  case INLET_TYPE_BOOL:
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64:
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32:
  case INLET_TYPE_DATE:
  case INLET_TYPE_TIME:
  case INLET_TYPE_TIMESTAMP: return EXK_I64;
  case INLET_TYPE_UINT64: return EXK_U64;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: return EXK_F64;
  case INLET_TYPE_DECIMAL: return EXK_I128;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: return EXK_BYTES;
  default: return EXK_NONE;
  }
}

void expr_value_get(expr_value *v, expr_kind k, const inlet_type *t, const inlet_array *a,
                    int64_t r) {
  switch (k) {
  case EXK_I64:
    switch (t->id) {
    case INLET_TYPE_BOOL: v->i = inlet_bit_get(a->values, r); break;
    case INLET_TYPE_INT8: v->i = ((const int8_t *)a->values)[r]; break;
    case INLET_TYPE_UINT8: v->i = a->values[r]; break;
    case INLET_TYPE_INT16: v->i = ((const int16_t *)a->values)[r]; break;
    case INLET_TYPE_UINT16: v->i = ((const uint16_t *)a->values)[r]; break;
    case INLET_TYPE_UINT32: v->i = ((const uint32_t *)a->values)[r]; break;
    case INLET_TYPE_INT32:
    case INLET_TYPE_DATE: v->i = ((const int32_t *)a->values)[r]; break;
    case INLET_TYPE_TIME:
      v->i = t->unit <= INLET_UNIT_MILLI ? ((const int32_t *)a->values)[r]
                                         : ((const int64_t *)a->values)[r];
      break;
    default: v->i = ((const int64_t *)a->values)[r]; break;
    }
    break;
  case EXK_U64: v->u = ((const uint64_t *)a->values)[r]; break;
  case EXK_F64:
    v->d =
        t->id == INLET_TYPE_FLOAT ? ((const float *)a->values)[r] : ((const double *)a->values)[r];
    break;
  case EXK_I128: {
    expr_i128 q;
    memcpy(&q, a->values + r * 16, 16); /* little-endian two's complement, as on every target */
    v->q = q;
    break;
  }
  case EXK_BYTES:
    if (t->id == INLET_TYPE_FIXED_BINARY) {
      v->p = a->values + r * t->byte_width;
      v->n = (size_t)t->byte_width;
    } else {
      v->n = (size_t)(a->offsets[r + 1] - a->offsets[r]);
      v->p = a->values ? a->values + a->offsets[r] : (const uint8_t *)"";
    }
    break;
  default: break;
  }
}

static int cmp_f64(double x, double y) {
  bool nx = isnan(x), ny = isnan(y);
  if (nx || ny) return nx && ny ? 0 : nx ? 1 : -1;
  return x < y ? -1 : x > y;
}

int expr_value_cmp(expr_kind k, const expr_value *a, const expr_value *b) {
  switch (k) {
  case EXK_I64: return a->i < b->i ? -1 : a->i > b->i;
  case EXK_U64: return a->u < b->u ? -1 : a->u > b->u;
  case EXK_F64: return cmp_f64(a->d, b->d);
  case EXK_I128: return a->q < b->q ? -1 : a->q > b->q;
  case EXK_BYTES: {
    size_t m = a->n < b->n ? a->n : b->n;
    int c = m ? memcmp(a->p, b->p, m) : 0;
    if (c) return c < 0 ? -1 : 1;
    return a->n < b->n ? -1 : a->n > b->n;
  }
  default: return 0;
  }
}

int expr_literal_parse(inlet_array *out, const inlet_field *field, const char *s, size_t n,
                       bool is_number, char *reason, size_t reason_cap) {
  text_conv c;
  memset(&c, 0, sizeof c);
  c.epoch_unit = INLET_EPOCH_AUTO;
  c.strict = true;
  c.field = field->name;
  inlet_buf_init(&c.scratch);
  int rc = inlet_array_init(out, field, &c.err);
  if (rc == 0) {
    /* As a CSV cell: strings keep their text, everything else parses from
     * it (a number for a string column is its digits). */
    rc = text_append_scalar(&c, out, field, is_number ? TOK_NUMBER : TOK_TEXT, s, n, false);
  }
  if (rc < 0)
    snprintf(reason, reason_cap, "%s",
             rc == INLET_EINVAL && c.reason[0] ? c.reason : c.err.message);
  inlet_buf_reset(&c.scratch);
  return rc;
}
