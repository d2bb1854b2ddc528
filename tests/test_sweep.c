// SPDX-License-Identifier: MIT
/* The all-VF scheduler (bench/sweep.h) with a fake runner in place of RDMA
 * runs: every job runs once and a rail's jobs in order, the lanes never
 * exceed the limit nor share a rail, cancel stops every lane before its
 * next job, the hooks come in order per job, a peer failing the same way is
 * out (per rail when each rail has its own port). */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/sweep.h"
#include "testutil.h"

#define MAX_JOBS   32
#define MAX_RAILS  8
#define MAX_EVENTS 256

/* What the fake runner does and what it saw. */
struct fake {
	struct bench_sweep_job *jobs;
	unsigned int sleep_ms; /* each run lasts this long */
	int cancel_at;	       /* the job whose run sets cancel halfway (-1: none) */
	atomic_bool *cancel;
	size_t fail_rail; /* the rail whose peer refuses (with fail) */
	bool fail;
	unsigned int progress_n; /* progress calls per run */
	atomic_uint calls[MAX_JOBS];
	uint16_t port[MAX_JOBS];
	atomic_int running, max_running;
	atomic_int rail_running[MAX_RAILS];
	atomic_bool rail_shared; /* two lanes on one rail at once */
	size_t order[MAX_RAILS][MAX_JOBS], n_order[MAX_RAILS];
};

static void sleep_ms(unsigned int ms)
{
	struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) < 0)
		;
}

static enum bench_sweep_status fake_run(const struct bench_sweep_task *task, void *arg,
					struct json_object **ret_row, char *why, size_t why_size)
{
	struct fake *f = arg;
	size_t i = (size_t)(task->job - f->jobs), rail = task->job->rail;
	int now = atomic_fetch_add(&f->running, 1) + 1, max = atomic_load(&f->max_running);
	while (now > max && !atomic_compare_exchange_weak(&f->max_running, &max, now))
		;
	if (atomic_fetch_add(&f->rail_running[rail], 1))
		atomic_store(&f->rail_shared, true);
	atomic_fetch_add(&f->calls[i], 1);
	f->port[i] = task->port;
	f->order[rail][f->n_order[rail]++] = i; /* only this rail's lane writes here */
	for (unsigned int k = 0; k < f->progress_n; k++) {
		struct bench_progress p = {.fraction = (k + 1.0) / (f->progress_n + 1.0)};
		if (task->progress)
			task->progress(&p, task->progress_arg);
	}
	if ((int)i == f->cancel_at) {
		sleep_ms(f->sleep_ms / 2);
		atomic_store(f->cancel, true);
		sleep_ms(f->sleep_ms / 2);
	} else if (f->sleep_ms) {
		sleep_ms(f->sleep_ms);
	}
	atomic_fetch_sub(&f->rail_running[rail], 1);
	atomic_fetch_sub(&f->running, 1);
	*ret_row = json_object_new_int((int)i);
	if ((int)i == f->cancel_at) {
		snprintf(why, why_size, "the run was cancelled");
		return BENCH_SWEEP_ERROR;
	}
	if (f->fail && rail == f->fail_rail) {
		snprintf(why, why_size, "cannot connect to 10.0.0.2 port %u: Connection refused",
			 task->port);
		return BENCH_SWEEP_ERROR;
	}
	snprintf(why, why_size, "ok");
	return BENCH_SWEEP_PASS;
}

/* n_rails rails (rail r is r * 3, not a slot) of per jobs each, PF by PF. */
static size_t make_jobs(struct bench_sweep_job *jobs, size_t n_rails, size_t per)
{
	size_t n = 0;
	memset(jobs, 0, sizeof(*jobs) * MAX_JOBS);
	for (size_t r = 0; r < n_rails; r++)
		for (size_t k = 0; k < per; k++, n++) {
			jobs[n].rail = r * 3 % MAX_RAILS;
			snprintf(jobs[n].t.ibdev, sizeof(jobs[n].t.ibdev), "mlx5_%zu", n + 10);
			snprintf(jobs[n].t.bdf, sizeof(jobs[n].t.bdf), "0000:%02zx:00.%zu", r + 1,
				 k + 1);
		}
	return n;
}

static void put_rows(struct bench_sweep_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_put(jobs[i].row);
}

static struct bench_sweep_config config(struct bench_sweep_job *jobs, size_t n, struct fake *f)
{
	f->jobs = jobs;
	f->cancel_at = -1;
	return (struct bench_sweep_config){
		.jobs = jobs, .n_jobs = n, .run = fake_run, .run_arg = f, .cancel = f->cancel};
}

START_TEST(every_job_runs_once_a_rails_jobs_in_order)
{
	static struct bench_sweep_job jobs[MAX_JOBS];
	for (int parallel = 0; parallel < 2; parallel++) {
		static struct fake f;
		memset(&f, 0, sizeof(f));
		size_t n = make_jobs(jobs, 4, 5);
		struct bench_sweep_config c = config(jobs, n, &f);
		struct bench_sweep_stats st;
		c.parallel = parallel;
		ck_assert_int_eq(bench_sweep_run(&c, &st), 0);
		ck_assert_uint_eq(st.done, n);
		ck_assert_uint_eq(st.lanes, parallel ? 4 : 1);
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_eq(atomic_load(&f.calls[i]), 1);
			ck_assert(jobs[i].done && jobs[i].ran);
			ck_assert_int_eq(jobs[i].status, BENCH_SWEEP_PASS);
			ck_assert_str_eq(jobs[i].why, "ok");
			ck_assert_int_eq(json_object_get_int(jobs[i].row), (int)i);
			ck_assert(jobs[i].end_s >= jobs[i].start_s);
		}
		for (size_t r = 0; r < 4; r++) {
			size_t rail = r * 3 % MAX_RAILS;
			ck_assert_uint_eq(f.n_order[rail], 5);
			for (size_t k = 0; k < 5; k++)
				ck_assert_uint_eq(f.order[rail][k], r * 5 + k);
		}
		ck_assert(!atomic_load(&f.rail_shared));
		put_rows(jobs, n);
	}
}
END_TEST

START_TEST(lanes_never_exceed_the_limit)
{
	static const struct {
		bool parallel;
		size_t max_lanes, want_lanes;
	} cases[] = {{false, 0, 1}, {true, 2, 2}, {true, 0, 6}, {true, 9, 6}};
	static struct bench_sweep_job jobs[MAX_JOBS];
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		static struct fake f;
		memset(&f, 0, sizeof(f));
		size_t n = make_jobs(jobs, 6, 3);
		struct bench_sweep_config c = config(jobs, n, &f);
		struct bench_sweep_stats st;
		f.sleep_ms = 3;
		c.parallel = cases[k].parallel;
		c.max_lanes = cases[k].max_lanes;
		ck_assert_int_eq(bench_sweep_run(&c, &st), 0);
		ck_assert_uint_eq(st.lanes, cases[k].want_lanes);
		ck_assert_msg((size_t)atomic_load(&f.max_running) <= cases[k].want_lanes,
			      "case %zu: %d runs at once", k, atomic_load(&f.max_running));
		ck_assert_msg(!atomic_load(&f.rail_shared), "case %zu: a rail on two lanes", k);
		size_t lanes_seen = 0;
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_eq(atomic_load(&f.calls[i]), 1);
			ck_assert_uint_lt(jobs[i].lane, cases[k].want_lanes);
			lanes_seen |= (size_t)1 << jobs[i].lane;
			/* A rail stays on the lane that took it. */
			if (i % 3)
				ck_assert_uint_eq(jobs[i].lane, jobs[i - 1].lane);
		}
		ck_assert_uint_le((size_t)__builtin_popcountl(lanes_seen), cases[k].want_lanes);
		put_rows(jobs, n);
	}
}
END_TEST

START_TEST(cancel_stops_every_lane_before_its_next_job)
{
	static struct bench_sweep_job jobs[MAX_JOBS];
	static struct fake f;
	atomic_bool cancel = false;
	/* One lane: the run that sees cancel is not the VF's failure, the rest not reached. */
	memset(&f, 0, sizeof(f));
	f.cancel = &cancel;
	size_t n = make_jobs(jobs, 1, 5);
	struct bench_sweep_config c = config(jobs, n, &f);
	struct bench_sweep_stats st;
	f.cancel_at = 1;
	ck_assert_int_eq(bench_sweep_run(&c, &st), 0);
	ck_assert_uint_eq(st.done, 2);
	ck_assert_int_eq(jobs[0].status, BENCH_SWEEP_PASS);
	ck_assert(jobs[1].done && jobs[1].ran);
	ck_assert_int_eq(jobs[1].status, BENCH_SWEEP_SKIP);
	ck_assert_str_eq(jobs[1].why, "interrupted");
	for (size_t i = 2; i < n; i++) {
		ck_assert_uint_eq(atomic_load(&f.calls[i]), 0);
		ck_assert(!jobs[i].done && !jobs[i].ran);
	}
	put_rows(jobs, n);

	/* Every rail at once: cancel halfway through rail 0's second run; the
	 * other lanes are in their second run then and start no third. */
	memset(&f, 0, sizeof(f));
	atomic_store(&cancel, false);
	f.cancel = &cancel;
	n = make_jobs(jobs, 3, 4);
	c = config(jobs, n, &f);
	c.parallel = true;
	f.sleep_ms = 100;
	f.cancel_at = 1;
	ck_assert_int_eq(bench_sweep_run(&c, &st), 0);
	for (size_t i = 0; i < n; i++)
		if (i % 4 >= 2) {
			ck_assert_msg(atomic_load(&f.calls[i]) == 0, "job %zu ran after cancel", i);
			ck_assert(!jobs[i].done);
		}
	put_rows(jobs, n);

	/* Cancelled before it starts: nothing runs. */
	memset(&f, 0, sizeof(f));
	f.cancel = &cancel;
	n = make_jobs(jobs, 3, 2);
	c = config(jobs, n, &f);
	c.parallel = true;
	ck_assert_int_eq(bench_sweep_run(&c, &st), 0);
	ck_assert_uint_eq(st.done, 0);
	for (size_t i = 0; i < n; i++)
		ck_assert(atomic_load(&f.calls[i]) == 0 && !jobs[i].done);
}
END_TEST

/* The hooks' calls, in the order made (the sweep makes them one at a time). */
struct event {
	char kind; /* 'S'tart, 'P'rogress, 'D'one */
	size_t job, done, total;
	double fraction;
};

struct log {
	struct bench_sweep_job *jobs;
	struct event ev[MAX_EVENTS];
	size_t n;
};

static void add(struct log *l, char kind, const struct bench_sweep_job *j, size_t done,
		size_t total, double fraction)
{
	ck_assert_uint_lt(l->n, MAX_EVENTS);
	l->ev[l->n++] = (struct event){.kind = kind,
				       .job = (size_t)(j - l->jobs),
				       .done = done,
				       .total = total,
				       .fraction = fraction};
}

static void hook_start(const struct bench_sweep_job *j, void *arg)
{
	add(arg, 'S', j, 0, 0, 0);
}

static void hook_progress(const struct bench_sweep_job *j, size_t done, size_t total,
			  const struct bench_progress *p, void *arg)
{
	add(arg, 'P', j, done, total, p->fraction);
}

static void hook_done(struct bench_sweep_job *j, size_t done, size_t total, void *arg)
{
	add(arg, 'D', j, done, total, 0);
}

START_TEST(hooks_come_in_order_per_job)
{
	static struct bench_sweep_job jobs[MAX_JOBS];
	static struct fake f;
	static struct log l;
	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	size_t n = make_jobs(jobs, 3, 3);
	struct bench_sweep_config c = config(jobs, n, &f);
	l.jobs = jobs;
	f.progress_n = 3;
	f.sleep_ms = 1;
	jobs[4].skip = true;
	snprintf(jobs[4].why, sizeof(jobs[4].why), "bound to a pod");
	c.parallel = true;
	c.on_start = hook_start;
	c.on_progress = hook_progress;
	c.on_done = hook_done;
	c.hook_arg = &l;
	ck_assert_int_eq(bench_sweep_run(&c, NULL), 0);
	size_t last_done = 0;
	for (size_t i = 0; i < n; i++) {
		char seq[16] = "";
		size_t m = 0;
		double frac = 0;
		for (size_t e = 0; e < l.n; e++) {
			if (l.ev[e].job != i)
				continue;
			seq[m++] = l.ev[e].kind;
			if (l.ev[e].kind == 'P') {
				ck_assert(l.ev[e].fraction > frac);
				frac = l.ev[e].fraction;
			}
			if (l.ev[e].kind != 'S')
				ck_assert_uint_eq(l.ev[e].total, n);
		}
		ck_assert_str_eq(seq, i == 4 ? "D" : "SPPPD");
	}
	/* done counts up by one, in the order the jobs finish. */
	for (size_t e = 0; e < l.n; e++)
		if (l.ev[e].kind == 'D')
			ck_assert_uint_eq(l.ev[e].done, ++last_done);
	ck_assert_uint_eq(last_done, n);
	/* The skipped job: not run, its reason kept. */
	ck_assert_uint_eq(atomic_load(&f.calls[4]), 0);
	ck_assert(jobs[4].done && !jobs[4].ran);
	ck_assert_int_eq(jobs[4].status, BENCH_SWEEP_SKIP);
	ck_assert_str_eq(jobs[4].why, "bound to a pod");
	put_rows(jobs, n);
}
END_TEST

START_TEST(a_peer_failing_the_same_way_three_times_is_out)
{
	static struct bench_sweep_job jobs[MAX_JOBS];
	static struct fake f;
	memset(&f, 0, sizeof(f));
	size_t n = make_jobs(jobs, 1, 5);
	struct bench_sweep_config c = config(jobs, n, &f);
	f.fail = true;
	c.strikes = true;
	c.port = 18515;
	ck_assert_int_eq(bench_sweep_run(&c, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert(jobs[i].done);
		ck_assert_uint_eq(atomic_load(&f.calls[i]), i < 3);
		ck_assert(jobs[i].peer_out == (i == 2));
		if (i >= 3) {
			ck_assert_int_eq(jobs[i].status, BENCH_SWEEP_SKIP);
			ck_assert(!jobs[i].ran);
			ck_assert_str_eq(jobs[i].why,
					 "not run: the peer failed 3 times: cannot connect to "
					 "10.0.0.2 port 18515: Connection refused");
		}
	}
	put_rows(jobs, n);
	/* Without strikes every job runs. */
	memset(&f, 0, sizeof(f));
	c = config(jobs, n, &f);
	f.fail = true;
	ck_assert_int_eq(bench_sweep_run(&c, NULL), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(jobs[i].status, BENCH_SWEEP_ERROR);
	put_rows(jobs, n);
}
END_TEST

START_TEST(each_rail_meets_its_own_peer_on_port_plus_rail)
{
	static struct bench_sweep_job jobs[MAX_JOBS];
	static struct fake f;
	memset(&f, 0, sizeof(f));
	size_t n = make_jobs(jobs, 2, 4); /* rails 0 and 3 */
	struct bench_sweep_config c = config(jobs, n, &f);
	f.fail = true;
	f.fail_rail = 0;
	c.parallel = c.rail_ports = c.strikes = true;
	c.port = 20000;
	ck_assert_int_eq(bench_sweep_run(&c, NULL), 0);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(atomic_load(&f.calls[i]), i < 3);
		if (i < 3)
			ck_assert_uint_eq(f.port[i], 20000);
	}
	/* Rail 0's peer out is not rail 3's. */
	for (size_t i = 4; i < 8; i++) {
		ck_assert_uint_eq(f.port[i], 20003);
		ck_assert_int_eq(jobs[i].status, BENCH_SWEEP_PASS);
	}
	put_rows(jobs, n);
	/* One peer for the sweep: one port. */
	memset(&f, 0, sizeof(f));
	c = config(jobs, n, &f);
	c.parallel = true;
	c.port = 20000;
	ck_assert_int_eq(bench_sweep_run(&c, NULL), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(f.port[i], 20000);
	put_rows(jobs, n);
}
END_TEST

START_TEST(rails_count_only_jobs_to_run)
{
	static struct bench_sweep_job jobs[MAX_JOBS];
	size_t n = make_jobs(jobs, 3, 2);
	ck_assert_uint_eq(bench_sweep_rails(jobs, n), 3);
	jobs[0].skip = jobs[1].skip = true;
	ck_assert_uint_eq(bench_sweep_rails(jobs, n), 2);
	jobs[2].skip = true;
	ck_assert_uint_eq(bench_sweep_rails(jobs, n), 2);
	ck_assert_uint_eq(bench_sweep_rails(jobs, 0), 0);
	ck_assert_uint_eq(bench_sweep_last_port(65534, 2), 65535);
	ck_assert_uint_gt(bench_sweep_last_port(65535, 2), 65535);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, every_job_runs_once_a_rails_jobs_in_order);
	tcase_add_test(tc, lanes_never_exceed_the_limit);
	tcase_add_test(tc, cancel_stops_every_lane_before_its_next_job);
	tcase_add_test(tc, hooks_come_in_order_per_job);
	tcase_add_test(tc, a_peer_failing_the_same_way_three_times_is_out);
	tcase_add_test(tc, each_rail_meets_its_own_peer_on_port_plus_rail);
	tcase_add_test(tc, rails_count_only_jobs_to_run);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
