// SPDX-License-Identifier: MIT
/* The benchmark history (bench/history.h): appended lines read back by key,
 * the last one winning; corrupt, torn and over-long lines skipped and
 * counted; links refused; the mode fixed; only the tail read; concurrent
 * appends whole; and the noise rule against figures worked out by hand. */
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

START_TEST(only_the_tail_is_read)
{
	append("0000:18:00.0", 1, "read_bw", 100); /* before the tail: not seen */
	/* Filler written in one go (an append syncs each line). */
	size_t cap = 1u << 20, len = 0;
	char *fill = malloc(cap);
	for (int i = 0; i < 4999; i++)
		len += (size_t)snprintf(fill + len, cap - len,
					"{\"key\":{\"pf\":\"0000:18:00.0\",\"vf\":2,\"test\":"
					"\"write_bw\",\"peer\":\"10.0.0.2\"},\"figure\":%d}\n",
					i);
	ck_assert_uint_lt(len, cap - 1);
	put_raw(fill);
	free(fill);
	append("0000:18:00.0", 2, "write_bw", 4999);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_size, BENCH_HISTORY_TAIL);
	size_t sk;
	ck_assert_double_eq(last("0000:18:00.0", 1, "read_bw", &sk), -1);
	ck_assert_uint_eq(sk, 0); /* the line cut by the tail is not a corrupt line */
	ck_assert_double_eq(last("0000:18:00.0", 2, "write_bw", NULL), 4999);
}
END_TEST

START_TEST(concurrent_appends_stay_whole_lines)
{
	append("0000:18:00.0", 0, "write_bw", 0); /* make the directory */
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
	tcase_add_test(tc, only_the_tail_is_read);
	tcase_add_test(tc, concurrent_appends_stay_whole_lines);
	tcase_add_test(tc, noise_rule);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
