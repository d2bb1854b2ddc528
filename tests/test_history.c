// SPDX-License-Identifier: MIT
/* The benchmark history (bench/history.h): appended lines read back by key,
 * the last one winning; corrupt, torn and over-long lines skipped and
 * counted; links refused; the mode fixed; every key found however far back;
 * the file rewritten past its cap keeping every key's newest; a file past
 * the read bound said; concurrent appends whole, across a rewrite too; and
 * the noise rule against figures worked out by hand. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/history.h"
#include "testutil.h"

static char *dir;
static char path[PATH_MAX];

static void setup(void)
{
	char tmpl[] = "/tmp/ibvf-history-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	dir = strdup(tmpl);
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/bench-history.jsonl", dir);
}

static void teardown(void)
{
	tu_rmtree(dir);
}

static struct json_object *entry(const char *pf, int vf, const char *test, double figure)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "key", bench_history_key(pf, vf, test, "10.0.0.2"));
	json_object_object_add(o, "figure", json_object_new_double(figure));
	return o;
}

static void append(const char *pf, int vf, const char *test, double figure)
{
	struct err e = {{0}};
	struct json_object *o = entry(pf, vf, test, figure);
	ck_assert_msg(bench_history_append(path, o, &e) == 0, "%s", e.msg);
	json_object_put(o);
}

/* The figure of the last entry for the key, -1 when none; skipped lines. */
static double last(const char *pf, int vf, const char *test, size_t *skipped)
{
	struct err e = {{0}};
	struct json_object *k = bench_history_key(pf, vf, test, "10.0.0.2"), *o, *f;
	size_t sk;
	ck_assert_msg(bench_history_last(path, k, &o, &sk, &e) == 0, "%s", e.msg);
	json_object_put(k);
	if (skipped)
		*skipped = sk;
	double v = o && json_object_object_get_ex(o, "figure", &f) ? json_object_get_double(f) : -1;
	json_object_put(o);
	return v;
}

static void put_raw(const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

START_TEST(no_file_is_no_history)
{
	size_t sk = 9;
	ck_assert_double_eq(last("0000:18:00.0", 1, "write_bw", &sk), -1);
	ck_assert_uint_eq(sk, 0);
}
END_TEST

START_TEST(last_entry_of_the_same_key_wins)
{
	append("0000:18:00.0", 1, "write_bw", 390);
	append("0000:18:00.0", 1, "read_bw", 380);
	append("0000:18:00.0", 2, "write_bw", 100);
	append("0000:18:00.0", 1, "write_bw", 391);
	append("0000:29:00.0", 1, "write_bw", 50);
	ck_assert_double_eq(last("0000:18:00.0", 1, "write_bw", NULL), 391);
	ck_assert_double_eq(last("0000:18:00.0", 1, "read_bw", NULL), 380);
	ck_assert_double_eq(last("0000:18:00.0", 2, "write_bw", NULL), 100);
	ck_assert_double_eq(last("0000:18:00.0", 3, "write_bw", NULL), -1);
	/* Another peer is another key. */
	struct json_object *k = bench_history_key("0000:18:00.0", 1, "write_bw", "other"), *o;
	size_t sk;
	struct err e;
	ck_assert_int_eq(bench_history_last(path, k, &o, &sk, &e), 0);
	ck_assert_ptr_null(o);
	json_object_put(k);
}
END_TEST

/* A device name that is not UTF-8 is written as valid UTF-8 (U+FFFD). */
START_TEST(lines_are_valid_utf8)
{
	struct err e = {{0}};
	struct json_object *o = entry("0000:18:00.0", 1, "write_bw", 1);
	json_object_object_add(o, "device", json_object_new_string("mlx5_\xff\xc2"));
	ck_assert_msg(bench_history_append(path, o, &e) == 0, "%s", e.msg);
	json_object_put(o);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_msg(!strchr(buf, '\xff') && strstr(buf, "mlx5_\xef\xbf\xbd\xef\xbf\xbd"), "%s",
		      buf);
}
END_TEST
START_TEST(file_is_0640_whatever_the_umask)
{
	mode_t old = umask(0);
	append("0000:18:00.0", 1, "write_bw", 1);
	umask(old);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	/* A file found with another mode is set back. */
	ck_assert_int_eq(chmod(path, 0666), 0);
	append("0000:18:00.0", 1, "write_bw", 2);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
}
END_TEST

START_TEST(corrupt_and_torn_lines_are_skipped_and_counted)
{
	append("0000:18:00.0", 1, "write_bw", 390);
	put_raw("not json\n[1,2]\n{\"key\":{\"pf\"\n");
	append("0000:18:00.0", 1, "write_bw", 392);
	put_raw("{\"key\": {\"pf\": \"0000:18:00.0\", \"vf\": 1, \"te"); /* torn, no newline */
	size_t sk;
	ck_assert_double_eq(last("0000:18:00.0", 1, "write_bw", &sk), 392);
	ck_assert_uint_eq(sk, 4);
	/* The next append starts a line of its own and is read. */
	append("0000:18:00.0", 1, "write_bw", 393);
	ck_assert_double_eq(last("0000:18:00.0", 1, "write_bw", &sk), 393);
	ck_assert_uint_eq(sk, 4);
}
END_TEST

START_TEST(over_long_lines_are_refused_and_skipped)
{
	char *big = malloc(BENCH_HISTORY_LINE_MAX + 16);
	memset(big, 'x', BENCH_HISTORY_LINE_MAX + 15);
	big[BENCH_HISTORY_LINE_MAX + 15] = '\0';
	struct json_object *o = entry("0000:18:00.0", 1, "write_bw", 1);
	json_object_object_add(o, "note", json_object_new_string(big));
	struct err e = {{0}};
	ck_assert_int_eq(bench_history_append(path, o, &e), -E2BIG);
	ck_assert_ptr_nonnull(strstr(e.msg, "over the 8192-byte bound"));
	json_object_put(o);
	/* One planted by hand is skipped on reading, even a valid object. */
	append("0000:18:00.0", 1, "write_bw", 5);
	char *line;
	ck_assert_int_gt(
		asprintf(&line,
			 "{\"key\":{\"pf\":\"0000:18:00.0\",\"vf\":1,\"test\":\"write_bw\","
			 "\"peer\":\"10.0.0.2\"},\"figure\":6,\"note\":\"%s\"}\n",
			 big),
		0);
	put_raw(line);
	size_t sk;
	ck_assert_double_eq(last("0000:18:00.0", 1, "write_bw", &sk), 5);
	ck_assert_uint_eq(sk, 1);
	free(line);
	free(big);
}
END_TEST

START_TEST(links_are_refused)
{
	char target[PATH_MAX], ddir[PATH_MAX];
	append("0000:18:00.0", 1, "write_bw", 1);
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	tu_write(target, "");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink(target, path), 0);
	struct err e = {{0}};
	struct json_object *o = entry("0000:18:00.0", 1, "write_bw", 2);
	ck_assert_int_eq(bench_history_append(path, o, &e), -ELOOP);
	ck_assert_ptr_nonnull(strstr(e.msg, "is a symbolic link"));
	struct json_object *k = bench_history_key("0000:18:00.0", 1, "write_bw", "10.0.0.2"), *got;
	size_t sk;
	ck_assert_int_eq(bench_history_last(path, k, &got, &sk, &e), -ELOOP);
	struct stat st;
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	/* A link in the directories is refused too. */
	snprintf(ddir, sizeof(ddir), "%s/var/lib/ibvf", dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(ddir), 0);
	ck_assert_int_eq(symlink(dir, ddir), 0);
	ck_assert_int_eq(bench_history_append(path, o, &e), -ELOOP);
	ck_assert_int_eq(access(target, F_OK), 0);
	json_object_put(o);
	json_object_put(k);
}
END_TEST

/* n lines for VF vf of 0000:18:00.0 write_bw, figures from 0, raw (an
 * append syncs each line), up to bytes in all when bytes > 0. */
static size_t put_filler(int vf, size_t n, size_t bytes)
{
	size_t cap = bytes ? bytes + 256 : n * 128 + 1, len = 0;
	char *fill = malloc(cap);
	ck_assert_ptr_nonnull(fill);
	for (size_t i = 0; bytes ? len < bytes - 128 : i < n; i++)
		len += (size_t)snprintf(fill + len, cap - len,
					"{\"key\":{\"pf\":\"0000:18:00.0\",\"vf\":%d,\"test\":"
					"\"write_bw\",\"peer\":\"10.0.0.2\"},\"figure\":%zu}\n",
					vf, i);
	ck_assert_uint_lt(len, cap - 1);
	put_raw(fill);
	free(fill);
	return len;
}

static off_t file_size(void)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_size;
}

/* The old reader kept only the last 256 KiB: a key whose last line is 1
 * MiB back is found, and its corrupt-line count stays 0. */
START_TEST(a_key_far_back_is_found)
{
	append("0000:18:00.0", 1, "read_bw", 100);
	put_filler(2, 0, 1u << 20);
	append("0000:18:00.0", 2, "write_bw", 4999);
	ck_assert_int_gt(file_size(), 1 << 20);
	size_t sk;
	ck_assert_double_eq(last("0000:18:00.0", 1, "read_bw", &sk), 100);
	ck_assert_uint_eq(sk, 0);
	ck_assert_double_eq(last("0000:18:00.0", 2, "write_bw", NULL), 4999);
}
END_TEST

/* The figures of an array of entries, as "a,b,c". */
static void figures(struct json_object *a, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(a) && n < size; i++) {
		struct json_object *f;
		json_object_object_get_ex(json_object_array_get_idx(a, i), "figure", &f);
		n += (size_t)snprintf(buf + n, size - n, "%s%g", i ? "," : "",
				      json_object_get_double(f));
	}
}

START_TEST(read_gives_the_last_two_of_every_key_in_file_order)
{
	append("0000:18:00.0", 1, "write_bw", 1);
	append("0000:18:00.0", 2, "write_bw", 2);
	append("0000:18:00.0", 1, "write_bw", 3);
	append("0000:18:00.0", 1, "write_bw", 4);
	put_raw("{\"no key\":1}\nnot json\n");
	append("0000:18:00.0", 3, "write_bw", 5);
	struct json_object *a;
	struct bench_history_stats st;
	struct err e = {{0}};
	ck_assert_msg(bench_history_read(path, &a, &st, &e) == 0, "%.1500s", e.msg);
	char got[256];
	figures(a, got, sizeof(got));
	ck_assert_str_eq(got, "2,3,4,5");
	ck_assert_uint_eq(st.skipped, 1);
	ck_assert_uint_eq(st.unread, 0);
	json_object_put(a);
}
END_TEST

/* A result refused as impossible or limited by its peer measured nothing
 * of the VF: the next one is compared with the last result before it, in
 * the reader, bench_history_last() and through a rotation. */
static void append_status(int vf, double figure, const char *status)
{
	struct err e = {{0}};
	struct json_object *o = entry("0000:18:00.0", vf, "write_bw", figure);
	json_object_object_add(o, "status", json_object_new_string(status));
	ck_assert_msg(bench_history_append(path, o, &e) == 0, "%.1500s", e.msg);
	json_object_put(o);
}

START_TEST(an_impossible_result_is_no_baseline)
{
	append_status(1, 390, "PASS");
	append_status(1, 800, "impossible");
	append_status(1, 2.4, "peer-limited");
	append_status(2, 100, "FAIL");
	append_status(2, 380, "PASS");
	ck_assert_double_eq(last("0000:18:00.0", 1, "write_bw", NULL), 390);
	ck_assert_double_eq(last("0000:18:00.0", 2, "write_bw", NULL), 380);
	struct json_object *a;
	struct bench_history_stats st;
	struct err e = {{0}};
	ck_assert_msg(bench_history_read(path, &a, &st, &e) == 0, "%.1500s", e.msg);
	char got[256];
	figures(a, got, sizeof(got));
	ck_assert_str_eq(got, "390,2.4,100,380"); /* VF 1: its baseline, its last */
	json_object_put(a);
	/* Past the cap: VF 1's baseline stays beside its last line. */
	put_filler(9, 0, BENCH_HISTORY_CAP - (size_t)file_size() + 200);
	append("0000:18:00.0", 9, "write_bw", 1);
	ck_assert_int_lt(file_size(), BENCH_HISTORY_CAP);
	ck_assert_double_eq(last("0000:18:00.0", 1, "write_bw", NULL), 390);
	ck_assert_msg(bench_history_read(path, &a, &st, &e) == 0, "%.1500s", e.msg);
	figures(a, got, sizeof(got));
	/* (VF 2's FAIL, neither its last nor its last baseline, went.) */
	ck_assert_msg(!strncmp(got, "390,2.4,380,", 12), "%.200s", got);
	json_object_put(a);
}
END_TEST

/* An append past BENCH_HISTORY_CAP rewrites the file: the newest line of
 * every key stays however old, older lines of a key go unless they are in
 * the most recent half cap, and the file is bounded again, mode 0640. */
START_TEST(rotation_keeps_the_newest_of_every_key_and_bounds_the_size)
{
	/* 1,016 VFs x 4 tests, once each, then an older figure of VF 0's
	 * read_bw that a later line replaces. */
	static const char *const tests[] = {"write_bw", "read_bw", "write_lat", "read_lat"};
	append("0000:18:00.0", 0, "read_bw", 7);
	size_t cap = 1016 * 4 * 160, len = 0;
	char *buf = malloc(cap);
	for (int v = 0; v < 1016; v++)
		for (int t = 0; t < 4; t++)
			len += (size_t)snprintf(buf + len, cap - len,
						"{\"key\":{\"pf\":\"0000:%02x:00.0\",\"vf\":%d,"
						"\"test\":\"%s\",\"peer\":\"10.0.0.2\"},"
						"\"figure\":%d}\n",
						v / 127, v % 127 + 1, tests[t], v * 4 + t);
	ck_assert_uint_lt(len, cap - 1);
	put_raw(buf);
	free(buf);
	append("0000:18:00.0", 0, "read_bw", 8);
	put_raw("garbage\n");
	/* Filler of one key to past the cap, then the append. */
	put_filler(9, 0, BENCH_HISTORY_CAP - (size_t)file_size() + 200);
	ck_assert_int_gt(file_size(), BENCH_HISTORY_CAP);
	append("0000:18:00.0", 9, "write_bw", 123456);
	off_t after = file_size();
	ck_assert_msg(after <= BENCH_HISTORY_CAP / 2 + (off_t)len + 4096,
		      "%lld bytes after the rewrite", (long long)after);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	struct json_object *a;
	struct bench_history_stats hs;
	struct err e = {{0}};
	ck_assert_msg(bench_history_read(path, &a, &hs, &e) == 0, "%.1500s", e.msg);
	ck_assert_uint_eq(hs.skipped, 0); /* the corrupt line went */
	/* 4,064 keys once each, VF 0 once (its 7 went), VF 9's last two. */
	ck_assert_uint_eq(json_object_array_length(a), 4064 + 1 + 2);
	json_object_put(a);
	ck_assert_double_eq(last("0000:18:00.0", 0, "read_bw", NULL), 8);
	ck_assert_double_eq(last("0000:18:00.0", 9, "write_bw", NULL), 123456);
	for (int v = 0; v < 1016; v += 101) {
		char pf[16];
		snprintf(pf, sizeof(pf), "0000:%02x:00.0", v / 127);
		ck_assert_double_eq(last(pf, v % 127 + 1, "read_lat", NULL), v * 4 + 3);
	}
	/* The figure 7 (an older line of a key, far back) is gone. */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *all = malloc((size_t)after + 1);
	ck_assert_int_eq(read(fd, all, (size_t)after), (ssize_t)after);
	close(fd);
	all[after] = '\0';
	ck_assert_ptr_null(strstr(all, "\"vf\":0,\"test\":\"read_bw\",\"peer\":\"10.0.0.2\"},"
				       "\"figure\":7}"));
	free(all);
}
END_TEST

/* A file past the read bound (not one ibvf writes) is read in its last
 * BENCH_HISTORY_READ_MAX bytes, and how much was not read is said. */
START_TEST(a_file_past_the_read_bound_says_so)
{
	append("0000:18:00.0", 1, "read_bw", 100); /* beyond the bound */
	put_filler(2, 0, BENCH_HISTORY_READ_MAX + (1u << 20));
	struct json_object *a;
	struct bench_history_stats st;
	struct err e = {{0}};
	ck_assert_msg(bench_history_read(path, &a, &st, &e) == 0, "%.1500s", e.msg);
	ck_assert_uint_eq(st.unread, (uint64_t)file_size() - BENCH_HISTORY_READ_MAX);
	ck_assert_uint_eq(st.skipped, 0); /* the line the bound cuts is not corrupt */
	ck_assert_uint_eq(json_object_array_length(a), 2);
	json_object_put(a);
}
END_TEST

START_TEST(concurrent_appends_stay_whole_lines)
{
	append("0000:18:00.0", 0, "write_bw", 0); /* make the directory */
	/* Near the cap: one of the appends rewrites the file while the others
	 * wait for the lock of the one it replaces. */
	if (_i)
		put_filler(5, 0, BENCH_HISTORY_CAP - (size_t)file_size() - 1000);
	for (int c = 0; c < 4; c++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			for (int i = 0; i < 100; i++) {
				struct err e;
				struct json_object *o = entry("0000:18:00.0", c + 1, "write_bw", i);
				if (bench_history_append(path, o, &e) < 0)
					_exit(1);
				json_object_put(o);
			}
			_exit(0);
		}
	}
	for (int c = 0; c < 4; c++) {
		int status;
		ck_assert_int_gt(wait(&status), 0);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	size_t sk;
	for (int c = 1; c <= 4; c++)
		ck_assert_double_eq(last("0000:18:00.0", c, "write_bw", &sk), 99);
	ck_assert_uint_eq(sk, 0);
	if (_i) /* rewritten: the recent half cap and the keys' lines */
		ck_assert_int_lt(file_size(), BENCH_HISTORY_CAP / 2 + 65536);
}
END_TEST

START_TEST(noise_rule)
{
	struct bench_history_cmp c;
	/* 400 -> 390: -2.5%, within the 5% floor. */
	ck_assert_int_eq(bench_history_compare(400, 0.001, 390, 0.001, true, &c), 0);
	ck_assert_double_eq_tol(c.change_pct, -2.5, 1e-9);
	ck_assert_double_eq_tol(c.noise_pct, 5.0, 1e-9);
	ck_assert(!c.flag);
	/* 400 -> 370: -7.5%, beyond 5% with steady runs: a drop. */
	ck_assert_int_eq(bench_history_compare(400, 0.01, 370, 0.005, true, &c), 0);
	ck_assert_double_eq_tol(c.change_pct, -7.5, 1e-9);
	ck_assert(c.flag);
	/* The same drop in a noisy run (3% spread: noise 9%) is not flagged. */
	ck_assert_int_eq(bench_history_compare(400, 0.01, 370, 0.03, true, &c), 0);
	ck_assert_double_eq_tol(c.noise_pct, 9.0, 1e-9);
	ck_assert(!c.flag);
	/* The larger spread of the two counts, and unknown ones leave 5%. */
	ck_assert_int_eq(bench_history_compare(400, 0.04, 370, -1, true, &c), 0);
	ck_assert_double_eq_tol(c.noise_pct, 12.0, 1e-9);
	ck_assert_int_eq(bench_history_compare(400, -1, 370, -1, true, &c), 0);
	ck_assert_double_eq_tol(c.noise_pct, 5.0, 1e-9);
	ck_assert(c.flag);
	/* A rise is never a drop. */
	ck_assert_int_eq(bench_history_compare(400, -1, 500, -1, true, &c), 0);
	ck_assert_double_eq_tol(c.change_pct, 25.0, 1e-9);
	ck_assert(!c.flag);
	/* Latency: lower is better, 2.0 -> 2.2 us is 10% worse. */
	ck_assert_int_eq(bench_history_compare(2.0, 0.01, 2.2, 0.01, false, &c), 0);
	ck_assert_double_eq_tol(c.change_pct, 10.0, 1e-9);
	ck_assert(c.flag);
	ck_assert_int_eq(bench_history_compare(2.0, 0.01, 1.5, 0.01, false, &c), 0);
	ck_assert(!c.flag);
	ck_assert_int_eq(bench_history_compare(0, 0, 1, 0, true, &c), -EINVAL);
	/* A hand-edited line: json-c reads NaN and Infinity. */
	ck_assert_int_eq(bench_history_compare(INFINITY, 0, 390, 0, true, &c), -EINVAL);
	ck_assert_int_eq(bench_history_compare(NAN, 0, 390, 0, true, &c), -EINVAL);
	ck_assert_int_eq(bench_history_compare(400, 0, NAN, 0, true, &c), -EINVAL);
	/* An infinite spread is unknown: the 5% floor still flags the drop. */
	ck_assert_int_eq(bench_history_compare(400, INFINITY, 300, NAN, true, &c), 0);
	ck_assert(c.flag);
	ck_assert_double_eq_tol(c.noise_pct, BENCH_HISTORY_MIN_PCT, 1e-9);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("history");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_file_is_no_history);
	tcase_add_test(tc, last_entry_of_the_same_key_wins);
	tcase_add_test(tc, file_is_0640_whatever_the_umask);
	tcase_add_test(tc, lines_are_valid_utf8);
	tcase_add_test(tc, corrupt_and_torn_lines_are_skipped_and_counted);
	tcase_add_test(tc, over_long_lines_are_refused_and_skipped);
	tcase_add_test(tc, links_are_refused);
	tcase_add_test(tc, a_key_far_back_is_found);
	tcase_add_test(tc, read_gives_the_last_two_of_every_key_in_file_order);
	tcase_add_test(tc, an_impossible_result_is_no_baseline);
	tcase_add_test(tc, rotation_keeps_the_newest_of_every_key_and_bounds_the_size);
	tcase_add_test(tc, a_file_past_the_read_bound_says_so);
	tcase_add_loop_test(tc, concurrent_appends_stay_whole_lines, 0, 2);
	tcase_add_test(tc, noise_rule);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
