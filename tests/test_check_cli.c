// SPDX-License-Identifier: MIT
/* `ibvf check` and the findings in `ibvf list` as a user meets them: exit
 * status 0/1/2 from the findings shown, 3 when it could not check, the JSON
 * schema, the text's evidence and remedy, filters by id, device and
 * severity, list's marks, and names from the node escaped on the terminal. */
#include <check.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/err.h"
#include "core/sys/sys.h"
#include "testutil.h"

static char *faulty, *healthy; /* the seeded node and a healthy one, shared */

static void shared_setup(void)
{
	faulty = tu_mkfixture(NULL);
	healthy = tu_mkfixture((const char *const[]){"--healthy", NULL});
}

static void shared_teardown(void)
{
	tu_rmtree(faulty);
	tu_rmtree(healthy);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static struct json_object *parse(const char *s)
{
	struct json_object *o = json_tokener_parse(s);
	ck_assert_msg(o != NULL, "not JSON: %.200s", s);
	return o;
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no key '%s'", k);
	return v;
}

static const char *sget(struct json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* `ibvf --sim=DIR check --json ARGS...`: the exit status is want; the
 * report parsed. */
static struct json_object *check_json(const char *dir, int want, const char *a1, const char *a2)
{
	char *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "check", "--json", a1, a2, NULL);
	ck_assert_msg(rc == want, "check --json %s %s: exit %d, stderr %s", a1 ? a1 : "",
		      a2 ? a2 : "", rc, err);
	struct json_object *o = parse(out);
	free(out);
	free(err);
	return o;
}

START_TEST(healthy_node_exits_0_with_no_findings)
{
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(healthy, &out, &err, "check", NULL), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "\nno findings\n"));
	ck_assert_ptr_null(strstr(out, "critical"));
	free(out);
	free(err);
	struct json_object *o = check_json(healthy, 0, NULL, NULL);
	ck_assert_uint_eq(json_object_array_length(get(o, "findings")), 0);
	ck_assert_int_eq(json_object_get_int(get(get(o, "counts"), "critical")), 0);
	json_object_put(o);
}
END_TEST

START_TEST(faulty_node_exits_2_and_json_has_the_schema)
{
	struct json_object *o = check_json(faulty, 2, NULL, NULL);
	ck_assert_int_eq(json_object_get_int(get(o, "version")), 2);
	ck_assert_str_eq(sget(o, "host"), "dgx-h200-07");
	ck_assert_str_eq(sget(o, "kernel"), "6.8.0-55-generic");
	struct json_object *fs = get(o, "findings"), *counts = get(o, "counts");
	size_t n = json_object_array_length(fs), sum = 0;
	ck_assert_uint_ge(n, 15);
	for (unsigned int i = 0; i < 3; i++)
		sum += (size_t)json_object_get_int(
			get(counts, (const char *[]){"critical", "warning", "info"}[i]));
	ck_assert_uint_eq(sum, n);
	bool seen = false;
	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		get(f, "evidence");
		get(f, "remedy");
		get(f, "why");
		if (strcmp(sget(f, "id"), "guid-zero") ||
		    strcmp(sget(f, "subject"), "0000:18:00.1"))
			continue;
		seen = true;
		ck_assert_str_eq(sget(f, "severity"), "critical");
		ck_assert_str_eq(sget(f, "netdev"), "ib0");
		ck_assert_str_eq(sget(f, "ibdev"), "mlx5_12");
		struct json_object *argv = get(get(f, "remedy"), "argv");
		ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(argv, 2)),
				 "0000:18:00.1");
	}
	ck_assert_msg(seen, "no guid-zero finding on 0000:18:00.1");
	json_object_put(o);
}
END_TEST

/* The text shows the evidence (file: value) and the remedy's command line. */
START_TEST(text_shows_evidence_and_remedy_of_a_zero_guid_vf)
{
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(faulty, &out, &err, "check", "--verbose", "ib0", NULL), 2);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "\ncritical ("));
	ck_assert_ptr_nonnull(strstr(out, "critical 0000:18:00.1 (ib0, mlx5_12)  [guid-zero]\n"));
	ck_assert_ptr_nonnull(
		strstr(out, "    /sys/class/infiniband/mlx5_12/node_guid: 0000:0000:0000:0000\n"));
	ck_assert_ptr_nonnull(strstr(out, "    why: "));
	ck_assert_ptr_nonnull(strstr(out, "      $ ibvf vf guid 0000:18:00.1 --node "
					  "0203:0018:0000:0000 --port 0203:0018:0000:0000\n"));
	/* Only the VF named: nothing of its siblings. */
	ck_assert_ptr_null(strstr(out, "0000:18:00.3"));
	ck_assert_ptr_nonnull(strstr(out, " critical, "));
	free(out);
	free(err);
}
END_TEST

/* A PF selects itself and its VFs; an id and a device combine. */
START_TEST(a_pf_and_an_id_select_its_vfs_findings)
{
	struct json_object *o = check_json(faulty, 2, "guid-zero", "mlx5_0");
	struct json_object *fs = get(o, "findings");
	/* vf1 (0000:18:00.2) has no driver: its probe failed, not a zero GUID. */
	ck_assert_uint_eq(json_object_array_length(fs), 7);
	for (size_t i = 0; i < 7; i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		ck_assert_str_eq(sget(f, "id"), "guid-zero");
		ck_assert_msg(!strncmp(sget(f, "subject"), "0000:18:0", 9), "subject %s",
			      sget(f, "subject"));
	}
	ck_assert_int_eq(json_object_get_int(get(get(o, "counts"), "critical")), 7);
	json_object_put(o);
	/* No zero GUID under mlx5_3: nothing shown, exit 0. */
	o = check_json(faulty, 0, "guid-zero", "0000:40:00.0");
	ck_assert_uint_eq(json_object_array_length(get(o, "findings")), 0);
	json_object_put(o);
}
END_TEST

static bool has_finding(struct json_object *o, const char *id, const char *subject)
{
	struct json_object *fs = get(o, "findings");
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *f = json_object_array_get_idx(fs, i), *sub = get(f, "subject");
		const char *s = json_object_get_string(sub);
		if (!strcmp(sget(f, "id"), id) &&
		    (subject ? s && !strcmp(s, subject) : json_object_is_type(sub, json_type_null)))
			return true;
	}
	return false;
}

/* One device, whole truth: a healthy VF's check carries the node-wide
 * findings that reach it (the driver built for another kernel, the device
 * plugin's resource) and its PF's that reach its VFs (a degraded link, a
 * layout the boot unit will not re-create), and exits on them; not the
 * node's findings about something else (a CNI cache file), nor another PF's,
 * nor its PF's that are the PF's own (its name). */
START_TEST(a_device_check_carries_what_reaches_it)
{
	struct json_object *o = check_json(faulty, 2, "0000:40:00.1", NULL);
	ck_assert(has_finding(o, "driver-kernel-mismatch", NULL));
	ck_assert(has_finding(o, "dp-selector-empty", NULL));
	ck_assert(!has_finding(o, "cni-cache-broken", NULL));
	ck_assert(!has_finding(o, "ethernet-fallback", "0000:9a:00.0"));
	ck_assert(!has_finding(o, "rate-degraded", "0000:dc:00.0"));
	json_object_put(o);
	o = check_json(faulty, 2, "0000:dc:00.2", NULL);
	ck_assert(has_finding(o, "rate-degraded", "0000:dc:00.0"));
	ck_assert(!has_finding(o, "sriov-layout", "0000:c0:00.0"));
	json_object_put(o);
	o = check_json(faulty, 2, "ibp192s0v1", NULL);
	ck_assert(has_finding(o, "sriov-layout", "0000:c0:00.0"));
	ck_assert(has_finding(o, "driver-kernel-mismatch", NULL));
	json_object_put(o);
	/* The text says so, and the exit status follows: a warning from the PF
	 * alone exits 1. */
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(faulty, &out, &err, "check", "-v", "0000:40:00.1", NULL), 2);
	ck_assert_ptr_null(strstr(out, "no findings"));
	ck_assert_ptr_nonnull(strstr(out, "  critical node  [driver-kernel-mismatch]\n"));
	free(out);
	free(err);
	o = check_json(faulty, 1, "rate-degraded", "0000:dc:00.3");
	ck_assert(has_finding(o, "rate-degraded", "0000:dc:00.0"));
	json_object_put(o);
}
END_TEST

/* --fix with a device changes that device only: a finding of its PF or of
 * the node that reaches it is shown by `check DEV`, not fixed through it
 * (sriov-layout's remedy re-creates every VF of the PF). */
START_TEST(a_device_fix_plans_nothing_above_it)
{
	char *out, *err;
	int rc = tu_sim_run(faulty, &out, &err, "check", "--fix", "all", "--dry-run",
			    "0000:c0:00.2", NULL);
	/* its own finding's fix (persist, to pin its name) is refused while the
	 * node's GUIDs are zero: exit 1, and nothing above it was planned */
	ck_assert_msg(rc == 0 || rc == 1, "exit %d, stderr %s", rc, err);
	ck_assert_ptr_null(strstr(out, "$ ibvf vf create"));
	ck_assert_ptr_null(strstr(out, "sriov-layout"));
	free(out);
	free(err);
}
END_TEST

/* The exit status is computed on the findings shown: a warning-only
 * selection exits 1, and --severity critical hides warnings. */
START_TEST(exit_1_on_warnings_only)
{
	struct json_object *all = check_json(faulty, 2, NULL, NULL), *fs = get(all, "findings");
	const char *id = NULL, *subject = NULL;
	for (size_t i = 0; !id && i < json_object_array_length(fs); i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		if (!strcmp(sget(f, "severity"), "warning") &&
		    json_object_get_string(get(f, "subject"))) {
			id = sget(f, "id");
			subject = sget(f, "subject");
		}
	}
	ck_assert_msg(id, "the seeded node has no warning finding on a PF or VF");
	struct json_object *o = check_json(faulty, 1, id, subject);
	struct json_object *shown = get(o, "findings");
	ck_assert_uint_ge(json_object_array_length(shown), 1);
	for (size_t i = 0; i < json_object_array_length(shown); i++)
		ck_assert_str_eq(sget(json_object_array_get_idx(shown, i), "severity"), "warning");
	json_object_put(o);
	/* The same selection above warnings shows nothing. */
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(faulty, &out, &err, "check", "--severity", "critical", id,
				    subject, NULL),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "no findings"));
	free(out);
	free(err);
	json_object_put(all);
}
END_TEST

START_TEST(severity_is_a_minimum)
{
	struct json_object *o = check_json(faulty, 2, "--severity=critical", NULL);
	struct json_object *fs = get(o, "findings");
	ck_assert_uint_ge(json_object_array_length(fs), 15);
	for (size_t i = 0; i < json_object_array_length(fs); i++)
		ck_assert_str_eq(sget(json_object_array_get_idx(fs, i), "severity"), "critical");
	ck_assert_int_eq(json_object_get_int(get(get(o, "counts"), "warning")), 0);
	ck_assert_int_eq(json_object_get_int(get(get(o, "counts"), "info")), 0);
	json_object_put(o);
}
END_TEST

/* Every way it cannot check: one line on stderr, nothing on stdout, exit 3
 * (never 1 or 2, which mean findings). */
static const char *const bad[][6] = {
	{"check", "no-such-check", NULL},
	{"check", "0000:99:00.0", NULL},
	{"check", "--frobnicate", NULL},
	{"check", "--severity", "bogus", NULL},
	{"check", "--severity", NULL},
	{"check", "--list", "guid-zero", NULL},
	{"check", "--theme", "mono", NULL},
	{"check", "--sim=/tmp", "--root", "/", NULL},
	{"check", "--root", NULL},
	{"check", "--root=/nonexistent/ibvf", NULL},
	{"check", "--dp-config", NULL},
	{"check", "--dp-config=/nonexistent/ibvf.json", NULL},
	{"check", "--dp-config", "/proc/self/environ", "--list", NULL},
};

START_TEST(cannot_check_is_one_line_and_exit_3)
{
	char *out, *err, sim[4096];
	const char *argv[8];
	size_t n = 0;
	snprintf(sim, sizeof(sim), "--sim=%s", faulty);
	/* The node is named unless the case names its own. */
	bool own = false;
	for (size_t i = 0; bad[_i][i]; i++)
		own |= !strncmp(bad[_i][i], "--sim", 5) || !strncmp(bad[_i][i], "--root", 6);
	for (size_t i = 0; bad[_i][i]; i++)
		argv[n++] = bad[_i][i];
	if (!own)
		argv[n++] = sim;
	argv[n] = NULL;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == 3, "%s %s: exit %d, stderr %s", argv[1], argv[2] ? argv[2] : "", rc,
		      err);
	ck_assert_msg(count_lines(err) == 1 && !strncmp(err, "ibvf: ", 6), "stderr: %s", err);
	ck_assert_str_eq(out, "");
	if (_i == 0)
		ck_assert_str_eq(err, "ibvf: 'no-such-check' is neither a check id nor a device "
				      "(ids: 'ibvf check --list'; devices: PCI address, netdev, "
				      "RDMA device or pod)\n");
	free(out);
	free(err);
}
END_TEST

/* --dp-config judges the operator's own file (a relative path from the
 * working directory, read on this host even with --sim) beside the node's:
 * the field report's selectors (101c, mlx-*) select nothing and each is
 * named with what the node has; a healthy node's selectors select its VFs;
 * a file that is no plugin's config is refused by name. */
START_TEST(dp_config_file_is_judged)
{
	char tmpl[] = "/tmp/ibvf-dp-XXXXXX", path[4200], cwd[4096];
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/seed.json", tmpl);
	tu_write(path, "{\"resourceList\":[{\"resourceName\":\"seeded\",\"selectors\":"
		       "{\"vendors\":[\"15b3\"],\"devices\":[\"101c\"],\"pfNames\":"
		       "[\"mlx-*\"],\"isRdma\":true}}]}\n");
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(tmpl), 0);
	struct json_object *o =
		check_json(healthy, 1, "--dp-config=seed.json", "dp-selector-empty");
	ck_assert_int_eq(chdir(cwd), 0);
	struct json_object *fs = get(o, "findings");
	ck_assert_uint_eq(json_object_array_length(fs), 1);
	const char *text = json_object_to_json_string(json_object_array_get_idx(fs, 0));
	ck_assert_msg(strstr(text, "seed.json") && strstr(text, "101c") && strstr(text, "101e") &&
			      strstr(text, "mlx-*"),
		      "finding: %s", text);
	json_object_put(o);
	/* The selectors the remedy proposes select the node's VFs: no finding. */
	tu_write(path, "{\"resourceList\":[{\"resourceName\":\"good\",\"selectors\":"
		       "{\"vendors\":[\"15b3\"],\"devices\":[\"101e\"],\"drivers\":"
		       "[\"mlx5_core\"],\"linkTypes\":[\"infiniband\"],\"isRdma\":true}}]}\n");
	char arg[4300];
	snprintf(arg, sizeof(arg), "--dp-config=%s", path);
	o = check_json(healthy, 0, arg, NULL);
	ck_assert_uint_eq(json_object_array_length(get(o, "findings")), 0);
	json_object_put(o);
	/* Not a plugin's config: dp-config-invalid, with the file named. */
	tu_write(path, "{\"hello\": 1}\n");
	o = check_json(healthy, 1, arg, NULL);
	fs = get(o, "findings");
	ck_assert_uint_eq(json_object_array_length(fs), 1);
	ck_assert_str_eq(sget(json_object_array_get_idx(fs, 0), "id"), "dp-config-invalid");
	json_object_put(o);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(tmpl), 0);
}
END_TEST

START_TEST(list_option_prints_the_check_table)
{
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(faulty, &out, &err, "check", "--list", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "ID"));
	ck_assert_ptr_nonnull(strstr(out, "\nguid-zero "));
	ck_assert_ptr_nonnull(strstr(out, "critical  zero GUID\n"));
	free(out);
	free(err);
	const char *h[] = {"help", "check", NULL};
	ck_assert_int_eq(tu_run(h, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: ibvf check [--json] [-v] [--severity S]"));
	ck_assert_ptr_nonnull(
		strstr(out, "0 none (or info only), 1 warnings,\n2 critical; 3 when"));
	free(out);
	free(err);
	/* The command list says so too: 3 is an exit status of check. */
	const char *top[] = {"help", NULL};
	ck_assert_int_eq(tu_run(top, &out, &err), 0);
	const char *line = strstr(out, "\n  check  ");
	ck_assert_ptr_nonnull(line);
	const char *eol = strchr(line + 1, '\n');
	ck_assert_msg(eol && memmem(line, (size_t)(eol - line), "0/1/2 by severity, 3 ", 21),
		      "%.*s", eol ? (int)(eol - line) : 80, line);
	free(out);
	free(err);
}
END_TEST

static struct json_object *find_fn(struct json_object *node, const char *bdf)
{
	struct json_object *pfs = get(node, "pfs");
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i), *vfs = get(pf, "vfs");
		if (!strcmp(sget(pf, "bdf"), bdf))
			return pf;
		for (size_t j = 0; j < json_object_array_length(vfs); j++)
			if (!strcmp(sget(json_object_array_get_idx(vfs, j), "bdf"), bdf))
				return json_object_array_get_idx(vfs, j);
	}
	ck_abort_msg("no function %s in list --json", bdf);
	return NULL;
}

START_TEST(list_json_carries_the_findings)
{
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(faulty, &out, &err, "list", "--json", NULL), 0);
	struct json_object *o = parse(out);
	free(out);
	free(err);
	/* The model's fields are still there. */
	ck_assert_int_eq(json_object_get_int(get(o, "version")), 2);
	get(o, "host");
	struct json_object *vf = find_fn(o, "0000:18:00.1"), *fs = get(vf, "findings");
	get(vf, "node_guid");
	ck_assert_uint_ge(json_object_array_length(fs), 1);
	bool zero = false;
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		if (!strcmp(sget(f, "id"), "guid-zero")) {
			zero = true;
			ck_assert_str_eq(sget(f, "severity"), "critical");
			ck_assert_ptr_nonnull(strstr(sget(f, "title"), "zero"));
		}
	}
	ck_assert(zero);
	/* Each function has the array, empty when nothing is wrong. */
	ck_assert_uint_eq(json_object_array_length(get(find_fn(o, "0000:40:00.2"), "findings")), 0);
	get(o, "findings");
	ck_assert_int_ge(json_object_get_int(get(get(o, "counts"), "critical")), 15);
	json_object_put(o);
}
END_TEST

START_TEST(list_text_marks_rows_and_counts)
{
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(faulty, &out, &err, "list", NULL), 0);
	const char *row = strstr(out, "├─ vf0 0000:18:00.1");
	ck_assert_ptr_nonnull(row);
	const char *bol = row;
	while (bol > out && bol[-1] != '\n')
		bol--;
	ck_assert_msg(!strncmp(bol, "!!  ├─ vf0", 12), "row: %.40s", bol);
	/* The header and an unmarked row keep the column's width. */
	ck_assert_ptr_nonnull(strstr(out, "\n    DEVICE "));
	ck_assert_ptr_nonnull(strstr(out, " critical, "));
	ck_assert_ptr_nonnull(strstr(out, ": run `ibvf check`\n"));
	free(out);
	free(err);
	ck_assert_int_eq(tu_sim_run(healthy, &out, &err, "list", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nDEVICE "));
	ck_assert_ptr_null(strstr(out, "!!"));
	ck_assert_ptr_null(strstr(out, "ibvf check"));
	free(out);
	free(err);
}
END_TEST

static void assert_no_raw_controls(const char *what, const char *s)
{
	for (const char *c = s; *c; c++)
		ck_assert_msg(*c == '\n' || (unsigned char)*c >= 0x20,
			      "%s: raw control 0x%02x at offset %td", what, (unsigned char)*c,
			      c - s);
}

/* A netdev named with escape sequences (the kernel allows them) reaches the
 * terminal escaped, in check and in list. */
START_TEST(hostile_netdev_name_is_escaped)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	struct sys *s;
	struct err e = {{0}};
	ck_assert_int_eq(sys_open_sim(dir, NULL, &s, &e), 0);
	ck_assert_msg(sys_link_rename(s, "ib0", "x\x1b]0;pw\x07", &e) == 0, "%s", e.msg);
	sys_close(s);
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "check", "--verbose", "0000:18:00.1", NULL),
			 2);
	assert_no_raw_controls("check", out);
	ck_assert_ptr_nonnull(strstr(out, "0000:18:00.1 (x\\x1b]0;pw\\x07, mlx5_12)"));
	free(out);
	free(err);
	/* the problems, without --verbose, escape it too */
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "check", "0000:18:00.1", NULL), 2);
	assert_no_raw_controls("check", out);
	free(out);
	free(err);
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "list", NULL), 0);
	assert_no_raw_controls("list", out);
	ck_assert_ptr_nonnull(strstr(out, "x\\x1b]0;pw\\x07"));
	free(out);
	free(err);
	/* The device is named by its hostile name, too. */
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "check", "--json", "x\x1b]0;pw\x07", NULL), 2);
	assert_no_raw_controls("check --json", out);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check_cli");
	TCase *tc = tcase_create("check");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, shared_setup, shared_teardown);
	tcase_add_test(tc, healthy_node_exits_0_with_no_findings);
	tcase_add_test(tc, faulty_node_exits_2_and_json_has_the_schema);
	tcase_add_test(tc, text_shows_evidence_and_remedy_of_a_zero_guid_vf);
	tcase_add_test(tc, a_pf_and_an_id_select_its_vfs_findings);
	tcase_add_test(tc, a_device_check_carries_what_reaches_it);
	tcase_add_test(tc, a_device_fix_plans_nothing_above_it);
	tcase_add_test(tc, exit_1_on_warnings_only);
	tcase_add_test(tc, severity_is_a_minimum);
	tcase_add_loop_test(tc, cannot_check_is_one_line_and_exit_3, 0,
			    sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, dp_config_file_is_judged);
	tcase_add_test(tc, list_option_prints_the_check_table);
	tcase_add_test(tc, list_json_carries_the_findings);
	tcase_add_test(tc, list_text_marks_rows_and_counts);
	tcase_add_test(tc, hostile_netdev_name_is_escaped);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
