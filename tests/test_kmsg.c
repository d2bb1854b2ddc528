// SPDX-License-Identifier: MIT
/* The kernel log's RDMA driver records (core/snapshot/kmsg.c): /dev/kmsg records and
 * captured dmesg texts, as real kernels and MOFED write them. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/snapshot/kmsg.h"
#include "core/model/node.h"
#include "testutil.h"

static struct node *parse(const char *text)
{
	struct node *n = calloc(1, sizeof(*n));
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(kmsg_parse(n, text, strlen(text)), 0);
	return n;
}

START_TEST(kmsg_records_keep_driver_lines_with_stamp_and_level)
{
	struct node *n = parse(
		"6,0,0,-;Linux version 6.8.0-51-generic (buildd@lcy02-amd64-027)\n"
		"4,812,4102311,-;mlx5_core: Unknown symbol strlcpy (err -2)\n"
		"4,813,4102400,-;mlx5_ib: disagrees about version of symbol ib_register_device\n"
		"6,814,4211873,-;mlx5_core 0000:18:00.0: firmware version: 28.39.1002\n"
		"3,815,130412907,-;mlx5_core 0000:18:00.2: probe with driver mlx5_core failed "
		"with error -2\n"
		" SUBSYSTEM=pci\n"
		" DEVICE=+pci:0000:18:00.2\n"
		"4,816,130412950,-;mlx5_core: probe of 0000:18:00.2 failed with error -2\n"
		"3,817,131000000,-;mlx5_core 0000:18:00.0: mlx5_cmd_out_err:838:(pid 1234): "
		"CREATE_MKEY(0x200) op_mod(0x0) failed, status bad parameter(0x3)\n"
		"30,818,131000100,-;systemd[1]: Started ibvf-sriov.service\n"
		"14,819,131000200,-;rdma_rxe: loaded\n");
	ck_assert_uint_eq(n->n_kmsg, 7);
	ck_assert_str_eq(n->kmsg[0].msg, "mlx5_core: Unknown symbol strlcpy (err -2)");
	ck_assert(n->kmsg[0].ts_usec.known);
	ck_assert_int_eq(n->kmsg[0].ts_usec.v, 4102311);
	ck_assert_int_eq(n->kmsg[0].prio, 4);
	ck_assert(n->kmsg[0].error);
	ck_assert(n->kmsg[1].error);  /* disagrees about version */
	ck_assert(!n->kmsg[2].error); /* firmware version */
	ck_assert_int_eq(n->kmsg[2].prio, 6);
	ck_assert(n->kmsg[3].error); /* 6.10+ probe failure */
	ck_assert_int_eq(n->kmsg[3].ts_usec.v, 130412907);
	ck_assert(n->kmsg[4].error); /* 6.8 probe failure */
	ck_assert(n->kmsg[5].error); /* firmware command failed */
	/* facility 1 (user) * 8 + level 6 */
	ck_assert_str_eq(n->kmsg[6].msg, "rdma_rxe: loaded");
	ck_assert_int_eq(n->kmsg[6].prio, 6);
	ck_assert(!n->kmsg[6].error);
	ck_assert_uint_eq(kmsg_count_errors(n), 5);
	node_free(n);
}
END_TEST

START_TEST(kmsg_dmesg_text_with_and_without_stamps)
{
	struct node *n = parse("[    0.000000] Linux version 6.8.0-51-generic\n"
			       "[    4.102311] mlx5_core: Unknown symbol strlcpy (err -2)\n"
			       "<6>[   12.3] mlx5_ib: Mellanox ConnectX InfiniBand driver\n"
			       "<4>[  130.412907] mlx5_core: probe of 0000:18:00.2 failed with "
			       "error -2\n"
			       "ib_core: no stamp here, failed\r\n"
			       "[  bad] mlx5_core 0000:18:00.0: E-Switch: Enable\n");
	ck_assert_uint_eq(n->n_kmsg, 5);
	ck_assert_str_eq(n->kmsg[0].msg, "mlx5_core: Unknown symbol strlcpy (err -2)");
	ck_assert_int_eq(n->kmsg[0].ts_usec.v, 4102311);
	ck_assert_int_eq(n->kmsg[0].prio, -1);
	ck_assert(n->kmsg[0].error);
	ck_assert_int_eq(n->kmsg[1].ts_usec.v, 12300000);
	ck_assert_int_eq(n->kmsg[1].prio, 6);
	ck_assert(!n->kmsg[1].error);
	ck_assert_int_eq(n->kmsg[2].prio, 4);
	ck_assert(n->kmsg[2].error);
	ck_assert(!n->kmsg[3].ts_usec.known);
	ck_assert_str_eq(n->kmsg[3].msg, "ib_core: no stamp here, failed");
	ck_assert(n->kmsg[3].error);
	ck_assert(!n->kmsg[4].ts_usec.known);
	ck_assert_str_eq(n->kmsg[4].msg, "[  bad] mlx5_core 0000:18:00.0: E-Switch: Enable");
	node_free(n);
}
END_TEST

START_TEST(kmsg_dmesg_decoded_human_and_journal_forms)
{
	struct node *n = parse("kern  :warn  : [    4.102311] mlx5_core: Unknown symbol strlcpy "
			       "(err -2)\n"
			       "kern  :info  : [    4.211873] mlx5_core 0000:18:00.0: firmware "
			       "version: 28.43.1014\n"
			       "[Tue Dec  1 07:00:04 2026] mlx5_ib: disagrees about version of "
			       "symbol ib_register_device\n"
			       "Dec 01 07:02:10 dgx-h200-07 kernel: mlx5_core 0000:18:00.2: probe "
			       "with driver mlx5_core failed with error -2\n");
	ck_assert_uint_eq(n->n_kmsg, 4);
	ck_assert_str_eq(n->kmsg[0].msg, "mlx5_core: Unknown symbol strlcpy (err -2)");
	ck_assert_int_eq(n->kmsg[0].prio, 4);
	ck_assert_int_eq(n->kmsg[0].ts_usec.v, 4102311);
	ck_assert_int_eq(n->kmsg[1].prio, 6);
	ck_assert(!n->kmsg[1].error);
	ck_assert_str_eq(n->kmsg[2].msg,
			 "mlx5_ib: disagrees about version of symbol ib_register_device");
	ck_assert(!n->kmsg[2].ts_usec.known);
	ck_assert(n->kmsg[2].error);
	ck_assert_str_eq(n->kmsg[3].msg, "mlx5_core 0000:18:00.2: probe with driver mlx5_core "
					 "failed with error -2");
	ck_assert(n->kmsg[3].error);
	node_free(n);
}
END_TEST

START_TEST(kmsg_words_are_tokens)
{
	/* "lib_" is no ib_ driver; "errors" and "err" in a function name are no
	 * failure; a level of KERN_ERR is one. */
	struct node *n = parse("6,1,10,-;zlib_inflate: failed\n"
			       "6,2,11,-;mlx5_core 0000:18:00.0: mlx5_cmd_out_err:838: ok\n"
			       "6,3,12,-;mlx5_core 0000:18:00.0: 0 errors corrected\n"
			       "3,4,13,-;mlx5_core 0000:18:00.0: mlx5_health_try_recover:43\n"
			       "6,5,14,-;ib_srpt: Failed to register\n");
	ck_assert_uint_eq(n->n_kmsg, 4);
	ck_assert(!n->kmsg[0].error);
	ck_assert(!n->kmsg[1].error);
	ck_assert(n->kmsg[2].error);
	ck_assert(n->kmsg[3].error);
	node_free(n);
}
END_TEST

START_TEST(kmsg_control_chars_stay_escaped)
{
	struct node *n = parse("4,1,10,-;mlx5_core: name \\x1b[31m evil\n"
			       "[    1.000000] mlx5_core: raw \x1b[31m\x07 evil \xc3\xa9\n");
	ck_assert_uint_eq(n->n_kmsg, 2);
	ck_assert_str_eq(n->kmsg[0].msg, "mlx5_core: name \\x1b[31m evil");
	ck_assert_str_eq(n->kmsg[1].msg, "mlx5_core: raw \\x1b[31m\\x07 evil \\xc3\\xa9");
	node_free(n);
}
END_TEST

START_TEST(kmsg_a_flood_keeps_the_failures)
{
	size_t cap = 1000 * 80, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text, cap,
				"4,1,4102311,-;mlx5_core: Unknown symbol strlcpy (err -2)\n");
	for (int i = 0; i < 900; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"6,%d,%d,-;mlx5_core 0000:18:00.0: link up %d\n", i + 2,
					5000000 + i, i);
	struct node *n = calloc(1, sizeof(*n));
	ck_assert_int_eq(kmsg_parse(n, text, len), 901 - 256);
	ck_assert_uint_eq(n->n_kmsg, 256);
	ck_assert_str_eq(n->kmsg[0].msg, "mlx5_core: Unknown symbol strlcpy (err -2)");
	ck_assert_str_eq(n->kmsg[1].msg, "mlx5_core 0000:18:00.0: link up 645");
	ck_assert_str_eq(n->kmsg[255].msg, "mlx5_core 0000:18:00.0: link up 899");
	free(text);
	node_free(n);
}
END_TEST

START_TEST(kmsg_keeps_the_newest_256)
{
	size_t cap = 400 * 64, len = 0;
	char *text = malloc(cap);
	for (int i = 0; i < 400; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"6,%d,%d,-;mlx5_core 0000:18:00.0: line %d\n", i, i * 10,
					i);
	struct node *n = calloc(1, sizeof(*n));
	ck_assert_int_eq(kmsg_parse(n, text, len), 400 - 256);
	ck_assert_uint_eq(n->n_kmsg, 256);
	ck_assert_str_eq(n->kmsg[0].msg, "mlx5_core 0000:18:00.0: line 144");
	ck_assert_str_eq(n->kmsg[255].msg, "mlx5_core 0000:18:00.0: line 399");
	ck_assert_int_eq(n->kmsg[255].ts_usec.v, 3990);
	free(text);
	node_free(n);
}
END_TEST

/* A log ibvf cannot read (a container without /dev/kmsg, or one the device
 * cgroup refuses; here a tree without it, or with a directory there) is not a
 * clean log: the notes say the kernel-log checks did not run, and why. */
START_TEST(kmsg_unread_is_said_not_taken_as_clean)
{
	char *dir = tu_mkfixture(NULL), p[4200], *out, *err;
	snprintf(p, sizeof(p), "%s/dev/kmsg", dir);
	ck_assert_msg(unlink(p) == 0, "%s: %s", p, strerror(errno));
	if (_i == 1)
		ck_assert_msg(mkdir(p, 0755) == 0, "%s: %s", p, strerror(errno));
	int rc = tu_sim_run(dir, &out, &err, "list", "--json", NULL);
	ck_assert_msg(rc == 0, "list --json: rc %d: %s", rc, err);
	ck_assert_msg(strstr(out, "kernel log not read: '/dev/kmsg'") &&
			      strstr(out, "the kernel-log checks did not run"),
		      "dev/kmsg %s: no note says the kernel log was not read: %.600s",
		      _i ? "a directory" : "missing", strstr(out, "\"notes\"") ?: out);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kmsg");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, kmsg_records_keep_driver_lines_with_stamp_and_level);
	tcase_add_test(tc, kmsg_dmesg_text_with_and_without_stamps);
	tcase_add_test(tc, kmsg_dmesg_decoded_human_and_journal_forms);
	tcase_add_test(tc, kmsg_words_are_tokens);
	tcase_add_test(tc, kmsg_control_chars_stay_escaped);
	tcase_add_test(tc, kmsg_keeps_the_newest_256);
	tcase_add_test(tc, kmsg_a_flood_keeps_the_failures);
	tcase_add_loop_test(tc, kmsg_unread_is_said_not_taken_as_clean, 0, 2);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
