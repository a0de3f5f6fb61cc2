/*
 * A small fixed-size thread pool (pthreads) and task groups over it, for
 * the work a library call was asked to spread over several cores (issue 18:
 * Parquet column chunks encoded and compressed in parallel).
 *
 * A pool made for one thread creates no thread: every task runs inline on
 * the submitting thread, in submission order, which is exactly the
 * single-threaded behaviour. Nothing in the library makes a pool unless a
 * caller asked for more than one thread.
 *
 * Tasks are grouped: a group counts the tasks submitted to it, and
 * util_group_wait returns when all of them have run. A waiting thread runs
 * queued tasks itself (of any group) instead of sleeping, so a task may
 * submit to and wait for a group of its own on the same pool without
 * deadlock, and the waiter's core is not idle.
 *
 * Errors are deterministic: each task gets its own inlet_error; the group
 * keeps the failure of the lowest task index (tasks are numbered in
 * submission order from 0), whatever order the tasks finished in, and
 * util_group_wait returns it. Tasks of a group that has failed still run
 * (they cannot be recalled once queued); callers discard their results.
 */
#ifndef INLET_UTIL_POOL_H
#define INLET_UTIL_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "inlet/error.h"

typedef struct util_pool util_pool;

/* A task: 0 or a negative INLET_E* code with detail in @p err. */
typedef int (*util_task_fn)(void *arg, inlet_error *err);

/*
 * Makes a pool of @p threads workers (values < 2 make an inline pool with
 * no thread). When the system refuses a thread, the pool keeps those it
 * got (an inline pool if none): fewer threads change speed, never results.
 * @return 0, INLET_ENOMEM.
 */
int util_pool_new(util_pool **out, int threads, inlet_error *err);
/*
 * util_pool_new for a caller whose own thread keeps working beside the
 * pool (the ingester parses while chunks are written): @p threads in all,
 * the caller's one of them, so threads - 1 workers (2 makes one worker;
 * values < 2 an inline pool). On two cores, three busy threads (the
 * caller and two workers) made the ingester's thread, the one the others
 * wait for, share its core: 0.59-0.71 s against 0.54-0.58 s for 4M events.
 */
int util_pool_new_beside(util_pool **out, int threads, inlet_error *err);
/* Stops and joins the workers. The pool must have no group in flight. NULL-safe. */
void util_pool_free(util_pool *p);
/* Worker threads the pool runs (0 for an inline pool; NULL counts as inline). */
int util_pool_threads(const util_pool *p);

/* Tasks submitted together and waited for together. Used by one thread
 * (the one that submits and waits); the fields are the pool's. */
typedef struct util_group {
  util_pool *pool;    /* borrowed; NULL: every task runs inline */
  int64_t submitted;  /* tasks submitted (the next task's index) */
  int64_t pending;    /* submitted and not finished (under the pool's lock) */
  int64_t fail_index; /* lowest failed task index, -1 none (under the lock) */
  int fail_rc;
  inlet_error fail_err;
} util_group;

/* Starts an empty group on @p pool (NULL: inline). */
void util_group_init(util_group *g, util_pool *pool);

/*
 * Submits fn(arg). On an inline pool it runs now. On a threaded pool it is
 * queued; if the queue entry cannot be allocated it runs now instead (so
 * submission never fails). @p arg must stay valid until util_group_wait.
 */
void util_group_submit(util_group *g, util_task_fn fn, void *arg);

/* Like util_group_submit, but queued ahead of every task already queued:
 * for a short task another thread will soon wait for (a read-ahead), which
 * would otherwise wait behind long ones. */
void util_group_submit_first(util_group *g, util_task_fn fn, void *arg);

/*
 * Waits for every task submitted to @p g (running queued tasks meanwhile).
 * @return 0, or the code of the failed task with the lowest index, its
 *         message copied into @p err. The group is empty again after.
 */
int util_group_wait(util_group *g, inlet_error *err);

/* Like util_group_wait, but sleeps instead of running queued tasks: for
 * groups whose tasks must not run on the waiting thread (a parallel scan's
 * task waits for the scan's thread to take its batches, so run there it
 * would wait for itself). */
int util_group_join(util_group *g, inlet_error *err);

/* Like util_group_wait, but of the queued tasks runs only @p g's own,
 * wherever they are in the queue: for a waiter on the critical path (the
 * ingester's thread waiting for a read-ahead, a column waiting for its
 * page's compression), which would rather sleep than start another group's
 * long task while its own finishes on a worker. Deadlock-free when @p g's
 * tasks never wait themselves: each is then either run here or running
 * elsewhere, even when every worker is such a waiter. */
int util_group_wait_own(util_group *g, inlet_error *err);

/* The number of online CPUs (sysconf), at least 1. */
int util_online_cpus(void);

#endif /* INLET_UTIL_POOL_H */
