// SPDX-License-Identifier: MIT
/* `ibvf check --fix`: one plan at a time, each through the `vf` path
 * (cli_action_run: plan, preview, confirm, apply, verify, journal), the
 * node read and the checks run again after each (a fix clears findings and
 * may make others). The next plan is the selected finding with an ibvf
 * remedy not tried yet whose phase comes first (remedy.h: layout, link
 * state, GUIDs, names, persist), so each one's precondition holds; a
 * finding another one explains (its cause, checks.h) waits while its cause
 * is there, so what goes with the cause is not fixed twice. A
 * finding is tried once: what was refused or failed is not tried again,
 * and plans that depend on one that failed (a later phase on the same PF;
 * persist on anything not fixed) are skipped. Manual remedies are printed,
 * never run. */
#include "check_fix.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/checks/report.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "tui/base/remedy.h"
#include "tui/base/text.h"

enum fix_state {
	FIX_DONE,    /* applied, verified, and the finding is gone */
	FIX_PLANNED, /* --dry-run: the plan was made and shown */
	FIX_REFUSED, /* the plan was refused (a pod holds the VF, bad input) */
	FIX_FAILED,  /* the apply failed, or was declined */
	FIX_REMAINS, /* applied, but the finding is still there */
	FIX_SKIPPED, /* depends on a fix that did not happen */
	FIX_STATES,
};

static const char *const fix_state_names[FIX_STATES] = {
	"fixed", "planned", "refused", "not applied", "still there", "skipped",
};

struct fix_outcome {
	char id[40];
	char subject[16];
	char pf[16];	/* the subject's PF; "" for the node */
	char argv[256]; /* the remedy's command line, to run a plan once */
	enum remedy_phase ph;
	enum fix_state st;
	unsigned int plan; /* which plan tried it (1, 2, ...) */
};

struct fix_run {
	const struct cli *c;
	const struct fix_opts *o;
	const struct fix_source *src;
	struct fix_outcome *v;
	size_t n, cap;
	unsigned int plans;
};

static struct fix_outcome *fix_find(struct fix_run *run, const struct finding *f)
{
	for (size_t i = 0; i < run->n; i++)
		if (!strcmp(run->v[i].id, f->id) && !strcmp(run->v[i].subject, f->subject))
			return &run->v[i];
	return NULL;
}

static const struct vf *finding_vf(const struct node *n, const struct finding *f,
				   const struct pf **ret_pf)
{
	struct node_ref ref;
	*ret_pf = NULL;
	if (!f->subject[0] || node_lookup(n, f->subject, NODE_NAME_BDF, &ref) < 0)
		return NULL;
	*ret_pf = ref.pf;
	return ref.vf;
}

static int fix_add(struct fix_run *run, const struct node *n, const struct finding *f,
		   enum fix_state st)
{
	if (run->n == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 32;
		void *v = realloc(run->v, cap * sizeof(*run->v));
		if (!v)
			return -ENOMEM;
		run->v = v;
		run->cap = cap;
	}
	struct fix_outcome *o = &run->v[run->n++];
	const struct pf *pf;
	finding_vf(n, f, &pf);
	*o = (struct fix_outcome){.ph = remedy_phase(&f->remedy), .st = st, .plan = run->plans};
	snprintf(o->id, sizeof(o->id), "%s", f->id);
	snprintf(o->subject, sizeof(o->subject), "%s", f->subject);
	snprintf(o->pf, sizeof(o->pf), "%s", pf ? pf->fn.bdf : "");
	text_shell_join(o->argv, sizeof(o->argv), (const char *const *)f->remedy.steps,
			f->remedy.n_steps);
	return 0;
}

/* The fix this one depends on that did not happen, or NULL: an earlier
 * phase on the same PF that failed; for persist, any GUID or name fix not
 * done (it would write down what is still wrong). */
static const struct fix_outcome *fix_blocker(const struct fix_run *run, enum remedy_phase ph,
					     const char *pf)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct fix_outcome *o = &run->v[i];
		if (o->ph >= ph || o->st == FIX_DONE || o->st == FIX_PLANNED)
			continue;
		if (ph == REMEDY_PHASE_PERSIST || (o->st == FIX_FAILED && !strcmp(o->pf, pf)))
			return o;
	}
	return NULL;
}

static bool is_group_guid(const struct finding *f)
{
	return remedy_phase(&f->remedy) == REMEDY_PHASE_GUID &&
	       (!strcmp(f->id, "guid-zero") || !strcmp(f->id, "guid-duplicate"));
}

/* Whether VF f names is held by a pod: the actions' rule (pods_holder). */
static bool finding_pod_held(const struct node *n, const struct finding *f)
{
	const struct pf *pf;
	const struct vf *vf = finding_vf(n, f, &pf);
	return vf && pods_holder(vf);
}

static void print_escaped(const char *prefix, const char *s, const char *suffix)
{
	char *q = text_escape(s ? s : "");
	printf("%s%s%s", prefix, q ? q : "?", suffix);
	free(q);
}

/* Runs one remedy the way its command does; the state it ended in. */
static enum fix_state fix_apply(struct fix_run *run, const struct finding_remedy *r)
{
	const struct fix_opts *o = run->o;
	char line[1024];
	text_shell_join(line, sizeof(line), (const char *const *)r->steps, r->n_steps);
	print_escaped("  $ ibvf ", line, "\n");
	fflush(stdout);
	int rc;
	struct act_args p;
	struct err e = {{0}};
	int r2 = remedy_request(r, o->force, &p, &e);
	if (r2 == -ENOTSUP) {
		/* persist: its own command, with the options it takes */
		const struct cmd *cmd = cmd_find(r->steps[0]);
		char *argv[FINDING_STEPS_MAX + 4];
		int argc = 0;
		for (size_t i = 0; i < r->n_steps; i++)
			argv[argc++] = r->steps[i];
		if (o->dry_run)
			argv[argc++] = (char *)"--dry-run";
		else if (o->yes)
			argv[argc++] = (char *)"--yes";
		if (o->no_wait && !o->dry_run)
			argv[argc++] = (char *)"--no-wait";
		if (o->force) /* past an operator's hold too (docs/coexistence.md) */
			argv[argc++] = (char *)"--force";
		argv[argc] = NULL;
		if (!cmd || strcmp(r->steps[0], "persist")) {
			cli_error("the remedy is neither a vf action nor persist: not run");
			return FIX_REFUSED;
		}
		rc = cmd->run(run->c, argc, argv);
	} else if (r2 < 0) {
		cli_error("%s", e.msg);
		return FIX_REFUSED;
	} else {
		p.o = (struct act_opts){
			.dry_run = o->dry_run, .yes = o->yes, .no_wait = o->no_wait};
		rc = cli_action_run(run->c, &p.o, &p.req);
	}
	fflush(stdout);
	if (rc == 0)
		return o->dry_run ? FIX_PLANNED : FIX_DONE;
	return rc == EXIT_USAGE ? FIX_REFUSED : FIX_FAILED;
}

/* A kernel-named VF's rename, which `vf rename --all` makes for every such
 * VF at once. */
static bool is_group_name(const struct finding *f)
{
	const struct finding_remedy *r = &f->remedy;
	return !strcmp(f->id, "name-unstable") && r->kind == REMEDY_IBVF && r->n_steps >= 3 &&
	       !strcmp(r->steps[0], "vf") && !strcmp(r->steps[1], "rename");
}

/* The findings one plan fixes on many VFs: one confirmation, one journal
 * entry, one undo. */
struct fix_group {
	bool (*member)(const struct finding *f);
	size_t wanted; /* offsetof the fix_opts flag that asks for it */
	enum remedy_phase ph;
	const char *argv[4];
	const char *what;
};

static const struct fix_group groups[] = {
	{is_group_guid,
	 offsetof(struct fix_opts, group_guids),
	 REMEDY_PHASE_GUID,
	 {"vf", "guid", "--assign-all", NULL},
	 "guid-zero and guid-duplicate on %zu VFs, in one plan: a GUID of its own for each"},
	{is_group_name,
	 offsetof(struct fix_opts, group_names),
	 REMEDY_PHASE_NAME,
	 {"vf", "rename", "--all", NULL},
	 "name-unstable on %zu kernel-named VFs, in one plan: each to its predictable name"},
};

/* Whether fs->v[i]'s subject is a VF the group plan covers. */
static bool in_group(const struct fix_run *run, const struct node *n, const struct fix_group *g,
		     const struct findings *fs, size_t i)
{
	return g->member(&fs->v[i]) && (run->o->force || !finding_pod_held(n, &fs->v[i]));
}

/* One plan for the group's findings on VFs no pod holds. Every finding of
 * the group's phase on those VFs is counted to it, but one its cause
 * explains (a zero GUID's port down): that one goes with its cause. */
static int fix_group_run(struct fix_run *run, const struct node *n, const struct fix_group *g,
			 const struct findings *fs)
{
	size_t k = 0;
	for (size_t i = 0; i < fs->n; i++)
		k += in_group(run, n, g, fs, i) && !fix_find(run, &fs->v[i]);
	if (k < 2)
		return 0;
	struct finding_remedy r = {.kind = REMEDY_IBVF};
	for (; g->argv[r.n_steps]; r.n_steps++)
		r.steps[r.n_steps] = (char *)g->argv[r.n_steps];
	printf("\nfix %u (%s): ", run->plans, remedy_phase_name(g->ph));
	printf(g->what, k);
	printf("\n");
	enum fix_state st = fix_apply(run, &r);
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		bool covered = false;
		for (size_t j = 0; j < fs->n && !covered; j++)
			covered =
				in_group(run, n, g, fs, j) && !strcmp(fs->v[j].subject, f->subject);
		if (covered && remedy_phase(&f->remedy) == g->ph && !fix_find(run, f) &&
		    !findings_find(fs, &f->cause) && fix_add(run, n, f, st) < 0)
			return -ENOMEM;
	}
	return 1;
}

/* An earlier try of the same command line (port-down's remedy is its VF's
 * guid-zero one): not run twice. */
static const struct fix_outcome *fix_same_plan(const struct fix_run *run, const struct finding *f)
{
	char line[256];
	text_shell_join(line, sizeof(line), (const char *const *)f->remedy.steps,
			f->remedy.n_steps);
	for (size_t i = 0; i < run->n; i++)
		if (!strcmp(run->v[i].argv, line))
			return &run->v[i];
	return NULL;
}

/* Whether a --dry-run showed a plan that was not applied. */
static bool fix_planned_before(const struct fix_run *run)
{
	for (size_t i = 0; i < run->n; i++)
		if (run->v[i].st == FIX_PLANNED)
			return true;
	return false;
}

/* Tries the next finding: 1 when one was tried, 0 when none is left. */
static int fix_next(struct fix_run *run, const struct node *n, const struct findings *fs)
{
	const struct finding *best = NULL;
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		if (f->remedy.kind != REMEDY_IBVF || fix_find(run, f))
			continue;
		/* Causes first: a finding another explains waits for it (the
		 * checks run again after each plan: it may be gone then). */
		if (findings_find(fs, &f->cause))
			continue;
		if (!best || remedy_phase(&f->remedy) < remedy_phase(&best->remedy))
			best = f;
	}
	if (!best)
		return 0;
	/* The same command as an earlier fix (persist for many findings, a
	 * port's GUID remedy its VF's): counted to that fix, not run again. */
	const struct fix_outcome *same = fix_same_plan(run, best);
	if (same) {
		/* fix_add() may move run->v: what is needed of same, first */
		enum fix_state st = same->st == FIX_DONE ? FIX_REMAINS : same->st;
		unsigned int plan = same->plan;
		if (fix_add(run, n, best, st) < 0)
			return -ENOMEM;
		run->v[run->n - 1].plan = plan;
		return 1;
	}
	run->plans++;
	enum remedy_phase ph = remedy_phase(&best->remedy);
	const struct pf *pf;
	finding_vf(n, best, &pf);
	const struct fix_outcome *dep = fix_blocker(run, ph, pf ? pf->fn.bdf : "");
	for (size_t g = 0; !dep && g < sizeof(groups) / sizeof(*groups); g++) {
		const bool *wanted = (const bool *)((const char *)run->o + groups[g].wanted);
		if (!*wanted || ph != groups[g].ph || !groups[g].member(best))
			continue;
		int r = fix_group_run(run, n, &groups[g], fs);
		if (r != 0)
			return r < 0 ? r : 1;
	}
	printf("\nfix %u (%s): %s %s: ", run->plans, remedy_phase_name(ph), best->id,
	       best->subject[0] ? best->subject : "node");
	print_escaped("", best->remedy.summary, "\n");
	enum fix_state st;
	if (!dep && run->o->dry_run && ph == REMEDY_PHASE_PERSIST && fix_planned_before(run)) {
		/* Its plan is made from the node the fixes above leave: shown when
		 * they are applied, not now. */
		printf("  planned last: persist writes the .link files and the boot unit from the "
		       "node the fixes above leave (its plan is made then)\n");
		st = FIX_PLANNED;
	} else if (dep) {
		printf("  skipped: it depends on %s %s, which was %s\n", dep->id,
		       dep->subject[0] ? dep->subject : "node", fix_state_names[dep->st]);
		st = FIX_SKIPPED;
	} else {
		st = fix_apply(run, &best->remedy);
	}
	return fix_add(run, n, best, st) < 0 ? -ENOMEM : 1;
}

/* After a plan ran, its findings still there are not fixed. */
static void fix_mark_remaining(struct fix_run *run, const struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		struct fix_outcome *o = fix_find(run, &fs->v[i]);
		/* Still there with a remedy of a later phase (a VF renamed to its
		 * name, which persist pins next): its own fix did its part. */
		if (o && o->plan == run->plans && o->st == FIX_DONE &&
		    remedy_phase(&fs->v[i].remedy) <= o->ph)
			o->st = FIX_REMAINS;
	}
}

static void print_manual(const struct findings *fs)
{
	size_t k = 0;
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		if (f->remedy.kind != REMEDY_MANUAL)
			continue;
		if (!k++)
			printf("\nmanual remedies: ibvf does not run these, the operator does\n");
		printf("  %s %s  [%s]\n", check_severity_name(f->severity),
		       f->subject[0] ? f->subject : "node", f->id);
		print_escaped("    ", f->title, "\n");
		if (findings_find(fs, &f->cause))
			printf("    follows from %s on %s: fix that first\n", f->cause.id,
			       f->cause.subject[0] ? f->cause.subject : "the node");
		print_escaped("    fix: ", f->remedy.summary, "\n");
		for (size_t j = 0; j < f->remedy.n_steps; j++) {
			char num[32];
			snprintf(num, sizeof(num), "      %zu. ", j + 1);
			print_escaped(num, f->remedy.steps[j], "\n");
		}
	}
}

/* The findings with an ibvf remedy left to their cause, still there. */
static void print_waiting(const struct fix_run *run, const struct findings *fs)
{
	size_t k = 0;
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		if (f->remedy.kind != REMEDY_IBVF || fix_find((struct fix_run *)run, f) ||
		    !findings_find(fs, &f->cause))
			continue;
		if (!k++)
			printf("\nleft to their causes (not tried while the cause is there):\n");
		printf("  %s %s  follows from %s on %s\n", f->id,
		       f->subject[0] ? f->subject : "node", f->cause.id,
		       f->cause.subject[0] ? f->cause.subject : "the node");
	}
}

static void print_summary(const struct fix_run *run)
{
	size_t counts[FIX_STATES] = {0};
	for (size_t i = 0; i < run->n; i++)
		counts[run->v[i].st]++;
	printf("\n%zu finding%s tried in %u fix%s:", run->n, run->n == 1 ? "" : "s", run->plans,
	       run->plans == 1 ? "" : "es");
	bool any = false;
	for (int s = 0; s < FIX_STATES; s++)
		if (counts[s]) {
			printf("%s %zu %s", any ? "," : "", counts[s], fix_state_names[s]);
			any = true;
		}
	printf("%s\n", any ? "" : " none");
	for (size_t i = 0; i < run->n; i++)
		if (run->v[i].st != FIX_DONE && run->v[i].st != FIX_PLANNED)
			printf("  %-11s %s %s\n", fix_state_names[run->v[i].st], run->v[i].id,
			       run->v[i].subject[0] ? run->v[i].subject : "node");
}

/* The node and its selected findings, as `check` shows them. */
static int fix_read(struct fix_run *run, struct node **ret_n, struct findings *ret_fs)
{
	struct node *n;
	if (run->src->read(run->src->ctx, &n) < 0)
		return -1;
	*ret_fs = (struct findings){0};
	if (checks_run(n, NULL, ret_fs) < 0) {
		cli_error("cannot run the checks: out of memory");
		node_free(n);
		return -1;
	}
	if (findings_select(ret_fs, run->src->keep, run->src->ctx) < 0) {
		cli_error("cannot run the checks: out of memory");
		findings_fini(ret_fs);
		node_free(n);
		return -1;
	}
	*ret_n = n;
	return 0;
}

int check_fix_run(const struct cli *c, const struct fix_opts *o, const struct fix_source *src)
{
	struct fix_run run = {.c = c, .o = o, .src = src};
	int rc = EXIT_UNKNOWN;
	for (bool first = true;; first = false) {
		struct node *n;
		struct findings fs;
		if (fix_read(&run, &n, &fs) < 0)
			break;
		if (!o->dry_run)
			fix_mark_remaining(&run, &fs);
		bool fixable = false;
		for (size_t i = 0; i < fs.n && !fixable; i++)
			fixable = fs.v[i].remedy.kind == REMEDY_IBVF;
		if (first && fixable && !o->yes && !o->dry_run && !isatty(STDIN_FILENO)) {
			cli_error(
				"refusing to change the node without confirmation: standard input "
				"is not a terminal (pass --yes, or --dry-run to see the plans)");
			findings_fini(&fs);
			node_free(n);
			break;
		}
		int r = fix_next(&run, n, &fs);
		if (r <= 0) {
			if (r == 0) {
				print_manual(&fs);
				print_waiting(&run, &fs);
				print_summary(&run);
				rc = 0;
				for (size_t i = 0; i < run.n; i++)
					if (run.v[i].st != FIX_DONE && run.v[i].st != FIX_PLANNED)
						rc = 1;
			} else {
				cli_error("out of memory");
			}
		}
		findings_fini(&fs);
		node_free(n);
		if (r <= 0)
			break;
	}
	free(run.v);
	if (fflush(stdout) != 0)
		rc = EXIT_UNKNOWN;
	return rc;
}
