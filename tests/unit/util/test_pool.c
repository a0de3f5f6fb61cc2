/*
 * Unit tests for the thread pool (src/util/pool.h): every task runs once,
 * tasks really run concurrently on a threaded pool, the reported failure is
 * the lowest task index's whatever the finishing order, a one-thread pool
 * runs tasks inline on the caller (no thread), groups nest on one pool
 * without deadlock, and a waiter runs its own group's tasks first. Also run under ThreadSanitizer
 * (make test-tsan).
 */
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util/pool.h"
#include "util/util.h"

typedef struct count_task {
  _Atomic int *ran; /* times this task ran */
  _Atomic int64_t *total;
  int64_t value;
} count_task;

static int count_fn(void *arg, inlet_error *err) {
  (void)err;
  count_task *t = arg;
  atomic_fetch_add(t->ran, 1);
  atomic_fetch_add(t->total, t->value);
  return 0;
}

static void test_pool__many_tasks_each_run_once(void **state) {
  (void)state;
  enum { N = 20000 };
  util_pool *p = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(util_pool_new(&p, 4, &err), 0);
  assert_int_equal(util_pool_threads(p), 4);
  _Atomic int *ran = calloc(N, sizeof *ran);
  count_task *tasks = calloc(N, sizeof *tasks);
  assert_non_null(ran);
  assert_non_null(tasks);
  _Atomic int64_t total = 0;
  for (int round = 0; round < 3; round++) { /* a group is reusable after wait */
    util_group g;
    util_group_init(&g, p);
    for (int i = 0; i < N; i++) {
      tasks[i] = (count_task){&ran[i], &total, i + 1};
      util_group_submit(&g, count_fn, &tasks[i]);
    }
    assert_int_equal(util_group_wait(&g, &err), 0);
    for (int i = 0; i < N; i++)
      if (atomic_load(&ran[i]) != round + 1)
        fail_msg("round %d: task %d ran %d times", round, i, atomic_load(&ran[i]));
  }
  assert_int_equal(atomic_load(&total), (int64_t)3 * N * (N + 1) / 2);
  util_pool_free(p);
  free(tasks);
  free(ran);
}

/* Two tasks that each wait (bounded) for the other to arrive: on a
 * threaded pool both arrive; serial execution would time out. */
typedef struct rendezvous {
  pthread_mutex_t m;
  pthread_cond_t c;
  int arrived;
  bool timed_out;
} rendezvous;

static int meet_fn(void *arg, inlet_error *err) {
  (void)err;
  rendezvous *r = arg;
  pthread_mutex_lock(&r->m);
  r->arrived++;
  pthread_cond_broadcast(&r->c);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 20;
  while (r->arrived < 2 && !r->timed_out)
    if (pthread_cond_timedwait(&r->c, &r->m, &until) != 0) r->timed_out = true;
  pthread_mutex_unlock(&r->m);
  return 0;
}

/* Two tasks that each wait for the other both arrive: they ran at once. */
static void expect_two_tasks_meet(util_pool *p) {
  rendezvous r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false};
  util_group g;
  util_group_init(&g, p);
  util_group_submit(&g, meet_fn, &r);
  util_group_submit(&g, meet_fn, &r);
  assert_int_equal(util_group_wait(&g, NULL), 0);
  assert_int_equal(r.arrived, 2);
  assert_false(r.timed_out);
}

static void test_pool__threaded_pool_runs_tasks_concurrently(void **state) {
  (void)state;
  util_pool *p = NULL;
  assert_int_equal(util_pool_new(&p, 2, NULL), 0);
  expect_two_tasks_meet(p);
  util_pool_free(p);
}

/* A pool beside a working caller: threads - 1 workers, so 2 makes one
 * worker, which with the waiting caller runs two tasks at once (an inline
 * pool would run them one after the other and the rendezvous time out). */
static void test_pool__beside_counts_the_caller(void **state) {
  (void)state;
  static const int want[][2] = {{0, 0}, {1, 0}, {2, 1}, {4, 3}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    util_pool *p = NULL;
    assert_int_equal(util_pool_new_beside(&p, want[i][0], NULL), 0);
    assert_int_equal(util_pool_threads(p), want[i][1]);
    util_pool_free(p);
  }
  util_pool *p = NULL;
  assert_int_equal(util_pool_new_beside(&p, 2, NULL), 0);
  expect_two_tasks_meet(p);
  util_pool_free(p);
}

typedef struct fail_task {
  int index;
  int sleep_us; /* before failing: makes low indices finish last */
  int rc;       /* 0 = succeed */
} fail_task;

static int fail_fn(void *arg, inlet_error *err) {
  fail_task *t = arg;
  if (t->sleep_us) {
    struct timespec ts = {0, (long)t->sleep_us * 1000};
    nanosleep(&ts, NULL);
  }
  if (t->rc == 0) return 0;
  return inlet_fail(err, t->rc, "task %d failed", t->index);
}

static void run_failures(int threads) {
  util_pool *p = NULL;
  assert_int_equal(util_pool_new(&p, threads, NULL), 0);
  enum { N = 64 };
  fail_task tasks[N];
  for (int rep = 0; rep < 5; rep++) {
    util_group g;
    util_group_init(&g, p);
    for (int i = 0; i < N; i++) {
      tasks[i] = (fail_task){i, 0, 0};
      /* 5, 9 and 40 fail; 5 sleeps so that the others finish first. */
      if (i == 5) tasks[i] = (fail_task){i, 20000, INLET_ECORRUPT};
      if (i == 9) tasks[i] = (fail_task){i, 0, INLET_EIO};
      if (i == 40) tasks[i] = (fail_task){i, 0, INLET_ENOMEM};
      util_group_submit(&g, fail_fn, &tasks[i]);
    }
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(util_group_wait(&g, &err), INLET_ECORRUPT);
    assert_int_equal(err.code, INLET_ECORRUPT);
    assert_string_equal(err.message, "task 5 failed");
    /* The group starts clean again. */
    tasks[0] = (fail_task){0, 0, 0};
    util_group_submit(&g, fail_fn, &tasks[0]);
    inlet_error err2 = INLET_ERROR_INIT;
    assert_int_equal(util_group_wait(&g, &err2), 0);
    assert_int_equal(err2.code, 0);
  }
  util_pool_free(p);
}

static void test_pool__lowest_failed_index_wins(void **state) {
  (void)state;
  run_failures(4);
  run_failures(2);
  run_failures(1);
}

typedef struct where_task {
  pthread_t ran_on;
  bool ran;
} where_task;

static int where_fn(void *arg, inlet_error *err) {
  (void)err;
  where_task *t = arg;
  t->ran_on = pthread_self();
  t->ran = true;
  return 0;
}

static void test_pool__one_thread_runs_inline(void **state) {
  (void)state;
  util_pool *p = NULL;
  assert_int_equal(util_pool_new(&p, 1, NULL), 0);
  assert_int_equal(util_pool_threads(p), 0); /* no thread created */
  util_pool *none = NULL;
  for (int k = 0; k < 2; k++) {
    util_group g;
    util_group_init(&g, k == 0 ? p : none);
    where_task t = {0};
    util_group_submit(&g, where_fn, &t);
    assert_true(t.ran); /* before wait: it ran inside submit */
    assert_true(pthread_equal(t.ran_on, pthread_self()));
    fail_task f = {3, 0, INLET_EINVAL};
    util_group_submit(&g, fail_fn, &f);
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(util_group_wait(&g, &err), INLET_EINVAL);
    assert_string_equal(err.message, "task 3 failed");
  }
  util_pool_free(p);
  util_pool_free(NULL);
  assert_int_equal(util_pool_threads(NULL), 0);
}

/* A task that runs a group of its own on the same pool. */
typedef struct outer_task {
  util_pool *pool;
  _Atomic int *inner_ran;
  int fail_inner; /* -1: none */
} outer_task;

static int inner_fn(void *arg, inlet_error *err) {
  (void)err;
  atomic_fetch_add((_Atomic int *)arg, 1);
  return 0;
}

static int outer_fn(void *arg, inlet_error *err) {
  outer_task *t = arg;
  util_group g;
  util_group_init(&g, t->pool);
  fail_task f = {t->fail_inner, 0, INLET_ELIMIT};
  for (int i = 0; i < 8; i++) {
    if (i == t->fail_inner)
      util_group_submit(&g, fail_fn, &f);
    else
      util_group_submit(&g, inner_fn, t->inner_ran);
  }
  return util_group_wait(&g, err);
}

static void test_pool__nested_groups_do_not_deadlock(void **state) {
  (void)state;
  util_pool *p = NULL;
  assert_int_equal(util_pool_new(&p, 2, NULL), 0);
  enum { N = 32 };
  outer_task outs[N];
  _Atomic int inner_ran = 0;
  util_group g;
  util_group_init(&g, p);
  for (int i = 0; i < N; i++) {
    outs[i] = (outer_task){p, &inner_ran, i == 20 ? 6 : -1};
    util_group_submit(&g, outer_fn, &outs[i]);
  }
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(util_group_wait(&g, &err), INLET_ELIMIT);
  assert_string_equal(err.message, "task 6 failed");
  assert_int_equal(atomic_load(&inner_ran), N * 8 - 1);
  util_pool_free(p);
}

/* A task that holds a worker until released. */
typedef struct gate {
  _Atomic int entered;
  _Atomic int open;
} gate;

static int hold_fn(void *arg, inlet_error *err) {
  (void)err;
  gate *gt = arg;
  atomic_fetch_add(&gt->entered, 1);
  while (!atomic_load(&gt->open)) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  return 0;
}

typedef struct order_task {
  _Atomic int *clock; /* tasks run so far */
  int ran_at;         /* clock value when this one ran, -1 not yet */
} order_task;

static int order_fn(void *arg, inlet_error *err) {
  (void)err;
  order_task *t = arg;
  t->ran_at = atomic_fetch_add(t->clock, 1);
  return 0;
}

/* A waiter runs the queued tasks of the group it waits for before tasks
 * another group queued earlier: with both workers held, the caller's wait
 * for group B runs B's five tasks and none of A's (queued first), which
 * then run once the workers are free. */
static void test_pool__waiter_runs_its_own_tasks_first(void **state) {
  (void)state;
  util_pool *p = NULL;
  assert_int_equal(util_pool_new(&p, 2, NULL), 0);
  assert_int_equal(util_pool_threads(p), 2);
  gate gt;
  atomic_init(&gt.entered, 0);
  atomic_init(&gt.open, 0);
  util_group hold, a, b;
  util_group_init(&hold, p);
  util_group_init(&a, p);
  util_group_init(&b, p);
  util_group_submit(&hold, hold_fn, &gt);
  util_group_submit(&hold, hold_fn, &gt);
  for (int i = 0; i < 20000 && atomic_load(&gt.entered) < 2; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  assert_int_equal(atomic_load(&gt.entered), 2);
  _Atomic int clock;
  atomic_init(&clock, 0);
  order_task ta[5], tb[5];
  for (int i = 0; i < 5; i++) {
    ta[i] = (order_task){&clock, -1};
    tb[i] = (order_task){&clock, -1};
    util_group_submit(&a, order_fn, &ta[i]);
  }
  for (int i = 0; i < 5; i++)
    util_group_submit(&b, order_fn, &tb[i]);
  assert_int_equal(util_group_wait(&b, NULL), 0);
  for (int i = 0; i < 5; i++) {
    assert_int_equal(tb[i].ran_at, i); /* in submission order, first */
    assert_int_equal(ta[i].ran_at, -1);
  }
  atomic_store(&gt.open, 1);
  assert_int_equal(util_group_wait(&a, NULL), 0);
  for (int i = 0; i < 5; i++)
    assert_true(ta[i].ran_at >= 5);
  assert_int_equal(util_group_wait(&hold, NULL), 0);
  util_pool_free(p);
}

typedef struct thread_task {
  pthread_t ran_on;
  _Atomic int ran;
} thread_task;

static int thread_fn(void *arg, inlet_error *err) {
  (void)err;
  thread_task *t = arg;
  t->ran_on = pthread_self();
  atomic_store(&t->ran, 1);
  return 0;
}

static void *open_gate_later(void *arg) {
  struct timespec ts = {0, 50000000};
  nanosleep(&ts, NULL);
  atomic_store(&((gate *)arg)->open, 1);
  return NULL;
}

/* util_group_wait_own runs the waiter's own queued tasks and nothing else:
 * with both workers held and A's five tasks queued before W's one, waiting
 * for W runs W's task on the caller and none of A's; with W's task running
 * on a worker and A's queued, the caller sleeps rather than run A's.
 * util_group_submit_first queues ahead of what is queued: F's task,
 * submitted after A's, is the first one a freed worker runs, then A's. */
static void test_pool__wait_own_and_submit_first(void **state) {
  (void)state;
  util_pool *p = NULL;
  assert_int_equal(util_pool_new(&p, 2, NULL), 0);
  gate g1, g2;
  atomic_init(&g1.entered, 0);
  atomic_init(&g1.open, 0);
  atomic_init(&g2.entered, 0);
  atomic_init(&g2.open, 0);
  util_group h1, h2, a, w, f;
  util_group_init(&h1, p);
  util_group_init(&h2, p);
  util_group_init(&a, p);
  util_group_init(&w, p);
  util_group_init(&f, p);
  util_group_submit(&h1, hold_fn, &g1);
  util_group_submit(&h2, hold_fn, &g2);
  for (int i = 0; i < 20000 && atomic_load(&g1.entered) + atomic_load(&g2.entered) < 2; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  assert_int_equal(atomic_load(&g1.entered) + atomic_load(&g2.entered), 2);
  _Atomic int clock;
  atomic_init(&clock, 0);
  order_task ta[5], tw = {&clock, -1}, tf = {&clock, -1};
  for (int i = 0; i < 5; i++) {
    ta[i] = (order_task){&clock, -1};
    util_group_submit(&a, order_fn, &ta[i]);
  }
  util_group_submit(&w, order_fn, &tw);
  assert_int_equal(util_group_wait_own(&w, NULL), 0);
  assert_int_equal(tw.ran_at, 0);
  for (int i = 0; i < 5; i++)
    assert_int_equal(ta[i].ran_at, -1);
  util_group_submit_first(&f, order_fn, &tf);
  atomic_store(&g1.open, 1); /* one worker free: it runs the queue in order */
  assert_int_equal(util_group_join(&f, NULL), 0);
  assert_int_equal(util_group_join(&a, NULL), 0);
  assert_int_equal(tf.ran_at, 1);
  for (int i = 0; i < 5; i++)
    assert_int_equal(ta[i].ran_at, 2 + i);
  /* W's task running on the other worker, A's queued: the caller sleeps
   * until W's ends instead of running A's (util_group_wait would). */
  gate gw;
  atomic_init(&gw.entered, 0);
  atomic_init(&gw.open, 0);
  util_group_submit(&w, hold_fn, &gw);
  for (int i = 0; i < 20000 && atomic_load(&gw.entered) < 1; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  assert_int_equal(atomic_load(&gw.entered), 1);
  thread_task tt[5];
  for (int i = 0; i < 5; i++) {
    atomic_init(&tt[i].ran, 0);
    util_group_submit(&a, thread_fn, &tt[i]);
  }
  pthread_t opener;
  assert_int_equal(pthread_create(&opener, NULL, open_gate_later, &gw), 0);
  assert_int_equal(util_group_wait_own(&w, NULL), 0);
  assert_int_equal(util_group_join(&a, NULL), 0);
  pthread_join(opener, NULL);
  for (int i = 0; i < 5; i++) {
    assert_int_equal(atomic_load(&tt[i].ran), 1);
    assert_false(pthread_equal(tt[i].ran_on, pthread_self()));
  }
  atomic_store(&g2.open, 1);
  assert_int_equal(util_group_wait(&h1, NULL), 0);
  assert_int_equal(util_group_wait(&h2, NULL), 0);
  util_pool_free(p);
}

/* Every worker a wait_own waiter whose one task is queued behind more than
 * a helping waiter looks at (the parquet writer's columns waiting for their
 * pages' compression while a checkpoint's many sidecar writers fill the
 * queue): each finds its task wherever it is and runs it, and the caller,
 * joining without helping, sees everything finish. An alarm ends a
 * deadlock. */
typedef struct deep_waiter {
  _Atomic int *fillers_queued;
  count_task inner;
  util_pool *pool;
} deep_waiter;

static int deep_waiter_fn(void *arg, inlet_error *err) {
  deep_waiter *d = arg;
  while (!atomic_load(d->fillers_queued)) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
  }
  util_group own;
  util_group_init(&own, d->pool);
  util_group_submit(&own, count_fn, &d->inner);
  return util_group_wait_own(&own, err);
}

static void test_pool__wait_own_finds_its_task_behind_a_long_queue(void **state) {
  (void)state;
  enum { FILLERS = 500 };
  util_pool *p = NULL;
  assert_int_equal(util_pool_new(&p, 2, NULL), 0);
  alarm(60);
  _Atomic int fillers_queued, ran_inner[2], ran_fill;
  _Atomic int64_t total;
  atomic_init(&fillers_queued, 0);
  atomic_init(&ran_inner[0], 0);
  atomic_init(&ran_inner[1], 0);
  atomic_init(&ran_fill, 0);
  atomic_init(&total, 0);
  util_group outer;
  util_group_init(&outer, p);
  deep_waiter d[2];
  for (int i = 0; i < 2; i++) {
    d[i] = (deep_waiter){&fillers_queued, {&ran_inner[i], &total, 1000}, p};
    util_group_submit(&outer, deep_waiter_fn, &d[i]);
  }
  count_task *fill = calloc(FILLERS, sizeof *fill);
  assert_non_null(fill);
  for (int i = 0; i < FILLERS; i++) {
    fill[i] = (count_task){&ran_fill, &total, 1};
    util_group_submit(&outer, count_fn, &fill[i]);
  }
  atomic_store(&fillers_queued, 1);
  assert_int_equal(util_group_join(&outer, NULL), 0);
  alarm(0);
  assert_int_equal(atomic_load(&ran_inner[0]), 1);
  assert_int_equal(atomic_load(&ran_inner[1]), 1);
  assert_int_equal(atomic_load(&ran_fill), FILLERS);
  assert_int_equal(atomic_load(&total), 2000 + FILLERS);
  free(fill);
  util_pool_free(p);
}

static void test_pool__online_cpus_positive(void **state) {
  (void)state;
  assert_true(util_online_cpus() >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool__many_tasks_each_run_once),
      cmocka_unit_test(test_pool__threaded_pool_runs_tasks_concurrently),
      cmocka_unit_test(test_pool__beside_counts_the_caller),
      cmocka_unit_test(test_pool__lowest_failed_index_wins),
      cmocka_unit_test(test_pool__one_thread_runs_inline),
      cmocka_unit_test(test_pool__nested_groups_do_not_deadlock),
      cmocka_unit_test(test_pool__waiter_runs_its_own_tasks_first),
      cmocka_unit_test(test_pool__wait_own_and_submit_first),
      cmocka_unit_test(test_pool__wait_own_finds_its_task_behind_a_long_queue),
      cmocka_unit_test(test_pool__online_cpus_positive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
