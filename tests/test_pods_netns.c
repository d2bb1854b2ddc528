// SPDX-License-Identifier: MIT
/* Pod bindings against the running kernel: a named netns cni-<uuid> made
 * with `ip netns add` as CNI runtimes make them, one end of a veth pair moved
 * into it under a pod-like name (net1), a Multus result file pointing at it,
 * and ibvf reading the interface's name and state from inside the netns.
 *
 * Each test forks a child with private network and mount namespaces: the
 * "host" end of the veth, the netns mount and the tmpfs over /var/lib die
 * with it whatever happens. The child writes its first failure into a pipe
 * and exits 1; it deletes the netns on every path, and the test process
 * removes the mount-point file `ip netns add` leaves in /run/netns. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/pods/pods.h"
#include "core/sys/sys.h"
#include "nstest.h"
#include "testutil.h"

#define IP	    "/usr/sbin/ip"
#define BDF	    "0000:99:00.1"
#define BDF_MISSING "0000:99:00.2"

static char ns_name[64]; /* cni-<uuid> */
static char ns_path[128];

/* Runs argv; stdout to out_path when given, else /dev/null. Exit status or -1. */
static int run(const char *const *argv, const char *out_path)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd =
			open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int null = open("/dev/null", O_WRONLY);
		if (fd < 0 || null < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int ipv(const char *a, va_list ap)
{
	const char *argv[16] = {IP, a};
	size_t n = 2;
	const char *s;
	while (n < 15 && (s = va_arg(ap, const char *)))
		argv[n++] = s;
	argv[n] = NULL;
	return run(argv, NULL);
}

/* ip ARGS..., NULL-terminated; failure ignored (cleanup). */
static void ip_quiet(const char *a, ...)
{
	va_list ap;
	va_start(ap, a);
	ipv(a, ap);
	va_end(ap);
}

#define IP_CHECK(...)                                                                              \
	do {                                                                                       \
		const char *args_[] = {__VA_ARGS__};                                               \
		NS_CHECK(ip_call(args_, sizeof(args_) / sizeof(*args_)) == 0,                      \
			 "ip %s %s ... failed", args_[0], args_[1]);                               \
	} while (0)

static int ip_call(const char **args, size_t n)
{
	const char *argv[16] = {IP};
	for (size_t i = 0; i < n && i < 14; i++)
		argv[i + 1] = args[i];
	argv[n + 1 < 16 ? n + 1 : 15] = NULL;
	return run(argv, NULL);
}

static void make_uuid(char buf[37])
{
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		srand((unsigned)time(NULL) ^ (unsigned)getpid());
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)rand();
	}
	if (fd >= 0)
		close(fd);
	snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], (b[6] & 0x0f) | 0x40, b[7],
		 (b[8] & 0x3f) | 0x80, b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void put(const char *root, const char *rel, const char *content)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		NS_CHECK(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir '%s': %s", path,
			 strerror(errno));
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	NS_CHECK(f != NULL, "cannot write '%s': %s", path, strerror(errno));
	fputs(content, f);
	NS_CHECK(fclose(f) == 0, "cannot write '%s'", path);
}

/* A Multus result for bdf with interface ifname in the netns at netns. */
static void put_multus(const char *root, const char *bdf, const char *ifname, const char *netns)
{
	char rel[256], body[2048];
	int n = snprintf(rel, sizeof(rel), "var/lib/cni/multus/results/ib-sriov-network-%s-%s",
			 "9f2e4c61b7a83d05e1c9f7a2b4d6e8013579bdf2468ace0f1e2d3c4b5a697887",
			 ifname);
	NS_CHECK(n > 0 && (size_t)n < sizeof(rel), "Multus file name for '%s' too long", ifname);
	n = snprintf(
		body, sizeof(body),
		"{\"kind\":\"cniCacheV1\",\"containerId\":\"9f2e4c61b7a8\",\"ifName\":\"%s\","
		"\"networkName\":\"ib-sriov-network\",\"netns\":\"%s\",\"cniArgs\":["
		"[\"K8S_POD_NAMESPACE\",\"ml-training\"],[\"K8S_POD_NAME\",\"trainer-0\"],"
		"[\"K8S_POD_UID\",\"6f1c2a4e-8b3d-4c71-9e2a-1d5b7c9e0f11\"]],"
		"\"capabilityArgs\":{\"deviceID\":\"%s\"},\"result\":{\"cniVersion\":\"0.4.0\"}}",
		ifname, netns, bdf);
	NS_CHECK(n > 0 && (size_t)n < sizeof(body), "Multus result for '%s' too long", netns);
	put(root, rel, body);
}

static void netns_of_self(char buf[64])
{
	ssize_t n = readlink("/proc/thread-self/ns/net", buf, 63);
	NS_CHECK(n > 0, "readlink /proc/thread-self/ns/net: %s", strerror(errno));
	buf[n] = '\0';
}

/* Reads the bindings under root, entering netns paths as they are. */
static struct pod_set read_set(const char *root, enum pods_netns_mode mode)
{
	struct sys *s;
	struct err e = {{0}};
	NS_CHECK(sys_open_linux(root, &s, &e) == 0, "open '%s': %s", root, e.msg);
	struct pod_set set;
	struct pods_opts o = {.netns = mode};
	NS_CHECK(pods_read(s, &o, &set) == 0, "pods_read failed");
	sys_close(s);
	return set;
}

/* Polls until the in-pod interface reports state (the kernel's linkwatch
 * settles operstate shortly after the link goes up). */
static struct pod_set read_until_state(const char *root, const char *state)
{
	for (int i = 0;; i++) {
		struct pod_set set = read_set(root, PODS_NETNS_ENTER);
		const struct pod_binding *b = pods_find(&set, BDF);
		NS_CHECK(b, "no binding for " BDF);
		if ((b->in_pod.operstate && !strcmp(b->in_pod.operstate, state)) || i == 40)
			return set;
		pods_set_fini(&set);
		usleep(50 * 1000);
	}
}

/* The child's namespaces, the named netns and the veth pair. */
static void del_netns(void)
{
	ip_quiet("netns", "del", ns_name, NULL);
}

static void child_setup(void)
{
	nst_on_fail(del_netns);
	nst_enter(0);
	IP_CHECK("netns", "add", ns_name);
	IP_CHECK("link", "add", "vh-pod0", "type", "veth", "peer", "name", "net1", "netns",
		 ns_name);
	IP_CHECK("link", "set", "vh-pod0", "up");
	IP_CHECK("-n", ns_name, "link", "set", "net1", "up");
}

static void child_reads_the_vf_inside_the_pod(void *unused)
{
	child_setup();
	char root[] = "/tmp/ibvf-podsns-XXXXXX";
	NS_CHECK(mkdtemp(root), "mkdtemp: %s", strerror(errno));
	put_multus(root, BDF, "net1", ns_path);
	put_multus(root, BDF_MISSING, "net9", ns_path);

	char before[64], after[64];
	netns_of_self(before);
	struct pod_set set = read_until_state(root, "up");
	netns_of_self(after);
	NS_CHECK(!strcmp(before, after), "the calling thread changed netns: %s -> %s", before,
		 after);

	const struct pod_binding *b = pods_find(&set, BDF);
	NS_CHECK(b->in_pod.known, "in-pod interface not read: %s",
		 b->in_pod.error ? strerror(-b->in_pod.error) : "no error");
	NS_CHECK(!strcmp(b->in_pod.name, "net1"), "in-pod name '%s'", b->in_pod.name);
	NS_CHECK(b->in_pod.operstate && !strcmp(b->in_pod.operstate, "up"),
		 "in-pod operstate '%s', want 'up'", b->in_pod.operstate);
	NS_CHECK(b->in_pod.flags.known && (b->in_pod.flags.v & IFF_UP), "flags 0x%llx",
		 (unsigned long long)b->in_pod.flags.v);
	NS_CHECK(b->in_pod.ifindex.known && b->in_pod.ifindex.v > 0, "ifindex");
	NS_CHECK(b->in_pod.address && strlen(b->in_pod.address) == 17, "address '%s'",
		 b->in_pod.address);
	NS_CHECK(!strcmp(b->netns, ns_path), "netns '%s'", b->netns);
	NS_CHECK(!strcmp(b->name, "trainer-0"), "pod '%s'", b->name);

	const struct pod_binding *m = pods_find(&set, BDF_MISSING);
	NS_CHECK(m && !m->in_pod.known && m->in_pod.error == -ENODEV,
		 "an interface absent from the pod: error %d", m ? m->in_pod.error : 0);
	pods_set_fini(&set);

	/* Down inside the pod: the state follows. */
	IP_CHECK("-n", ns_name, "link", "set", "net1", "down");
	set = read_until_state(root, "down");
	b = pods_find(&set, BDF);
	NS_CHECK(b->in_pod.known && !strcmp(b->in_pod.operstate, "down"),
		 "in-pod operstate '%s', want 'down'", b->in_pod.operstate);
	NS_CHECK(!(b->in_pod.flags.v & IFF_UP), "IFF_UP still set");
	pods_set_fini(&set);

	/* A captured tree (--root) only records the netns path. */
	set = read_set(root, PODS_NETNS_AUTO);
	b = pods_find(&set, BDF);
	NS_CHECK(!b->in_pod.known && !b->in_pod.error, "entered a netns under --root");
	NS_CHECK(!strcmp(b->netns, ns_path), "netns '%s'", b->netns);
	pods_set_fini(&set);

	/* A pod gone with its netns: an error, not a crash. */
	char gone[PATH_MAX];
	snprintf(gone, sizeof(gone), "%s-gone", ns_path);
	put_multus(root, BDF, "net1", gone);
	set = read_set(root, PODS_NETNS_ENTER);
	NS_CHECK(pods_find(&set, BDF)->in_pod.error == -ENOENT, "missing netns: error %d",
		 pods_find(&set, BDF)->in_pod.error);
	pods_set_fini(&set);

	tu_rmtree(strdup(root));
	ip_quiet("netns", "del", ns_name, NULL);
}

static struct json_object *jkey(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* The whole product on the running node: `ibvf list --pods --json` with root
 * "/" reads the Multus file (a tmpfs over /var/lib in the child's mount
 * namespace) and enters the netns itself. */
static void child_cli_reports_the_pod_interface(void *unused)
{
	child_setup();
	NS_CHECK(mount("tmpfs", "/var/lib", "tmpfs", 0, "size=4m") == 0, "mount tmpfs: %s",
		 strerror(errno));
	put_multus("/", BDF, "net1", ns_path);

	char out[] = "/tmp/ibvf-podsns-out-XXXXXX";
	int fd = mkstemp(out);
	NS_CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	close(fd);
	const char *bin = getenv("IBVF_BIN");
	NS_CHECK(bin && *bin, "IBVF_BIN is not set");
	struct json_object *o = NULL, *vf = NULL;
	for (int i = 0; i < 40; i++) {
		const char *argv[] = {bin, "list", "--pods", "--json", NULL};
		NS_CHECK(run(argv, out) == 0, "ibvf list --pods --json failed");
		json_object_put(o);
		o = json_object_from_file(out);
		NS_CHECK(o, "ibvf printed no JSON");
		struct json_object *pods = jkey(o, "pods");
		NS_CHECK(pods && json_object_array_length(pods) == 1, "want one pod");
		struct json_object *pod = json_object_array_get_idx(pods, 0);
		NS_CHECK(!strcmp(json_object_get_string(jkey(pod, "name")), "trainer-0"), "pod");
		vf = json_object_array_get_idx(jkey(pod, "vfs"), 0);
		const char *st = json_object_get_string(jkey(jkey(vf, "in_pod"), "operstate"));
		if (st && !strcmp(st, "up"))
			break;
		usleep(50 * 1000);
	}
	unlink(out);
	struct json_object *nif = jkey(vf, "in_pod");
	NS_CHECK(nif, "no in_pod object: netns not entered on the running node");
	NS_CHECK(!strcmp(json_object_get_string(jkey(nif, "ifname")), "net1"), "in-pod name");
	NS_CHECK(!strcmp(json_object_get_string(jkey(nif, "operstate")), "UP"), "in-pod state");
	NS_CHECK(!strcmp(json_object_get_string(jkey(vf, "netns")), ns_path), "netns");
	json_object_put(o);
	ip_quiet("netns", "del", ns_name, NULL);
}

/* A netns recorded as /proc/<pid>/ns/net (cri-dockerd does) names a process
 * of the node's PID namespace. From the host it is judged; from a container
 * with its own PID namespace and /proc (the DaemonSet of deploy/kubernetes)
 * /proc/<pid> is another process or none: unknown, not "gone". */
static void child_proc_netns_outside_the_node_pidns(void *unused)
{
	nst_enter(0);
	NS_CHECK(mount("tmpfs", "/var/lib", "tmpfs", 0, "size=4m") == 0, "mount tmpfs: %s",
		 strerror(errno));
	char netns[64];
	snprintf(netns, sizeof(netns), "/proc/%d/ns/net", (int)getpid());
	put_multus("/", BDF, "net1", netns);

	struct pod_set set = read_set("/", PODS_NETNS_NEVER);
	const struct pod_binding *b = pods_find(&set, BDF);
	NS_CHECK(b && b->netns_present.known && b->netns_present.v,
		 "in the node's PID namespace, '%s' (this process) is not judged present", netns);
	pods_set_fini(&set);

	/* Unshared in a child of its own: this process's later children (a
	 * sanitizer's tracer at exit, say) stay in the node's PID namespace. */
	pid_t pid = fork();
	NS_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* Its own mount namespace too: its /proc must not hide this
		 * process's from itself. */
		NS_CHECK(unshare(CLONE_NEWPID | CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
		pid_t in = fork();
		NS_CHECK(in >= 0, "fork: %s", strerror(errno));
		if (in == 0) { /* pid 1 of its namespace, with its own /proc: a container */
			NS_CHECK(mount("proc", "/proc", "proc", 0, NULL) == 0, "mount proc: %s",
				 strerror(errno));
			set = read_set("/", PODS_NETNS_NEVER);
			b = pods_find(&set, BDF);
			NS_CHECK(b && !b->netns_present.known,
				 "in a PID namespace of its own, netns '%s' is judged %s, not "
				 "unknown",
				 netns, b && b->netns_present.v ? "present" : "gone");
			pods_set_fini(&set);
			_exit(0);
		}
		int status;
		_exit(waitpid(in, &status, 0) == in && WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	int status;
	NS_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the child in its own PID namespace failed");
}

static void run_child(void (*fn)(void *))
{
	char uuid[37];
	make_uuid(uuid);
	snprintf(ns_name, sizeof(ns_name), "cni-%s", uuid);
	snprintf(ns_path, sizeof(ns_path), "/var/run/netns/%s", ns_name);
	nst_run(fn, NULL);
	/* The mount point `ip netns add` made on the real /run. */
	char file[PATH_MAX];
	snprintf(file, sizeof(file), "/run/netns/%s", ns_name);
	unlink(file);
}

START_TEST(reads_the_vf_interface_inside_a_named_pod_netns)
{
	run_child(child_reads_the_vf_inside_the_pod);
}
END_TEST

START_TEST(cli_on_the_running_node_reports_the_pod_interface)
{
	run_child(child_cli_reports_the_pod_interface);
}
END_TEST

START_TEST(proc_netns_is_unknown_outside_the_node_pid_namespace)
{
	run_child(child_proc_netns_outside_the_node_pidns);
}
END_TEST

int main(void)
{
	if (geteuid() != 0 || access(IP, X_OK) != 0) {
		fprintf(stderr, "test_pods_netns: needs root and %s, skipped\n", IP);
		return 77;
	}
	Suite *s = suite_create("pods_netns");
	TCase *tc = tcase_create("netns");
	tcase_add_test(tc, reads_the_vf_interface_inside_a_named_pod_netns);
	tcase_add_test(tc, cli_on_the_running_node_reports_the_pod_interface);
	tcase_add_test(tc, proc_netns_is_unknown_outside_the_node_pid_namespace);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
