// SPDX-License-Identifier: MIT
/* The console's findings: checks_run() once per snapshot (never per frame)
 * with the renames the console saw and the recorded history's facts, an index by subject for the
 * tree's marks and the details, and a finding rendered as text for the Checks view (every string
 * escaped by text_add). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_int.h"
#include "core/history/facts.h"
#include "screen.h"
#include "tui/base/text.h"

static int by_subject_cmp(const void *a, const void *b, void *ctx)
{
	const struct findings *fs = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int r = strcmp(fs->v[x].subject, fs->v[y].subject);
	return r ? r : x < y ? -1 : x > y;
}

void console_checks_free(struct console_checks *k)
{
	findings_fini(&k->fs);
	free(k->by_subject);
	free(k->marks);
	k->by_subject = NULL;
	k->marks = NULL;
	k->n_marks = 0;
}

/* The netdev renames seen so far, as the checks take them. */
static struct name_change *renames(const struct console *c, size_t *ret_n)
{
	struct name_change *r = calloc(c->n_names ? c->n_names : 1, sizeof(*r));
	size_t n = 0;
	for (size_t i = 0; r && i < c->n_names; i++) {
		const struct console_rename *cr = &c->names[i];
		if (cr->ibdev || !cr->old[0] || !cr->new[0])
			continue; /* gone into a pod's netns, or back: no rename */
		snprintf(r[n].bdf, sizeof(r[n].bdf), "%s", cr->bdf);
		snprintf(r[n].old_name, sizeof(r[n].old_name), "%.15s", cr->old);
		snprintf(r[n].new_name, sizeof(r[n].new_name), "%.15s", cr->new);
		n++;
	}
	*ret_n = n;
	return r;
}

static void index_marks(struct console_checks *k)
{
	size_t n = k->fs.n;
	k->by_subject = malloc((n ? n : 1) * sizeof(*k->by_subject));
	k->marks = calloc(n ? n : 1, sizeof(*k->marks));
	if (!k->by_subject || !k->marks) {
		console_checks_free(k);
		return;
	}
	for (size_t i = 0; i < n; i++)
		k->by_subject[i] = i;
	qsort_r(k->by_subject, n, sizeof(*k->by_subject), by_subject_cmp, &k->fs);
	for (size_t i = 0; i < k->fs.n_problems; i++)
		k->pcounts[k->fs.problems[i].severity]++;
	for (size_t i = 0; i < n; i++) {
		const struct finding *f = &k->fs.v[k->by_subject[i]];
		k->counts[f->severity]++;
		if (!f->subject[0])
			continue;
		struct console_mark *m = k->n_marks ? &k->marks[k->n_marks - 1] : NULL;
		if (!m || strcmp(m->bdf, f->subject)) {
			m = &k->marks[k->n_marks++];
			snprintf(m->bdf, sizeof(m->bdf), "%s", f->subject);
			m->first = i;
			m->max = f->severity;
		}
		m->n++;
		m->max = f->severity > m->max ? f->severity : m->max;
	}
}

void console_checks_run(struct console *c)
{
	struct console_checks *k = &c->checks;
	double t0 = console_now();
	console_checks_free(k);
	memset(k->counts, 0, sizeof(k->counts));
	memset(k->pcounts, 0, sizeof(k->pcounts));
	if (!c->node)
		return;
	size_t nr;
	struct name_change *r = renames(c, &nr);
	struct checks_opts o = {.renames = r, .n_renames = nr};
	/* The recorded history since this boot, as `ibvf check` reads it: one
	 * read-only open per run (once per snapshot); a store that cannot be
	 * read is said once, and the checks run without it. */
	struct err e = {{0}};
	int hr = hist_facts_load(c->sys, HIST_FACTS_SINCE_BOOT, &o, &e);
	if (hr < 0 && hr != -ENOENT && !k->history_said) {
		screen_message(c, TR_ERROR, "history: %s", e.msg);
		k->history_said = true;
	}
	if (checks_run(c->node, &o, &k->fs) < 0)
		screen_message(c, TR_ERROR, "out of memory while running the checks");
	hist_facts_free(&o);
	free(r);
	index_marks(k);
	k->cost = console_now() - t0;
}

static int mark_cmp(const void *key, const void *m)
{
	return strcmp(key, ((const struct console_mark *)m)->bdf);
}

const struct console_mark *console_mark_find(const struct console *c, const char *bdf)
{
	if (!c->checks.n_marks || !bdf)
		return NULL;
	return bsearch(bdf, c->checks.marks, c->checks.n_marks, sizeof(*c->checks.marks), mark_cmp);
}

const struct finding *console_mark_finding(const struct console *c, const struct console_mark *m,
					   size_t i)
{
	return i < m->n ? &c->checks.fs.v[c->checks.by_subject[m->first + i]] : NULL;
}

const char *console_severity_mark(enum check_severity s)
{
	return s == CHECK_CRITICAL ? "!!" : s == CHECK_WARNING ? "!" : "i";
}

enum theme_role console_severity_role(enum check_severity s)
{
	return s == CHECK_CRITICAL  ? TR_CHECK_CRITICAL
	       : s == CHECK_WARNING ? TR_CHECK_WARNING
				    : TR_CHECK_INFO;
}

long console_finding_kmsg(const struct console *c, const struct finding *f)
{
	const struct node *n = c->node;
	for (size_t e = 0; n && e < f->n_evidence; e++) {
		const struct finding_evidence *ev = &f->evidence[e];
		if (strncmp(ev->where, "kernel log", 10) || !ev->value)
			continue;
		for (size_t i = 0; i < n->n_kmsg; i++)
			if (n->kmsg[i].msg && *n->kmsg[i].msg &&
			    (strstr(ev->value, n->kmsg[i].msg) ||
			     strstr(n->kmsg[i].msg, ev->value)))
				return (long)i;
	}
	return -1;
}

/* ---- a finding as text ---- */

/* The subject as people know it: "VF 0000:18:00.2 (ib0, mlx5_12)". */
static void subject_line(const struct console *c, const struct finding *f, char *buf, size_t size)
{
	if (!f->subject[0]) {
		snprintf(buf, size, "the node");
		return;
	}
	const struct fn *fn = c->node ? node_find_fn(c->node, f->subject, NULL, NULL) : NULL;
	const char *nd = fn && fn->n_netdevs ? fn->netdevs[0].name : NULL;
	const char *ib = fn && fn->n_rdmas ? fn->rdmas[0].name : NULL;
	int n = snprintf(buf, size, "%s %s", f->kind == SUBJECT_VF ? "VF" : "PF", f->subject);
	if ((nd || ib) && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " (%s%s%s)", nd ? nd : "", nd && ib ? ", " : "",
			 ib ? ib : "");
}

/* Words of s on lines of at most w columns, each indented by ind. */
static void wrap(struct text *t, enum text_role role, const char *s, int w, int ind)
{
	int max = w - ind > 20 ? w - ind : 20;
	while (s && *s) {
		int len = (int)strlen(s), cut = len;
		if (len > max) {
			cut = max;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (!cut)
				cut = max;
		}
		text_add(t, role, "%*s%.*s", ind, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

/* A command line on lines of at most w columns, broken at spaces with the
 * shell's backslash, so that what is read is what runs. */
static void wrap_cmd(struct text *t, const char *cmd, int w)
{
	int max = w - 8 > 20 ? w - 8 : 20, first = 1;
	while (*cmd) {
		int len = (int)strlen(cmd), cut = len;
		if (len > max) {
			cut = max;
			while (cut > 0 && cmd[cut] != ' ')
				cut--;
			if (!cut)
				cut = max;
		}
		text_add(t, TEXT_CHANGED, "%s%.*s%s", first ? "  $ " : "      ", cut, cmd,
			 cut < len ? " \\" : "");
		first = 0;
		cmd += cut;
		while (*cmd == ' ')
			cmd++;
	}
}

static void remedy_text(struct text *t, const struct finding_remedy *r, bool example, int w);

/* The finding as text: every string is escaped by text_add. */
void console_finding_text(const struct console *c, struct text *t, const struct finding *f, int w)
{
	char buf[1024];
	text_add(t, f->severity == CHECK_INFO ? TEXT_NORMAL : TEXT_ERROR, "%s %s  %s",
		 console_severity_mark(f->severity), check_severity_name(f->severity), f->id);
	wrap(t, TEXT_HEADING, f->title, w, 0);
	subject_line(c, f, buf, sizeof(buf));
	text_add(t, TEXT_NORMAL, "subject   %s", buf);
	text_add(t, TEXT_HEADING, "evidence");
	for (size_t i = 0; i < f->n_evidence; i++)
		wrap(t, TEXT_NORMAL,
		     (snprintf(buf, sizeof(buf), "%s: %s", f->evidence[i].where,
			       f->evidence[i].value),
		      buf),
		     w, 2);
	if (!f->n_evidence)
		text_add(t, TEXT_NORMAL, "  (none recorded)");
	if (f->cause.id) {
		snprintf(buf, sizeof(buf), "follows from %s on %s", f->cause.id,
			 f->cause.subject[0] ? f->cause.subject : "the node");
		text_add(t, TEXT_HEADING, "cause");
		wrap(t, TEXT_NORMAL, buf, w, 2);
	}
	text_add(t, TEXT_HEADING, "why");
	wrap(t, TEXT_NORMAL, f->why, w, 2);
	remedy_text(t, &f->remedy, false, w);
}

/* A problem as text: its title, its findings by check, its subjects, the
 * one remedy. */
void console_problem_text(const struct console *c, struct text *t, const struct problem *p, int w)
{
	const struct findings *fs = &c->checks.fs;
	char buf[1024];
	text_add(t, p->severity == CHECK_INFO ? TEXT_NORMAL : TEXT_ERROR, "%s %s  %s",
		 console_severity_mark(p->severity), check_severity_name(p->severity), p->check);
	wrap(t, TEXT_HEADING, p->title, w, 0);
	text_add(t, TEXT_NORMAL, "findings  %zu %s%s", p->n_members, p->check,
		 p->n_consequences ? ", and the ones it explains:" : "");
	for (size_t i = 0; i < p->n_consequences; i++) {
		const char *id = fs->v[p->consequences[i]].id;
		size_t n = 0;
		bool seen = false;
		for (size_t j = 0; j < p->n_consequences && !seen; j++) {
			seen = j < i && !strcmp(fs->v[p->consequences[j]].id, id);
			n += !strcmp(fs->v[p->consequences[j]].id, id);
		}
		if (!seen)
			text_add(t, TEXT_NORMAL, "          %zu %s", n, id);
	}
	if (p->for_each)
		text_add(t, TEXT_HEADING, "for each of them:");
	remedy_text(t, &p->remedy, p->for_each, w);
	text_add(t, TEXT_HEADING, "subjects");
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < p->n_members && len + 20 < sizeof(buf); i++) {
		const char *subj = fs->v[p->members[i]].subject;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "",
					subj[0] ? subj : "the node");
	}
	wrap(t, TEXT_NORMAL, buf, w, 2);
}

static void remedy_text(struct text *t, const struct finding_remedy *r, bool example, int w)
{
	char buf[1024];
	text_add(t, TEXT_HEADING, "remedy%s",
		 r->kind == REMEDY_IBVF	    ? " (ibvf runs it: preview, confirm, journal)"
		 : r->kind == REMEDY_MANUAL ? " (manual: ibvf never runs these)"
					    : "");
	if (r->summary)
		wrap(t, TEXT_NORMAL, r->summary, w, 2);
	if (r->kind == REMEDY_IBVF) {
		const char *argv[FINDING_STEPS_MAX + 1] = {"ibvf"};
		for (size_t i = 0; i < r->n_steps; i++)
			argv[i + 1] = r->steps[i];
		text_shell_join(buf, sizeof(buf), argv, r->n_steps + 1);
		wrap_cmd(t, buf, w);
	}
	for (size_t i = 0; r->kind == REMEDY_MANUAL && i < r->n_steps; i++) {
		snprintf(buf, sizeof(buf), "%zu. %s", i + 1, r->steps[i]);
		wrap(t, TEXT_CHANGED, buf, w, 2);
	}
	if (r->kind == REMEDY_NONE && !r->summary)
		text_add(t, TEXT_NORMAL, "  nothing to do but look");
	if (example && r->kind == REMEDY_IBVF)
		text_add(t, TEXT_NORMAL, "  (the first one's; Enter: each finding's)");
}
