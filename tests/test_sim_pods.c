// SPDX-License-Identifier: MIT
/* The simulated node's pods and boots as the history recorder sees them:
 * `debug pod-start` (the kubelet, the device plugin and ib-sriov-cni start a
 * pod, and the kernel renames the PF's other kernel-named VFs), its
 * refusals, what `watch` sees of it, the boot identity (boot_id, btime) of
 * mkfixture and debug reboot, and `mkfixture --history`. */
#include <check.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/history/store.h"
#include "spawnutil.h"
#include "testutil.h"

#define POD_VF "0000:18:00.1" /* mlx5_0 VF 0, 'ib0' on the seeded node */

static int run(const char *dir, char **out, char **err, const char *a0, const char *a1,
	       const char *a2, const char *a3, const char *a4, const char *a5, const char *a6)
{
	return tu_sim_run(dir, out, err, a0, a1, a2, a3, a4, a5, a6, NULL);
}

static struct json_object *jget(struct json_object *o, const char *k)
{
	struct json_object *v;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v = jget(o, k);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static struct json_object *list_json(const char *dir)
{
	char *out, *err;
	int rc = run(dir, &out, &err, "list", "--json", NULL, NULL, NULL, NULL, NULL);
	ck_assert_msg(rc == 0, "list: %s", err);
	struct json_object *j = json_tokener_parse(out);
	ck_assert_ptr_nonnull(j);
	free(out);
	free(err);
	return j;
}

/* The VF's object in list --json (the list keeps it). */
static struct json_object *vf_of(struct json_object *list, const char *bdf)
{
	struct json_object *pfs = jget(list, "pfs");
	for (size_t i = 0; pfs && i < json_object_array_length(pfs); i++) {
		struct json_object *vfs = jget(json_object_array_get_idx(pfs, i), "vfs");
		for (size_t k = 0; vfs && k < json_object_array_length(vfs); k++) {
			struct json_object *vf = json_object_array_get_idx(vfs, k);
			if (!strcmp(jstr(vf, "bdf"), bdf))
				return vf;
		}
	}
	ck_abort_msg("no VF %s in list --json", bdf);
	return NULL;
}

/* The VF's host netdev ("" when none). */
static const char *netdev_of(struct json_object *list, const char *bdf)
{
	struct json_object *nd = jget(vf_of(list, bdf), "netdevs");
	return nd && json_object_array_length(nd) ? jstr(json_object_array_get_idx(nd, 0), "ifname")
						  : "";
}

static char *slurp(const char *dir, const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "r");
	if (!f)
		return strdup("");
	char *buf = calloc(1, 1 << 22);
	size_t n = fread(buf, 1, (1 << 22) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

START_TEST(pod_start_moves_the_vf_in_and_the_kernel_renames_the_others)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	int rc = run(dir, &out, &err, "debug", "pod-start", "ml-training/trainer-9", POD_VF,
		     "--uid", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	/* one line per thing done */
	ck_assert_msg(strstr(out, "pod-start: pod ml-training/trainer-9 starts: VF " POD_VF
				  " ('ib0', GUID 0000:0000:0000:0000) moved in as net1\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, "VF 0000:18:00.3 (PF 0000:18:00.0 VF 2) probed again by the "
				  "kernel: 'ib1' is now 'ib0'\n"),
		      "%s", out);
	struct json_object *l = list_json(dir), *vf = vf_of(l, POD_VF), *pod = jget(vf, "pod");
	ck_assert_str_eq(netdev_of(l, POD_VF), "");
	ck_assert_ptr_nonnull(pod);
	ck_assert_str_eq(jstr(pod, "namespace"), "ml-training");
	ck_assert_str_eq(jstr(pod, "name"), "trainer-9");
	ck_assert_str_eq(jstr(pod, "uid"), "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
	ck_assert_str_eq(jstr(pod, "ifname"), "net1");
	ck_assert_str_eq(jstr(pod, "host_ifname"), "ib0");
	ck_assert_str_eq(jstr(pod, "resource"), "nvidia.com/ibvf");
	ck_assert(json_object_get_boolean(jget(pod, "netns_present")));
	/* The other kernel-named VFs of mlx5_0 shifted down one name; VF 1
	 * (its probe fails) has none; mlx5_5's kernel names are untouched. */
	const char *want[][2] = {
		{"0000:18:00.2", ""},	 {"0000:18:00.3", "ib0"}, {"0000:18:00.4", "ib1"},
		{"0000:18:00.5", "ib2"}, {"0000:18:00.6", "ib3"}, {"0000:18:00.7", "ib4"},
		{"0000:18:01.0", "ib5"}, {"0000:5e:00.1", "ib7"}, {"0000:40:00.1", "ibp64s0v0"}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(!strcmp(netdev_of(l, want[i][0]), want[i][1]), "%s is '%s', not '%s'",
			      want[i][0], netdev_of(l, want[i][0]), want[i][1]);
	json_object_put(l);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(pod_start_on_a_pinned_vf_renames_nothing)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "2", NULL}), *out,
	     *err;
	int rc = run(dir, &out, &err, "debug", "pod-start", "inference/llm-serve-1", "ibp24s0v2",
		     "--ifname", "ib-rail0", NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	ck_assert_msg(!strstr(out, "probed again"), "%s", out);
	struct json_object *l = list_json(dir), *pod = jget(vf_of(l, "0000:18:00.3"), "pod");
	ck_assert_str_eq(jstr(pod, "ifname"), "ib-rail0");
	ck_assert_str_eq(jstr(pod, "host_ifname"), "ibp24s0v2");
	ck_assert_str_eq(netdev_of(l, "0000:18:00.4"), "ibp24s0v3");
	json_object_put(l);
	free(out);
	free(err);
	/* the healthy node stays without findings: a pod holding a VF is fine */
	ck_assert_int_eq(run(dir, &out, &err, "check", NULL, NULL, NULL, NULL, NULL, NULL), 0);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* One refusal: its exit status and message, and the node unchanged. */
static void refused(const char *dir, int want_rc, const char *want_msg, const char *pod,
		    const char *vf)
{
	char *before = slurp(dir, ".sim/events"),
	     *cp = slurp(dir, "var/lib/kubelet/device-plugins/kubelet_internal_checkpoint");
	char *out, *err;
	int rc = run(dir, &out, &err, "debug", "pod-start", pod, vf, NULL, NULL, NULL);
	ck_assert_msg(rc == want_rc, "%s %s: exit %d, not %d: %s%s", pod, vf, rc, want_rc, out,
		      err);
	ck_assert_msg(strstr(err, want_msg), "%s %s: '%s' not in: %s", pod, vf, want_msg, err);
	ck_assert_msg(!strchr(err, '\n') || strchr(err, '\n') == err + strlen(err) - 1,
		      "more than one line: %s", err);
	ck_assert_str_eq(out, "");
	char *after = slurp(dir, ".sim/events"),
	     *cp2 = slurp(dir, "var/lib/kubelet/device-plugins/kubelet_internal_checkpoint");
	ck_assert_msg(!strcmp(before, after), "%s %s: the node changed", pod, vf);
	ck_assert_str_eq(cp, cp2);
	free(before);
	free(after);
	free(cp);
	free(cp2);
	free(out);
	free(err);
}

START_TEST(pod_start_refusals_leave_the_node_as_it_was)
{
	char *dir = tu_mkfixture(NULL);
	char ns64[65], name254[255];
	memset(ns64, 'a', 64);
	ns64[64] = '\0';
	memset(name254, 'b', 254);
	name254[254] = '\0';
	char longns[128], longname[300];
	snprintf(longns, sizeof(longns), "%s/x", ns64);
	snprintf(longname, sizeof(longname), "ns/%s", name254);
	refused(dir, 1, "VF 0000:40:00.4 is held by pod ml-training/trainer-0 already",
		"ml-training/x", "0000:40:00.4");
	refused(dir, 1, "VF 0000:18:00.2 has no netdev on the host", "ml-training/x",
		"0000:18:00.2");
	refused(dir, 1, "is a PF", "ml-training/x", "ibp24s0");
	refused(dir, 1, "no PF or VF named 'nosuch0'", "ml-training/x", "nosuch0");
	refused(dir, 2, "'ML-Training' is not a Kubernetes namespace", "ML-Training/x", "ib1");
	refused(dir, 2, "is not a Kubernetes namespace", longns, "ib1");
	refused(dir, 2, "'a.b' is not a Kubernetes namespace", "a.b/x", "ib1");
	refused(dir, 2, "'-x' is not a Kubernetes pod name", "ns/-x", "ib1");
	refused(dir, 2, "'x_y' is not a Kubernetes pod name", "ns/x_y", "ib1");
	refused(dir, 2, "is not a Kubernetes pod name", longname, "ib1");
	refused(dir, 2, "'nons' is not NAMESPACE/NAME", "nons", "ib1");
	/* a name of 253 with dots is one */
	char *out, *err;
	ck_assert_int_eq(
		run(dir, &out, &err, "debug", "pod-start", "ns/web-1.a.b", "ib1", NULL, NULL, NULL),
		0);
	free(out);
	free(err);
	/* no simulated node */
	const char *argv[] = {"--root", dir, "debug", "pod-start", "ns/x", "ib2", NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 2);
	ck_assert_msg(strstr(err, "only the simulated node starts pods this way"), "%s", err);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* Appends a line to the node's event file, as the kernel would. */
static void poke(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/.sim/events", dir);
	FILE *f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	fputs("change net lo /devices/virtual/net/lo\n", f);
	fclose(f);
}

struct probe {
	struct bg *b;
	const char *dir;
	const char *want[4];
};

static bool watch_live(void *arg)
{
	struct probe *p = arg;
	char *out = bg_out(p->b);
	bool live = out && strstr(out, "\"name\":\"lo\"");
	free(out);
	if (!live)
		poke(p->dir);
	return live;
}

static bool watch_saw(void *arg)
{
	struct probe *p = arg;
	char *out = bg_out(p->b);
	bool all = out != NULL;
	for (size_t i = 0; all && i < 4 && p->want[i]; i++)
		all = strstr(out, p->want[i]) != NULL;
	free(out);
	return all;
}

START_TEST(watch_sees_the_move_and_the_renames)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	struct bg b;
	bg_start(&b, dir, "watch", "--json", NULL);
	struct probe p = {
		&b,
		dir,
		{"{\"action\":\"remove\",\"subsystem\":\"net\",\"name\":\"ib0\",\"old_name\":null,"
		 "\"devpath\":\"/devices/pci0000:15/0000:15:01.0/"
		 "0000:16:00.0/0000:17:00.0/" POD_VF "/net/ib0\"}",
		 "{\"action\":\"remove\",\"subsystem\":\"net\",\"name\":\"ib1\",\"old_name\":null,"
		 "\"devpath\":\"/devices/pci0000:15/0000:15:01.0/"
		 "0000:16:00.0/0000:17:00.0/0000:18:00.3/net/ib1\"}",
		 "{\"action\":\"add\",\"subsystem\":\"net\",\"name\":\"ib0\",\"old_name\":null,"
		 "\"devpath\":\"/devices/pci0000:15/0000:15:01.0/"
		 "0000:16:00.0/0000:17:00.0/0000:18:00.3/net/ib0\"}",
		 "{\"action\":\"add\",\"subsystem\":\"net\",\"name\":\"ib5\",\"old_name\":null,"
		 "\"devpath\":\"/devices/pci0000:15/0000:15:01.0/"
		 "0000:16:00.0/0000:17:00.0/0000:18:01.0/net/ib5\"}"}};
	ck_assert_msg(poll_until(watch_live, &p, 30), "watch printed no event");
	int rc = run(dir, &out, &err, "debug", "pod-start", "ml-training/trainer-9", POD_VF, NULL,
		     NULL, NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	bool seen = poll_until(watch_saw, &p, 30);
	kill(b.pid, SIGTERM);
	bg_wait(&b);
	char *wout = bg_out(&b);
	ck_assert_msg(seen, "watch did not show the move and the renames:\n%s", wout);
	free(wout);
	bg_free(&b);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* proc/stat's btime, seconds. */
static long long btime_of(const char *dir)
{
	char *stat = slurp(dir, "proc/stat"), *b = strstr(stat, "\nbtime ");
	ck_assert_msg(b, "no btime in proc/stat: %s", stat);
	long long v = strtoll(b + 7, NULL, 10);
	free(stat);
	return v;
}

/* The newest stamp of the kernel log, seconds since boot. */
static double kmsg_last(const char *dir)
{
	char *log = slurp(dir, "dev/kmsg");
	double last = 0;
	for (char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long usec;
		if (sscanf(l, "%*d,%*u,%llu", &usec) == 1)
			last = usec / 1e6;
	}
	free(log);
	return last;
}

static bool uuid_form(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (int i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-'
							      : !strchr("0123456789abcdef", s[i]))
			return false;
	return s[14] == '4';
}

START_TEST(a_boot_has_an_id_and_a_time_its_kernel_log_fits)
{
	long long t0 = (long long)time(NULL);
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "2", NULL}), *out,
	     *err;
	char *id = slurp(dir, "proc/sys/kernel/random/boot_id");
	ck_assert_msg(strlen(id) == 37 && id[36] == '\n', "'%s'", id);
	id[36] = '\0';
	ck_assert_msg(uuid_form(id), "'%s' is not a boot_id", id);
	long long b0 = btime_of(dir);
	/* booted before the fixture was made, by what its kernel log holds */
	ck_assert_msg(b0 + kmsg_last(dir) <= (double)time(NULL) && b0 + kmsg_last(dir) >= t0 - 2,
		      "btime %lld, log to %.1f s, made at %lld", b0, kmsg_last(dir), t0);
	int rc = run(dir, &out, &err, "debug", "reboot", "--seed", "1", NULL, NULL, NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	char *id2 = slurp(dir, "proc/sys/kernel/random/boot_id");
	id2[strcspn(id2, "\n")] = '\0';
	ck_assert_msg(uuid_form(id2) && strcmp(id, id2), "'%s' after '%s'", id2, id);
	char line[128];
	snprintf(line, sizeof(line), "boot: a new boot: boot_id %s", id2);
	ck_assert_msg(strstr(out, line), "%s", out);
	/* The new boot's records, and those its unit's VFs wrote, are stamped
	 * from the new btime: none lies after now. */
	long long b1 = btime_of(dir);
	ck_assert_msg(b1 >= b0, "btime went back: %lld, %lld", b1, b0);
	ck_assert_msg(b1 + kmsg_last(dir) <= (double)time(NULL) + 1, "btime %lld, log to %.1f s",
		      b1, kmsg_last(dir));
	free(id);
	free(id2);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

struct tally {
	size_t n[HK__N];
	int64_t first, last;
	char boots[4][HIST_VALUE_MAX];
	size_t n_boots;
	bool pod_moved, renamed;
};

static int tally_cb(void *arg, const struct hist_event *ev)
{
	struct tally *t = arg;
	t->n[ev->kind]++;
	if (!t->first || ev->t_us < t->first)
		t->first = ev->t_us;
	if (ev->t_us > t->last)
		t->last = ev->t_us;
	if (ev->kind == HK_BOOT && t->n_boots < 4)
		snprintf(t->boots[t->n_boots++], HIST_VALUE_MAX, "%s", ev->new);
	/* the first pod: mlx5_0's VF 0 ('ib0') moved in, VF 2 renamed ib1 -> ib0 */
	if (ev->kind == HK_NETNS && !strcmp(ev->bdf, POD_VF) &&
	    !strcmp(ev->pod, "ml-training/trainer-2"))
		t->pod_moved = true;
	if (ev->kind == HK_RENAME && !strcmp(ev->bdf, "0000:18:00.3") && !strcmp(ev->old, "ib1") &&
	    !strcmp(ev->new, "ib0"))
		t->renamed = true;
	return 0;
}

START_TEST(mkfixture_history_records_two_days_of_the_node)
{
	int64_t now = (int64_t)time(NULL) * 1000000;
	char *dir = tu_mkfixture((const char *const[]){"--history", "--seed", "3", NULL});
	char path[4096];
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/history.db", dir);
	struct hist_store *st;
	struct err e = {{0}};
	ck_assert_msg(hist_store_open(path, false, &st, &e) == 0, "%s", e.msg);
	struct tally t = {0};
	struct hist_query q = {0};
	ck_assert_msg(hist_store_query(st, &q, tally_cb, &t, &e) == 0, "%s", e.msg);
	hist_store_close(st);
	ck_assert_msg(t.n[HK_BOOT] == 2, "%zu boots", t.n[HK_BOOT]);
	ck_assert_str_ne(t.boots[0], t.boots[1]);
	ck_assert_msg(t.pod_moved, "no netns event of %s into ml-training/trainer-2", POD_VF);
	ck_assert_msg(t.renamed, "no rename of 0000:18:00.3 from ib1 to ib0");
	ck_assert_uint_ge(t.n[HK_NETNS], 2);
	ck_assert_uint_ge(t.n[HK_RENAME], 6);
	ck_assert_uint_ge(t.n[HK_PORT_STATE], 2);
	ck_assert_uint_ge(t.n[HK_KMSG] + t.n[HK_PROBE_FAILED], 1);
	/* two days in the past, the boot's kernel log before its first record */
	ck_assert_msg(t.first >= now - 49ll * 3600 * 1000000 &&
			      t.first <= now - 47ll * 3600 * 1000000,
		      "first event at %lld, now %lld", (long long)t.first, (long long)now);
	ck_assert_msg(t.last <= now, "an event after now: %lld > %lld", (long long)t.last,
		      (long long)now);
	/* the node is the history's last state: the current boot's btime is in the past */
	ck_assert_msg(btime_of(dir) * 1000000 < now - 19ll * 3600 * 1000000,
		      "btime %lld is not the reboot's", btime_of(dir));
	tu_rmtree(dir);
}
END_TEST

static Suite *sim_pods_suite(void)
{
	Suite *s = suite_create("sim_pods");
	TCase *tc = tcase_create("pods");
	tcase_set_timeout(tc, 280);
	tcase_add_test(tc, pod_start_moves_the_vf_in_and_the_kernel_renames_the_others);
	tcase_add_test(tc, pod_start_on_a_pinned_vf_renames_nothing);
	tcase_add_test(tc, pod_start_refusals_leave_the_node_as_it_was);
	tcase_add_test(tc, watch_sees_the_move_and_the_renames);
	suite_add_tcase(s, tc);
	TCase *boot = tcase_create("boot");
	tcase_set_timeout(boot, 280);
	tcase_add_test(boot, a_boot_has_an_id_and_a_time_its_kernel_log_fits);
	tcase_add_test(boot, mkfixture_history_records_two_days_of_the_node);
	suite_add_tcase(s, boot);
	return s;
}

int main(void)
{
	return tu_run_suite(sim_pods_suite());
}
