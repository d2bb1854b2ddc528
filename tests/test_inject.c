// SPDX-License-Identifier: MIT
/* Injection (issue 14, item 6): names and text read from the node reach a
 * shell line, a systemd unit or .link file, a terminal or a JSON document
 * only quoted, validated or escaped. The hostile names are planted in a
 * simulated node the way a real kernel allows them (dev_valid_name() takes
 * ESC, '$', quotes and bytes that are not UTF-8), or set on a discovered
 * node where the tree cannot hold them. */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <linux/if_link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/err.h"
#include "core/model/node.h"
#include "core/persist/persist.h"
#include "core/actions/plan.h"
#include "core/sim/sim_tree.h"
#include "core/sys/sys.h"
#include "spawnutil.h"
#include "testutil.h"

/* Strict UTF-8 (no overlong forms, no surrogates, at most U+10FFFF): the
 * test's own reading, independent of the code under test. */
static bool utf8_valid(const char *str, size_t *ret_at)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (s[i]) {
		unsigned char c = s[i];
		size_t n = c < 0x80		    ? 1
			   : c >= 0xc2 && c <= 0xdf ? 2
			   : c >= 0xe0 && c <= 0xef ? 3
			   : c >= 0xf0 && c <= 0xf4 ? 4
						    : 0;
		bool ok = n > 0;
		for (size_t k = 1; ok && k < n; k++)
			ok = (s[i + k] & 0xc0) == 0x80;
		if (ok && n == 3)
			ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0);
		if (ok && n == 4)
			ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
		if (!ok) {
			*ret_at = i;
			return false;
		}
		i += n;
	}
	return true;
}

/* What a terminal may receive: valid UTF-8, no C0 control but the newline,
 * no DEL, no C1 control (U+0080..U+009F). */
static void assert_term_safe(const char *what, const char *s)
{
	size_t at = 0;
	ck_assert_msg(utf8_valid(s, &at), "%s: byte %zu (0x%02x) is not UTF-8", what, at + 1,
		      (unsigned char)s[at]);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		bool bad = (*c < 0x20 && *c != '\n') || *c == 0x7f ||
			   (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f);
		ck_assert_msg(!bad, "%s: control byte 0x%02x reaches the terminal at byte %zu",
			      what, c[0] == 0xc2 ? c[1] : *c,
			      (size_t)(c - (const unsigned char *)s) + 1);
	}
}

/* The node's netdev `from` renamed to a hostile name, as the kernel allows. */
static void plant_netdev(const char *dir, const char *from, const char *to)
{
	struct err e = {{0}};
	ck_assert_msg(sim_netdev_rename(dir, from, to, &e) == 0, "plant '%s': %s", from, e.msg);
}

#define ESC_NAME "e\x1b]0;pwn\x07"     /* retitles a terminal */
#define C1_NAME	 "c1\x9b[2JX\xff"      /* raw C1 CSI, and a byte that is never UTF-8 */
#define SUB_NAME "a$(id)"	       /* runs a command when unquoted */
#define HOSTNAME "dgx\xfe\xc2\x9bh200" /* not UTF-8, and a C1 control in UTF-8 */

/* The seeded node with hostile names on three VFs of 0000:9a:00.0 and a
 * hostname that is not UTF-8. */
static char *hostile_node(void)
{
	char *dir = tu_mkfixture(NULL);
	plant_netdev(dir, "enp154s0v0", ESC_NAME); /* 0000:9a:00.1 */
	plant_netdev(dir, "enp154s0v1", C1_NAME);  /* 0000:9a:00.2 */
	plant_netdev(dir, "enp154s0v2", SUB_NAME); /* 0000:9a:00.3 */
	tu_put(dir, "proc/sys/kernel/hostname", HOSTNAME "\n");
	return dir;
}

static void assert_words(const char *shell, const char *line, const char *want)
{
	char *got = tu_shell_words(shell, line);
	ck_assert_msg(!strcmp(got, want), "%s reads '%s' as %s, not %s", shell, line, got, want);
	free(got);
}

START_TEST(plan_shell_lines_are_quoted_for_the_shell)
{
	struct plan *p;
	ck_assert_int_eq(plan_new("vf rename", "x", &p), 0);
	ck_assert_int_eq(plan_rename(p, SUB_NAME, "b"), 0);
	ck_assert_int_eq(plan_link_up(p, "it's", false), 0);
	ck_assert_int_eq(plan_vf_guid(p, "x;reboot", 3, SYS_GUID_NODE, 1), 0);
	ck_assert_int_eq(plan_vf_state(p, "`reboot`", 0, IFLA_VF_LINK_STATE_AUTO), 0);
	ck_assert_int_eq(plan_write(p, "/sys/x y", "1 && reboot", "d"), 0);
	ck_assert_int_eq(plan_unbind(p, "mlx5_core", "0000:18:00.2"), 0);
	ck_assert_int_eq(plan_rename_fn(p, "0000:18:00.2", "n$x", false), 0);
	ck_assert_int_eq(plan_file(p, "/etc/a b.link", NULL, "x\n"), 0);
	ck_assert_int_eq(plan_file(p, "/etc/a b.link", "x\n", NULL), 0);
	ck_assert_int_eq(plan_rename(p, "e\x1b[2J", "b"), 0);
	const char *want[] = {
		"ip link set dev 'a$(id)' name b",
		"ip link set dev 'it'\\''s' down",
		"ip link set dev 'x;reboot' vf 3 node_guid 00:00:00:00:00:00:00:01",
		"ip link set dev '`reboot`' vf 0 state auto",
		"echo '1 && reboot' > '/sys/x y'",
		"echo 0000:18:00.2 > /sys/bus/pci/drivers/mlx5_core/unbind",
		"ip link set dev \"$(ls /sys/bus/pci/devices/0000:18:00.2/net)\" name 'n$x'",
		"install -m 0644 /dev/stdin '/etc/a b.link'",
		"rm -- '/etc/a b.link'",
		"ip link set dev $'e\\033[2J' name b",
	};
	ck_assert_uint_eq(p->n_steps, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < p->n_steps; i++)
		ck_assert_str_eq(p->steps[i].cmd, want[i]);
	/* As a shell reads them: the name is one word, nothing runs. */
	assert_words("/bin/sh", p->steps[0].cmd, "<ip><link><set><dev><a$(id)><name><b>");
	assert_words("/bin/sh", p->steps[1].cmd, "<ip><link><set><dev><it's><down>");
	assert_words("/bin/sh", p->steps[3].cmd,
		     "<ip><link><set><dev><`reboot`><vf><0><state><auto>");
	assert_words("/bin/bash", p->steps[9].cmd, "<ip><link><set><dev><e\x1b[2J><name><b>");
	plan_free(p);
}
END_TEST

START_TEST(dry_run_shows_a_hostile_name_quoted)
{
	char *dir = hostile_node(), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "vf", "rename", "0000:9a:00.3", "b0", "--dry-run",
			    NULL);
	ck_assert_msg(rc == 0, "vf rename --dry-run: %s", err);
	ck_assert_msg(strstr(out, "$ ip link set dev 'a$(id)' name b0\n"),
		      "the shell line does not quote 'a$(id)':\n%s", out);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(text_output_is_terminal_safe)
{
	char *dir = hostile_node();
	const char *cmds[][3] = {
		{"list", NULL}, {"list", "--pods"}, {"check", NULL}, {"journal", NULL}};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		char *out, *err, what[64];
		tu_sim_run(dir, &out, &err, cmds[i][0], cmds[i][1], NULL);
		snprintf(what, sizeof(what), "'%s%s%s' stdout", cmds[i][0], cmds[i][1] ? " " : "",
			 cmds[i][1] ? cmds[i][1] : "");
		assert_term_safe(what, out);
		assert_term_safe("stderr", err);
		free(out);
		free(err);
	}
	char *out, *err;
	tu_sim_run(dir, &out, &err, "list", NULL);
	ck_assert_msg(strstr(out, "c1\\x9b[2JX\\xff"), "the C1 name is not shown escaped:\n%s",
		      out);
	ck_assert_msg(strstr(out, "e\\x1b]0;pwn\\x07"), "the ESC name is not shown escaped");
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* `watch` is live once it prints a rename the test makes (each try renames
 * the same netdev back and forth: watch reads from the end of the log). */
struct watch_probe {
	struct bg *b;
	const char *dir;
	unsigned int tries;
};

static bool watch_live(void *arg)
{
	struct watch_probe *w = arg;
	char *out = bg_out(w->b);
	bool live = out && strstr(out, "move");
	free(out);
	if (!live) {
		bool odd = w->tries++ % 2;
		plant_netdev(w->dir, odd ? "probe0" : "enp154s0v3", odd ? "enp154s0v3" : "probe0");
	}
	return live;
}

static bool shows_c2(void *arg)
{
	char *out = bg_out(arg);
	bool seen = out && strstr(out, "move") && strstr(out, "c2");
	free(out);
	return seen;
}

START_TEST(watch_shows_renamed_links_escaped)
{
	char *dir = hostile_node();
	struct bg b;
	bg_start(&b, dir, "watch", NULL);
	struct watch_probe w = {&b, dir, 0};
	ck_assert_msg(poll_until(watch_live, &w, 30), "watch printed no event");
	plant_netdev(dir, ESC_NAME, "e2\x1b[2J");
	plant_netdev(dir, C1_NAME, "c2\x9b[2J\xff");
	bool seen = poll_until(shows_c2, &b, 30);
	kill(b.pid, SIGTERM);
	bg_wait(&b);
	char *out = bg_out(&b), *err = bg_err(&b);
	ck_assert_msg(seen, "watch did not show the second rename:\n%s", out);
	assert_term_safe("'watch' stdout", out);
	assert_term_safe("'watch' stderr", err);
	ck_assert_msg(strstr(out, "e2\\x1b[2J"), "the ESC name is not shown escaped:\n%s", out);
	free(out);
	free(err);
	bg_free(&b);
	tu_rmtree(dir);
}
END_TEST

START_TEST(errors_on_stderr_are_escaped)
{
	char *dir = hostile_node(), *out, *err;
	tu_put(dir, ".sim/faults", "rename=EIO\n");
	int rc = tu_sim_run(dir, &out, &err, "vf", "rename", "0000:9a:00.1", "ok0", "--yes", NULL);
	ck_assert_int_ne(rc, 0);
	assert_term_safe("stderr", err);
	assert_term_safe("stdout", out);
	ck_assert_msg(strstr(err, "e\\x1b]0;pwn\\x07"), "stderr does not name the link: %s", err);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

static struct json_object *parse_json(const char *what, const char *out)
{
	size_t at = 0;
	ck_assert_msg(utf8_valid(out, &at), "%s: byte %zu (0x%02x) is not UTF-8", what, at + 1,
		      (unsigned char)out[at]);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o != NULL, "%s: not JSON", what);
	return o;
}

START_TEST(json_output_is_valid_utf8)
{
	char *dir = hostile_node();
	const char *cmds[][3] = {{"list", NULL}, {"list", "--pods"}, {"check", NULL}};
	char *out, *err;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		tu_sim_run(dir, &out, &err, "--json", cmds[i][0], cmds[i][1], NULL);
		json_object_put(parse_json(cmds[i][1] ? cmds[i][1] : cmds[i][0], out));
		free(out);
		free(err);
	}
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "vf", "rename", "0000:9a:00.2", "b1",
				    "--dry-run", "--json", NULL),
			 0);
	json_object_put(parse_json("vf rename --json", out));
	free(out);
	free(err);

	/* Bytes that are not UTF-8 are U+FFFD; a C1 control is "\u009b". */
	tu_sim_run(dir, &out, &err, "list", "--json", NULL);
	ck_assert_msg(strstr(out, "\"dgx\xef\xbf\xbd\\u009bh200\""), "hostname as %s",
		      strstr(out, "dgx") ? strstr(out, "dgx") : "(absent)");
	ck_assert_msg(strstr(out, "\"c1\xef\xbf\xbd[2JX\xef\xbf\xbd\""),
		      "the name's raw bytes are not U+FFFD");
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* The journal is JSON too: an action on the hostile node (its hostname and
 * the old name are not UTF-8) leaves a journal any reader parses. */
START_TEST(journal_file_is_valid_utf8)
{
	char *dir = hostile_node(), *out, *err, *p;
	ck_assert_int_eq(
		tu_sim_run(dir, &out, &err, "vf", "rename", "0000:9a:00.2", "b1", "--yes", NULL),
		0);
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&p, "%s/var/lib/ibvf/journal.jsonl", dir), 0);
	FILE *f = fopen(p, "re");
	ck_assert_ptr_nonnull(f);
	char *line = NULL;
	size_t cap = 0, n = 0;
	for (; getline(&line, &cap, f) > 0; n++)
		json_object_put(parse_json("the journal", line));
	ck_assert_uint_gt(n, 0);
	free(line);
	fclose(f);
	free(p);
	tu_rmtree(dir);
}
END_TEST

/* Every line of a unit or .link file ibvf writes: empty, a comment, a section
 * or one of the keys it writes; an injected line is none of these. */
static void assert_no_injected_line(const char *name, const char *text)
{
	static const char *const keys[] = {
		"Description=",	    "Documentation=", "DefaultDependencies=",
		"After=",	    "Wants=",	      "Before=",
		"Conflicts=",	    "Type=",	      "RemainAfterExit=",
		"TimeoutStartSec=", "ExecStart=/",    "WantedBy=",
		"Path=pci-",	    "Name=",	      "[Unit]",
		"[Service]",	    "[Install]",      "[Match]",
		"[Link]",
	};
	char *copy = strdup(text), *save = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		bool ok = l[0] == '#';
		for (size_t k = 0; !ok && k < sizeof(keys) / sizeof(*keys); k++)
			ok = !strncmp(l, keys[k], strlen(keys[k]));
		ck_assert_msg(ok, "%s: injected line '%s'", name, l);
	}
	free(copy);
}

static struct node *discover_healthy(char **ret_dir)
{
	struct sys *s;
	struct node *n;
	struct err e = {{0}};
	*ret_dir = tu_mkfixture((const char *const[]){"--healthy", NULL});
	ck_assert_msg(sys_open_sim(*ret_dir, NULL, &s, &e) == 0, "%s", e.msg);
	ck_assert_msg(node_discover(s, &n, &e) == 0, "%s", e.msg);
	sys_close(s);
	return n;
}

static int build(const struct node *n, struct persist **ret, struct err *e)
{
	struct persist_opts o = {.ibvf = "/usr/sbin/ibvf"};
	return persist_build(n, &o, ret, e);
}

START_TEST(a_hostname_with_a_newline_stays_in_its_comment)
{
	char *dir;
	struct node *n = discover_healthy(&dir);
	struct persist *p;
	struct err e = {{0}};
	free(n->hostname);
	n->hostname = strdup("dgx\nExecStartPre=/bin/sh -c reboot\n%n\x1b[2J");
	ck_assert_msg(build(n, &p, &e) == 0, "%s", e.msg);
	for (size_t i = 0; i < p->n_files; i++)
		assert_no_injected_line(p->files[i].name, p->files[i].content);
	persist_free(p);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(a_pci_name_with_a_newline_is_refused)
{
	char *dir;
	struct node *n = discover_healthy(&dir);
	struct persist *p = NULL;
	struct err e = {{0}};
	/* A PF and then a VF whose sysfs name is no PCI address (15 bytes fit). */
	ck_assert_uint_gt(n->pfs[0].n_vfs, 2);
	char pf_bdf[16], *vf_bdf = n->pfs[0].vfs[2].fn.bdf;
	memcpy(pf_bdf, n->pfs[0].fn.bdf, sizeof(pf_bdf));
	snprintf(n->pfs[0].fn.bdf, sizeof(n->pfs[0].fn.bdf), "0\nExecStartPre=");
	int r = build(n, &p, &e);
	if (r == 0)
		for (size_t i = 0; i < p->n_files; i++)
			assert_no_injected_line(p->files[i].name, p->files[i].content);
	persist_free(p);
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_msg(strstr(e.msg, "not a PCI address") && !strchr(e.msg, '\n'), "refusal: '%s'",
		      e.msg);

	memcpy(n->pfs[0].fn.bdf, pf_bdf, sizeof(pf_bdf));
	snprintf(vf_bdf, 16, "0\n[Link]\nName=x");
	p = NULL;
	r = build(n, &p, &e);
	if (r == 0)
		for (size_t i = 0; i < p->n_files; i++)
			assert_no_injected_line(p->files[i].name, p->files[i].content);
	persist_free(p);
	ck_assert_int_eq(r, -EINVAL);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("inject");
	TCase *t = tcase_create("shell");
	tcase_add_test(t, plan_shell_lines_are_quoted_for_the_shell);
	tcase_add_test(t, dry_run_shows_a_hostile_name_quoted);
	suite_add_tcase(s, t);
	t = tcase_create("terminal");
	tcase_add_test(t, text_output_is_terminal_safe);
	tcase_add_test(t, errors_on_stderr_are_escaped);
	tcase_add_test(t, watch_shows_renamed_links_escaped);
	suite_add_tcase(s, t);
	t = tcase_create("json");
	tcase_add_test(t, json_output_is_valid_utf8);
	tcase_add_test(t, journal_file_is_valid_utf8);
	suite_add_tcase(s, t);
	t = tcase_create("unit");
	tcase_add_test(t, a_hostname_with_a_newline_stays_in_its_comment);
	tcase_add_test(t, a_pci_name_with_a_newline_is_refused);
	suite_add_tcase(s, t);
	return tu_run_suite(s);
}
