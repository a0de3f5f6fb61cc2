/*
 * Ordered parallel replay (delta_replay_par.h): log files decoded by pool
 * tasks into action lists, applied in log order on the caller's thread.
 *
 * Each of the window's slots is a task group of one task, so waiting for
 * unit u is waiting for slot u % window; the waiter runs queued tasks of
 * other slots meanwhile (util_group_wait), so the caller's core decodes too.
 * A slot is refilled with unit u + window once unit u has been applied.
 */
#include "delta/delta_replay_par.h"

#include "util/util.h"

typedef struct slot {
  util_group g;
  delta_action_list acts; /* owned: what the unit decoded */
  int64_t unit;
  delta_unit_read_fn read; /* borrowed */
  void *src;               /* borrowed */
} slot;

static void list_clear(delta_action_list *l) {
  for (int64_t i = 0; i < l->n; i++)
    delta_action_reset(&l->v[i]);
  l->n = 0;
}

/* A delta_action_cb taking the action into the list. Both readers that call
 * it (delta_log_read_file and the checkpoint's read_part) hold the action
 * in a local they reset right after the callback: its fields are moved
 * here and the local left empty, so nothing is copied or freed twice (the
 * const is the callback type's, not the object's). */
static int collect(void *ctx, const delta_action *a, inlet_error *err) {
  delta_action_list *l = ctx;
  if (l->n == l->cap) {
    int64_t cap = l->cap ? l->cap * 2 : 64;
    delta_action *v = inlet_realloc(l->v, (size_t)cap * sizeof *v);
    if (!v) return inlet_fail(err, INLET_ENOMEM, "out of memory decoding the log");
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = *a;
  memset((delta_action *)a, 0, sizeof *a);
  return 0;
}

static int slot_run(void *arg, inlet_error *err) {
  slot *s = arg;
  return s->read(s->src, s->unit, collect, &s->acts, err);
}

int delta_action_list_apply(const delta_action_list *acts, delta_replay_fn fn, void *ctx,
                            inlet_error *err) {
  for (int64_t i = 0; i < acts->n; i++)
    TRY(fn(ctx, &acts->v[i], err));
  return 0;
}

int delta_replay_ordered(util_pool *pool, int64_t n, int64_t window, delta_unit_read_fn read,
                         void *src, delta_unit_use_fn use, void *dst, inlet_error *err) {
  if (n <= 0) return 0;
  if (window > n) window = n;
  if (window < 1) window = 1;
  slot *slots = inlet_calloc((size_t)window, sizeof *slots);
  if (!slots) return inlet_fail(err, INLET_ENOMEM, "out of memory reading the log");
  int64_t next = 0;
  for (; next < window; next++) {
    slot *s = &slots[next];
    util_group_init(&s->g, pool);
    s->unit = next;
    s->read = read;
    s->src = src;
    util_group_submit(&s->g, slot_run, s);
  }
  int rc = 0;
  int64_t u = 0;
  for (; u < n; u++) {
    slot *s = &slots[u % window];
    inlet_error e1 = INLET_ERROR_INIT;
    int urc = util_group_wait(&s->g, &e1);
    rc = use(dst, u, urc, &e1, &s->acts, err);
    list_clear(&s->acts);
    if (rc != 0) break;
    if (next < n) {
      s->unit = next++;
      util_group_submit(&s->g, slot_run, s);
    }
  }
  /* On failure the units after u still in flight finish; their actions
   * are dropped. */
  for (int64_t k = u + 1; k < next; k++) {
    slot *s = &slots[k % window];
    inlet_error ignore = INLET_ERROR_INIT;
    (void)util_group_wait(&s->g, &ignore);
    list_clear(&s->acts);
  }
  for (int64_t k = 0; k < window; k++)
    inlet_free(slots[k].acts.v);
  inlet_free(slots);
  return rc;
}
