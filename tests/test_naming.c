// SPDX-License-Identifier: MIT
/* The name rules and the naming policy (core/persist/naming.h): each refused form,
 * 15 against 16 bytes, kernel forms with and without force; the default
 * scheme against systemd's names, patterns, long PF names, a PF under a
 * kernel name, and two VFs given one name. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/persist/naming.h"
#include "testutil.h"

static void refused(const char *name, bool kernel_ok, const char *why)
{
	struct err e = {{0}};
	ck_assert_msg(naming_check(name, kernel_ok, &e) == -EINVAL, "'%s' accepted", name);
	ck_assert_msg(strstr(e.msg, why), "'%s': '%s' lacks '%s'", name, e.msg, why);
	ck_assert_msg(!strchr(e.msg, '\n') && !strchr(e.msg, '\t'), "'%s': raw byte in '%s'", name,
		      e.msg);
}

START_TEST(each_refused_form_says_why)
{
	refused("", false, "empty");
	refused(".", true, "'.' and '..'");
	refused("..", true, "'.' and '..'");
	refused("ib/3", true, "no '/'");
	refused("ib:3", true, "':'");
	refused("ib 3", true, "space");
	refused("ib\t3", true, "space or not printable");
	refused("ib\0333", true, "not printable");
	refused("ib%d", true, "kernel template");
	refused("%d", true, "kernel template");
}
END_TEST

START_TEST(fifteen_bytes_pass_sixteen_do_not)
{
	struct err e = {{0}};
	ck_assert_int_eq(naming_check("ibp24s0v3abcdef", false, &e), 0); /* 15 */
	refused("ibp24s0v3abcdefg", true, "16 bytes, a name has 1 to 15");
	/* The whole name in the message, never a cut one. */
	refused("ibp24s0v3-toolong", true, "'ibp24s0v3-toolong'");
}
END_TEST

START_TEST(kernel_forms_only_forced)
{
	struct err e = {{0}};
	refused("ib3", false, "a kernel name (ibN, ethN)");
	refused("eth0", false, "next probe");
	refused("ib0", false, "--force");
	ck_assert_int_eq(naming_check("ib3", true, &e), 0);
	ck_assert_int_eq(naming_check("eth12", true, &e), 0);
	/* Not the kernel's forms. */
	ck_assert_int_eq(naming_check("ib", false, &e), 0);
	ck_assert_int_eq(naming_check("ib3a", false, &e), 0);
	ck_assert_int_eq(naming_check("ibp24s0v3", false, &e), 0);
	ck_assert_int_eq(naming_check("eth", false, &e), 0);
	ck_assert(naming_kernel_form("ib12"));
	ck_assert(!naming_kernel_form("ibx12"));
}
END_TEST

/* A PF at bdf with netdev name pfname (NULL: none) and n VFs. */
static struct netdev pf_nd[4], vf_nd[4][4];

static void mk_pf(struct pf *pf, struct vf *vfs, int slot, const char *bdf, const char *pfname,
		  size_t n)
{
	memset(pf, 0, sizeof(*pf));
	snprintf(pf->fn.bdf, sizeof(pf->fn.bdf), "%s", bdf);
	if (pfname) {
		pf_nd[slot].name = (char *)pfname;
		pf->fn.netdevs = &pf_nd[slot];
		pf->fn.n_netdevs = 1;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&vfs[i], 0, sizeof(vfs[i]));
		vfs[i].index = (unsigned int)i;
		snprintf(vfs[i].fn.bdf, sizeof(vfs[i].fn.bdf), "%.10s.%zu", bdf, i + 1);
		vf_nd[slot][i].name = (char *)"ib9";
		vfs[i].fn.netdevs = &vf_nd[slot][i];
		vfs[i].fn.n_netdevs = 1;
	}
	pf->vfs = vfs;
	pf->n_vfs = n;
}

static void named(const char *scheme, const char *pfname, const char *bdf, unsigned int idx,
		  const char *want)
{
	struct pf pf;
	struct vf vfs[4];
	char name[SYS_IFNAMSIZ] = "";
	struct err e = {{0}};
	mk_pf(&pf, vfs, 0, bdf, pfname, 4);
	ck_assert_msg(naming_vf_name(scheme, &pf, &vfs[idx], name, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(name, want);
}

static void unnamed(const char *scheme, const char *pfname, const char *why)
{
	struct pf pf;
	struct vf vfs[4];
	char name[SYS_IFNAMSIZ] = "";
	struct err e = {{0}};
	mk_pf(&pf, vfs, 0, "0000:18:00.0", pfname, 4);
	ck_assert_int_lt(naming_vf_name(scheme, &pf, &vfs[3], name, &e), 0);
	ck_assert_msg(strstr(e.msg, why), "'%s' lacks '%s'", e.msg, why);
	ck_assert_str_eq(name, "");
}

START_TEST(default_is_systemds_v_suffix)
{
	named(NULL, "ibp24s0", "0000:18:00.0", 3, "ibp24s0v3");
	named("", "ibp24s0", "0000:18:00.0", 0, "ibp24s0v0");
	/* systemd names VFs from the PF's PCI name, before its port suffix. */
	named(NULL, "enp154s0np0", "0000:9a:00.0", 2, "enp154s0v2");
	named(NULL, "enp41s0f1np1", "0000:29:00.1", 1, "enp41s0f1v1");
	named(NULL, "ens3f0d1", "0000:29:00.0", 1, "ens3f0v1");
	/* A name of the operator's own is kept whole. */
	named(NULL, "fabric", "0000:18:00.0", 1, "fabricv1");
}
END_TEST

START_TEST(patterns_of_stable_things)
{
	named("%nv%i", "enp154s0np0", "0000:9a:00.0", 2, "enp154s0np0v2");
	named("ib%bs%sf%fv%i", NULL, "0000:18:00.0", 3, "ib24s0f0v3");
	named("ibD%Db%bv%i", "x", "0001:c0:01.2", 1, "ibD1b192v1");
	named("hpc%i", "ibp24s0", "0000:18:00.0", 2, "hpc2");
}
END_TEST

START_TEST(bad_patterns_and_pf_names_refused)
{
	struct err e = {{0}};
	ck_assert_int_eq(naming_scheme_check("x%b", &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "no %i"));
	ck_assert_int_eq(naming_scheme_check("x%q%i", &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "unknown token '%q'"));
	ck_assert_int_eq(naming_scheme_check("x%", &e), -EINVAL);
	ck_assert_int_eq(naming_scheme_check("a/%i", &e), -EINVAL);
	ck_assert_int_eq(naming_scheme_check("a b%i", &e), -EINVAL);
	/* Long PF names: the VF's name would pass 15 bytes (never cut). */
	unnamed(NULL, "ibp24s0f0abcdef", "gives 'ibp24s0f0abcdefv3', 17 bytes");
	unnamed(NULL, "ibp24s0f0abcdef", "VF 3 of 0000:18:00.0");
	/* A PF under a kernel name moves with probe order. */
	unnamed(NULL, "ib0", "the kernel name 'ib0'");
	unnamed("%nv%i", NULL, "no netdev");
	/* A pattern giving a kernel form. */
	unnamed("ib%i", "ibp24s0", "a kernel name");
	unnamed("eth%i", "ibp24s0", "a kernel name");
}
END_TEST

START_TEST(two_vfs_one_name_refused_naming_both)
{
	struct node n = {0};
	struct pf pfs[2];
	struct vf a[4], b[4];
	struct naming_entry *v = NULL;
	size_t nv = 0;
	struct err e = {{0}};
	mk_pf(&pfs[0], a, 0, "0000:18:00.0", "ibp24s0", 4);
	mk_pf(&pfs[1], b, 1, "0000:40:00.0", "ibp64s0", 2);
	n.pfs = pfs;
	n.n_pfs = 2;
	ck_assert_int_eq(naming_node(&n, NULL, &v, &nv, &e), 0);
	ck_assert_uint_eq(nv, 6);
	ck_assert_str_eq(v[5].name, "ibp64s0v1");
	free(v);
	/* Without the PF in it, VF 0 of each PF gets one name. */
	ck_assert_int_eq(naming_node(&n, "hpc%i", &v, &nv, &e), -EEXIST);
	ck_assert_msg(strstr(e.msg, "VF 0 of 0000:18:00.0") &&
			      strstr(e.msg, "VF 0 of 0000:40:00.0") && strstr(e.msg, "'hpc0'"),
		      "%s", e.msg);
	/* A VF whose name cannot be made carries its own reason. */
	pfs[1].fn.netdevs[0].name = (char *)"ib7";
	ck_assert_int_eq(naming_node(&n, NULL, &v, &nv, &e), 0);
	ck_assert_str_eq(v[4].name, "");
	ck_assert_ptr_nonnull(strstr(v[4].error, "kernel name 'ib7'"));
	ck_assert_str_eq(v[3].name, "ibp24s0v3");
	free(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("naming");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, each_refused_form_says_why);
	tcase_add_test(tc, fifteen_bytes_pass_sixteen_do_not);
	tcase_add_test(tc, kernel_forms_only_forced);
	suite_add_tcase(s, tc);
	tc = tcase_create("policy");
	tcase_add_test(tc, default_is_systemds_v_suffix);
	tcase_add_test(tc, patterns_of_stable_things);
	tcase_add_test(tc, bad_patterns_and_pf_names_refused);
	tcase_add_test(tc, two_vfs_one_name_refused_naming_both);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
