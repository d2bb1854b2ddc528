// SPDX-License-Identifier: MIT
/* sys_linux's netlink and event side against the running kernel: a veth pair
 * in a private network namespace.
 *
 * Each test forks a child (nstest.h) that enters new network and mount
 * namespaces (with a fresh sysfs, so /sys shows the child's links), makes the
 * veth pair and runs one scenario. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <net/if.h> /* before the linux/ headers, which then skip IFF_UP and co */
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "core/sys/sys.h"
#include "nstest.h"
#include "testutil.h"

/* veth0 <-> veth1; veth1 gets MTU 9000 so the two ends differ. */
static void ns_make_veth(void)
{
	nst_veth("veth0", "veth1");
	nst_set_mtu("veth1", 9000);
}

/* Files are read through a second handle opened inside the namespaces: the
 * first one's root directory still lies in the old mount namespace. */
static struct sys *files;

typedef void (*ns_scenario)(struct sys *s);

/* The child: the handle under test is opened *before* entering the network
 * namespace, to show that netlink follows the caller's current namespace. */
static void ns_child(void *arg)
{
	ns_scenario fn = *(ns_scenario *)arg;
	struct sys *s = NULL;
	struct err e = {{0}};

	NS_CHECK(sys_open_linux("/", &s, &e) == 0, "sys_open_linux: %s", e.msg);
	nst_enter(NST_SYSFS);
	NS_CHECK(sys_open_linux("/", &files, &e) == 0, "sys_open_linux: %s", e.msg);
	ns_make_veth();
	fn(s);
	sys_close(files);
	sys_close(s);
}

static void ns_run(ns_scenario fn)
{
	nst_run(ns_child, &fn);
}

/* Helpers used inside the child. */

static const struct sys_link *find_link(const struct sys_link *links, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(links[i].name, name))
			return &links[i];
	return NULL;
}

/* A fresh dump's entry for name; NULL when absent. Copies it out. */
static bool dump_find(struct sys *s, const char *name, struct sys_link *ret)
{
	struct sys_link *links = NULL;
	size_t n = 0;
	struct err e;

	NS_CHECK(sys_link_dump(s, &links, &n, &e) == 0, "dump: %s", e.msg);
	const struct sys_link *l = find_link(links, n, name);
	if (l) {
		*ret = *l;
		ret->vfs = NULL;
	}
	sys_links_free(links, n);
	return l != NULL;
}

static long sysfs_long(const char *ifname, const char *attr)
{
	char path[128], buf[64];
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	NS_CHECK(sys_read_attr(files, path, buf, sizeof(buf)) > 0, "read '%s'", path);
	return strtol(buf, NULL, 0);
}

static void mac_format(const uint8_t *a, size_t len, char *buf, size_t size)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < len && off + 3 < size; i++)
		off += (size_t)snprintf(buf + off, size - off, i ? ":%02x" : "%02x", a[i]);
}

/* Does the running kernel refuse to rename an UP link (before 6.2)? */
static bool kernel_refuses_up_rename(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major < 6 || (major == 6 && minor < 2);
}

/* The scenarios. */

static void check_matches_sysfs(const struct sys_link *l)
{
	char path[128], addr[64], want[64];

	NS_CHECK(l->ifindex == sysfs_long(l->name, "ifindex"), "'%s' ifindex %d", l->name,
		 l->ifindex);
	NS_CHECK((long)l->mtu == sysfs_long(l->name, "mtu"), "'%s' mtu %u", l->name, l->mtu);
	NS_CHECK((long)l->type == sysfs_long(l->name, "type"), "'%s' type %u", l->name, l->type);
	NS_CHECK((long)l->flags == sysfs_long(l->name, "flags"), "'%s' flags %#x", l->name,
		 l->flags);
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", l->name);
	NS_CHECK(sys_read_attr(files, path, want, sizeof(want)) > 0, "read '%s'", path);
	mac_format(l->addr, l->addr_len, addr, sizeof(addr));
	NS_CHECK(!strcmp(addr, want), "'%s' address %s, sysfs says %s", l->name, addr, want);
}

static void dump_lists_both_ends(struct sys *s)
{
	struct sys_link *links = NULL;
	size_t n = 0;
	struct err e;

	nst_altname("veth0", "ibvf-alt0");
	NS_CHECK(sys_link_dump(s, &links, &n, &e) == 0, "dump: %s", e.msg);
	NS_CHECK(n == 3, "%zu links, want lo, veth0, veth1", n);
	for (size_t i = 1; i < n; i++)
		NS_CHECK(links[i - 1].ifindex < links[i].ifindex, "not sorted by ifindex");
	const struct sys_link *lo = find_link(links, n, "lo");
	const struct sys_link *v0 = find_link(links, n, "veth0");
	const struct sys_link *v1 = find_link(links, n, "veth1");
	NS_CHECK(lo && v0 && v1, "lo, veth0 or veth1 missing from the dump");
	NS_CHECK(v0->mtu == 1500 && v1->mtu == 9000, "mtu %u and %u", v0->mtu, v1->mtu);
	NS_CHECK(v0->type == ARPHRD_ETHER && v0->addr_len == 6, "veth0 type %u, %zu-byte address",
		 v0->type, v0->addr_len);
	NS_CHECK(v0->num_vf == -1 && v0->n_vfs == 0 && !v0->vfs, "veth0 reports VFs");
	NS_CHECK(v0->operstate == IF_OPER_DOWN, "veth0 operstate %d", v0->operstate);
	NS_CHECK(v0->n_altnames == 1 && !strcmp(v0->altnames[0], "ibvf-alt0"),
		 "veth0 altnames: %zu", v0->n_altnames);
	NS_CHECK(v1->n_altnames == 0, "veth1 has altnames");
	check_matches_sysfs(v0);
	check_matches_sysfs(v1);
	check_matches_sysfs(lo);
	sys_links_free(links, n);
}

static void rename_down_link(struct sys *s)
{
	struct sys_link before, after;
	struct err e;

	NS_CHECK(dump_find(s, "veth0", &before), "no veth0");
	NS_CHECK(sys_link_rename(s, "veth0", "ibvf7", &e) == 0, "rename: %s", e.msg);
	NS_CHECK(!dump_find(s, "veth0", &after), "veth0 still listed");
	NS_CHECK(dump_find(s, "ibvf7", &after), "ibvf7 not listed");
	NS_CHECK(after.ifindex == before.ifindex, "ifindex %d became %d", before.ifindex,
		 after.ifindex);
	NS_CHECK(sys_exists(files, "/sys/class/net/ibvf7") == 0, "no /sys/class/net/ibvf7");
}

static void rename_up_link(struct sys *s)
{
	struct sys_link l;
	struct err e = {{0}};

	NS_CHECK(sys_link_set_up(s, "veth0", true, &e) == 0, "set up: %s", e.msg);
	int r = sys_link_rename(s, "veth0", "ibvf7", &e);
	if (kernel_refuses_up_rename()) {
		NS_CHECK(r == -EBUSY, "rename of an up link gave %d, want -EBUSY", r);
		NS_CHECK(!strcmp(e.msg,
				 "cannot rename 'veth0' to 'ibvf7': Device or resource busy "
				 "(link is up; kernels before 6.2 cannot rename an up link)"),
			 "message: %s", e.msg);
		NS_CHECK(dump_find(s, "veth0", &l), "veth0 gone after a refused rename");
	} else {
		NS_CHECK(r == 0, "rename of an up link on kernel >= 6.2: %s", e.msg);
		NS_CHECK(dump_find(s, "ibvf7", &l) && (l.flags & IFF_UP), "ibvf7 missing or down");
	}
}

static void rename_to_taken_names(struct sys *s)
{
	struct err e = {{0}};
	int r;

	nst_altname("veth0", "ibvf-alt0");
	r = sys_link_rename(s, "veth1", "veth0", &e);
	NS_CHECK(r == -EEXIST, "rename to a taken name gave %d", r);
	NS_CHECK(!strcmp(e.msg, "cannot rename 'veth1' to 'veth0': File exists (the name is "
				"taken by another link or an altname)"),
		 "message: %s", e.msg);
	r = sys_link_rename(s, "veth1", "ibvf-alt0", &e);
	NS_CHECK(r == -EEXIST, "rename to an altname gave %d: %s", r, e.msg);
	/* The altname finds the link too. */
	NS_CHECK(sys_link_rename(s, "ibvf-alt0", "ibvf5", &e) == 0, "rename by altname: %s", e.msg);
}

static void rename_errors_name_the_subject(struct sys *s)
{
	struct err e = {{0}};
	int r;

	r = sys_link_rename(s, "nosuch0", "ibvf1", &e);
	NS_CHECK(r == -ENODEV, "unknown link gave %d", r);
	NS_CHECK(!strcmp(e.msg, "cannot find link 'nosuch0': No such device"), "message: %s",
		 e.msg);
	r = sys_link_rename(s, "veth0", "0123456789abcdef", &e);
	NS_CHECK(r == -EINVAL, "16-character name gave %d", r);
	NS_CHECK(strstr(e.msg, "cannot rename 'veth0' to '0123456789abcdef'") == e.msg,
		 "message: %s", e.msg);
	r = sys_link_rename(s, "veth0", "bad/name", &e);
	NS_CHECK(r == -EINVAL, "name with a slash gave %d", r);
	NS_CHECK(e.msg[strlen(e.msg) - 1] != '.', "message ends with a full stop: %s", e.msg);
}

static void set_up_and_down(struct sys *s)
{
	struct sys_link l;
	struct err e = {{0}};

	NS_CHECK(dump_find(s, "veth1", &l) && !(l.flags & IFF_UP), "veth1 starts up");
	NS_CHECK(sys_link_set_up(s, "veth1", true, &e) == 0, "set up: %s", e.msg);
	NS_CHECK(dump_find(s, "veth1", &l) && (l.flags & IFF_UP), "veth1 not up");
	NS_CHECK(sysfs_long("veth1", "flags") & IFF_UP, "sysfs: veth1 not up");
	NS_CHECK(sys_link_set_up(s, "veth1", false, &e) == 0, "set down: %s", e.msg);
	NS_CHECK(dump_find(s, "veth1", &l) && !(l.flags & IFF_UP), "veth1 still up");
	NS_CHECK(sys_link_set_up(s, "nosuch0", true, &e) == -ENODEV, "set up of a missing link");
	/* A name longer than IFNAMSIZ can only be an altname: looked up as one. */
	nst_altname("veth1", "ibvf-a-long-alternative-name");
	NS_CHECK(sys_link_set_up(s, "ibvf-a-long-alternative-name", true, &e) == 0,
		 "set up by a long altname: %s", e.msg);
	NS_CHECK(dump_find(s, "veth1", &l) && (l.flags & IFF_UP), "veth1 not up by its altname");
}

/* The first field where two links differ, or NULL. */
static const char *link_difference(const struct sys_link *a, const struct sys_link *b)
{
	if (a->ifindex != b->ifindex)
		return "ifindex";
	if (strcmp(a->name, b->name))
		return "name";
	if (a->flags != b->flags || a->type != b->type || a->operstate != b->operstate)
		return "flags, type or operstate";
	if (a->mtu != b->mtu)
		return "mtu";
	if (a->addr_len != b->addr_len || memcmp(a->addr, b->addr, a->addr_len))
		return "address";
	if (a->n_altnames != b->n_altnames)
		return "altname count";
	for (size_t i = 0; i < a->n_altnames; i++)
		if (strcmp(a->altnames[i], b->altnames[i]))
			return "altnames";
	if (a->num_vf != b->num_vf || a->n_vfs != b->n_vfs)
		return "VF count";
	if (a->n_vfs && memcmp(a->vfs, b->vfs, a->n_vfs * sizeof(*a->vfs)))
		return "VF list";
	return NULL;
}

static void get_matches_the_dump(struct sys *s)
{
	struct sys_link *links = NULL, l = {0};
	size_t n = 0;
	struct err e = {{0}};
	const char *diff;
	int r;

	nst_altname("veth0", "ibvf-alt0");
	nst_altname("veth0", "ibvf-a-long-alternative-name");
	NS_CHECK(sys_link_set_up(s, "veth1", true, &e) == 0, "set up: %s", e.msg);
	NS_CHECK(sys_link_dump(s, &links, &n, &e) == 0, "dump: %s", e.msg);
	for (size_t i = 0; i < n; i++) {
		NS_CHECK(sys_link_get(s, links[i].name, &l, &e) == 0, "get '%s': %s", links[i].name,
			 e.msg);
		diff = link_difference(&l, &links[i]);
		NS_CHECK(!diff, "'%s': %s differs from the dump's", links[i].name, diff);
		sys_link_fini(&l);
	}
	/* By an altname, short and long (IFLA_ALT_IFNAME): the same link. */
	const struct sys_link *v0 = find_link(links, n, "veth0");
	NS_CHECK(v0 && v0->n_altnames == 2, "veth0 missing or without its altnames");
	NS_CHECK(sys_link_get(s, "ibvf-alt0", &l, &e) == 0, "get by altname: %s", e.msg);
	NS_CHECK(!link_difference(&l, v0), "by altname: not veth0");
	sys_link_fini(&l);
	NS_CHECK(sys_link_get(s, "ibvf-a-long-alternative-name", &l, &e) == 0,
		 "get by long altname: %s", e.msg);
	NS_CHECK(!link_difference(&l, v0), "by long altname: not veth0");
	sys_link_fini(&l);
	sys_link_fini(NULL);
	sys_links_free(links, n);

	l.ifindex = 4242;
	r = sys_link_get(s, "nosuch0", &l, &e);
	NS_CHECK(r == -ENODEV, "missing link gave %d", r);
	NS_CHECK(!strcmp(e.msg, "no network interface 'nosuch0'"), "message: %s", e.msg);
	NS_CHECK(l.ifindex == 4242, "ret changed on failure");
	r = sys_link_get(s, "nosuch-long-alternative-name", &l, &e);
	NS_CHECK(r == -ENODEV, "missing long name gave %d: %s", r, e.msg);
	r = sys_link_get(s, "", &l, &e);
	NS_CHECK(r == -ENODEV, "empty name gave %d: %s", r, e.msg);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Events until a "move" of net/new arrives or a second passes. */
static bool wait_for_move(struct sys *s, int fd, const char *old, const char *new,
			  struct sys_event *ret)
{
	double deadline = now() + 1.0;

	for (double left; (left = deadline - now()) > 0;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		NS_CHECK(r >= 0 || errno == EINTR, "poll: %s", strerror(errno));
		while ((r = sys_event_read(s, ret)) == 1)
			if (!strcmp(ret->action, "move") && !strcmp(ret->subsystem, "net") &&
			    !strcmp(ret->name, new) && !strcmp(ret->old_name, old))
				return true;
		NS_CHECK(r == 0, "sys_event_read: %s", strerror(-r));
	}
	return false;
}

static void rename_raises_move_event(struct sys *s)
{
	struct sys_event ev;
	struct err e = {{0}};
	int fd = sys_event_fd(s);

	NS_CHECK(fd >= 0, "sys_event_fd: %s", strerror(-fd));
	NS_CHECK(sys_event_fd(s) == fd, "a second sys_event_fd gave another fd");
	while (sys_event_read(s, &ev) == 1)
		;
	NS_CHECK(sys_event_read(s, &ev) == 0, "event_read does not return 0 when idle");
	NS_CHECK(sys_link_rename(s, "veth0", "ibvf3", &e) == 0, "rename: %s", e.msg);
	NS_CHECK(wait_for_move(s, fd, "veth0", "ibvf3", &ev), "no move event within 1 s");
	NS_CHECK(strstr(ev.devpath, "/net/ibvf3") != NULL, "devpath '%s'", ev.devpath);
}

static void vf_changes_on_veth_fail_cleanly(struct sys *s)
{
	struct err e = {{0}};
	int r;

	r = sys_vf_set_guid(s, "veth0", 0, SYS_GUID_PORT, 0x0011223344556677ULL, &e);
	NS_CHECK(r == -ENODEV, "vf_set_guid on veth gave %d: %s", r, e.msg);
	NS_CHECK(!strcmp(e.msg, "cannot set the port GUID of VF 0 of 'veth0' to "
				"'0011:2233:4455:6677': 'veth0' has no SR-IOV VFs"),
		 "message: %s", e.msg);
	r = sys_vf_set_guid(s, "veth0", 1, SYS_GUID_NODE, 1, &e);
	NS_CHECK(r == -ENODEV && strstr(e.msg, "node GUID of VF 1"), "node GUID: %d %s", r, e.msg);
	r = sys_vf_set_link_state(s, "veth0", 0, IFLA_VF_LINK_STATE_DISABLE, &e);
	NS_CHECK(r == -ENODEV, "vf_set_link_state on veth gave %d: %s", r, e.msg);
	NS_CHECK(!strcmp(e.msg, "cannot set the link state of VF 0 of 'veth0' to 'disable': "
				"'veth0' has no SR-IOV VFs"),
		 "message: %s", e.msg);
	r = sys_vf_set_link_state(s, "veth0", 0, 7, &e);
	NS_CHECK(r == -EINVAL, "link state 7 gave %d", r);
	r = sys_vf_set_guid(s, "nosuch0", 0, SYS_GUID_PORT, 1, &e);
	NS_CHECK(r == -ENODEV && !strcmp(e.msg, "cannot find link 'nosuch0': No such device"),
		 "missing PF: %d %s", r, e.msg);
}

START_TEST(dump_lists_both_veth_ends_as_sysfs_shows_them)
{
	ns_run(dump_lists_both_ends);
}
END_TEST

START_TEST(get_of_one_link_equals_its_dump_entry)
{
	ns_run(get_matches_the_dump);
}
END_TEST

START_TEST(rename_of_a_down_link_keeps_its_ifindex)
{
	ns_run(rename_down_link);
}
END_TEST

START_TEST(rename_of_an_up_link_follows_the_kernel_version)
{
	ns_run(rename_up_link);
}
END_TEST

START_TEST(rename_to_a_taken_name_or_altname_is_eexist)
{
	ns_run(rename_to_taken_names);
}
END_TEST

START_TEST(rename_errors_name_the_link)
{
	ns_run(rename_errors_name_the_subject);
}
END_TEST

START_TEST(set_up_and_down_toggles_iff_up)
{
	ns_run(set_up_and_down);
}
END_TEST

START_TEST(rename_raises_a_move_event_within_a_second)
{
	ns_run(rename_raises_move_event);
}
END_TEST

START_TEST(vf_changes_on_a_veth_fail_with_a_message)
{
	ns_run(vf_changes_on_veth_fail_cleanly);
}
END_TEST

START_TEST(open_with_a_missing_root_fails_with_a_message)
{
	struct sys *s = NULL;
	struct err e = {{0}};

	ck_assert_int_eq(sys_open_linux("/nonexistent-ibvf-root", &s, &e), -ENOENT);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(e.msg, "cannot open root '/nonexistent-ibvf-root': No such file or "
				"directory");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("netns");
	TCase *tc = tcase_create("netns");

	tcase_add_test(tc, dump_lists_both_veth_ends_as_sysfs_shows_them);
	tcase_add_test(tc, get_of_one_link_equals_its_dump_entry);
	tcase_add_test(tc, rename_of_a_down_link_keeps_its_ifindex);
	tcase_add_test(tc, rename_of_an_up_link_follows_the_kernel_version);
	tcase_add_test(tc, rename_to_a_taken_name_or_altname_is_eexist);
	tcase_add_test(tc, rename_errors_name_the_link);
	tcase_add_test(tc, set_up_and_down_toggles_iff_up);
	tcase_add_test(tc, rename_raises_a_move_event_within_a_second);
	tcase_add_test(tc, vf_changes_on_a_veth_fail_with_a_message);
	tcase_add_test(tc, open_with_a_missing_root_fails_with_a_message);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
