// SPDX-License-Identifier: MIT
/* The kubelet's pod-resources API merged with the files (core/pods/pods_api.c),
 * through a real gRPC server (tests/podres/server.py, Python grpcio) on the
 * socket under a test root: the API confirms a binding, makes one the files
 * lack, names another pod for a VF, decides what is stale, gives the pods'
 * GPUs; without it the checkpoint does. */
#include <check.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/pods/pods.h"
#include "core/sys/podres.h"
#include "core/sys/sys.h"
#include "podsutil.h"
#include "testutil.h"

#define SOCK	 "var/lib/kubelet/pod-resources/kubelet.sock"
#define GPU_A	 "GPU-8c1f4a3e-51d3-2b4a-7c0e-1d2f3a4b5c6d"
#define GPU_B	 "GPU-0b2d9e7f-6a5c-4b3d-9e8f-7a6b5c4d3e2f"
#define RESOURCE "openshift.io/mlnx_ib"

static pid_t server;

static const char *env_or(const char *name)
{
	const char *v = getenv(name);
	ck_assert_msg(v && *v, "%s is not set (run through meson test)", name);
	return v;
}

/* Serves answers (the JSON of {"list":…, "allocatable":…}) on the root's
 * socket until the test ends. */
static void serve_args(const char *answers, const char *extra);

static void serve(const char *answers)
{
	serve_args(answers, NULL);
}

static void serve_args(const char *answers, const char *extra)
{
	char ans[600], sock[600], ready[600], log[600];
	snprintf(ans, sizeof(ans), "%s/answers.json", root);
	snprintf(sock, sizeof(sock), "%s/" SOCK, root);
	snprintf(ready, sizeof(ready), "%s/ready", root);
	snprintf(log, sizeof(log), "%s/server.log", root);
	tu_write(ans, answers);
	mkdirs("var/lib/kubelet/pod-resources");
	server = fork();
	ck_assert_int_ge(server, 0);
	if (server == 0) {
		FILE *f = freopen(log, "w", stderr);
		(void)f;
		execl(env_or("IBVF_PYTHON"), env_or("IBVF_PYTHON"), env_or("IBVF_PODRES_SERVER"),
		      "--pb", env_or("IBVF_PODRES_PB"), "--socket", sock, "--ready", ready,
		      "--answers", ans, extra, (char *)NULL);
		_exit(127);
	}
	/* Bounded by the server's own start, however slow the machine: it exits
	 * on any error, which ends the wait. */
	for (;;) {
		int st;
		if (access(ready, F_OK) == 0)
			return;
		ck_assert_msg(waitpid(server, &st, WNOHANG) == 0, "server.py exited; see %s", log);
		usleep(10000);
	}
}

static void stop(void)
{
	if (server > 0) {
		kill(server, SIGKILL);
		waitpid(server, NULL, 0);
	}
	server = 0;
	teardown();
}

/* One pod's List entry: ns/name, one container, VFs and GPUs. */
static const char *pod_entry(const char *ns, const char *name, const char *vfs, const char *gpus)
{
	static char buf[4][1024];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, 1024,
		 "{\"name\":\"%s\",\"namespace\":\"%s\",\"containers\":[{\"name\":\"main\","
		 "\"devices\":[{\"resource_name\":\"" RESOURCE "\",\"device_ids\":[%s],"
		 "\"topology\":{\"nodes\":[{\"ID\":0}]}}%s%s%s]}]}",
		 name, ns, vfs,
		 gpus ? ",{\"resource_name\":\"nvidia.com/gpu\",\"device_ids\":[" : "",
		 gpus ? gpus : "", gpus ? "]}" : "");
	return b;
}

static const char *answers(const char *pods, const char *alloc)
{
	static char buf[8192];
	snprintf(buf, sizeof(buf),
		 "{\"list\":{\"pod_resources\":[%s]},\"allocatable\":{\"devices\":[%s]}}", pods,
		 alloc ? alloc : "");
	return buf;
}

static const struct pod_binding *find(const struct pod_set *set, const char *bdf)
{
	const struct pod_binding *b = pods_find(set, bdf);
	ck_assert_msg(b, "no binding of %s", bdf);
	return b;
}

START_TEST(api_confirms_the_files_binding)
{
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:40:00.4", "ml", "trainer-0", UID_A, "net1"));
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_A "\",\"ContainerName\":\"main\","
					"\"ResourceName\":\"" RESOURCE "\",\"DeviceIDs\":"
					"{\"0\":[\"0000:40:00.4\"]}}"));
	serve(answers(pod_entry("ml", "trainer-0", "\"0000:40:00.4\"", "\"" GPU_A "\""), NULL));
	struct pod_set set = read_set();
	ck_assert_int_eq(set.api.state, PODRES_OK);
	const struct pod_binding *b = find(&set, "0000:40:00.4");
	ck_assert_uint_eq(b->sources, POD_SRC_MULTUS | POD_SRC_CHECKPOINT | POD_SRC_API);
	ck_assert(!b->stale);
	ck_assert_ptr_null(b->api_pod);
	ck_assert_str_eq(b->api_container, "main");
	ck_assert_str_eq(b->api_resource, RESOURCE);
	/* The pod's GPU, named by the API, with the UID the files give it. */
	ck_assert_uint_eq(set.n_gpus, 1);
	ck_assert_str_eq(set.gpus[0].id, GPU_A);
	ck_assert_str_eq(set.gpus[0].ns, "ml");
	ck_assert_str_eq(set.gpus[0].name, "trainer-0");
	ck_assert_str_eq(set.gpus[0].uid, UID_A);
	ck_assert_uint_eq(set.gpus[0].sources, POD_SRC_API);
	pods_set_fini(&set);
}
END_TEST

START_TEST(api_allocation_the_files_lack_is_a_binding)
{
	serve(answers(pod_entry("ml", "trainer-1", "\"0000:40:00.5\"", NULL), NULL));
	struct pod_set set = read_set();
	const struct pod_binding *b = find(&set, "0000:40:00.5");
	ck_assert_uint_eq(b->sources, POD_SRC_API);
	ck_assert_str_eq(b->ns, "ml");
	ck_assert_str_eq(b->name, "trainer-1");
	ck_assert(!b->stale);
	pods_set_fini(&set);
}
END_TEST

START_TEST(api_naming_another_pod_is_kept_beside)
{
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:40:00.4", "ml", "old-pod", UID_A, "net1"));
	serve(answers(pod_entry("ml", "new-pod", "\"0000:40:00.4\"", NULL), NULL));
	struct pod_set set = read_set();
	const struct pod_binding *b = find(&set, "0000:40:00.4");
	ck_assert_str_eq(b->name, "old-pod");
	ck_assert_uint_eq(b->sources & POD_SRC_API, 0);
	ck_assert_str_eq(b->api_pod, "ml/new-pod");
	pods_set_fini(&set);
}
END_TEST

START_TEST(api_decides_what_is_stale)
{
	/* A checkpoint entry and a pod log directory (which outlives its pod):
	 * without the API the pod log confirms it; the API lists no container
	 * holding the VF, so it is stale. */
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_GONE "\",\"ContainerName\":\"main\","
					"\"ResourceName\":\"" RESOURCE "\",\"DeviceIDs\":"
					"[\"0000:40:00.6\"]}"));
	mkdirs("var/log/pods/ml_gone-0_" UID_GONE);
	struct pod_set set = read_set();
	ck_assert(!find(&set, "0000:40:00.6")->stale);
	ck_assert_int_eq(set.api.state, PODRES_ABSENT);
	pods_set_fini(&set);
	serve(answers("", NULL));
	set = read_set();
	ck_assert_int_eq(set.api.state, PODRES_OK);
	ck_assert(find(&set, "0000:40:00.6")->stale);
	pods_set_fini(&set);
}
END_TEST

START_TEST(without_the_api_gpus_come_from_the_checkpoint_of_living_pods)
{
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_A "\",\"ContainerName\":\"main\","
					"\"ResourceName\":\"nvidia.com/gpu\",\"DeviceIDs\":"
					"{\"0\":[\"" GPU_A "\"]}},"
					"{\"PodUID\":\"" UID_GONE "\",\"ContainerName\":\"main\","
					"\"ResourceName\":\"nvidia.com/gpu\",\"DeviceIDs\":"
					"[\"" GPU_B "\"]}"));
	mkdirs("var/log/pods/ml_trainer-0_" UID_A);
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 0); /* a GPU is no VF */
	ck_assert_uint_eq(set.n_gpus, 1);
	ck_assert_str_eq(set.gpus[0].id, GPU_A);
	ck_assert_str_eq(set.gpus[0].name, "trainer-0");
	ck_assert_uint_eq(set.gpus[0].sources, POD_SRC_CHECKPOINT);
	pods_set_fini(&set);
}
END_TEST

START_TEST(an_api_that_fails_is_one_note_and_the_files_count)
{
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:40:00.4", "ml", "trainer-0", UID_A, "net1"));
	/* A socket path that is a plain file: refused, with a note. */
	put(SOCK, "");
	struct pod_set set = read_set();
	ck_assert_int_eq(set.api.state, PODRES_REFUSED);
	ck_assert(has_note(&set, "kubelet.sock", "files only"));
	ck_assert_uint_eq(find(&set, "0000:40:00.4")->sources, POD_SRC_MULTUS);
	pods_set_fini(&set);
}
END_TEST

START_TEST(hostile_names_from_the_api_are_not_taken)
{
	serve(answers(pod_entry("ml", "evil\\u001b[2Jpod", "\"0000:40:00.7\"", NULL), NULL));
	struct pod_set set = read_set();
	const struct pod_binding *b = find(&set, "0000:40:00.7");
	/* A name with a control character is not a name ibvf shows or uses. */
	ck_assert_ptr_null(b->name);
	ck_assert_str_eq(b->ns, "ml");
	pods_set_fini(&set);
}
END_TEST

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

START_TEST(a_hung_kubelet_is_not_waited_for_again_at_once)
{
	serve_args(answers("", NULL), "--never-answer");
	struct sys *s;
	struct err e = {{0}};
	ck_assert_msg(sys_open_linux(root, &s, &e) == 0, "open: %s", e.msg);
	sys_set_podres(s, &(struct podres_opts){.timeout_ms = 300});
	struct podres p;
	double t0 = now_ms();
	ck_assert_int_eq(sys_podres_read(s, &p), 0);
	double first = now_ms() - t0;
	ck_assert_int_eq(p.state, PODRES_FAILED);
	podres_fini(&p);
	/* The next read (a console's next refresh) gives the failure again
	 * without asking: far less than the deadline it waited out. */
	t0 = now_ms();
	ck_assert_int_eq(sys_podres_read(s, &p), 0);
	double second = now_ms() - t0;
	ck_assert_int_eq(p.state, PODRES_FAILED);
	ck_assert_msg(p.note && strstr(p.note, "deadline of 300 ms passed (asked again in "),
		      "note: %s", p.note ? p.note : "(none)");
	ck_assert_msg(second < first / 4, "first read %.0f ms, second %.0f ms", first, second);
	podres_fini(&p);
	sys_close(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pods_api");
	TCase *tc = tcase_create("merge");
	tcase_add_checked_fixture(tc, setup, stop);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, api_confirms_the_files_binding);
	tcase_add_test(tc, api_allocation_the_files_lack_is_a_binding);
	tcase_add_test(tc, api_naming_another_pod_is_kept_beside);
	tcase_add_test(tc, api_decides_what_is_stale);
	tcase_add_test(tc, without_the_api_gpus_come_from_the_checkpoint_of_living_pods);
	tcase_add_test(tc, an_api_that_fails_is_one_note_and_the_files_count);
	tcase_add_test(tc, hostile_names_from_the_api_are_not_taken);
	tcase_add_test(tc, a_hung_kubelet_is_not_waited_for_again_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
