// SPDX-License-Identifier: MIT
/* NUMA placement of a benchmark thread and its buffer: the HCA's node and
 * local CPUs read from a sysfs tree laid out as the kernel does (a PCI
 * function, an rxe device through its netdev, none), the decision for each
 * case the issue names (node -1, a node without CPUs, --cpu outside the
 * local list, a cpuset that excludes them, --no-pin), and pinning and
 * buffer binding against this machine's real kernel. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cpulist.h"
#include "bench/place.h"
#include "testutil.h"

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;
	struct err e = {{0}};
	ck_assert_msg(cpulist_parse(list, "test", &s, &e) == 0, "%s", e.msg);
	return s;
}

static void link_to(const char *root, const char *target, const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_msg(symlink(target, path) == 0, "symlink %s", path);
}

/* A sysfs tree: mlx5_0 on node 1 (a DGX H200's second socket), rxe0 over
 * a VF netdev of a guest without NUMA information, siw0 over lo (no PCI
 * function), mlx5_1 with a garbled numa_node, mlx5_2 without local_cpulist. */
static char *make_sysfs(void)
{
	char tmpl[] = "/tmp/ibvf-place-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *root = strdup(tmpl);
	const char *pci = "devices/pci0000:00";
	char rel[256];
	static const struct {
		const char *fn, *node, *cpus;
	} fns[] = {
		{"0000:18:00.0", "1\n", "56-111,168-223\n"}, {"0000:01:10.0", "-1\n", "0-1\n"},
		{"0000:19:00.0", "abc\n", "0-3\n"},	     {"0000:1a:00.0", "0\n", NULL},
		{"0000:1b:00.0", "2048\n", "0\n"},
	};
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s/numa_node", pci, fns[i].fn);
		tu_put(root, rel, fns[i].node);
		if (fns[i].cpus) {
			snprintf(rel, sizeof(rel), "%s/%s/local_cpulist", pci, fns[i].fn);
			tu_put(root, rel, fns[i].cpus);
		}
	}
	tu_put(root, "class/infiniband/mlx5_0/node_type", "1: CA\n");
	link_to(root, "../../../devices/pci0000:00/0000:18:00.0", "class/infiniband/mlx5_0/device");
	tu_put(root, "class/infiniband/mlx5_1/node_type", "1: CA\n");
	link_to(root, "../../../devices/pci0000:00/0000:19:00.0", "class/infiniband/mlx5_1/device");
	tu_put(root, "class/infiniband/mlx5_2/node_type", "1: CA\n");
	link_to(root, "../../../devices/pci0000:00/0000:1a:00.0", "class/infiniband/mlx5_2/device");
	tu_put(root, "class/infiniband/mlx5_3/node_type", "1: CA\n");
	link_to(root, "../../../devices/pci0000:00/0000:1b:00.0", "class/infiniband/mlx5_3/device");
	tu_put(root, "class/infiniband/rxe0/parent", "ens2v0\n");
	tu_put(root, "class/net/ens2v0/type", "1\n");
	link_to(root, "../../../devices/pci0000:00/0000:01:10.0", "class/net/ens2v0/device");
	tu_put(root, "class/infiniband/siw0/parent", "lo\n");
	tu_put(root, "class/net/lo/type", "772\n");
	tu_put(root, "class/infiniband/rxe9/parent", "../../etc\n");
	return root;
}

START_TEST(the_hca_is_placed_from_sysfs)
{
	char *root = make_sysfs();
	struct place_hca h;
	struct err e = {{0}};
	ck_assert_int_eq(place_read_hca(root, "mlx5_0", &h, &e), 0);
	ck_assert(h.pci && h.local_known);
	ck_assert_int_eq(h.node, 1);
	cpu_set_t want = cpus("56-111,168-223");
	ck_assert(CPU_EQUAL(&h.local, &want));
	/* rxe has no device link: its netdev's PCI function places it. */
	ck_assert_int_eq(place_read_hca(root, "rxe0", &h, &e), 0);
	ck_assert(h.pci && h.local_known);
	ck_assert_int_eq(h.node, -1);
	want = cpus("0-1");
	ck_assert(CPU_EQUAL(&h.local, &want));
	/* No PCI function at all, or a parent that is no netdev name: unknown. */
	ck_assert_int_eq(place_read_hca(root, "siw0", &h, &e), 0);
	ck_assert(!h.pci && !h.local_known);
	ck_assert_int_eq(h.node, -1);
	ck_assert_int_eq(place_read_hca(root, "rxe9", &h, &e), 0);
	ck_assert(!h.pci);
	ck_assert_int_eq(place_read_hca(root, "nothere", &h, &e), 0);
	ck_assert(!h.pci);
	/* No local_cpulist: the node is still known. */
	ck_assert_int_eq(place_read_hca(root, "mlx5_2", &h, &e), 0);
	ck_assert(h.pci && !h.local_known);
	ck_assert_int_eq(h.node, 0);
	/* A garbled file is an error naming it. */
	ck_assert_int_eq(place_read_hca(root, "mlx5_1", &h, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(
		e.msg, "/class/infiniband/mlx5_1/device/numa_node' holds no NUMA node from -1 "
		       "to 1023"));
	ck_assert_int_eq(place_read_hca(root, "mlx5_3", &h, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "holds no NUMA node"));
	/* A name that would leave the class directory is refused. */
	ck_assert_int_eq(place_read_hca(root, "../mlx5_0", &h, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "'../mlx5_0' is not an RDMA device name");
	tu_rmtree(root);
}
END_TEST

static struct place_plan decide(const struct place_hca *h, const char *usable,
				const struct place_want *w)
{
	struct place_plan p;
	struct err e = {{0}};
	cpu_set_t u = cpus(usable);
	ck_assert_msg(place_decide("mlx5_0", h, &u, w, &p, &e) == 0, "%s", e.msg);
	return p;
}

START_TEST(the_decision_covers_every_case)
{
	struct place_want none = {0};
	/* The HCA's local CPUs and node, as on a DGX. */
	struct place_hca dgx = {
		.node = 1, .local_known = true, .pci = true, .local = cpus("56-111,168-223")};
	struct place_plan p = decide(&dgx, "0-223", &none);
	cpu_set_t want = cpus("56-111,168-223");
	ck_assert(p.pin && CPU_EQUAL(&p.cpus, &want) && !p.off_node);
	ck_assert_int_eq(p.mem_node, 1);
	ck_assert_str_eq(p.note, "");
	/* Some of them offline or outside the cpuset: the rest. */
	p = decide(&dgx, "0-100", &none);
	want = cpus("56-100");
	ck_assert(p.pin && CPU_EQUAL(&p.cpus, &want));
	/* numa_node -1 (a guest, a one-socket box): pinned to the list the kernel
	 * gives (every CPU), the buffer left alone, and said. */
	struct place_hca guest = {
		.node = -1, .local_known = true, .pci = true, .local = cpus("0-1")};
	p = decide(&guest, "0-1", &none);
	want = cpus("0-1");
	ck_assert(p.pin && CPU_EQUAL(&p.cpus, &want));
	ck_assert_int_eq(p.mem_node, -1);
	ck_assert_str_eq(p.note, "numa_node is -1 (the platform gives no NUMA information): the "
				 "buffer is not bound");
	/* A node without CPUs (memory and devices only): not pinned, the buffer
	 * still on the HCA's node. */
	struct place_hca cpuless = {.node = 2, .local_known = true, .pci = true};
	CPU_ZERO(&cpuless.local);
	p = decide(&cpuless, "0-7", &none);
	ck_assert(!p.pin);
	ck_assert_int_eq(p.mem_node, 2);
	ck_assert_str_eq(p.note, "'mlx5_0''s NUMA node 2 has no CPUs: the thread is not pinned");
	/* Local CPUs none of which this process may use (a pod's cpuset). */
	struct place_hca far = {.node = 1, .local_known = true, .pci = true, .local = cpus("4-7")};
	p = decide(&far, "0-3", &none);
	ck_assert(!p.pin);
	ck_assert_int_eq(p.mem_node, 1);
	ck_assert_str_eq(p.note, "none of 'mlx5_0''s local CPUs 4-7 may be used here (offline, or "
				 "outside this process's cpuset): the thread is not pinned");
	/* --cpu outside the local list: allowed, marked for a warning. */
	struct place_want given = {.cpus_given = true, .cpus = cpus("0-1")};
	p = decide(&far, "0-7", &given);
	want = cpus("0-1");
	ck_assert(p.pin && CPU_EQUAL(&p.cpus, &want) && p.off_node);
	ck_assert_int_eq(p.mem_node, 1);
	given.cpus = cpus("5");
	p = decide(&far, "0-7", &given);
	ck_assert(p.pin && !p.off_node);
	/* --cpu that this thread may not use at all: refused by name. */
	struct place_plan q;
	struct err e = {{0}};
	cpu_set_t usable = cpus("0-3");
	given.cpus = cpus("6,8");
	ck_assert_int_eq(place_decide("mlx5_0", &far, &usable, &given, &q, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "--cpu 6,8: none of these CPUs may be used by this thread (online "
				"and allowed: 0-3)");
	/* --no-pin: neither thread nor buffer. */
	struct place_want nopin = {.no_pin = true};
	p = decide(&dgx, "0-223", &nopin);
	ck_assert(!p.pin);
	ck_assert_int_eq(p.mem_node, -1);
	ck_assert_str_eq(p.note, "--no-pin: the thread and its buffer are left to the scheduler");
	/* Nothing known: both notes. */
	struct place_hca nothing = {.node = -1};
	p = decide(&nothing, "0-1", &none);
	ck_assert(!p.pin);
	ck_assert_str_eq(p.note, "'mlx5_0' has no PCI function to place it by: the thread is not "
				 "pinned; the buffer is not bound");
}
END_TEST

/* The real kernel: pinning by --cpu to the last online CPU moves the thread
 * there, and place_end gives the thread its affinity back. */
START_TEST(pinning_moves_the_thread_and_is_undone)
{
	struct err e = {{0}};
	cpu_set_t online, before, after, saved;
	ck_assert_int_eq(cpulist_read("/sys/devices/system/cpu/online", &online, &e), 0);
	ck_assert_int_eq(pthread_getaffinity_np(pthread_self(), sizeof(before), &before), 0);
	int last = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &online) && CPU_ISSET(c, &before))
			last = c;
	ck_assert_int_ge(last, 0);
	struct place_want w = {.cpus_given = true};
	CPU_ZERO(&w.cpus);
	CPU_SET(last, &w.cpus);
	struct bench_placement p;
	/* No such RDMA device: no PCI function, the --cpu still applies. */
	ck_assert_int_eq(place_begin("ibvf-test-none", &w, &p, &saved, &e), 0);
	ck_assert(p.known && p.pinned && p.cpu_given);
	ck_assert_int_eq(p.cpu, last);
	ck_assert_int_eq(sched_getcpu(), last);
	ck_assert_int_ge(p.cpu_node, 0);
	ck_assert_int_eq(p.hca_node, -1);
	ck_assert_str_eq(p.note, "the buffer is not bound");
	place_end(&p, &saved);
	ck_assert_int_eq(pthread_getaffinity_np(pthread_self(), sizeof(after), &after), 0);
	ck_assert(CPU_EQUAL(&before, &after));
	/* Without --cpu and nothing to place by: left alone, and said. */
	struct place_want none = {0};
	ck_assert_int_eq(place_begin("ibvf-test-none", &none, &p, &saved, &e), 0);
	ck_assert(!p.pinned);
	ck_assert_ptr_nonnull(strstr(p.note, "the thread is not pinned"));
	/* An offline or absent CPU cannot be asked for. */
	CPU_ZERO(&w.cpus);
	CPU_SET(CPU_SETSIZE - 1, &w.cpus);
	ck_assert_int_eq(place_begin("ibvf-test-none", &w, &p, &saved, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "--cpu 1023: none of these CPUs"));
}
END_TEST

/* A machine with more CPUs than CPU_SETSIZE (its lists are real, not
 * garbled): placement is refused with the way out named, and --no-pin runs
 * unplaced, the HCA's node still reported. */
START_TEST(more_cpus_than_cpu_setsize_leave_no_pin_as_the_way_out)
{
	char *root = make_sysfs();
	struct err e = {{0}};
	struct bench_placement p;
	cpu_set_t saved;
	tu_put(root, "devices/system/cpu/online", "0-2047\n");
	tu_put(root, "devices/pci0000:00/0000:18:00.0/local_cpulist", "1024-1535\n");
	struct place_want none = {0}, no_pin = {.no_pin = true};
	ck_assert_int_eq(place_begin_at(root, "mlx5_0", &none, &p, &saved, &e), -ERANGE);
	ck_assert_ptr_nonnull(strstr(e.msg, "names CPU 1024, beyond 1023"));
	ck_assert_ptr_nonnull(strstr(e.msg, "; --no-pin runs without placement"));
	ck_assert_int_eq(place_begin_at(root, "mlx5_0", &no_pin, &p, &saved, &e), 0);
	ck_assert(p.known && !p.pinned && !p.local_known);
	ck_assert_int_eq(p.hca_node, 1);
	ck_assert_int_eq(p.mem_node, -1);
	ck_assert_str_eq(p.note, "--no-pin: the thread and its buffer are left to the scheduler");
	/* A garbled HCA does not stop an unplaced run either. */
	ck_assert_int_eq(place_begin_at(root, "mlx5_1", &no_pin, &p, &saved, &e), 0);
	ck_assert_int_eq(p.hca_node, -1);
	tu_rmtree(root);
}
END_TEST

/* The real kernel: a buffer bound to node 0 is on node 0 after the first
 * touch; a node that does not exist cannot be bound, and that is noted. */
START_TEST(the_buffer_lies_where_the_kernel_says)
{
	struct err e = {{0}};
	struct bench_placement p = {.known = true, .mem_node = 0, .buf_node = -1};
	void *buf;
	size_t len;
	ck_assert_int_eq(place_buffer_alloc(3 * 4096 + 5, &p, &buf, &len, &e), 0);
	ck_assert_uint_eq(len % (size_t)sysconf(_SC_PAGESIZE), 0);
	ck_assert_uint_ge(len, 3 * 4096 + 5);
	ck_assert_int_eq(p.mem_node, 0);
	ck_assert_int_eq(p.buf_node, 0);
	ck_assert(!p.buf_mixed);
	ck_assert_str_eq(p.note, "");
	for (size_t i = 0; i < len; i++)
		ck_assert_int_eq(((unsigned char *)buf)[i], 0);
	bool mixed;
	ck_assert_int_eq(place_pages_node(buf, len, &mixed), 0);
	place_buffer_free(buf, len);
	struct bench_placement q = {.known = true, .mem_node = 1023, .buf_node = -1};
	ck_assert_int_eq(place_buffer_alloc(1 << 20, &q, &buf, &len, &e), 0);
	ck_assert_int_eq(q.mem_node, -1);
	ck_assert_ptr_nonnull(strstr(q.note, "cannot bind the buffer to node 1023 ("));
	ck_assert_int_ge(q.buf_node, 0);
	place_buffer_free(buf, len);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("place");
	TCase *tc = tcase_create("place");
	tcase_add_test(tc, the_hca_is_placed_from_sysfs);
	tcase_add_test(tc, the_decision_covers_every_case);
	tcase_add_test(tc, pinning_moves_the_thread_and_is_undone);
	tcase_add_test(tc, more_cpus_than_cpu_setsize_leave_no_pin_as_the_way_out);
	tcase_add_test(tc, the_buffer_lies_where_the_kernel_says);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
