// SPDX-License-Identifier: MIT
/* The words of ip -j and rdma -j (core/model/json_names.c), and the one GUID form. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/model/json_names.h"
#include "testutil.h"

/* The flags array as "A,B,C". */
static char *flags(unsigned int f, bool sysfs, const char *oper)
{
	struct json_object *a = json_link_flags(f, sysfs, oper);
	char buf[256] = "";
	for (size_t i = 0; i < json_object_array_length(a); i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "",
			 json_object_get_string(json_object_array_get_idx(a, i)));
	json_object_put(a);
	return strdup(buf);
}

#define FLAGS_EQ(f, sysfs, oper, want)                                                             \
	do {                                                                                       \
		char *got_ = flags(f, sysfs, oper);                                                \
		ck_assert_str_eq(got_, want);                                                      \
		free(got_);                                                                        \
	} while (0)

/* As `ip -j link` prints them for the same devices (sysfs flags on the left). */
START_TEST(flags_are_ips_array)
{
	FLAGS_EQ(0x1003, true, "up", "BROADCAST,MULTICAST,UP,LOWER_UP");
	FLAGS_EQ(0x1003, true, "down", "NO-CARRIER,BROADCAST,MULTICAST,UP");
	FLAGS_EQ(0x1003, true, "lowerlayerdown", "NO-CARRIER,BROADCAST,MULTICAST,UP");
	FLAGS_EQ(0x1002, true, "down", "BROADCAST,MULTICAST");
	FLAGS_EQ(0x9, true, "unknown", "LOOPBACK,UP,LOWER_UP");
	/* netlink's ifi_flags are ip's own: nothing derived */
	FLAGS_EQ(0x11043, false, NULL, "BROADCAST,MULTICAST,UP,LOWER_UP");
	FLAGS_EQ(0x1003, false, NULL, "NO-CARRIER,BROADCAST,MULTICAST,UP");
	FLAGS_EQ(0x80000 | 0x1, false, NULL, "NO-CARRIER,UP,80000");
}
END_TEST

START_TEST(states_are_rdmas_words)
{
	ck_assert_str_eq(json_port_state_name(4), "ACTIVE");
	ck_assert_str_eq(json_port_state_name(1), "DOWN");
	ck_assert_str_eq(json_port_state_name(9), "UNKNOWN");
	ck_assert_str_eq(json_port_phys_state_name(5), "LINK_UP");
	ck_assert_str_eq(json_port_phys_state_name(2), "POLLING");
	ck_assert_str_eq(json_port_phys_state_name(3), "DISABLED");
	ck_assert_str_eq(json_port_phys_state_name(-1), "UNKNOWN");
	ck_assert_str_eq(json_node_type_name(1), "ca");
	ck_assert_str_eq(json_node_type_name(4), "rnic");
	char buf[32];
	ck_assert_str_eq(json_operstate_name("up", buf, sizeof(buf)), "UP");
	ck_assert_str_eq(json_operstate_name("lowerlayerdown", buf, sizeof(buf)), "LOWERLAYERDOWN");
	ck_assert_str_eq(json_operstate_name("weird", buf, sizeof(buf)), "WEIRD");
	ck_assert_str_eq(json_link_type_name(32, buf, sizeof(buf)), "infiniband");
	ck_assert_str_eq(json_link_type_name(1, buf, sizeof(buf)), "ether");
	ck_assert_str_eq(json_link_type_name(12345, buf, sizeof(buf)), "[12345]");
}
END_TEST

START_TEST(guid_normalise_gives_rdmas_form)
{
	char g[GUID_STRLEN];
	ck_assert(guid_normalise("a0:88:c2:03:00:18:00:01", g));
	ck_assert_str_eq(g, "a088:c203:0018:0001");
	ck_assert(guid_normalise("A088:C203:0018:0001", g));
	ck_assert_str_eq(g, "a088:c203:0018:0001");
	ck_assert(!guid_normalise("not a guid", g));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("json_names");
	TCase *tc = tcase_create("json_names");
	tcase_add_test(tc, flags_are_ips_array);
	tcase_add_test(tc, states_are_rdmas_words);
	tcase_add_test(tc, guid_normalise_gives_rdmas_form);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
