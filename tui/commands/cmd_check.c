// SPDX-License-Identifier: MIT
/* `ibvf check`: what is wrong on the node, each finding with its evidence,
 * why it matters and its remedy. The exit status is the highest severity
 * shown (0 none or info, 1 warning, 2 critical), as monitoring expects; every
 * error exits EXIT_UNKNOWN so it cannot pass for a finding. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check_fix.h"
#include "tui/render/check_text.h"
#include "tui/base/cli.h"
#include "tui/base/recording.h"
#include "tui/base/when.h"
#include "core/checks/checks.h"
#include "core/checks/report.h"
#include "core/history/facts.h"
#include "core/history/recorder.h"
#include "core/pods/devplugin.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"

struct check_args {
	enum check_severity min;
	bool list, verbose;
	char **words; /* check ids and devices, as typed */
	int n_words;
	const char **dp_files; /* --dp-config, in order */
	int n_dp_files;
	const char **fix; /* --fix ID|all, as typed */
	int n_fix;
	struct fix_opts fo; /* --yes, --dry-run, --force */
	int64_t since_us;   /* --since: HIST_FACTS_SINCE_BOOT unless given */
};

/* What the arguments select: findings of these ids (any when none), on
 * these functions (any when !by_device), of at least min severity. With
 * reach set, a function's findings are also those that reach it from its
 * PF or the node (finding_reaches()); without, as for --fix, its own only:
 * a fix changes what was named and nothing above it. */
struct check_filter {
	enum check_severity min;
	const char **ids;
	size_t n_ids;
	bool by_device;
	char (*bdfs)[16];
	size_t n_bdfs, cap;
	const struct node *reach;
};

enum {
	CHECK_O_SEVERITY = 1,
	CHECK_O_DP_CONFIG,
	CHECK_O_LIST,
	CHECK_O_FIX,
	CHECK_O_YES,
	CHECK_O_DRY_RUN,
	CHECK_O_FORCE,
	CHECK_O_NO_WAIT,
	CHECK_O_SINCE,
	CHECK_O_VERBOSE,
};

const struct opt check_options[] = {
	{OPT_ARG("severity", 0, "S", CHECK_O_SEVERITY,
		 "only findings of severity S or above: info, warning, critical")},
	{OPT_ARG("dp-config", 0, "FILE", CHECK_O_DP_CONFIG,
		 "also judge this device plugin config.json (repeatable); the "
		 "ones in the kubelet's pod volumes are always read")},
	{OPT_BOOL("list", 0, CHECK_O_LIST, "the checks: id, severity, title")},
	{OPT_BOOL("verbose", 'v', CHECK_O_VERBOSE,
		  "every finding with its evidence, why it matters, its remedy and the "
		  "finding it follows from; without it the problems: one line each, "
		  "the findings they explain folded beneath and counted")},
	{OPT_ARG("since", 0, "DUR|TIME", CHECK_O_SINCE,
		 "the recorded history the checks read (renames, port state "
		 "changes, GUIDs lost at a boot): since DUR ago (30m, 6h, 2d), a "
		 "TIME (2026-12-04T03:12:07Z; local: '2026-12-04 03:00', 03:00) "
		 "or 'boot', the default: since the current boot. Without a "
		 "history store the checks read the node only")},
	{OPT_PARA("--json prints the findings as JSON (version, host, kernel, findings with\n"
		  "caused_by and group, problems, counts).\n"
		  "Exit status, from the findings shown: 0 none (or info only), 1 warnings,\n"
		  "2 critical; 3 when it could not check (bad argument, unknown device, node\n"
		  "unreadable). As a Nagios/monitoring check: ibvf check >/dev/null; echo $?\n")},
	{OPT_ARG("fix", 0, "ID|all", CHECK_O_FIX,
		 "run the remedies that are ibvf commands, each through the "
		 "'ibvf vf' path (plan, preview, confirm, apply, verify, "
		 "journal), the node re-checked after each plan; manual "
		 "remedies (driver, firmware, mlxconfig, kubectl) are printed, "
		 "never run. Repeatable; ids, devices and --severity narrow it. "
		 "Order: VF layout, link state, GUIDs (with both guid-zero and "
		 "guid-duplicate selected on the whole node, one 'vf guid "
		 "--assign-all' plan), names, persist last")},
	{OPT_BOOL("yes", 'y', CHECK_O_YES,
		  "apply without asking (needed when stdin is not a terminal)")},
	{OPT_BOOL("dry-run", 0, CHECK_O_DRY_RUN, "print each plan, change nothing")},
	{OPT_BOOL("force", 'f', CHECK_O_FORCE,
		  "act on VFs bound to pods, on PFs an operator sets, and persist past a shadowing "
		  ".link file")},
	{OPT_BOOL("no-wait", 0, CHECK_O_NO_WAIT,
		  "fail at once when another ibvf holds the node's lock")},
	{OPT_PARA("With --fix (text only, no --json) the exit status is: 0 every selected\n"
		  "finding with an ibvf remedy was fixed (--dry-run: every plan could be made),\n"
		  "1 some were refused (a pod holds the VF: --force), failed, declined or\n"
		  "skipped, 3 bad usage or node unreadable. Manual findings do not change it:\n"
		  "run 'ibvf check' afterwards for what is left.")},
	{OPT_TABLE_END},
};

static int parse_args(int argc, char **argv, struct check_args *a)
{
	struct opts p;
	const char *v;
	int id;
	if (opts_parse(cmd_find("check"), argc, argv, &p) < 0)
		return -1;
	while ((id = opts_next(&p, &v))) {
		switch (id) {
		case CHECK_O_LIST:
			a->list = true;
			break;
		case CHECK_O_VERBOSE:
			a->verbose = true;
			break;
		case CHECK_O_SEVERITY:
			if (check_severity_parse(v, &a->min) < 0) {
				cli_error("unknown severity '%s' (info, warning, critical)", v);
				return -1;
			}
			break;
		case CHECK_O_DP_CONFIG:
			if (!*v) {
				cli_error("option '--dp-config' needs a file (a device plugin's "
					  "config.json)");
				return -1;
			}
			a->dp_files[a->n_dp_files++] = v;
			break;
		case CHECK_O_FIX:
			if (!*v) {
				cli_error("option '--fix' needs a check id or 'all'");
				return -1;
			}
			a->fix[a->n_fix++] = v;
			break;
		case CHECK_O_YES:
			a->fo.yes = true;
			break;
		case CHECK_O_DRY_RUN:
			a->fo.dry_run = true;
			break;
		case CHECK_O_FORCE:
			a->fo.force = true;
			break;
		case CHECK_O_NO_WAIT:
			a->fo.no_wait = true;
			break;
		case CHECK_O_SINCE:
			if (!strcmp(v, "boot"))
				a->since_us = HIST_FACTS_SINCE_BOOT;
			else if (when_parse("since", v, hist_now_us(), &a->since_us) < 0)
				return -1;
			break;
		}
	}
	for (int i = 0; i < p.n_pos; i++)
		a->words[a->n_words++] = p.pos[i];
	return 0;
}

static int filter_add_bdf(struct check_filter *fl, const char *bdf)
{
	if (fl->n_bdfs == fl->cap) {
		size_t cap = fl->cap ? fl->cap * 2 : 16;
		void *v = realloc(fl->bdfs, cap * sizeof(*fl->bdfs));
		if (!v)
			return -ENOMEM;
		fl->bdfs = v;
		fl->cap = cap;
	}
	snprintf(fl->bdfs[fl->n_bdfs++], sizeof(fl->bdfs[0]), "%s", bdf);
	return 0;
}

/* A word is a check id, else a device: a PF selects itself and its VFs. */
static int filter_add_word(struct check_filter *fl, const struct node *n, const char *w)
{
	if (check_find(w)) {
		fl->ids[fl->n_ids++] = w;
		return 0;
	}
	struct node_ref ref;
	struct err e = {{0}};
	int r = node_resolve(n, w, &ref, &e);
	if (r == -ENODEV) {
		cli_error("'%s' is neither a check id nor a device (ids: 'ibvf check --list'; "
			  "devices: PCI address, netdev, RDMA device or pod)",
			  w);
		return r;
	}
	if (r < 0) {
		cli_error("%s", e.msg);
		return r;
	}
	if (!ref.pf) {
		cli_error("'%s' is an RDMA device on no PCI function: name a PF or VF", w);
		return -ENODEV;
	}
	fl->by_device = true;
	if (ref.vf)
		return filter_add_bdf(fl, ref.vf->fn.bdf);
	r = filter_add_bdf(fl, ref.pf->fn.bdf);
	for (size_t i = 0; r == 0 && i < ref.pf->n_vfs; i++)
		r = filter_add_bdf(fl, ref.pf->vfs[i].fn.bdf);
	if (r < 0)
		cli_error("out of memory");
	return r;
}

/* Adds the operator's --dp-config files to the node's own. They are the
 * operator's files: read from this host's filesystem (a relative path from
 * the working directory) even under --root or --sim. */
static int read_dp_files(struct node *n, const struct check_args *a)
{
	struct sys *s = NULL;
	struct err e = {{0}};
	if (a->n_dp_files && sys_open_linux(NULL, &s, &e) < 0) {
		cli_error("%s", e.msg);
		return -1;
	}
	int rc = 0;
	for (int i = 0; rc == 0 && i < a->n_dp_files; i++) {
		const char *f = a->dp_files[i];
		char abs[PATH_MAX], cwd[PATH_MAX];
		if (f[0] != '/') {
			if (!getcwd(cwd, sizeof(cwd)) ||
			    snprintf(abs, sizeof(abs), "%s/%s", cwd, f) >= (int)sizeof(abs)) {
				cli_error("--dp-config '%s': cannot make the path absolute", f);
				rc = -1;
				break;
			}
			f = abs;
		}
		int r = devplugin_read_file(s, f, n);
		if (r == -EFBIG)
			cli_error("--dp-config '%s': bigger than %u KiB, not a device plugin "
				  "config",
				  a->dp_files[i], DP_FILE_MAX / 1024);
		else if (r == -ENOSPC)
			cli_error("--dp-config '%s': more than %d device plugin configs",
				  a->dp_files[i], DP_CONFIGS_MAX);
		else if (r < 0)
			cli_error("--dp-config '%s': %s", a->dp_files[i], strerror(-r));
		if (r < 0)
			rc = -1;
	}
	sys_close(s);
	return rc;
}

static bool keep(const struct finding *f, void *ctx)
{
	const struct check_filter *fl = ctx;
	bool ok = f->severity >= fl->min;
	if (ok && fl->n_ids) {
		ok = false;
		for (size_t i = 0; !ok && i < fl->n_ids; i++)
			ok = !strcmp(fl->ids[i], f->id);
	}
	if (ok && fl->by_device) {
		ok = false;
		for (size_t i = 0; !ok && i < fl->n_bdfs; i++)
			ok = fl->reach ? finding_reaches(f, fl->reach, fl->bdfs[i])
				       : !strcmp(fl->bdfs[i], f->subject);
	}
	return ok;
}

static int print_table(const struct cli *c)
{
	struct json_object *t = checks_table_json();
	if (!t) {
		cli_error("out of memory");
		return EXIT_UNKNOWN;
	}
	if (c->json)
		cli_print_json(t);
	else
		text_render_print(stdout, t, check_text_table);
	json_object_put(t);
	return fflush(stdout) == 0 ? 0 : EXIT_UNKNOWN;
}

/* The recorded history's facts into o: none when the node has no store;
 * a store that cannot be read is one line, and the checks run without it. */
static void read_past(struct sys *s, int64_t since_us, struct checks_opts *o)
{
	struct err e = {{0}};
	int r = hist_facts_load(s, since_us, o, &e);
	if (r < 0 && r != -ENOENT)
		cli_error("history: %s", e.msg);
}

/* Runs the checks, keeps what the filter selects (with what reaches a
 * device named), prints it; the exit status from what was printed. */
static int report(const struct cli *c, struct sys *s, bool record, const struct node *n,
		  const struct check_args *a, struct check_filter *fl)
{
	struct findings fs;
	struct checks_opts opts = {0};
	read_past(s, a->since_us, &opts);
	int r = checks_run(n, &opts, &fs);
	hist_facts_free(&opts);
	if (r < 0) {
		cli_error("cannot run the checks: out of memory");
		return EXIT_UNKNOWN;
	}
	/* Into the history while no recorder runs: a check after the fact
	 * leaves its findings there too. A failure changes nothing here. */
	struct err re = {{0}};
	struct hist_recorder *rec = record ? recording_open(s, &re) : NULL;
	recording_observe(rec, n, &fs, &re);
	hist_recorder_close(rec);
	fl->reach = n;
	struct json_object *o =
		findings_select(&fs, keep, fl) == 0 ? checks_report_json(&fs, n) : NULL;
	enum check_severity max = findings_max_severity(&fs);
	findings_fini(&fs);
	if (!o) {
		cli_error("cannot render the findings: out of memory");
		return EXIT_UNKNOWN;
	}
	if (c->json) {
		cli_print_json(o);
	} else if (a->verbose) {
		text_render_print(stdout, o, check_text);
	} else {
		struct text t = {0};
		check_text_problems(&t, o, (size_t)cli_terminal_width());
		text_print(stdout, &t);
		if (t.truncated)
			cli_error("out of memory: the report is cut short");
		text_clear(&t);
	}
	json_object_put(o);
	if (fflush(stdout) != 0)
		return EXIT_UNKNOWN;
	return max == CHECK_CRITICAL ? 2 : max == CHECK_WARNING ? 1 : 0;
}

/* The --fix words: check ids (added to the filter) or "all". 0 or -1 said. */
static int fix_args(const struct cli *c, const struct check_args *a, struct check_filter *fl)
{
	if (!a->n_fix) {
		if (a->fo.yes || a->fo.dry_run || a->fo.force || a->fo.no_wait) {
			cli_error("'%s' goes with --fix", a->fo.yes	  ? "--yes"
							  : a->fo.dry_run ? "--dry-run"
							  : a->fo.no_wait ? "--no-wait"
									  : "--force");
			return -1;
		}
		return 0;
	}
	if (a->since_us != HIST_FACTS_SINCE_BOOT) {
		cli_error("check --fix takes no --since: what happened is not fixed (run 'ibvf "
			  "check --since' for those findings and their remedies)");
		return -1;
	}
	if (c->json) {
		cli_error(
			"check --fix writes text: no --json (the journal keeps each plan as JSON: "
			"'ibvf journal --json')");
		return -1;
	}
	if (a->list) {
		cli_error("check --list takes no --fix");
		return -1;
	}
	bool all = false;
	for (int i = 0; i < a->n_fix; i++) {
		if (!strcmp(a->fix[i], "all")) {
			all = true;
		} else if (check_find(a->fix[i])) {
			fl->ids[fl->n_ids++] = a->fix[i];
		} else {
			cli_error("--fix '%s': no such check (ids: 'ibvf check --list', or 'all')",
				  a->fix[i]);
			return -1;
		}
	}
	if (all)
		fl->n_ids = 0; /* every check, narrowed only by the other words */
	return 0;
}

static bool selects_id(const struct check_filter *fl, const char *id)
{
	for (size_t i = 0; i < fl->n_ids; i++)
		if (!strcmp(fl->ids[i], id))
			return true;
	return !fl->n_ids;
}

/* What each round of --fix reads: the node again, with --dp-config. */
struct fix_ctx {
	const struct cli *c;
	const struct check_args *a;
	struct check_filter *fl;
};

static int fix_read_node(void *ctx, struct node **ret)
{
	struct fix_ctx *x = ctx;
	struct sys *s;
	struct node *n = NULL;
	struct err e = {{0}};
	if (cli_open(x->c, &s) < 0)
		return -1;
	int r = node_discover(s, &n, &e);
	if (r < 0)
		cli_error("%s", e.msg);
	sys_close(s);
	if (r < 0 || read_dp_files(n, x->a) < 0) {
		node_free(n);
		return -1;
	}
	*ret = n;
	return 0;
}

static bool fix_keep(const struct finding *f, void *ctx)
{
	return keep(f, ((struct fix_ctx *)ctx)->fl);
}

int cmd_check(const struct cli *c, int argc, char **argv)
{
	struct check_args a = {.min = CHECK_INFO,
			       .words = calloc((size_t)argc, sizeof(char *)),
			       .dp_files = calloc((size_t)argc, sizeof(char *)),
			       .fix = calloc((size_t)argc, sizeof(char *)),
			       .since_us = HIST_FACTS_SINCE_BOOT};
	struct check_filter fl = {.ids = calloc((size_t)argc * 2, sizeof(char *))};
	int rc = EXIT_UNKNOWN;
	struct sys *s = NULL;
	struct node *n = NULL;
	struct err e = {{0}};
	if (!a.words || !fl.ids || !a.dp_files || !a.fix) {
		cli_error("out of memory");
		goto out;
	}
	if (parse_args(argc, argv, &a) < 0 || fix_args(c, &a, &fl) < 0)
		goto out;
	if (a.list) {
		if (a.n_words || a.n_dp_files)
			cli_error("check --list takes no check, device or --dp-config, got '%s'",
				  a.n_words ? a.words[0] : "--dp-config");
		else
			rc = print_table(c);
		goto out;
	}
	fl.min = a.min;
	if (cli_open(c, &s) < 0)
		goto out;
	if (node_discover(s, &n, &e) < 0) {
		cli_error("%s", e.msg);
		goto out;
	}
	if (read_dp_files(n, &a) < 0)
		goto out;
	for (int i = 0; i < a.n_words; i++)
		if (filter_add_word(&fl, n, a.words[i]) < 0)
			goto out;
	if (a.n_fix) {
		a.fo.group_guids = !fl.by_device && selects_id(&fl, "guid-zero") &&
				   selects_id(&fl, "guid-duplicate");
		a.fo.group_names = !fl.by_device && selects_id(&fl, "name-unstable");
		struct fix_ctx x = {.c = c, .a = &a, .fl = &fl};
		struct fix_source src = {.read = fix_read_node, .keep = fix_keep, .ctx = &x};
		rc = check_fix_run(c, &a.fo, &src);
	} else {
		rc = report(c, s, !a.n_dp_files, n, &a, &fl);
	}
out:
	node_free(n);
	sys_close(s);
	free(fl.bdfs);
	free(fl.ids);
	free(a.dp_files);
	free(a.fix);
	free(a.words);
	return rc;
}
