// SPDX-License-Identifier: MIT
/* The kernel's CPU list syntax: what sysfs writes (`local_cpulist`,
 * `cpu/online`) parses to the CPUs it names, what an operator may mistype
 * for --cpu is refused by name, and a set prints back the kernel's way. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cpulist.h"
#include "testutil.h"

static cpu_set_t set_of(const int *cpus, size_t n)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (size_t i = 0; i < n; i++)
		CPU_SET(cpus[i], &s);
	return s;
}

START_TEST(kernel_lists_parse_to_their_cpus)
{
	struct err e = {{0}};
	cpu_set_t s;
	/* A DGX H200 HCA's local_cpulist: two ranges (cores and their threads). */
	ck_assert_int_eq(cpulist_parse("56-111,168-223\n", "local_cpulist", &s, &e), 0);
	ck_assert_int_eq(CPU_COUNT(&s), 112);
	ck_assert(CPU_ISSET(56, &s) && CPU_ISSET(111, &s) && CPU_ISSET(168, &s) &&
		  CPU_ISSET(223, &s));
	ck_assert(!CPU_ISSET(55, &s) && !CPU_ISSET(112, &s) && !CPU_ISSET(167, &s) &&
		  !CPU_ISSET(224, &s));
	/* One CPU, singles and ranges mixed, without the newline. */
	ck_assert_int_eq(cpulist_parse("0\n", "x", &s, &e), 0);
	ck_assert_int_eq(CPU_COUNT(&s), 1);
	ck_assert(CPU_ISSET(0, &s));
	ck_assert_int_eq(cpulist_parse("1,3-4,7", "x", &s, &e), 0);
	cpu_set_t want = set_of((int[]){1, 3, 4, 7}, 4);
	ck_assert(CPU_EQUAL(&s, &want));
	/* A node without CPUs: the kernel prints an empty line. */
	ck_assert_int_eq(cpulist_parse("\n", "x", &s, &e), 0);
	ck_assert_int_eq(CPU_COUNT(&s), 0);
	ck_assert_int_eq(cpulist_parse("", "x", &s, &e), 0);
	ck_assert_int_eq(CPU_COUNT(&s), 0);
	/* The top of the set, and a range of one. */
	ck_assert_int_eq(cpulist_parse("0-1023", "x", &s, &e), 0);
	ck_assert_int_eq(CPU_COUNT(&s), 1024);
	ck_assert_int_eq(cpulist_parse("5-5", "x", &s, &e), 0);
	ck_assert_int_eq(CPU_COUNT(&s), 1);
}
END_TEST

START_TEST(hostile_lists_are_refused_by_name)
{
	static const struct {
		const char *in, *want;
		int err;
	} cases[] = {
		{"1--2", "'1--2' is not a CPU list: a CPU number expected at character 3", EINVAL},
		{"5-3", "'5-3' is not a CPU list: a range that runs backwards at character 3",
		 EINVAL},
		{",", "a CPU number expected at character 1", EINVAL},
		{"1,", "a CPU number expected at character 3", EINVAL},
		{",1", "a CPU number expected at character 1", EINVAL},
		{"1,,2", "a CPU number expected at character 3", EINVAL},
		{"-1", "a CPU number expected at character 1", EINVAL},
		{"a", "a CPU number expected at character 1", EINVAL},
		{"1 2", "',' or the end expected at character 2", EINVAL},
		{" 1", "a CPU number expected at character 1", EINVAL},
		{"1\n2", "',' or the end expected at character 2", EINVAL},
		{"1\n\n", "',' or the end expected at character 2", EINVAL},
		{"0-7:2/4", "the a-b:used/group form is not supported at character 4", EINVAL},
		{"N", "a CPU number expected at character 1", EINVAL},
		{"01", "a number with a leading zero at character 1", EINVAL},
		{"0x3", "',' or the end expected at character 2", EINVAL},
		{"0-1024", "'0-1024' names CPU 1024, beyond 1023 (the most ibvf handles)", ERANGE},
		{"99999999999999999999999", "names a CPU, beyond 1023", ERANGE},
		{"3,\x1b]0;pwned\x07", "'3,\\x1b]0;pwned\\x07' is not a CPU list", EINVAL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e = {{0}};
		cpu_set_t s, before;
		CPU_ZERO(&s);
		CPU_SET(9, &s);
		before = s;
		int r = cpulist_parse(cases[i].in, "--cpu", &s, &e);
		ck_assert_msg(r == -cases[i].err, "case %zu: %d", i, r);
		ck_assert_msg(strstr(e.msg, cases[i].want), "case %zu: '%s'", i, e.msg);
		ck_assert_msg(!strncmp(e.msg, "--cpu '", 7), "case %zu: '%s'", i, e.msg);
		ck_assert_msg(CPU_EQUAL(&s, &before), "case %zu: the set changed", i);
		for (const char *p = e.msg; *p; p++) /* nothing raw reaches a terminal */
			ck_assert_msg((unsigned char)*p >= 0x20 && *p != 0x7f, "case %zu", i);
	}
	/* Longer than any kernel writes. */
	char *big = malloc(CPULIST_MAX_LEN + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, '1', CPULIST_MAX_LEN + 1);
	big[CPULIST_MAX_LEN + 1] = '\0';
	struct err e = {{0}};
	cpu_set_t s;
	ck_assert_int_eq(cpulist_parse(big, "--cpu", &s, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "--cpu is not a CPU list: longer than 32768 characters");
	free(big);
}
END_TEST

START_TEST(sets_print_the_kernel_way)
{
	char buf[64];
	cpu_set_t s;
	CPU_ZERO(&s);
	cpulist_format(&s, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	s = set_of((int[]){0, 1, 2, 3, 8, 10, 11}, 7);
	cpulist_format(&s, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-3,8,10-11");
	/* Round trip of what sysfs writes. */
	struct err e = {{0}};
	ck_assert_int_eq(cpulist_parse("56-111,168-223\n", "x", &s, &e), 0);
	cpulist_format(&s, buf, sizeof(buf));
	ck_assert_str_eq(buf, "56-111,168-223");
	/* Too long for the buffer: cut between entries, and said. */
	CPU_ZERO(&s);
	for (int c = 0; c < 200; c += 2)
		CPU_SET(c, &s);
	char small[16];
	cpulist_format(&s, small, sizeof(small));
	ck_assert_str_eq(small, "0,2,4,6,8,...");
	cpu_set_t a = set_of((int[]){1, 2, 5}, 3), b = set_of((int[]){1, 2, 3}, 3);
	ck_assert_int_eq(cpulist_first_missing(&a, &b), 5);
	ck_assert_int_eq(cpulist_first_missing(&b, &b), -1);
}
END_TEST

START_TEST(files_are_read_bounded)
{
	char dir[] = "/tmp/ibvf-cpulist-XXXXXX", path[64], *d = mkdtemp(dir);
	ck_assert_ptr_nonnull(d);
	struct err e = {{0}};
	cpu_set_t s;
	snprintf(path, sizeof(path), "%s/local_cpulist", d);
	tu_write(path, "0-15,32-47\n");
	ck_assert_int_eq(cpulist_read(path, &s, &e), 0);
	ck_assert_int_eq(CPU_COUNT(&s), 32);
	/* A file longer than any list is refused, not cut. */
	char *big = malloc(CPULIST_MAX_LEN + 100);
	ck_assert_ptr_nonnull(big);
	memset(big, '1', CPULIST_MAX_LEN + 99);
	big[CPULIST_MAX_LEN + 99] = '\0';
	tu_write(path, big);
	free(big);
	ck_assert_int_eq(cpulist_read(path, &s, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "is longer than 32768 bytes"));
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fwrite("0-3\0,5", 1, 6, f);
	fclose(f);
	ck_assert_int_eq(cpulist_read(path, &s, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "holds a NUL byte"));
	unlink(path);
	ck_assert_int_eq(cpulist_read(path, &s, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot open '/tmp/ibvf-cpulist-"));
	rmdir(d);
	/* This machine's own list: its CPUs are online. */
	ck_assert_int_eq(cpulist_read("/sys/devices/system/cpu/online", &s, &e), 0);
	ck_assert_int_ge(CPU_COUNT(&s), 1);
	ck_assert_int_eq(CPU_COUNT(&s), sysconf(_SC_NPROCESSORS_ONLN));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpulist");
	TCase *tc = tcase_create("cpulist");
	tcase_add_test(tc, kernel_lists_parse_to_their_cpus);
	tcase_add_test(tc, hostile_lists_are_refused_by_name);
	tcase_add_test(tc, sets_print_the_kernel_way);
	tcase_add_test(tc, files_are_read_bounded);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
