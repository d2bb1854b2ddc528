// SPDX-License-Identifier: MIT
/* `ibvf check` rendered from its JSON (check_text.h). */
#include "check_text.h"

#include <stdlib.h>
#include <string.h>

/* "ibvf vf guid 0000:18:00.1 --node ..." from the remedy's argv, each word
 * quoted for the shell as plans' lines are (text_shell_join). */
static char *ibvf_command(struct json_object *argv)
{
	size_t n = json_object_array_length(argv);
	const char **w = calloc(n + 1, sizeof(*w));
	char *line = malloc(4096);
	if (!w || !line) {
		free(w);
		free(line);
		return NULL;
	}
	w[0] = "ibvf";
	for (size_t i = 0; i < n; i++)
		w[i + 1] = json_object_get_string(json_object_array_get_idx(argv, i));
	text_shell_join(line, 4096, w, n + 1);
	free(w);
	return line;
}

static void remedy(struct text *out, struct json_object *r)
{
	const char *kind = text_jstr(r, "kind") ?: "none";
	if (!strcmp(kind, "none"))
		return;
	text_add(out, TEXT_NORMAL, "    fix: %s", text_jstr(r, "summary") ?: "");
	if (!strcmp(kind, "ibvf")) {
		struct json_object *argv = text_jarr(r, "argv");
		char *cmd = argv ? ibvf_command(argv) : NULL;
		if (cmd)
			text_add(out, TEXT_CHANGED, "      $ %s", cmd);
		else
			out->truncated = true;
		free(cmd);
		return;
	}
	struct json_object *steps = text_jarr(r, "steps");
	for (size_t i = 0; steps && i < json_object_array_length(steps); i++)
		text_add(out, TEXT_NORMAL, "      %zu. %s", i + 1,
			 json_object_get_string(json_object_array_get_idx(steps, i)));
}

static enum text_role severity_role(const char *sev)
{
	return !strcmp(sev, "critical")	 ? TEXT_ERROR
	       : !strcmp(sev, "warning") ? TEXT_WARNING
					 : TEXT_NORMAL;
}

/* "0000:18:00.1 (ib0, mlx5_12)", "0000:18:00.2", "node". */
static void subject(char *buf, size_t size, struct json_object *f)
{
	const char *bdf = text_jstr(f, "subject"), *nd = text_jstr(f, "netdev"),
		   *ib = text_jstr(f, "ibdev");
	if (!bdf)
		snprintf(buf, size, "node");
	else if (nd || ib)
		snprintf(buf, size, "%s (%s%s%s)", bdf, nd ? nd : "", nd && ib ? ", " : "",
			 ib ? ib : "");
	else
		snprintf(buf, size, "%s", bdf);
}

static void finding(struct text *out, struct json_object *f)
{
	const char *sev = text_jstr(f, "severity") ?: "?";
	char subj[128];
	subject(subj, sizeof(subj), f);
	text_add(out, severity_role(sev), "  %-8s %s  [%s]", sev, subj, text_jstr(f, "id") ?: "?");
	text_add(out, TEXT_NORMAL, "    %s", text_jstr(f, "title") ?: "");
	struct json_object *ev = text_jarr(f, "evidence");
	for (size_t i = 0; ev && i < json_object_array_length(ev); i++) {
		struct json_object *e = json_object_array_get_idx(ev, i);
		text_add(out, TEXT_NORMAL, "    %s: %s", text_jstr(e, "where") ?: "?",
			 text_jstr(e, "value") ?: "?");
	}
	struct json_object *cb;
	if (json_object_object_get_ex(f, "caused_by", &cb) && cb)
		text_add(out, TEXT_NORMAL, "    follows from: %s on %s",
			 text_jstr(cb, "check") ?: "?", text_jstr(cb, "subject") ?: "the node");
	if (text_jstr(f, "why"))
		text_add(out, TEXT_NORMAL, "    why: %s", text_jstr(f, "why"));
	struct json_object *r;
	if (json_object_object_get_ex(f, "remedy", &r))
		remedy(out, r);
}

void check_text_counts(char *buf, size_t size, struct json_object *counts)
{
	long long c = text_jint(counts, "critical"), w = text_jint(counts, "warning"),
		  i = text_jint(counts, "info");
	snprintf(buf, size, "%lld critical, %lld warning%s, %lld info", c, w, w == 1 ? "" : "s", i);
}

void check_text(struct text *out, struct json_object *report)
{
	static const char *const order[] = {"critical", "warning", "info"};
	struct json_object *fs = text_jarr(report, "findings"), *counts = NULL;
	size_t n = fs ? json_object_array_length(fs) : 0;
	text_add(out, TEXT_HEADING, "host %s  kernel %s  mlx5_core %s",
		 text_jstr(report, "host") ?: "?", text_jstr(report, "kernel") ?: "?",
		 text_jstr(report, "driver_version") ?: "(in-tree or not loaded)");
	json_object_object_get_ex(report, "counts", &counts);
	for (size_t s = 0; s < 3; s++) {
		long long c = text_jint(counts, order[s]);
		if (!c)
			continue;
		text_add(out, TEXT_NORMAL, "%s", "");
		text_add(out, TEXT_HEADING, "%s (%lld)", order[s], c);
		for (size_t i = 0; i < n; i++) {
			struct json_object *f = json_object_array_get_idx(fs, i);
			if (!strcmp(text_jstr(f, "severity") ?: "", order[s]))
				finding(out, f);
		}
	}
	if (text_jint(report, "dropped"))
		text_add(out, TEXT_WARNING, "%lld more findings not listed (too many)",
			 (long long)text_jint(report, "dropped"));
	char line[128];
	check_text_counts(line, sizeof(line), counts);
	text_add(out, TEXT_NORMAL, "%s", "");
	if (n)
		text_add(out, TEXT_HEADING, "%s", line);
	else
		text_add(out, TEXT_OK, "no findings");
}

/* s cut to at most cols characters (UTF-8 sequences kept whole), "…" at
 * the cut; cols 0: whole. */
static void fit(char *buf, size_t size, const char *s, size_t cols)
{
	size_t chars = 0, i = 0, cut = 0;
	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++chars == cols)
			cut = i;
	if (!cols || chars <= cols) {
		snprintf(buf, size, "%s", s);
		return;
	}
	snprintf(buf, size, "%.*s…", (int)cut, s); /* cols - 1 characters, then the mark */
}

/* "18:00.1" from "0000:18:00.1". */
static const char *short_bdf(const char *bdf)
{
	return bdf && !strncmp(bdf, "0000:", 5) ? bdf + 5 : bdf;
}

static struct json_object *finding_at(struct json_object *fs, struct json_object *idx, size_t i)
{
	return json_object_array_get_idx(
		fs, (size_t)json_object_get_int64(json_object_array_get_idx(idx, i)));
}

/* "explains 15 port-down", "explains probe-failed on 18:00.2": what the
 * problem's consequences are, by check. */
static void consequences(char *buf, size_t size, struct json_object *fs, struct json_object *p)
{
	struct json_object *idx = text_jarr(p, "findings");
	size_t n = idx ? json_object_array_length(idx) : 0;
	size_t nc = (size_t)text_jint(p, "consequences"), first = n - (nc <= n ? nc : n);
	*buf = 0;
	if (!nc)
		return;
	snprintf(buf, size, "explains");
	for (size_t i = first; i < n; i++) {
		const char *id = text_jstr(finding_at(fs, idx, i), "id") ?: "?";
		size_t count = 0;
		bool seen = false;
		for (size_t j = first; j < n && !seen; j++) {
			bool same = !strcmp(text_jstr(finding_at(fs, idx, j), "id") ?: "?", id);
			seen = same && j < i;
			count += same;
		}
		if (seen)
			continue;
		size_t len = strlen(buf);
		if (count == 1)
			snprintf(buf + len, size - len, "%s %s on %s", i > first ? "," : "", id,
				 short_bdf(text_jstr(finding_at(fs, idx, i), "subject"))
					 ?: "the node");
		else
			snprintf(buf + len, size - len, "%s %zu %s", i > first ? "," : "", count,
				 id);
	}
}

/* The second line of a problem: the findings it explains, and a group's
 * one remedy (a single finding's is in --verbose). */
static void problem_more(char *line, size_t size, struct json_object *fs, struct json_object *p)
{
	struct json_object *r = NULL, *idx = text_jarr(p, "findings");
	consequences(line, size, fs, p);
	json_object_object_get_ex(p, "remedy", &r);
	size_t len = strlen(line);
	if (!idx || json_object_array_length(idx) < 2 || !r)
		return;
	if (text_jbool(p, "for_each")) {
		snprintf(line + len, size - len, "%sfix each: %s", len ? " · " : "",
			 text_jstr(r, "summary") ?: "?");
		return;
	}
	struct json_object *argv = text_jarr(r, "argv");
	char *cmd = argv && !strcmp(text_jstr(r, "kind") ?: "", "ibvf") ? ibvf_command(argv) : NULL;
	if (cmd)
		snprintf(line + len, size - len, "%sfix: %s", len ? " · " : "", cmd);
	free(cmd);
}

void check_text_problems(struct text *out, struct json_object *report, size_t width)
{
	struct json_object *fs = text_jarr(report, "findings"), *ps = text_jarr(report, "problems");
	size_t n = fs ? json_object_array_length(fs) : 0;
	size_t np = ps ? json_object_array_length(ps) : 0;
	size_t sev[3] = {0};
	char line[1024], cut[1024];
	text_add(out, TEXT_HEADING, "host %s  kernel %s  mlx5_core %s",
		 text_jstr(report, "host") ?: "?", text_jstr(report, "kernel") ?: "?",
		 text_jstr(report, "driver_version") ?: "(in-tree or not loaded)");
	for (size_t i = 0; i < np; i++) {
		struct json_object *p = json_object_array_get_idx(ps, i);
		const char *s = text_jstr(p, "severity") ?: "?";
		sev[!strcmp(s, "critical") ? 2 : !strcmp(s, "warning") ? 1 : 0]++;
		fit(cut, sizeof(cut), text_jstr(p, "title") ?: "", width > 10 ? width - 10 : 0);
		text_add(out, severity_role(s), "%-8s  %s", s, cut);
		problem_more(line, sizeof(line), fs, p);
		if (*line) {
			fit(cut, sizeof(cut), line, width > 12 ? width - 12 : 0);
			text_add(out, TEXT_NORMAL, "          ↳ %s", cut);
		}
	}
	if (text_jint(report, "dropped"))
		text_add(out, TEXT_WARNING, "%lld more findings not listed (too many)",
			 (long long)text_jint(report, "dropped"));
	if (!n) {
		text_add(out, TEXT_OK, "no findings");
		return;
	}
	snprintf(line, sizeof(line), "%zu problem%s (%zu finding%s):", np, np == 1 ? "" : "s", n,
		 n == 1 ? "" : "s");
	static const char *const names[] = {"info", "warning", "critical"};
	bool any = false;
	for (int s = 2; s >= 0; s--)
		if (sev[s]) {
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s %zu %s",
				 any ? "," : "", sev[s], names[s]);
			any = true;
		}
	snprintf(line + strlen(line), sizeof(line) - strlen(line), " · all: ibvf check --verbose");
	text_add(out, TEXT_HEADING, "%s", line);
}

void check_text_table(struct text *out, struct json_object *table)
{
	size_t n = table ? json_object_array_length(table) : 0, w = 2;
	for (size_t i = 0; i < n; i++) {
		const char *id = text_jstr(json_object_array_get_idx(table, i), "id") ?: "";
		w = strlen(id) > w ? strlen(id) : w;
	}
	text_add(out, TEXT_HEADING, "%-*s  %-8s  %s", (int)w, "ID", "SEVERITY", "TITLE");
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(table, i);
		text_add(out, TEXT_NORMAL, "%-*s  %-8s  %s", (int)w, text_jstr(c, "id") ?: "",
			 text_jstr(c, "severity") ?: "", text_jstr(c, "title") ?: "");
	}
}
