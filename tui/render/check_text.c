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
