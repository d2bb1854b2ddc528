// SPDX-License-Identifier: MIT
/* The kubelet pod-resources client (core/linux/podres_grpc.c) against a real
 * gRPC server: tests/podres/server.py (Python grpcio) on the kubelet's socket
 * path under a temporary root, answering recorded answers or misbehaving. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/err.h"
#include "core/sys/podres.h"
#include "core/sys/sys.h"
#include "testutil.h"

#define SOCK_DIR "var/lib/kubelet/pod-resources"

/* A temporary root with the kubelet's socket directory, the node opened on it. */
struct node {
	char *root;
	char sock[512]; /* the socket's path under root */
	struct sys *s;
	pid_t server;
};

static void node_open(struct node *n, int timeout_ms, size_t msg_max)
{
	memset(n, 0, sizeof(*n));
	/* A space and a percent sign: the path goes into a gRPC URI, encoded. */
	char tmpl[] = "/tmp/ibvf podres%-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	n->root = strdup(tmpl);
	tu_put(n->root, SOCK_DIR "/.keep", "");
	snprintf(n->sock, sizeof(n->sock), "%s/%s/kubelet.sock", n->root, SOCK_DIR);
	struct err e = {{0}};
	ck_assert_msg(sys_open_linux(n->root, &n->s, &e) == 0, "%s", e.msg);
	struct podres_opts o = {.timeout_ms = timeout_ms, .msg_max = msg_max};
	sys_set_podres(n->s, &o);
}

static void node_close(struct node *n)
{
	if (n->server > 0) {
		kill(n->server, SIGKILL);
		waitpid(n->server, NULL, 0);
	}
	sys_close(n->s);
	tu_rmtree(n->root);
}

static const char *env_or(const char *name)
{
	const char *v = getenv(name);
	ck_assert_msg(v && *v, "%s is not set (run through meson test)", name);
	return v;
}

/* Starts server.py on n's socket with args (NULL-terminated) and waits,
 * bounded, until it accepts calls. */
static void server_start(struct node *n, ...)
{
	char ready[600], log[600];
	snprintf(ready, sizeof(ready), "%s/ready", n->root);
	snprintf(log, sizeof(log), "%s/server.log", n->root);
	const char *argv[32] = {env_or("IBVF_PYTHON"),
				env_or("IBVF_PODRES_SERVER"),
				"--pb",
				env_or("IBVF_PODRES_PB"),
				"--socket",
				n->sock,
				"--ready",
				ready};
	size_t k = 8;
	va_list ap;
	va_start(ap, n);
	for (const char *a; (a = va_arg(ap, const char *)) && k < 31;)
		argv[k++] = a;
	va_end(ap);
	argv[k] = NULL;
	/* gRPC's threads may run already (a second server): the child does
	 * only what is safe after fork() in a threaded process, dup2 and exec. */
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	n->server = fork();
	ck_assert_int_ge(n->server, 0);
	if (n->server == 0) {
		dup2(fd, STDERR_FILENO);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd);
	for (int i = 0; i < 1000 && access(ready, F_OK) < 0; i++) {
		int st;
		ck_assert_msg(waitpid(n->server, &st, WNOHANG) == 0, "server.py exited; see %s",
			      log);
		usleep(10000);
	}
	ck_assert_msg(access(ready, F_OK) == 0, "server.py not ready in 10 s");
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Whether every thread but this one (gRPC's) blocks SIGINT and SIGTERM. */
static void assert_others_block_signals(void)
{
	DIR *d = opendir("/proc/self/task");
	int others = 0;
	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == getpid())
			continue;
		char path[300], line[256];
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue; /* ended meanwhile */
		unsigned long long blk = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "SigBlk: %llx", &blk) == 1)
				break;
		fclose(f);
		unsigned long long want = 1ull << (SIGINT - 1) | 1ull << (SIGTERM - 1);
		ck_assert_msg((blk & want) == want, "thread %s: SigBlk %llx", e->d_name, blk);
		others++;
	}
	closedir(d);
	ck_assert_int_gt(others, 0); /* gRPC's are there */
}

static void read_ok(struct node *n, struct podres *p)
{
	ck_assert_int_eq(sys_podres_read(n->s, p), 0);
	ck_assert_str_eq(p->socket, PODRES_SOCKET);
}

static void assert_ids(const struct podres_devices *d, const char *resource, int numa0,
		       const char *id0, const char *id1)
{
	ck_assert_str_eq(d->resource, resource);
	ck_assert_uint_eq(d->n_ids, id1 ? 2 : 1);
	ck_assert_str_eq(d->ids[0], id0);
	if (id1)
		ck_assert_str_eq(d->ids[1], id1);
	ck_assert_uint_ge(d->n_numa, 1);
	ck_assert_int_eq(d->numa[0], numa0);
}

/* First in the suite, and each test is its own process: nothing of gRPC
 * has started yet. No socket is one lstat: no thread, no gRPC. */
START_TEST(absent_socket_starts_nothing)
{
	struct node n;
	node_open(&n, 0, 0);
	int before = task_count();
	struct podres p;
	double t0 = now_ms();
	read_ok(&n, &p);
	double took = now_ms() - t0;
	ck_assert_int_eq(p.state, PODRES_ABSENT);
	ck_assert_ptr_null(p.note);
	ck_assert_uint_eq(p.n_pods, 0);
	ck_assert_int_eq(task_count(), before);
	ck_assert_msg(took < 100, "an absent socket took %.0f ms", took);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

START_TEST(list_allocatable_and_get_parsed)
{
	struct node n;
	char answers[512];
	snprintf(answers, sizeof(answers), "%s/tests/podres/node.json", env_or("IBVF_SRCDIR"));
	node_open(&n, 0, 0);
	server_start(&n, "--answers", answers, NULL);
	struct podres p;
	read_ok(&n, &p);
	ck_assert_msg(p.state == PODRES_OK, "%s", p.note);
	ck_assert_ptr_null(p.note);
	ck_assert(!p.truncated && !p.clipped);

	ck_assert_uint_eq(p.n_pods, 3);
	const struct podres_pod *t = &p.pods[0];
	ck_assert_str_eq(t->ns, "ml");
	ck_assert_str_eq(t->name, "trainer-0");
	ck_assert_uint_eq(t->n_ctrs, 2);
	ck_assert_str_eq(t->ctrs[0].name, "main");
	ck_assert_uint_eq(t->ctrs[0].n_devs, 2);
	assert_ids(&t->ctrs[0].devs[0], "nvidia.com/gpu", 0,
		   "GPU-8c1f4a3e-51d3-2b4a-7c0e-1d2f3a4b5c6d",
		   "GPU-0b2d9e7f-6a5c-4b3d-9e8f-7a6b5c4d3e2f");
	assert_ids(&t->ctrs[0].devs[1], "openshift.io/mlnx_ib", 0, "0000:1a:00.2", NULL);
	/* DRA claims are not device groups. */
	ck_assert_str_eq(t->ctrs[1].name, "sidecar");
	ck_assert_uint_eq(t->ctrs[1].n_devs, 0);

	ck_assert_str_eq(p.pods[1].name, "idle");
	ck_assert_str_eq(p.pods[1].ns, "default");
	ck_assert_uint_eq(p.pods[1].n_ctrs, 1);
	ck_assert_uint_eq(p.pods[1].ctrs[0].n_devs, 0);

	const struct podres_devices *d = &p.pods[2].ctrs[0].devs[0];
	assert_ids(d, "openshift.io/mlnx_ib", 1, "0000:9a:00.3", "0000:9a:00.4");
	ck_assert_uint_eq(d->n_numa, 2);
	ck_assert_int_eq(d->numa[1], 3);

	const struct podres_container *ctr = NULL;
	ck_assert_ptr_eq(podres_holder(&p, "openshift.io/mlnx_ib", "0000:9a:00.4", &ctr),
			 &p.pods[2]);
	ck_assert_str_eq(ctr->name, "server");
	ck_assert_ptr_eq(podres_find_pod(&p, "ml", "trainer-0"), &p.pods[0]);

	ck_assert(p.alloc_known);
	ck_assert_ptr_null(p.alloc_note);
	ck_assert_uint_eq(p.n_alloc, 3);
	assert_ids(&p.alloc[1], "openshift.io/mlnx_ib", 0, "0000:1a:00.2", "0000:1a:00.3");
	ck_assert(podres_allocatable(&p, "openshift.io/mlnx_ib", "0000:1a:00.3"));
	ck_assert(!podres_allocatable(&p, "openshift.io/mlnx_ib", "0000:1b:00.3"));
	ck_assert(p.get_known);
	podres_fini(&p);
	assert_others_block_signals();
	sigset_t now;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	ck_assert(!sigismember(&now, SIGTERM)); /* this thread's mask as it was */

	/* A second read on the same sys: a new channel, the same answer. */
	read_ok(&n, &p);
	ck_assert_int_eq(p.state, PODRES_OK);
	ck_assert_uint_eq(p.n_pods, 3);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

/* A kubelet before 1.28 (no Get, Allocatable behind a gate): List stands. */
START_TEST(unimplemented_get_and_allocatable_are_unknown)
{
	struct node n;
	char answers[512];
	snprintf(answers, sizeof(answers), "%s/tests/podres/node.json", env_or("IBVF_SRCDIR"));
	node_open(&n, 0, 0);
	server_start(&n, "--answers", answers, "--unimplemented", "Get,GetAllocatableResources",
		     NULL);
	struct podres p;
	read_ok(&n, &p);
	ck_assert_int_eq(p.state, PODRES_OK);
	ck_assert_uint_eq(p.n_pods, 3);
	ck_assert(!p.alloc_known);
	ck_assert_uint_eq(p.n_alloc, 0);
	ck_assert_ptr_nonnull(p.alloc_note);
	ck_assert_msg(strstr(p.alloc_note, PODRES_SOCKET) &&
			      strstr(p.alloc_note, "GetAllocatableResources: UNIMPLEMENTED"),
		      "%s", p.alloc_note);
	ck_assert(!p.get_known);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

/* The kubelet restarted between two reads (at the same path, as it does on
 * an upgrade): the second read gets the new one's answers. */
START_TEST(restarted_kubelet_is_read_anew)
{
	struct node n;
	char answers[512], ready[600];
	snprintf(answers, sizeof(answers), "%s/tests/podres/node.json", env_or("IBVF_SRCDIR"));
	node_open(&n, 0, 0);
	server_start(&n, "--answers", answers, NULL);
	struct podres p;
	read_ok(&n, &p);
	ck_assert_int_eq(p.state, PODRES_OK);
	ck_assert_uint_eq(p.n_pods, 3);
	podres_fini(&p);

	kill(n.server, SIGKILL);
	waitpid(n.server, NULL, 0);
	n.server = 0;
	snprintf(ready, sizeof(ready), "%s/ready", n.root);
	unlink(ready);
	server_start(&n, "--unimplemented", "GetAllocatableResources", NULL);
	read_ok(&n, &p);
	ck_assert_msg(p.state == PODRES_OK, "%s", p.note);
	ck_assert_uint_eq(p.n_pods, 0);
	ck_assert(!p.alloc_known);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

/* No pod listed: Get is probed with a pod that cannot exist, and "not found"
 * says the kubelet has Get. */
START_TEST(empty_list_probes_get_with_no_pod)
{
	struct node n;
	node_open(&n, 0, 0);
	server_start(&n, NULL);
	struct podres p;
	read_ok(&n, &p);
	ck_assert_int_eq(p.state, PODRES_OK);
	ck_assert_uint_eq(p.n_pods, 0);
	ck_assert(p.alloc_known);
	ck_assert_uint_eq(p.n_alloc, 0);
	ck_assert(p.get_known);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

START_TEST(never_answering_kubelet_fails_at_the_deadline)
{
	struct node n;
	node_open(&n, 300, 0);
	server_start(&n, "--never-answer", NULL);
	struct podres p;
	double t0 = now_ms();
	read_ok(&n, &p);
	double took = now_ms() - t0;
	ck_assert_int_eq(p.state, PODRES_FAILED);
	ck_assert_str_eq(p.note, "kubelet pod-resources API at " PODRES_SOCKET
				 ": deadline of 300 ms passed");
	/* A bound on failure, not a speed: ten times the deadline. */
	ck_assert_msg(took >= 250 && took < 3000, "took %.0f ms", took);
	ck_assert_uint_eq(p.n_pods, 0);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

START_TEST(huge_answer_fails_bounded)
{
	struct node n;
	node_open(&n, 0, 64 * 1024);
	server_start(&n, "--huge", "100000", NULL);
	struct podres p;
	read_ok(&n, &p);
	ck_assert_int_eq(p.state, PODRES_FAILED);
	ck_assert_str_eq(p.note, "kubelet pod-resources API at " PODRES_SOCKET
				 ": answer larger than 64 KiB");
	ck_assert_uint_eq(p.n_pods, 0);
	podres_fini(&p);

	/* Within the bound, the same answer is read. */
	struct podres_opts o = {.msg_max = 1u << 20};
	sys_set_podres(n.s, &o);
	read_ok(&n, &p);
	ck_assert_int_eq(p.state, PODRES_OK);
	ck_assert_uint_eq(p.n_pods, 1);
	ck_assert(p.clipped);
	ck_assert_uint_eq(strlen(p.pods[0].name), 253);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

START_TEST(malformed_answer_fails)
{
	struct node n;
	node_open(&n, 0, 0);
	server_start(&n, "--malformed", NULL);
	struct podres p;
	read_ok(&n, &p);
	ck_assert_int_eq(p.state, PODRES_FAILED);
	ck_assert_str_eq(p.note,
			 "kubelet pod-resources API at " PODRES_SOCKET ": malformed answer");
	podres_fini(&p);
	node_close(&n);
}
END_TEST

/* A socket nobody listens on: connect is refused, said with gRPC's words,
 * no control characters and bounded. */
START_TEST(refused_connection_is_unavailable)
{
	struct node n;
	node_open(&n, 0, 0);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	ck_assert_uint_lt(strlen(n.sock), sizeof(a.sun_path));
	strcpy(a.sun_path, n.sock);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	struct podres p;
	read_ok(&n, &p);
	close(fd);
	ck_assert_int_eq(p.state, PODRES_FAILED);
	const char *lead = "kubelet pod-resources API at " PODRES_SOCKET ": UNAVAILABLE: ";
	ck_assert_msg(!strncmp(p.note, lead, strlen(lead)), "%s", p.note);
	ck_assert_uint_le(strlen(p.note), strlen(lead) + 200);
	for (const char *c = p.note; *c; c++)
		ck_assert((unsigned char)*c >= 0x20 && *c != 0x7f);
	podres_fini(&p);
	node_close(&n);
}
END_TEST

static void assert_refused(struct node *n, const char *why)
{
	struct podres p;
	int before = task_count();
	read_ok(n, &p);
	ck_assert_int_eq(p.state, PODRES_REFUSED);
	char want[512];
	snprintf(want, sizeof(want), "kubelet pod-resources API at %s: not used: %s", PODRES_SOCKET,
		 why);
	ck_assert_str_eq(p.note, want);
	ck_assert_int_eq(task_count(), before);
	podres_fini(&p);
}

START_TEST(not_a_socket_is_refused)
{
	struct node n;
	node_open(&n, 0, 0);
	tu_write(n.sock, "");
	assert_refused(&n, "it is a regular file, not a socket");
	unlink(n.sock);
	ck_assert_int_eq(mkfifo(n.sock, 0600), 0);
	assert_refused(&n, "it is a FIFO, not a socket");
	unlink(n.sock);
	ck_assert_int_eq(symlink("/run/elsewhere.sock", n.sock), 0);
	assert_refused(&n, "it is a symbolic link, not a socket");
	node_close(&n);
}
END_TEST

START_TEST(socket_of_another_user_is_refused)
{
	struct node n;
	node_open(&n, 0, 0);
	server_start(&n, NULL);
	if (geteuid() != 0) {
		/* Only root can give a file away; the rule holds the same. */
		node_close(&n);
		return;
	}
	ck_assert_int_eq(lchown(n.sock, 65534, 65534), 0);
	assert_refused(&n, "the socket belongs to uid 65534, not to root");
	node_close(&n);
}
END_TEST

/* JSON string of s, escaped for the answers file. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\')
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	fputc('"', f);
}

/* Control characters, escape sequences, names and IDs past their bounds,
 * more pods and IDs than kept: everything comes back within the bounds. */
START_TEST(hostile_answer_is_bounded)
{
	struct node n;
	node_open(&n, 5000, 0);
	char path[600];
	snprintf(path, sizeof(path), "%s/hostile.json", n.root);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	char long_name[400], long_id[2001];
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	memset(long_id, 'i', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = '\0';
	fputs("{\"list\": {\"pod_resources\": [", f);
	int pods = PODRES_PODS_MAX + 10;
	for (int i = 0; i < pods; i++) {
		fputs(i ? ",{" : "{", f);
		fputs("\"name\": ", f);
		json_str(f, i == 0 ? "\x1b[31mred\x1b[0m\r\n\a" : i == 1 ? long_name : "p");
		fputs(", \"namespace\": ", f);
		json_str(f, i == 0 ? "ns\x1b]0;title\x07" : "ns");
		if (i == 0) {
			fputs(", \"containers\": [{\"name\": ", f);
			json_str(f, long_name);
			fputs(", \"devices\": [{\"resource_name\": \"r\", \"device_ids\": [", f);
			json_str(f, long_id);
			fputs(", \"ok\", ", f);
			json_str(f, "\x1b[2J");
			fputs("], \"topology\": {\"nodes\": [", f);
			for (int k = 0; k < PODRES_NUMA_MAX + 5; k++)
				fprintf(f, "%s{\"ID\": %d}", k ? "," : "", k);
			fputs("]}}, {\"resource_name\": \"many\", \"device_ids\": [", f);
			for (int k = 0; k < PODRES_IDS_MAX + 5; k++)
				fprintf(f, "%s\"%d\"", k ? "," : "", k);
			fputs("]}]}]", f);
		}
		fputs("}", f);
	}
	fputs("]}}\n", f);
	ck_assert_int_eq(fclose(f), 0);

	server_start(&n, "--answers", path, NULL);
	struct podres p;
	read_ok(&n, &p);
	ck_assert_msg(p.state == PODRES_OK, "%s", p.note);
	ck_assert(p.truncated && p.clipped);
	ck_assert_uint_eq(p.n_pods, PODRES_PODS_MAX);
	/* Kept as sent (the renderers escape), within the bounds. */
	ck_assert_str_eq(p.pods[0].name, "\x1b[31mred\x1b[0m\r\n\a");
	ck_assert_str_eq(p.pods[0].ns, "ns\x1b]0;title\x07");
	ck_assert_uint_eq(strlen(p.pods[1].name), 253);
	ck_assert_uint_eq(strlen(p.pods[0].ctrs[0].name), 253);
	const struct podres_devices *d = &p.pods[0].ctrs[0].devs[0];
	/* The 2000-byte ID dropped, not cut into another ID. */
	ck_assert_uint_eq(d->n_ids, 2);
	ck_assert_str_eq(d->ids[0], "ok");
	ck_assert_str_eq(d->ids[1], "\x1b[2J");
	ck_assert_uint_eq(d->n_numa, PODRES_NUMA_MAX);
	ck_assert_uint_eq(p.pods[0].ctrs[0].devs[1].n_ids, PODRES_IDS_MAX);
	for (size_t i = 0; i < p.n_pods; i++) {
		ck_assert_uint_le(strlen(p.pods[i].name), 253);
		ck_assert_uint_le(strlen(p.pods[i].ns), 253);
	}
	podres_fini(&p);
	node_close(&n);
}
END_TEST

/* Options copied into a second handle on the node (sys_reopen). */
START_TEST(reopen_keeps_the_socket_and_deadline)
{
	struct node n;
	node_open(&n, 0, 0);
	struct podres_opts o = {.socket = "/run/other/kubelet.sock", .timeout_ms = 1234};
	sys_set_podres(n.s, &o);
	struct sys *s2 = NULL;
	struct err e = {{0}};
	ck_assert_int_eq(sys_reopen(n.s, &s2, &e), 0);
	struct podres p;
	ck_assert_int_eq(sys_podres_read(s2, &p), 0);
	ck_assert_str_eq(p.socket, "/run/other/kubelet.sock");
	ck_assert_int_eq(p.state, PODRES_ABSENT);
	podres_fini(&p);
	sys_close(s2);
	node_close(&n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("podres");
	TCase *t = tcase_create("podres");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, absent_socket_starts_nothing);
	tcase_add_test(t, list_allocatable_and_get_parsed);
	tcase_add_test(t, unimplemented_get_and_allocatable_are_unknown);
	tcase_add_test(t, empty_list_probes_get_with_no_pod);
	tcase_add_test(t, restarted_kubelet_is_read_anew);
	tcase_add_test(t, never_answering_kubelet_fails_at_the_deadline);
	tcase_add_test(t, huge_answer_fails_bounded);
	tcase_add_test(t, malformed_answer_fails);
	tcase_add_test(t, refused_connection_is_unavailable);
	tcase_add_test(t, not_a_socket_is_refused);
	tcase_add_test(t, socket_of_another_user_is_refused);
	tcase_add_test(t, hostile_answer_is_bounded);
	tcase_add_test(t, reopen_keeps_the_socket_and_deadline);
	suite_add_tcase(s, t);
	return tu_run_suite(s);
}
