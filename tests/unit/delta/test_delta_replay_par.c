/*
 * Unit tests for the ordered parallel replay of src/delta/delta_replay_par.c:
 * units decoded on a pool in any order reach the applying callback in unit
 * order with their actions in order; the first failure in unit order is the
 * one reported, whatever order the tasks failed in; a callback's error stops
 * the replay. Units sleep a unit-dependent time so that they finish out of
 * order. Also run under ThreadSanitizer (make test-tsan).
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "delta/delta_replay_par.h"
#include "util/util.h"

#define ACTIONS_PER_UNIT 3

typedef struct src {
  int64_t fail_a, fail_b; /* units whose read fails, -1 none */
} src;

typedef struct dst {
  int64_t next_unit; /* the unit use() expects next */
  int64_t applied;   /* actions seen */
  int64_t stop_at;   /* use() fails at this unit, -1 never */
  bool out_of_order;
} dst;

static int read_unit(void *arg, int64_t unit, delta_action_cb cb, void *cb_ctx, inlet_error *err) {
  src *s = arg;
  /* Later units of a window finish first. */
  struct timespec ts = {0, (long)((7 - unit % 7) * 100000)};
  nanosleep(&ts, NULL);
  for (int k = 0; k < ACTIONS_PER_UNIT; k++) {
    if (unit == s->fail_a || unit == s->fail_b) {
      if (k == 1) return inlet_fail(err, INLET_ECORRUPT, "unit %lld is bad", (long long)unit);
    }
    delta_action a;
    memset(&a, 0, sizeof a);
    a.kind = DELTA_ACTION_TXN;
    a.u.txn.app_id = inlet_strdup("app");
    a.u.txn.version = unit * ACTIONS_PER_UNIT + k;
    int rc = cb(cb_ctx, &a, err);
    delta_action_reset(&a);
    if (rc < 0) return rc;
  }
  return 0;
}

static int use_unit(void *arg, int64_t unit, int rc, const inlet_error *ue,
                    const delta_action_list *acts, inlet_error *err) {
  dst *d = arg;
  if (unit != d->next_unit) d->out_of_order = true;
  d->next_unit = unit + 1;
  if (rc < 0) return inlet_fail(err, rc, "%s", inlet_errmsg(ue));
  if (unit == d->stop_at) return inlet_fail(err, INLET_EINVAL, "stop at %lld", (long long)unit);
  for (int64_t i = 0; i < acts->n; i++) {
    if (acts->v[i].kind != DELTA_ACTION_TXN ||
        acts->v[i].u.txn.version != unit * ACTIONS_PER_UNIT + i ||
        strcmp(acts->v[i].u.txn.app_id, "app") != 0)
      d->out_of_order = true;
    d->applied++;
  }
  return 0;
}

static util_pool *pool4(void) {
  util_pool *p = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(util_pool_new(&p, 4, &err), 0);
  return p;
}

static void test_replay_par__units_applied_in_order(void **state) {
  (void)state;
  util_pool *p = pool4();
  for (int64_t window = 1; window <= 9; window += 4) {
    src s = {-1, -1};
    dst d = {0, 0, -1, false};
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(delta_replay_ordered(p, 200, window, read_unit, &s, use_unit, &d, &err), 0);
    assert_false(d.out_of_order);
    assert_int_equal(d.next_unit, 200);
    assert_int_equal(d.applied, 200 * ACTIONS_PER_UNIT);
  }
  util_pool_free(p);
}

static void test_replay_par__first_failure_in_unit_order_wins(void **state) {
  (void)state;
  util_pool *p = pool4();
  /* Unit 13 sleeps less than unit 9 (13 % 7 > 9 % 7): it fails first. */
  src s = {9, 13};
  dst d = {0, 0, -1, false};
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_replay_ordered(p, 100, 8, read_unit, &s, use_unit, &d, &err),
                   INLET_ECORRUPT);
  assert_string_equal(inlet_errmsg(&err), "unit 9 is bad");
  assert_false(d.out_of_order);
  assert_int_equal(d.next_unit, 10); /* nothing used after the failed unit */
  assert_int_equal(d.applied, 9 * ACTIONS_PER_UNIT);
  util_pool_free(p);
}

static void test_replay_par__use_error_stops(void **state) {
  (void)state;
  util_pool *p = pool4();
  src s = {-1, -1};
  dst d = {0, 0, 40, false};
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_replay_ordered(p, 100, 5, read_unit, &s, use_unit, &d, &err),
                   INLET_EINVAL);
  assert_string_equal(inlet_errmsg(&err), "stop at 40");
  assert_int_equal(d.next_unit, 41);
  assert_int_equal(d.applied, 40 * ACTIONS_PER_UNIT);
  util_pool_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replay_par__units_applied_in_order),
      cmocka_unit_test(test_replay_par__first_failure_in_unit_order_wins),
      cmocka_unit_test(test_replay_par__use_error_stops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
