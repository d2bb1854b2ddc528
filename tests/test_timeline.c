// SPDX-License-Identifier: MIT
/* `ibvf record` and `ibvf timeline` on the simulated node, through the real
 * binary: what is recorded, read back with its causes, who may write, and
 * every bad input a one-line error. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char *node;

static void setup(void)
{
	setenv("TZ", "UTC", 1);
	node = tu_mkfixture(NULL);
}

static void teardown(void)
{
	tu_rmtree(node);
}

static struct json_object *timeline_json(const char *dir, const char *const *extra)
{
	char *sim = tu_sim_arg(dir), *out = NULL, *err = NULL;
	const char *argv[16] = {sim, "timeline", "--json"};
	size_t n = 3;
	for (size_t i = 0; extra && extra[i] && n < 15; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == 0, "timeline: exit %d: %s", rc, err);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o, "timeline --json is not JSON: %s", out);
	free(sim);
	free(out);
	free(err);
	return o;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : "";
}

/* The first event of kind on pci (pci NULL: any) whose new value is new (NULL: any). */
static struct json_object *find_event(struct json_object *doc, const char *kind, const char *pci,
				      const char *new)
{
	struct json_object *evs;
	ck_assert(json_object_object_get_ex(doc, "events", &evs));
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i);
		if (!strcmp(jstr(e, "kind"), kind) && (!pci || !strcmp(jstr(e, "pci"), pci)) &&
		    (!new || !strcmp(jstr(e, "new"), new)))
			return e;
	}
	return NULL;
}

static size_t count_kind(struct json_object *doc, const char *kind)
{
	struct json_object *evs;
	size_t n = 0;
	ck_assert(json_object_object_get_ex(doc, "events", &evs));
	for (size_t i = 0; i < json_object_array_length(evs); i++)
		n += !strcmp(jstr(json_object_array_get_idx(evs, i), "kind"), kind);
	return n;
}

static void record_once(const char *dir)
{
	char *err = NULL;
	int rc = tu_sim_run(dir, NULL, &err, "record", "--once", NULL);
	ck_assert_msg(rc == 0, "record --once: exit %d: %s", rc, err);
	free(err);
}

START_TEST(test_rename_recorded_with_its_action_as_cause)
{
	setenv("IBVF_RECORD", "0", 1); /* only `record` writes here */
	record_once(node);
	ck_assert_int_eq(
		tu_sim_run(node, NULL, NULL, "vf", "rename", "18:00.3", "ibtl0", "--yes", NULL), 0);
	record_once(node);
	struct json_object *doc = timeline_json(node, NULL);
	ck_assert_int_eq(count_kind(doc, "start"), 2);
	struct json_object *r = find_event(doc, "rename", "0000:18:00.3", "ibtl0");
	ck_assert_msg(r, "no rename of 0000:18:00.3 to ibtl0 in %.1500s",
		      json_object_get_string(doc));
	ck_assert_str_eq(jstr(r, "old"), "ib1");
	ck_assert_str_eq(jstr(r, "pf"), "0000:18:00.0");
	/* The journal's action on the same function is among its causes (shown
	 * nearest first), with a gap that says it came before. */
	struct json_object *causes;
	ck_assert(json_object_object_get_ex(r, "causes", &causes));
	bool action = false;
	double last_gap = -1;
	for (size_t i = 0; i < json_object_array_length(causes); i++) {
		struct json_object *c = json_object_array_get_idx(causes, i), *ev, *gap;
		ck_assert(json_object_object_get_ex(c, "event", &ev));
		ck_assert(json_object_object_get_ex(c, "gap_s", &gap));
		double g = json_object_get_double(gap);
		ck_assert_msg(g >= last_gap && g < 60, "causes not nearest first: %s",
			      json_object_get_string(causes));
		last_gap = g;
		action |= !strcmp(jstr(ev, "kind"), "action") &&
			  !strcmp(jstr(ev, "pci"), "0000:18:00.3");
	}
	ck_assert_msg(action, "the action is no cause: %s", json_object_get_string(causes));
	json_object_put(doc);

	/* Text: the rename and its cause line; by device, by kind. */
	char *out = NULL;
	ck_assert_int_eq(
		tu_sim_run(node, &out, NULL, "timeline", "ibtl0", "--kind", "rename", NULL), 0);
	ck_assert_msg(strstr(out, "0000:18:00.3  rename         ib1 -> ibtl0"), "%s", out);
	ck_assert_msg(strstr(out, "s after 0000:18:00.3 action: ibvf vf rename"), "%s", out);
	ck_assert_msg(!strstr(out, "finding-open"), "--kind rename shows other kinds: %s", out);
	free(out);
	/* Nothing changed: a third record adds only its start. */
	record_once(node);
	doc = timeline_json(node, (const char *[]){"--kind", "rename", NULL});
	ck_assert_int_eq(count_kind(doc, "rename"), 1);
	json_object_put(doc);
}
END_TEST

START_TEST(test_timeline_filters)
{
	setenv("IBVF_RECORD", "0", 1);
	record_once(node);
	/* A PF brings its VFs' events; another PF's are not there. */
	struct json_object *doc = timeline_json(node, (const char *[]){"18:00.0", NULL});
	struct json_object *evs;
	ck_assert(json_object_object_get_ex(doc, "events", &evs));
	ck_assert_int_gt(json_object_array_length(evs), 0);
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i);
		ck_assert_msg(!strcmp(jstr(e, "pf"), "0000:18:00.0") ||
				      !strcmp(jstr(e, "pci"), "0000:18:00.0"),
			      "event of another PF: %s", json_object_get_string(e));
	}
	json_object_put(doc);
	/* --lines N: the newest N; --until in the past: none. */
	doc = timeline_json(node, (const char *[]){"-n", "3", NULL});
	ck_assert(json_object_object_get_ex(doc, "events", &evs));
	ck_assert_int_eq(json_object_array_length(evs), 3);
	json_object_put(doc);
	doc = timeline_json(node, (const char *[]){"--until", "2000-01-01T00:00:00Z", NULL});
	ck_assert(json_object_object_get_ex(doc, "events", &evs));
	ck_assert_int_eq(json_object_array_length(evs), 0);
	json_object_put(doc);
	doc = timeline_json(node, (const char *[]){"--since", "1h", "--kind", "finding", NULL});
	ck_assert_int_gt(count_kind(doc, "finding-open"), 0);
	ck_assert_int_eq(count_kind(doc, "start"), 0);
	json_object_put(doc);
}
END_TEST

/* Each bad input: exit 2 (an option) or 1, one line on stderr naming it. */
static void refused(int want, const char *needle, ...)
{
	va_list ap;
	const char *argv[16];
	size_t n = 0;
	char *sim = tu_sim_arg(node);
	argv[n++] = sim;
	va_start(ap, needle);
	const char *a;
	while ((a = va_arg(ap, const char *)) && n < 15)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	char *out = NULL, *err = NULL;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == want, "%s %s: exit %d, not %d: %s", argv[1], argv[2] ? argv[2] : "", rc,
		      want, err);
	ck_assert_msg(strstr(err, needle), "stderr lacks '%s': %s", needle, err);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
	free(sim);
	free(out);
	free(err);
}

START_TEST(test_bad_input)
{
	setenv("IBVF_RECORD", "0", 1);
	refused(1, "no history recorded on this node yet", "timeline", NULL);
	refused(2, "--since 'yesterday-ish'", "timeline", "--since", "yesterday-ish", NULL);
	refused(2, "--kind 'renames'", "timeline", "--kind", "renames", NULL);
	refused(2, "--lines '0'", "timeline", "-n", "0", NULL);
	refused(2, "--max-size '1K'", "record", "--max-size", "1K", NULL);
	refused(2, "--max-age '0'", "record", "--max-age", "0", NULL);
	/* A damaged store, another program's database: named, nothing changed. */
	char path[4096];
	snprintf(path, sizeof(path), "%s/var/lib/ibvf", node);
	mkdir(path, 0755);
	strcat(path, "/history.db");
	const char *junk = "this is not a database, it is a text file, long enough to be read\n";
	tu_write(path, junk);
	refused(1, "history.db", "timeline", NULL);
	refused(1, "history.db", "record", "--once", NULL);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)strlen(junk));
	/* A symbolic link in its place is refused, its target untouched. */
	unlink(path);
	char target[4096];
	snprintf(target, sizeof(target), "%s/elsewhere", node);
	tu_write(target, "");
	ck_assert_int_eq(symlink(target, path), 0);
	refused(1, "symbolic link", "record", "--once", NULL);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
}
END_TEST

/* Spawns `ibvf --sim=DIR record`; its stderr into errfile. */
static pid_t spawn_recorder(const char *dir, const char *errfile)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char sim[4200];
		snprintf(sim, sizeof(sim), "--sim=%s", dir);
		int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execl(getenv("IBVF_BIN"), "ibvf", sim, "record", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Whether `timeline --kind KIND` shows needle within 30 s (polled). */
static bool timeline_shows(const char *dir, const char *kind, const char *needle)
{
	for (int i = 0; i < 600; i++) {
		char *out = NULL;
		bool seen = tu_sim_run(dir, &out, NULL, "timeline", "--kind", kind, NULL) == 0 &&
			    strstr(out, needle);
		free(out);
		if (seen)
			return true;
		usleep(50000);
	}
	return false;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[8192];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

START_TEST(test_one_writer)
{
	setenv("IBVF_RECORD", "0", 1);
	char errfile[4200];
	snprintf(errfile, sizeof(errfile), "%s/record.err", node);
	pid_t pid = spawn_recorder(node, errfile);
	/* Wait for its first record (the store's "start"), bounded. */
	bool up = timeline_shows(node, "start", " start ");
	ck_assert_msg(up, "the recorder did not record its start: %s", slurp(errfile));
	refused(1, "is recording this node's history", "record", "--once", NULL);
	/* While it runs, check records nothing itself: the recorder does. And
	 * check opening the store and closing it takes nothing from under the
	 * recorder (a close of the file dropped its locks once, and the WAL it
	 * went on writing was deleted: the rename below was lost). */
	unsetenv("IBVF_RECORD");
	tu_sim_run(node, NULL, NULL, "check", NULL);
	tu_sim_run(node, NULL, NULL, "check", NULL);
	ck_assert_int_eq(
		tu_sim_run(node, NULL, NULL, "vf", "rename", "18:00.4", "ibtl1", "--yes", NULL), 0);
	bool seen = timeline_shows(node, "rename", "ib2 -> ibtl1");
	ck_assert_msg(seen, "the running recorder did not record the rename");
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "record: status %d: %s",
		      status, slurp(errfile));
	struct json_object *doc = timeline_json(node, (const char *[]){"--kind", "rename", NULL});
	ck_assert_int_eq(count_kind(doc, "rename"), 1);
	json_object_put(doc);
}
END_TEST

START_TEST(test_damaged_store_recorded_in_memory)
{
	setenv("IBVF_RECORD", "0", 1);
	char path[4096], errfile[4200];
	snprintf(path, sizeof(path), "%s/var/lib/ibvf", node);
	mkdir(path, 0755);
	strcat(path, "/history.db");
	tu_write(path, "garbage garbage garbage garbage garbage garbage garbage garbage\n");
	snprintf(errfile, sizeof(errfile), "%s/record.err", node);
	pid_t pid = spawn_recorder(node, errfile);
	bool said = false;
	for (int i = 0; i < 600 && !said; i++) {
		said = strstr(slurp(errfile), "recording in memory") != NULL;
		if (!said)
			usleep(50000);
	}
	ck_assert_msg(said, "no note of the memory fallback: %s", slurp(errfile));
	ck_assert_msg(strstr(slurp(errfile), "history.db"), "%s", slurp(errfile));
	/* Still following: alive after a change, and exits 0 on SIGTERM. */
	ck_assert_int_eq(
		tu_sim_run(node, NULL, NULL, "vf", "rename", "18:00.4", "ibtl2", "--yes", NULL), 0);
	usleep(300000);
	ck_assert_int_eq(kill(pid, 0), 0);
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status,
		      slurp(errfile));
}
END_TEST

START_TEST(test_who_records)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/history.db", node);
	/* IBVF_RECORD=0: check writes no store. */
	setenv("IBVF_RECORD", "0", 1);
	tu_sim_run(node, NULL, NULL, "check", NULL);
	ck_assert_int_ne(access(path, F_OK), 0);
	/* Otherwise `check` on a simulated node records its findings. */
	unsetenv("IBVF_RECORD");
	tu_sim_run(node, NULL, NULL, "check", NULL);
	ck_assert_int_eq(access(path, F_OK), 0);
	struct json_object *doc = timeline_json(node, (const char *[]){"--kind", "finding", NULL});
	ck_assert(find_event(doc, "finding-open", "0000:18:00.1", NULL));
	json_object_put(doc);
	/* A --root tree is data: nothing is written into it. */
	char *root = tu_mkfixture(NULL), rootdb[4096];
	snprintf(rootdb, sizeof(rootdb), "%s/var/lib/ibvf/history.db", root);
	const char *argv[] = {"--root", root, "check", NULL};
	tu_run(argv, NULL, NULL);
	ck_assert_int_ne(access(rootdb, F_OK), 0);
	tu_rmtree(root);
}
END_TEST

/* The field report's "names changed after the pods were deployed": with
 * the recorder running, a pod start moves a VF into its netns and the kernel
 * renames the others; each rename's causes hold the pod's move. */
START_TEST(test_pod_start_is_the_cause_of_the_renames)
{
	setenv("IBVF_RECORD", "0", 1);
	char errfile[4200];
	snprintf(errfile, sizeof(errfile), "%s/record.err", node);
	pid_t pid = spawn_recorder(node, errfile);
	bool up = timeline_shows(node, "start", " start ");
	ck_assert_msg(up, "the recorder did not start: %s", slurp(errfile));
	char *err = NULL;
	int rc = tu_sim_run(node, NULL, &err, "debug", "pod-start", "ml-training/trainer-0",
			    "18:00.1", NULL);
	ck_assert_msg(rc == 0, "pod-start: %d %s", rc, err);
	free(err);
	/* 18:00.3 (ib1) is unbound and bound again: a recorder that looks
	 * between the two sees its netdev go and ib0 come (kind "netdev"),
	 * one that looks after both a rename ib1 -> ib0. Either is the truth. */
	struct json_object *doc = NULL, *move = NULL, *rn = NULL;
	for (int i = 0; i < 600; i++) {
		json_object_put(doc);
		doc = timeline_json(node, NULL);
		move = find_event(doc, "netns", "0000:18:00.1", NULL);
		rn = find_event(doc, "rename", "0000:18:00.3", "ib0");
		if (!rn)
			rn = find_event(doc, "netdev", "0000:18:00.3", "ib0");
		if (move && rn)
			break;
		usleep(50000);
	}
	ck_assert_msg(move && rn, "no netns move or new name recorded: %.1500s",
		      json_object_get_string(doc));
	ck_assert_str_eq(jstr(move, "pod"), "ml-training/trainer-0");
	ck_assert_str_eq(jstr(move, "old"), "ib0");
	bool renamed = !strcmp(jstr(rn, "kind"), "rename");
	if (renamed)
		ck_assert_str_eq(jstr(rn, "old"), "ib1");
	struct json_object *causes;
	ck_assert(json_object_object_get_ex(rn, "causes", &causes));
	bool pod = false;
	for (size_t i = 0; i < json_object_array_length(causes); i++) {
		struct json_object *c = json_object_array_get_idx(causes, i), *ev;
		ck_assert(json_object_object_get_ex(c, "event", &ev));
		pod |= !strcmp(jstr(ev, "kind"), "netns") &&
		       !strcmp(jstr(ev, "pod"), "ml-training/trainer-0");
	}
	ck_assert_msg(pod, "the pod's move is no cause of ib0 on 0000:18:00.3: %.1500s",
		      json_object_get_string(rn));
	json_object_put(doc);
	/* As text: the new name, and under it the move into the pod. */
	char *out = NULL;
	ck_assert_int_eq(tu_sim_run(node, &out, NULL, "timeline", "18:00.3", "--kind",
				    "rename,netdev", NULL),
			 0);
	ck_assert_msg(strstr(out, renamed ? "ib1 -> ib0" : "netdev ib0 appeared") &&
			      strstr(out, "s after 0000:18:00.1 netns: ib0 moved into pod "
					  "ml-training/trainer-0 as net1"),
		      "%.1500s", out);
	free(out);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}
END_TEST

/* The functions of `list --json` (PCI address -> netdev name, "" none). */
static struct json_object *names_of(const char *dir)
{
	char *out = NULL;
	ck_assert_int_eq(tu_sim_run(dir, &out, NULL, "list", "--json", NULL), 0);
	struct json_object *o = json_tokener_parse(out), *pfs, *names = json_object_new_object();
	free(out);
	ck_assert(json_object_object_get_ex(o, "pfs", &pfs));
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i), *vfs, *nd;
		const char *ifn = json_object_object_get_ex(pf, "netdevs", &nd) &&
						  json_object_array_length(nd)
					  ? jstr(json_object_array_get_idx(nd, 0), "ifname")
					  : "";
		json_object_object_add(names, jstr(pf, "bdf"), json_object_new_string(ifn));
		if (!json_object_object_get_ex(pf, "vfs", &vfs))
			continue;
		for (size_t j = 0; j < json_object_array_length(vfs); j++) {
			struct json_object *vf = json_object_array_get_idx(vfs, j);
			ifn = json_object_object_get_ex(vf, "netdevs", &nd) &&
					      json_object_array_length(nd)
				      ? jstr(json_object_array_get_idx(nd, 0), "ifname")
				      : "";
			json_object_object_add(names, jstr(vf, "bdf"), json_object_new_string(ifn));
		}
	}
	json_object_put(o);
	return names;
}

/* A reboot whose unit fails (the seeded node's): the boot's group lists
 * every VF lost and every name changed. */
START_TEST(test_reboot_is_one_group)
{
	setenv("IBVF_RECORD", "0", 1);
	record_once(node);
	struct json_object *before = names_of(node);
	tu_sim_run(node, NULL, NULL, "debug", "reboot", "--seed", "7", NULL);
	struct json_object *after = names_of(node);
	record_once(node);
	struct json_object *doc = timeline_json(node, NULL);
	ck_assert_int_eq(count_kind(doc, "boot"), 2);
	struct json_object *evs, *boot = NULL;
	ck_assert(json_object_object_get_ex(doc, "events", &evs));
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i);
		if (!strcmp(jstr(e, "kind"), "boot"))
			boot = e; /* the newest */
	}
	struct json_object *g;
	ck_assert(json_object_object_get_ex(boot, "group", &g) && g);
	int64_t group = json_object_get_int64(g);
	size_t lost = 0, renamed = 0;
	json_object_object_foreach(before, pci, name) {
		struct json_object *now;
		bool gone = !json_object_object_get_ex(after, pci, &now);
		const char *kind = gone ? "fn-removed" : "rename";
		if (!gone && (!json_object_get_string(name)[0] || !json_object_get_string(now)[0] ||
			      !strcmp(json_object_get_string(name), json_object_get_string(now))))
			continue;
		bool found = false;
		for (size_t i = 0; i < json_object_array_length(evs) && !found; i++) {
			struct json_object *e = json_object_array_get_idx(evs, i), *eg;
			found = !strcmp(jstr(e, "kind"), kind) && !strcmp(jstr(e, "pci"), pci) &&
				json_object_object_get_ex(e, "group", &eg) && eg &&
				json_object_get_int64(eg) == group;
		}
		ck_assert_msg(found, "%s of %s not in the boot's group %lld", kind, pci,
			      (long long)group);
		lost += gone;
		renamed += !gone;
	}
	ck_assert_msg(lost > 0, "no VF lost at the reboot (%zu renamed)", renamed);
	json_object_put(before);
	json_object_put(after);
	json_object_put(doc);
}
END_TEST

/* A `bench validate` result (a line of the bench history) and --follow. */
START_TEST(test_bench_result_and_follow)
{
	setenv("IBVF_RECORD", "0", 1);
	record_once(node);
	/* timeline --follow in the background, its output into a file. */
	char outfile[4200];
	snprintf(outfile, sizeof(outfile), "%s/follow.out", node);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char sim[4200];
		snprintf(sim, sizeof(sim), "--sim=%s", node);
		int fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		execl(getenv("IBVF_BIN"), "ibvf", sim, "timeline", "--follow", "--kind", "bench",
		      (char *)NULL);
		_exit(127);
	}
	char line[1024];
	snprintf(line, sizeof(line),
		 "{\"time\":\"2026-12-04T03:00:00Z\",\"host\":\"n\",\"key\":{\"pf\":"
		 "\"0000:18:00.0\",\"vf\":2,\"test\":\"write_bw\",\"peer\":\"loopback\"},"
		 "\"bdf\":\"0000:18:00.3\",\"ibdev\":\"mlx5_12\",\"status\":\"PASS\","
		 "\"figure\":391.5,\"unit\":\"Gb/s\",\"better\":\"higher\"}\n");
	tu_put(node, "var/lib/ibvf/bench-history.jsonl", line);
	record_once(node);
	bool seen = false;
	for (int i = 0; i < 200 && !seen; i++) {
		seen = strstr(slurp(outfile), "bench write_bw PASS 391.50 Gb/s against loopback") !=
		       NULL;
		if (!seen)
			usleep(50000);
	}
	kill(pid, SIGTERM);
	int status;
	waitpid(pid, &status, 0);
	ck_assert_msg(seen, "--follow did not print the bench result: %s", slurp(outfile));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "follow: status %d", status);
	struct json_object *doc = timeline_json(node, (const char *[]){"--kind", "bench", NULL});
	struct json_object *b = find_event(doc, "bench", "0000:18:00.3", "PASS");
	ck_assert_msg(b, "%.1500s", json_object_get_string(doc));
	ck_assert_str_eq(jstr(b, "time"), "2026-12-04T03:00:00.000000Z");
	ck_assert_str_eq(jstr(b, "ref"), "write_bw");
	json_object_put(doc);
	/* Read once: another record adds no second one. */
	record_once(node);
	doc = timeline_json(node, (const char *[]){"--kind", "bench", NULL});
	ck_assert_int_eq(count_kind(doc, "bench"), 1);
	json_object_put(doc);
}
END_TEST

/* A crash left a tail of NULs in the bench history (no line end in a
 * whole read window): the reader passes over it, and the result written
 * after it is recorded. */
START_TEST(test_bench_reader_passes_a_window_without_a_line_end)
{
	setenv("IBVF_RECORD", "0", 1);
	static const char line[] =
		"{\"time\":\"2026-12-04T03:00:00Z\",\"host\":\"n\",\"key\":{\"pf\":"
		"\"0000:18:00.0\",\"vf\":2,\"test\":\"write_bw\",\"peer\":\"loopback\"},"
		"\"bdf\":\"0000:18:00.3\",\"ibdev\":\"mlx5_12\",\"status\":\"PASS\","
		"\"figure\":391.5,\"unit\":\"Gb/s\",\"better\":\"higher\"}\n";
	tu_put(node, "var/lib/ibvf/bench-history.jsonl", line);
	record_once(node);
	/* Appended (the same file): 3 MiB of NULs, then a valid line. */
	char path[4200];
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/bench-history.jsonl", node);
	FILE *f = fopen(path, "ab");
	ck_assert_ptr_nonnull(f);
	static char nuls[1 << 20];
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(fwrite(nuls, 1, sizeof(nuls), f), sizeof(nuls));
	char second[sizeof(line)];
	snprintf(second, sizeof(second), "%s", line);
	memcpy(strstr(second, "PASS"), "FAIL", 4);
	ck_assert_int_ge(fputs(second, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	/* A window a record: within a few, the line after the NULs. */
	struct json_object *doc = NULL;
	for (int i = 0; i < 6; i++) {
		record_once(node);
		json_object_put(doc);
		doc = timeline_json(node, (const char *[]){"--kind", "bench", NULL});
		if (count_kind(doc, "bench") == 2)
			break;
	}
	ck_assert_msg(count_kind(doc, "bench") == 2 && find_event(doc, "bench", NULL, "FAIL"),
		      "the line after 3 MiB of NULs was not recorded: %.1500s",
		      json_object_get_string(doc));
	json_object_put(doc);
}
END_TEST

/* A bench history line of VF vf at time when. */
static void bench_history_line(char *buf, size_t size, int vf, const char *when)
{
	snprintf(buf, size,
		 "{\"time\":\"%s\",\"host\":\"n\",\"key\":{\"pf\":\"0000:18:00.0\","
		 "\"vf\":%d,\"test\":\"write_bw\",\"peer\":\"loopback\"},\"bdf\":"
		 "\"0000:18:00.%d\",\"ibdev\":\"mlx5_12\",\"status\":\"PASS\",\"figure\":"
		 "391.5,\"unit\":\"Gb/s\",\"better\":\"higher\"}\n",
		 when, vf, vf + 1);
}

/* The bench history rotated (bench/history.h: rewritten into a new file
 * with the lines it keeps): the lines recorded before are not recorded
 * again, and a new line of the same second as the newest recorded is. */
START_TEST(test_bench_rotation_records_each_line_once)
{
	setenv("IBVF_RECORD", "0", 1);
	char a[512], b[512], c[512], d[512], all[2048];
	bench_history_line(a, sizeof(a), 2, "2026-12-04T03:00:00Z");
	bench_history_line(b, sizeof(b), 3, "2026-12-04T03:00:00Z");
	bench_history_line(c, sizeof(c), 4, "2026-12-04T03:00:00Z");
	bench_history_line(d, sizeof(d), 5, "2026-12-04T03:00:01Z");
	snprintf(all, sizeof(all), "%s%s", a, b);
	tu_put(node, "var/lib/ibvf/bench-history.jsonl", all);
	record_once(node);
	struct json_object *doc = timeline_json(node, (const char *[]){"--kind", "bench", NULL});
	ck_assert_int_eq(count_kind(doc, "bench"), 2);
	json_object_put(doc);
	/* The rewrite: a new file renamed over the old one. */
	char path[4200], tmp[4300];
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/bench-history.jsonl", node);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	snprintf(all, sizeof(all), "%s%s%s%s", a, b, c, d);
	FILE *f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(all, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(rename(tmp, path), 0);
	record_once(node);
	doc = timeline_json(node, (const char *[]){"--kind", "bench", NULL});
	ck_assert_msg(
		count_kind(doc, "bench") == 4 && find_event(doc, "bench", "0000:18:00.5", NULL) &&
			find_event(doc, "bench", "0000:18:00.6", NULL),
		"after the rotation, not A B C D once each: %.1500s", json_object_get_string(doc));
	json_object_put(doc);
}
END_TEST

/* "+HH:MM" exactly: a malformed zone is refused (exit 2, naming --since)
 * whatever follows the value in memory. The kernel lays the arguments out
 * one after another: an empty one after "+01:5" puts NULs where a parser
 * stepping six bytes on would look. */
START_TEST(test_since_zone_is_exactly_hh_mm)
{
	setenv("IBVF_RECORD", "0", 1);
	record_once(node);
	static const char *const bad[] = {"+1:5",   "+01:5",  "+1:05", "+0100", "+01:00x",
					  "+24:00", "+01:60", "+01",   "-1:5",	"+"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char arg[64], want[80];
		snprintf(arg, sizeof(arg), "2026-12-04T03:00:00%s", bad[i]);
		snprintf(want, sizeof(want), "--since '%s'", arg);
		refused(2, want, "timeline", "--since", arg, "", "", NULL); /* NULs follow */
		refused(2, want, "timeline", "--since", arg, "x", "yz", NULL);
		refused(2, want, "timeline", "--kind", "rename", "--since", arg, NULL);
	}
	static const char *const good[] = {"2026-12-04T03:00:00+01:00", "2026-12-04T03:00:00Z",
					   "2026-12-04T03:00:00.5-05:30"};
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		char *err = NULL;
		int rc = tu_sim_run(node, NULL, &err, "timeline", "--since", good[i], NULL);
		ck_assert_msg(rc == 0, "--since '%s': exit %d: %s", good[i], rc, err);
		free(err);
	}
	/* Half an hour ago, written in +01:00 and in -01:00: the start just
	 * recorded is after it (with the zone not taken, +01:00's would be
	 * half an hour ahead). */
	for (int sign = 1; sign >= -1; sign -= 2) {
		time_t t = time(NULL) - 1800 + sign * 3600;
		struct tm tm;
		gmtime_r(&t, &tm);
		char arg[64];
		strftime(arg, sizeof(arg),
			 sign > 0 ? "%Y-%m-%dT%H:%M:%S+01:00" : "%Y-%m-%dT%H:%M:%S-01:00", &tm);
		struct json_object *doc = timeline_json(
			node, (const char *[]){"--kind", "start", "--since", arg, NULL});
		ck_assert_msg(count_kind(doc, "start") == 1, "--since '%s': %.1500s", arg,
			      json_object_get_string(doc));
		json_object_put(doc);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("record");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_rename_recorded_with_its_action_as_cause);
	tcase_add_test(tc, test_timeline_filters);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_one_writer);
	tcase_add_test(tc, test_damaged_store_recorded_in_memory);
	tcase_add_test(tc, test_who_records);
	tcase_add_test(tc, test_pod_start_is_the_cause_of_the_renames);
	tcase_add_test(tc, test_reboot_is_one_group);
	tcase_add_test(tc, test_bench_result_and_follow);
	tcase_add_test(tc, test_bench_reader_passes_a_window_without_a_line_end);
	tcase_add_test(tc, test_bench_rotation_records_each_line_once);
	tcase_add_test(tc, test_since_zone_is_exactly_hh_mm);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
