// SPDX-License-Identifier: MIT
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "testutil.h"

START_TEST(parse_accepts_the_three_operator_forms)
{
	uint64_t g = 0;
	ck_assert_int_eq(guid_parse("00:11:22:33:44:55:66:77", &g), 0);
	ck_assert_uint_eq(g, 0x0011223344556677ULL);
	g = 0;
	ck_assert_int_eq(guid_parse("0011:2233:4455:6677", &g), 0);
	ck_assert_uint_eq(g, 0x0011223344556677ULL);
	g = 0;
	ck_assert_int_eq(guid_parse("0x0011223344556677", &g), 0);
	ck_assert_uint_eq(g, 0x0011223344556677ULL);
	ck_assert_int_eq(guid_parse("B8:59:9F:03:00:F9:8F:86", &g), 0);
	ck_assert_uint_eq(g, 0xb8599f0300f98f86ULL);
}
END_TEST

START_TEST(parse_rejects_malformed)
{
	static const char *bad[] = {
		"",
		"0x",
		"0x001122334455667",
		"0x00112233445566778",
		"00:11:22:33:44:55:66",
		"00:11:22:33:44:55:66:7g",
		"0011:2233:4455:667",
		"0011-2233-4455-6677",
		"001:1223:3445:56677",
		"00:11:22:33:44:55:6677",
		"00112233445566770000000",
		"::::::::::::::::::::::",
		"0011:2233:4455:6677\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t g = 42;
		ck_assert_msg(guid_parse(bad[i], &g) == -EINVAL, "accepted '%s'", bad[i]);
		ck_assert_uint_eq(g, 42);
	}
}
END_TEST

START_TEST(format_round_trips)
{
	char a[GUID_STRLEN], b[GUID_STRLEN];
	guid_format_sysfs(0xb8599f0300f98f86ULL, a);
	ck_assert_str_eq(a, "b859:9f03:00f9:8f86");
	guid_format_colon(0xb8599f0300f98f86ULL, b);
	ck_assert_str_eq(b, "b8:59:9f:03:00:f9:8f:86");
	uint64_t g;
	ck_assert_int_eq(guid_parse(a, &g), 0);
	ck_assert_uint_eq(g, 0xb8599f0300f98f86ULL);
	ck_assert_int_eq(guid_parse(b, &g), 0);
	ck_assert_uint_eq(g, 0xb8599f0300f98f86ULL);
}
END_TEST

START_TEST(unassignable_is_zero_all_ones_and_the_group_bit)
{
	ck_assert_ptr_nonnull(strstr(guid_unassignable(0), "all-zero"));
	ck_assert_ptr_nonnull(strstr(guid_unassignable(UINT64_MAX), "all-ones"));
	ck_assert_ptr_nonnull(strstr(guid_unassignable(0x0100000000000000ULL), "group"));
	ck_assert_ptr_nonnull(strstr(guid_unassignable(0xb3599f0300f98f86ULL), "group"));
	ck_assert_ptr_null(guid_unassignable(0x0203001800000003ULL)); /* ibvf's scheme */
	ck_assert_ptr_null(guid_unassignable(0xb8599f0300f98f86ULL));
	ck_assert_ptr_null(guid_unassignable(0x0011223344550001ULL));
}
END_TEST

START_TEST(gid_gives_prefix_and_port_guid)
{
	uint64_t p, g;
	ck_assert_int_eq(guid_from_gid("fe80:0000:0000:0000:b859:9f03:00f9:8f86", &p, &g), 0);
	ck_assert_uint_eq(p, 0xfe80000000000000ULL);
	ck_assert_uint_eq(g, 0xb8599f0300f98f86ULL);
	ck_assert_int_eq(guid_from_gid("fe80:0000:0000:0000:b859:9f03:00f9:8f86\n", NULL, &g), 0);
	ck_assert_int_eq(guid_from_gid("fe80::b859:9f03:f9:8f86", &p, &g), -EINVAL);
	ck_assert_int_eq(guid_from_gid("fe80:0000:0000:0000:b859:9f03:00f9", &p, &g), -EINVAL);
	ck_assert_int_eq(guid_from_gid("", &p, &g), -EINVAL);
}
END_TEST

START_TEST(ipoib_address_gives_the_port_guid)
{
	uint64_t g = 0;
	ck_assert_int_eq(guid_from_ipoib_addr(
				 "00:00:10:87:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:18:00:01", &g),
			 0);
	ck_assert_uint_eq(g, 0xa088c20300180001ull);
	ck_assert_int_eq(guid_from_ipoib_addr(
				 "00:00:10:87:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:18:00", &g),
			 -EINVAL); /* 19 bytes */
	ck_assert_int_eq(guid_from_ipoib_addr("52:54:00:12:34:01", &g), -EINVAL);
	ck_assert_int_eq(
		guid_from_ipoib_addr(
			"00:00:10:87:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:18:00:01:ff", &g),
		-EINVAL);
	ck_assert_uint_eq(g, 0xa088c20300180001ull); /* untouched on failure */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("guid");
	TCase *tc = tcase_create("guid");
	tcase_add_test(tc, parse_accepts_the_three_operator_forms);
	tcase_add_test(tc, parse_rejects_malformed);
	tcase_add_test(tc, format_round_trips);
	tcase_add_test(tc, unassignable_is_zero_all_ones_and_the_group_bit);
	tcase_add_test(tc, gid_gives_prefix_and_port_guid);
	tcase_add_test(tc, ipoib_address_gives_the_port_guid);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
