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
#include "core/checks/checks.h"
#include "core/checks/report.h"
#include "core/pods/devplugin.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"

struct check_args {
	enum check_severity min;
	bool list;
	char **words; /* check ids and devices, as typed */
	int n_words;
	const char **dp_files; /* --dp-config, in order */
	int n_dp_files;
	const char **fix; /* --fix ID|all, as typed */
	int n_fix;
	struct fix_opts fo; /* --yes, --dry-run, --force */
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

static int parse_args(int argc, char **argv, struct check_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i], *v = NULL;
		if (!strcmp(s, "--list")) {
			a->list = true;
		} else if (!strcmp(s, "--severity") || !strncmp(s, "--severity=", 11)) {
			v = s[10] ? s + 11 : i + 1 < argc ? argv[++i] : NULL;
			if (!v) {
				cli_error("option '--severity' needs a value (info, warning, "
					  "critical)");
				return -1;
			}
			if (check_severity_parse(v, &a->min) < 0) {
				cli_error("unknown severity '%s' (info, warning, critical)", v);
				return -1;
			}
		} else if (!strcmp(s, "--dp-config") || !strncmp(s, "--dp-config=", 12)) {
			v = s[11] ? s + 12 : i + 1 < argc ? argv[++i] : NULL;
			if (!v || !*v) {
				cli_error("option '--dp-config' needs a file (a device plugin's "
					  "config.json)");
				return -1;
			}
			a->dp_files[a->n_dp_files++] = v;
		} else if (!strcmp(s, "--fix") || !strncmp(s, "--fix=", 6)) {
			v = s[5] ? s + 6 : i + 1 < argc ? argv[++i] : NULL;
			if (!v || !*v) {
				cli_error("option '--fix' needs a check id or 'all'");
				return -1;
			}
			a->fix[a->n_fix++] = v;
		} else if (!strcmp(s, "--yes") || !strcmp(s, "-y")) {
			a->fo.yes = true;
		} else if (!strcmp(s, "--dry-run")) {
			a->fo.dry_run = true;
		} else if (!strcmp(s, "--force") || !strcmp(s, "-f")) {
			a->fo.force = true;
		} else if (!strcmp(s, "--no-wait")) {
			a->fo.no_wait = true;
		} else if (s[0] == '-' && s[1]) {
			cli_error("unknown option '%s' (see 'ibvf check --help')", s);
			return -1;
		} else {
			a->words[a->n_words++] = argv[i];
		}
	}
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

/* Runs the checks, keeps what the filter selects (with what reaches a
 * device named), prints it; the exit status from what was printed. */
static int report(const struct cli *c, const struct node *n, struct check_filter *fl)
{
	struct findings fs;
	if (checks_run(n, NULL, &fs) < 0) {
		cli_error("cannot run the checks: out of memory");
		return EXIT_UNKNOWN;
	}
	fl->reach = n;
	findings_select(&fs, keep, fl);
	struct json_object *o = checks_report_json(&fs, n);
	enum check_severity max = findings_max_severity(&fs);
	findings_fini(&fs);
	if (!o) {
		cli_error("cannot render the findings: out of memory");
		return EXIT_UNKNOWN;
	}
	if (c->json)
		cli_print_json(o);
	else
		text_render_print(stdout, o, check_text);
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
			       .fix = calloc((size_t)argc, sizeof(char *))};
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
		rc = report(c, n, &fl);
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
