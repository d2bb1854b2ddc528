// SPDX-License-Identifier: MIT
/* The rename action against the running kernel: an UP veth in a private
 * network namespace, renamed through action_plan()/action_apply() (the code
 * `ibvf vf rename` runs), directly and the pre-6.2 way (down, rename, up);
 * collisions with a name and an altname refused before anything changes.
 *
 * As in test_netns.c, each scenario runs in a forked child with its own
 * network and mount namespaces (a fresh /sys, and a tmpfs on /var/lib so the
 * journal lands there and not on the host). */
#include <check.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/actions.h"
#include "core/journal.h"
#include "core/sys.h"

static int report_fd = -1;

static void child_fail(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void child_fail(int line, const char *fmt, ...)
{
	char msg[1024];
	int n = snprintf(msg, sizeof(msg), "test_actions_netns.c:%d: ", line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (write(report_fd, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(1);
}

#define NS_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond))                                                                       \
			child_fail(__LINE__, __VA_ARGS__);                                         \
	} while (0)

static void ns_enter(void)
{
	NS_CHECK(unshare(CLONE_NEWNET | CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	NS_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "private /: %s",
		 strerror(errno));
	NS_CHECK(mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0,
		 "mount sysfs: %s", strerror(errno));
	NS_CHECK(mount("tmpfs", "/var/lib", "tmpfs", 0, NULL) == 0, "tmpfs /var/lib: %s",
		 strerror(errno));
	NS_CHECK(system("ip link add veth0 type veth peer name veth1 && ip link set veth0 up && "
			"ip link set veth1 up && ip link property add dev veth1 altname "
			"fabric-alt") == 0,
		 "cannot make the veth pair");
}

static bool link_up(const char *name)
{
	char path[128], buf[32] = "";
	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtoul(buf, NULL, 0) & IFF_UP;
}

/* Plans and applies a rename of `from`; kernel "" plans for the running one. */
static int rename_link(struct sys *s, const char *from, const char *to, const char *kernel,
		       struct plan **ret, struct err *e)
{
	struct node *n;
	struct action_req req = {.kind = ACTION_RENAME_LINK};
	snprintf(req.target, sizeof(req.target), "%s", from);
	snprintf(req.name, sizeof(req.name), "%s", to);
	snprintf(req.kernel, sizeof(req.kernel), "%s", kernel);
	NS_CHECK(node_discover(s, &n, e) == 0, "discover: %s", e->msg);
	int r = action_plan(s, n, &req, ret, e);
	node_free(n);
	if (r < 0)
		return r;
	return action_apply(s, *ret, &req, NULL, e);
}

static void scenario_up_rename(struct sys *s)
{
	struct plan *p;
	struct err e = {{0}};
	NS_CHECK(link_up("veth0"), "veth0 is not up");
	int r = rename_link(s, "veth0", "fabric0", "", &p, &e);
	NS_CHECK(r == 0, "rename: %s", e.msg);
	NS_CHECK(p->n_steps == 1 && p->steps[0].kind == STEP_RENAME,
		 "on this kernel one step, got %zu", p->n_steps);
	NS_CHECK(p->result == PLAN_OK && p->changes[0].verified, "not verified: %s",
		 p->changes[0].verify);
	NS_CHECK(if_nametoindex("fabric0") > 0 && if_nametoindex("veth0") == 0, "not renamed");
	NS_CHECK(link_up("fabric0"), "fabric0 went down");
	NS_CHECK(p->journal_id == 1, "journal id %lld: %s", p->journal_id, p->journal_error);
	plan_free(p);

	/* Planned for a kernel before 6.2: down, rename, up, and up it stays. */
	r = rename_link(s, "fabric0", "fabric1", "6.1.0-18-amd64", &p, &e);
	NS_CHECK(r == 0, "rename the 6.1 way: %s", e.msg);
	NS_CHECK(p->n_steps == 3 && p->steps[0].kind == STEP_LINK_DOWN &&
			 p->steps[1].kind == STEP_RENAME && p->steps[2].kind == STEP_LINK_UP,
		 "steps: %zu", p->n_steps);
	NS_CHECK(!strcmp(p->steps[0].cmd, "ip link set dev fabric0 down"), "cmd '%s'",
		 p->steps[0].cmd);
	NS_CHECK(link_up("fabric1") && if_nametoindex("fabric1") > 0, "fabric1 not up");
	plan_free(p);

	/* Undo from the journal entry. */
	struct json_object *entries;
	struct action_req req;
	NS_CHECK(journal_read(s, &entries, NULL, &e) == 0, "journal: %s", e.msg);
	NS_CHECK(json_object_array_length(entries) == 2, "entries: %zu",
		 json_object_array_length(entries));
	NS_CHECK(journal_undo_req(entries, 2, &req, &e) == 0, "undo: %s", e.msg);
	json_object_put(entries);
	NS_CHECK(!strcmp(req.target, "fabric1") && !strcmp(req.name, "fabric0"), "undo %s -> %s",
		 req.target, req.name);
}

static void scenario_collisions(struct sys *s)
{
	struct plan *p = NULL;
	struct err e = {{0}};
	int r = rename_link(s, "veth0", "veth1", "", &p, &e);
	NS_CHECK(r == -EEXIST && strstr(e.msg, "taken"), "name: %d %s", r, e.msg);
	r = rename_link(s, "veth0", "fabric-alt", "", &p, &e);
	NS_CHECK(r == -EEXIST && strstr(e.msg, "altname"), "altname: %d %s", r, e.msg);
	r = rename_link(s, "veth0", "bad/name", "", &p, &e);
	NS_CHECK(r == -EINVAL, "bad name: %d %s", r, e.msg);
	NS_CHECK(if_nametoindex("veth0") > 0 && link_up("veth0"), "veth0 changed");
	NS_CHECK(access("/var/lib/ibvf/journal.jsonl", F_OK) != 0, "a refusal was journaled");
}

typedef void (*scenario)(struct sys *s);

static void ns_run(scenario fn)
{
	char msg[1024] = "";
	size_t len = 0;
	int p[2], status;

	if (geteuid() != 0 || access("/usr/sbin/ip", X_OK) != 0) {
		printf("SKIP: needs root and ip to make network namespaces\n");
		return;
	}
	ck_assert_int_eq(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sys *s;
		struct err e;
		close(p[0]);
		report_fd = p[1];
		ns_enter();
		NS_CHECK(sys_open_linux("/", &s, &e) == 0, "open: %s", e.msg);
		fn(s);
		sys_close(s);
		exit(0);
	}
	close(p[1]);
	for (ssize_t n;
	     len < sizeof(msg) - 1 && (n = read(p[0], msg + len, sizeof(msg) - 1 - len)) > 0;)
		len += (size_t)n;
	msg[len] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s",
		      *msg ? msg : "(no message; see stderr)");
}

START_TEST(up_veth_is_renamed_through_the_action_code)
{
	ns_run(scenario_up_rename);
}
END_TEST

START_TEST(collisions_are_refused_before_anything_changes)
{
	ns_run(scenario_collisions);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("actions_netns");
	TCase *tc = tcase_create("veth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, up_veth_is_renamed_through_the_action_code);
	tcase_add_test(tc, collisions_are_refused_before_anything_changes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
