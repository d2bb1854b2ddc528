// SPDX-License-Identifier: MIT
/* The string tables (core/model/names.h): every value's word round-trips to
 * its number, a number without a word is NULL (shown as the kernel's own
 * word by the caller, never "unknown"), and the kernel's and tools' exact
 * spellings. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/if_link.h>

#include "core/model/names.h"
#include "core/model/node.h"
#include "testutil.h"

typedef const char *(*to_fn)(long long);
typedef int (*from_fn)(const char *);

/* Every value below max with a word gives that word back as itself; at
 * least min_words have one; one past the end and -1 have none. */
static void round_trip(const char *what, to_fn to, from_fn from, int max, int min_words)
{
	int words = 0;
	for (int v = 0; v < max; v++) {
		const char *w = to(v);
		if (!w)
			continue;
		words++;
		ck_assert_msg(from(w) == v, "%s: '%s' is %d, read back as %d", what, w, v, from(w));
		ck_assert_msg(strcasecmp(w, "unknown"), "%s: %d is called '%s'", what, v, w);
	}
	ck_assert_msg(words >= min_words, "%s: %d words", what, words);
	ck_assert_ptr_null(to(max));
	ck_assert_ptr_null(to(-1));
	ck_assert_int_eq(from("no such word"), -EINVAL);
	ck_assert_int_eq(from(NULL), -EINVAL);
	ck_assert_int_eq(from(""), -EINVAL);
}

START_TEST(every_table_round_trips)
{
	round_trip("port state", port_state_to_string, port_state_from_string, PORT_STATE_MAX, 6);
	round_trip("phys state", port_phys_state_to_string, port_phys_state_from_string,
		   PORT_PHYS_MAX, 10);
	round_trip("phys state (sysfs)", port_phys_state_to_sysfs, port_phys_state_from_sysfs,
		   PORT_PHYS_MAX, 7);
	round_trip("link layer", link_layer_to_string, link_layer_from_string, LINK_LAYER_MAX, 2);
	round_trip("vf link state", vf_link_state_to_string, vf_link_state_from_string,
		   VF_LINK_STATE_MAX, 3);
	round_trip("vf link policy", vf_link_policy_to_string, vf_link_policy_from_string,
		   VF_LINK_STATE_MAX, 3);
	round_trip("action", action_kind_to_string, action_kind_from_string, ACTION_KIND_MAX,
		   ACTION_KIND_MAX);
}
END_TEST

START_TEST(words_are_the_kernels_and_tools)
{
	/* sysfs ports/N/state "4: ACTIVE"; rdma link "state ACTIVE". */
	ck_assert_str_eq(port_state_to_string(4), "ACTIVE");
	ck_assert_str_eq(port_state_to_string(1), "DOWN");
	ck_assert_str_eq(port_state_to_string(2), "INIT");
	ck_assert_str_eq(port_state_to_string(3), "ARMED");
	/* sysfs ports/N/phys_state "5: LinkUp", rdma "physical_state LINK_UP". */
	ck_assert_str_eq(port_phys_state_to_sysfs(5), "LinkUp");
	ck_assert_str_eq(port_phys_state_to_sysfs(2), "Polling");
	ck_assert_str_eq(port_phys_state_to_sysfs(3), "Disabled");
	ck_assert_str_eq(port_phys_state_to_string(5), "LINK_UP");
	ck_assert_ptr_null(port_phys_state_to_string(8)); /* no word in rdma either */
	ck_assert_str_eq(link_layer_to_string(LINK_LAYER_INFINIBAND), "InfiniBand");
	ck_assert_str_eq(link_layer_to_string(LINK_LAYER_ETHERNET), "Ethernet");
	/* ip link set ... vf N state auto|enable|disable; MOFED sriov/N/policy. */
	ck_assert_str_eq(vf_link_state_to_string(IFLA_VF_LINK_STATE_AUTO), "auto");
	ck_assert_str_eq(vf_link_state_to_string(IFLA_VF_LINK_STATE_ENABLE), "enable");
	ck_assert_str_eq(vf_link_state_to_string(IFLA_VF_LINK_STATE_DISABLE), "disable");
	ck_assert_str_eq(vf_link_policy_to_string(IFLA_VF_LINK_STATE_AUTO), "Follow");
	ck_assert_str_eq(vf_link_policy_to_string(IFLA_VF_LINK_STATE_ENABLE), "Up");
	ck_assert_str_eq(vf_link_policy_to_string(IFLA_VF_LINK_STATE_DISABLE), "Down");
}
END_TEST

START_TEST(one_name_per_action_older_journals_read)
{
	ck_assert_str_eq(action_kind_to_string(ACTION_RENAME_ALL), "vf rename --all");
	ck_assert_str_eq(action_kind_to_string(ACTION_ASSIGN_ALL), "vf guid --assign-all");
	ck_assert_int_eq(action_kind_from_string("vf rename-all"), ACTION_RENAME_ALL);
	ck_assert_int_eq(action_kind_from_string("vf assign-guids"), ACTION_ASSIGN_ALL);
	ck_assert_int_eq(action_kind_from_string("persist"), ACTION_PERSIST);
}
END_TEST

/* The model's accessors read the link layer through the table. */
START_TEST(accessors_use_the_table)
{
	struct port p = {.link_layer = (char *)"InfiniBand"};
	struct rdma r = {.ports = &p, .n_ports = 1};
	struct fn f = {.rdmas = &r, .n_rdmas = 1};
	ck_assert(fn_is_ib(&f));
	ck_assert(!fn_is_eth(&f));
	ck_assert_ptr_eq(fn_port(&f), &p);
	p.link_layer = (char *)"Ethernet";
	ck_assert(fn_is_eth(&f));
	p.link_layer = (char *)"infiniband"; /* not the kernel's word: neither */
	ck_assert(!fn_is_ib(&f) && !fn_is_eth(&f));
	struct fn none = {0};
	ck_assert_ptr_null(fn_port(&none));
	ck_assert(!fn_is_ib(&none));

	struct vf vf = {.admin = {.mofed_policy = (char *)"Down"}};
	ck_assert_int_eq(vf_link_state_of(&vf), IFLA_VF_LINK_STATE_DISABLE);
	vf.admin.link_state = (struct kval){.known = true, .v = IFLA_VF_LINK_STATE_ENABLE};
	ck_assert_int_eq(vf_link_state_of(&vf), IFLA_VF_LINK_STATE_ENABLE);
	vf.admin.link_state.v = 9; /* a value ibvf has no word for: the file decides */
	ck_assert_int_eq(vf_link_state_of(&vf), IFLA_VF_LINK_STATE_DISABLE);
	vf.admin.mofed_policy = NULL;
	ck_assert_int_eq(vf_link_state_of(&vf), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");
	tcase_add_test(tc, every_table_round_trips);
	tcase_add_test(tc, words_are_the_kernels_and_tools);
	tcase_add_test(tc, one_name_per_action_older_journals_read);
	tcase_add_test(tc, accessors_use_the_table);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
