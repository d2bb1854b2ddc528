// SPDX-License-Identifier: MIT
/* `ibvf list`: the PF -> VF tree as aligned text, or the model as JSON. The
 * text is rendered from the JSON (core/snapshot/json.c) so both show the same facts. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/render/check_text.h"
#include "tui/base/cli.h"
#include "core/checks/checks.h"
#include "core/checks/report.h"
#include "core/snapshot/json.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "tui/base/text.h"
#include "tui/render/rows.h"
#include "tui/render/topo_text.h"

enum pod_col {
	PCOL_POD,
	PCOL_UID,
	PCOL_VF,
	PCOL_PF,
	PCOL_GPU,
	PCOL_CONTAINER,
	PCOL_RESOURCE,
	PCOL_NETWORK,
	PCOL_IFNAME,
	PCOL_STATE,
	PCOL_NETNS,
	PCOL_SOURCES,
	N_PCOLS,
};

static const char *const pod_headers[N_PCOLS] = {
	"POD",	    "UID",     "VF",	    "PF",    "NEAREST GPU", "CONTAINER",
	"RESOURCE", "NETWORK", "IF IN POD", "STATE", "NETNS",	    "SOURCES",
};

#define MAX_COLS 16

struct table {
	const char *const *headers;
	int first, n_cols; /* the columns printed: first .. n_cols - 1 */
	char *(*cells)[MAX_COLS];
	size_t n, cap;
	bool hidden[MAX_COLS]; /* dropped to fit the terminal */
	int fit;	       /* columns to fit in; 0: print them all */
};

static char **table_row(struct table *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		void *nc = realloc(t->cells, cap * sizeof(*t->cells));
		if (!nc)
			return NULL;
		t->cells = nc;
		t->cap = cap;
	}
	memset(t->cells[t->n], 0, sizeof(t->cells[t->n]));
	return t->cells[t->n++];
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	if (o)
		json_object_object_get_ex(o, key, &v);
	return v;
}

/* "!!" for a critical finding on the function, "!" for a warning, else "". */
static char *mark(struct json_object *fn)
{
	struct json_object *a = get(fn, "findings");
	int worst = -1;
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		enum check_severity s;
		struct json_object *f = json_object_array_get_idx(a, i);
		if (check_severity_parse(json_object_get_string(get(f, "severity")), &s) == 0 &&
		    (int)s > worst)
			worst = (int)s;
	}
	return strdup(worst == CHECK_CRITICAL ? "!!" : worst == CHECK_WARNING ? "!" : "");
}

static const char *str_or(struct json_object *o, const char *key, const char *dflt)
{
	struct json_object *v = get(o, key);
	return v ? json_object_get_string(v) : dflt;
}

/* The pod as core labels it (pods_label: "namespace/name", "(stale)" marked). */
static char *pod_label(struct json_object *pod)
{
	return strdup(pod ? str_or(pod, "label", "?") : "-");
}

/* The tree's columns (tui/render/rows.h) after the findings mark. */
#define COL_MARK 0
#define N_COLS	 (RC_N + 1)
static const char *tree_headers[N_COLS];

static int row_add(struct table *t, const struct pf *pf, const struct vf *vf,
		   const struct rdma *orphan, const char *glyph, struct json_object *fn_json)
{
	char cells[RC_N][ROW_CELL_MAX];
	char **row = table_row(t);
	if (!row)
		return -1;
	row_cells(pf, vf, orphan, cells);
	row[COL_MARK] = fn_json ? mark(fn_json) : strdup("");
	for (int k = 0; k < RC_N; k++) {
		if (k == RC_DEVICE && glyph) {
			char dev[ROW_CELL_MAX + 16];
			snprintf(dev, sizeof(dev), "%s %.*s", glyph, ROW_CELL_MAX - 1, cells[k]);
			row[1 + k] = strdup(dev);
		} else {
			row[1 + k] = strdup(cells[k]);
		}
	}
	return 0;
}

/* A row for each port of rd after the first (the device's row shows the
 * first): a dual-port HCA shows both. */
static int add_port_rows(struct table *t, const struct rdma *rd)
{
	for (size_t i = 1; rd && i < rd->n_ports; i++) {
		char cells[RC_N][ROW_CELL_MAX];
		char **row = table_row(t);
		if (!row)
			return -1;
		row_port_cells(&rd->ports[i], cells);
		row[COL_MARK] = strdup("");
		for (int k = 0; k < RC_N; k++) {
			char dev[ROW_CELL_MAX + 8];
			snprintf(dev, sizeof(dev), "  %.*s", ROW_CELL_MAX - 1, cells[k]);
			row[1 + k] = strdup(k == RC_DEVICE ? dev : cells[k]);
		}
	}
	return 0;
}

/* A PF, its ports after the first, and its VFs; pf_json is the same PF in
 * the node's JSON, whose findings give the marks (the JSON lists PFs and
 * VFs in the model's order). */
static void add_pf_rows(struct table *t, const struct pf *pf, struct json_object *pf_json)
{
	if (row_add(t, pf, NULL, NULL, NULL, pf_json) < 0 || add_port_rows(t, fn_rdma(&pf->fn)) < 0)
		return;
	struct json_object *vfa = get(pf_json, "vfs");
	for (size_t i = 0; i < pf->n_vfs; i++) {
		struct json_object *vj = vfa && i < json_object_array_length(vfa)
						 ? json_object_array_get_idx(vfa, i)
						 : NULL;
		if (row_add(t, pf, &pf->vfs[i], NULL, i + 1 == pf->n_vfs ? "└─" : "├─", vj) < 0)
			return;
	}
}

/* Display width of a UTF-8 string (the tree glyphs are one column each). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Every cell as it may reach a terminal: control characters escaped. */
static void table_escape(struct table *t)
{
	for (size_t r = 0; r < t->n; r++)
		for (int c = 0; c < t->n_cols; c++) {
			char *e = t->cells[r][c] ? text_escape(t->cells[r][c]) : NULL;
			free(t->cells[r][c]);
			t->cells[r][c] = e;
		}
}

/* The tree's columns a terminal drops first when the table is wider than
 * it (`list --wide` keeps them all; so does output that is no terminal). */
static const enum row_col drop_order[] = {
	RC_NODE_GUID, RC_DRIVER, RC_FW, RC_VFS, RC_PHYS, RC_RATE, RC_LINK, RC_IBDEV,
};

static void table_print(FILE *f, struct table *t)
{
	size_t w[MAX_COLS], total = 0;
	int last = t->n_cols - 1;
	table_escape(t);
	for (int c = t->first; c < t->n_cols; c++) {
		w[c] = width(t->headers[c]);
		for (size_t r = 0; r < t->n; r++)
			if (t->cells[r][c] && width(t->cells[r][c]) > w[c])
				w[c] = width(t->cells[r][c]);
		total += w[c] + 2;
	}
	for (size_t k = 0;
	     t->fit && k < sizeof(drop_order) / sizeof(*drop_order) && total > (size_t)t->fit;
	     k++) {
		int c = 1 + (int)drop_order[k];
		if (c < t->first || c >= t->n_cols)
			continue;
		t->hidden[c] = true;
		total -= w[c] + 2;
	}
	while (last > t->first && t->hidden[last])
		last--;
	for (size_t r = 0; r <= t->n; r++) {
		for (int c = t->first; c <= last; c++) {
			const char *s = r == 0 ? t->headers[c] : t->cells[r - 1][c];
			s = s ? s : "";
			if (t->hidden[c])
				continue;
			bool rest = false; /* a cell after this one has text: pad */
			for (int d = c + 1; d <= last && !rest; d++) {
				const char *x = r == 0 ? t->headers[d] : t->cells[r - 1][d];
				rest = !t->hidden[d] && x && *x;
			}
			if (c == last || !rest) {
				fprintf(f, "%s\n", s);
				break;
			}
			fprintf(f, "%s%*s  ", s, (int)(w[c] - width(s)), "");
		}
	}
}

static void table_free(struct table *t)
{
	for (size_t r = 0; r < t->n; r++)
		for (int c = 0; c < t->n_cols; c++)
			free(t->cells[r][c]);
	free(t->cells);
}

static void print_strings(FILE *f, struct json_object *node, const char *key, const char *label)
{
	struct json_object *a = get(node, key);
	size_t n = a ? json_object_array_length(a) : 0;
	for (size_t i = 0; i < n; i++) {
		char *s = text_escape(json_object_get_string(json_object_array_get_idx(a, i)));
		fprintf(f, "%s: %s\n", label, s ? s : "?");
		free(s);
	}
}

/* The host line, its names escaped. */
static void print_host(FILE *f, struct json_object *node)
{
	struct json_object *drv = get(node, "driver_version");
	char *h = text_escape(str_or(node, "host", "?")),
	     *k = text_escape(str_or(node, "kernel", "?")),
	     *d = text_escape(drv ? json_object_get_string(drv) : "(in-tree or not loaded)");
	fprintf(f, "host %s  kernel %s  mlx5_core %s\n", h ? h : "?", k ? k : "?", d ? d : "?");
	free(h);
	free(k);
	free(d);
}

/* "15 critical, 2 warnings: run `ibvf check`", when there are any. */
static void print_findings_footer(FILE *f, struct json_object *node)
{
	struct json_object *c = get(node, "counts");
	int64_t crit = json_object_get_int64(get(c, "critical")),
		warn = json_object_get_int64(get(c, "warning"));
	if (crit || warn)
		fprintf(f, "%lld critical, %lld warning%s: run `ibvf check`\n", (long long)crit,
			(long long)warn, warn == 1 ? "" : "s");
}

void list_print_text(FILE *f, const struct node *n, struct json_object *node, int fit)
{
	print_host(f, node);
	print_strings(f, node, "kmsg_errors", "kernel log");

	tree_headers[COL_MARK] = "";
	for (int k = 0; k < RC_N; k++)
		tree_headers[1 + k] = row_headers[k];
	struct table t = {.headers = tree_headers, .first = COL_MARK, .n_cols = N_COLS, .fit = fit};
	struct json_object *pfs = get(node, "pfs");
	for (size_t i = 0; i < n->n_pfs; i++)
		add_pf_rows(&t, &n->pfs[i],
			    pfs && i < json_object_array_length(pfs)
				    ? json_object_array_get_idx(pfs, i)
				    : NULL);
	for (size_t i = 0; i < n->n_orphans; i++)
		if (row_add(&t, NULL, NULL, &n->orphans[i], NULL, NULL) < 0 ||
		    add_port_rows(&t, &n->orphans[i]) < 0)
			break;
	t.first = COL_MARK + 1; /* the marks' column only when a row has one */
	for (size_t r = 0; r < t.n; r++)
		if (t.cells[r][COL_MARK] && t.cells[r][COL_MARK][0])
			t.first = COL_MARK;
	if (t.n)
		table_print(f, &t);
	else
		fputs("no SR-IOV or RDMA PCI functions found\n", f);
	table_free(&t);
	print_strings(f, node, "notes", "note");
	print_findings_footer(f, node);
}

/* "multus,ib-sriov,checkpoint" */
static char *sources_cell(struct json_object *v)
{
	struct json_object *a = get(v, "sources");
	char buf[128] = "";
	size_t n = a ? json_object_array_length(a) : 0;
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "",
			 json_object_get_string(json_object_array_get_idx(a, i)));
	return strdup(n ? buf : "-");
}

/* The interface's state read inside the pod, or why it could not be. */
static char *in_pod_state(struct json_object *v)
{
	struct json_object *nif = get(v, "in_pod");
	if (!nif)
		return strdup("-");
	struct json_object *e = get(nif, "error");
	if (e) {
		char *s;
		return asprintf(&s, "(%s)", json_object_get_string(e)) < 0 ? NULL : s;
	}
	return strdup(str_or(nif, "operstate", "?"));
}

/* The in-pod name read over netlink when there is one, else the caches'. */
static char *in_pod_ifname(struct json_object *v)
{
	struct json_object *nif = get(v, "in_pod");
	const char *name = str_or(nif, "ifname", NULL);
	return strdup(name ? name : str_or(v, "ifname", "?"));
}

/* "GPU3 PIX": the nearest of the pod's GPUs and the PCIe class to it. */
static char *gpu_cell(struct json_object *g)
{
	char *s;
	if (!g)
		return strdup("-");
	return asprintf(&s, "GPU%d %s", json_object_get_int(get(g, "index")),
			str_or(g, "class", "?")) < 0
		       ? NULL
		       : s;
}

/* "GPUs GPU0 (0000:1b:00.0, NVIDIA H200), GPU1 …": a pod's GPUs, one line. */
static void print_pod_gpus(FILE *f, struct json_object *pod)
{
	struct json_object *a = get(pod, "gpus");
	size_t n = a ? json_object_array_length(a) : 0;
	if (!n)
		return;
	char *label = text_escape(str_or(pod, "label", "?"));
	fprintf(f, "pod %s holds %zu GPU%s:", label ? label : "?", n, n == 1 ? "" : "s");
	free(label);
	for (size_t i = 0; i < n; i++) {
		struct json_object *g = json_object_array_get_idx(a, i);
		char *id = text_escape(str_or(g, "id", "?"));
		if (get(g, "index"))
			fprintf(f, " GPU%d (%s)", json_object_get_int(get(g, "index")),
				str_or(g, "bdf", "?"));
		else
			fprintf(f, " %s (not a GPU of this node)", id ? id : "?");
		free(id);
	}
	fputc('\n', f);
}

static void add_pod_rows(struct table *t, struct json_object *pod)
{
	struct json_object *vfs = get(pod, "vfs");
	size_t n = vfs ? json_object_array_length(vfs) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(vfs, i);
		char **row = table_row(t);
		if (!row)
			return;
		if (i == 0) {
			row[PCOL_POD] = pod_label(pod);
			row[PCOL_UID] = strdup(str_or(pod, "uid", "?"));
		}
		row[PCOL_VF] = strdup(str_or(v, "bdf", "?"));
		struct json_object *pf = get(v, "pf");
		char *s = NULL;
		if (pf && asprintf(&s, "%s vf%d", json_object_get_string(pf),
				   json_object_get_int(get(v, "index"))) < 0)
			s = NULL;
		row[PCOL_PF] = pf ? s : strdup("(not on this node)");
		row[PCOL_GPU] = gpu_cell(get(v, "gpu"));
		row[PCOL_CONTAINER] = strdup(str_or(v, "container", "?"));
		row[PCOL_RESOURCE] = strdup(str_or(v, "resource", "?"));
		row[PCOL_NETWORK] = strdup(str_or(v, "network", "?"));
		row[PCOL_IFNAME] = in_pod_ifname(v);
		row[PCOL_STATE] = in_pod_state(v);
		row[PCOL_NETNS] = strdup(str_or(v, "netns", "?"));
		row[PCOL_SOURCES] = sources_cell(v);
	}
}

void list_print_pods_text(FILE *f, struct json_object *pods)
{
	struct table t = {.headers = pod_headers, .n_cols = N_PCOLS};
	struct json_object *a = get(pods, "pods");
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		add_pod_rows(&t, json_object_array_get_idx(a, i));
	if (t.n)
		table_print(f, &t);
	else
		fputs("no pod holds a VF on this node\n", f);
	table_free(&t);
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		print_pod_gpus(f, json_object_array_get_idx(a, i));
	print_strings(f, pods, "notes", "note");
}

/* The checks' findings on the node's JSON (each function's, the node's). */
static int list_add_findings(struct json_object *o, const struct node *n)
{
	struct findings fs;
	int r = checks_run(n, NULL, &fs);
	if (r == 0)
		r = checks_decorate_node_json(o, &fs);
	findings_fini(&fs);
	return r;
}

enum {
	LIST_O_PODS = 1,
	LIST_O_WIDE,
	LIST_O_TOPO,
};

const struct opt list_options[] = {
	{OPT_BOOL("pods", 0, LIST_O_PODS,
		  "the pods instead: each pod with the VFs it holds, the interface "
		  "and its state inside the pod, and where the binding was found")},
	{OPT_BOOL("topo", 0, LIST_O_TOPO,
		  "the GPUs and HCAs instead, as nvidia-smi topo -m shows them: the PCIe "
		  "class between each GPU and each HCA (PIX, PXB, PHB, NODE, SYS), the pods "
		  "holding each GPU, and each such pod's VFs with their class to its "
		  "nearest GPU (with --json: the list's JSON, whose gpus, pod_gpus and each "
		  "held VF's gpu carry the same)")},
	{OPT_BOOL("wide", 0, LIST_O_WIDE,
		  "every column, however wide; without it a terminal gets the "
		  "columns that fit its width (node GUID, driver, firmware, VF "
		  "count, physical state, rate, link layer, RDMA device dropped in "
		  "that order); a pipe or file always gets every column")},
	{OPT_TABLE_END},
};

int cmd_list(const struct cli *c, int argc, char **argv)
{
	struct opts p;
	bool pods = false, wide = false, topo = false;
	int id;
	if (opts_parse(cmd_find("list"), argc, argv, &p) < 0)
		return EXIT_USAGE;
	while ((id = opts_next(&p, NULL)))
		*(id == LIST_O_PODS ? &pods : id == LIST_O_TOPO ? &topo : &wide) = true;
	if (pods && topo) {
		cli_error("list: --pods and --topo are two views: give one");
		return EXIT_USAGE;
	}
	if (p.n_pos)
		return cli_bad_arg("list", p.pos[0]);
	struct sys *s;
	if (cli_open(c, &s) < 0)
		return 1;
	struct node *n;
	struct err e = {{0}};
	if (node_discover(s, &n, &e) < 0) {
		cli_error("%s", e.msg);
		sys_close(s);
		return 1;
	}
	if (topo && !c->json) {
		struct text t = {0};
		topo_text(&t, n);
		text_print(stdout, &t);
		text_clear(&t);
		node_free(n);
		sys_close(s);
		return 0;
	}
	struct json_object *o = pods ? node_pods_to_json(n) : node_to_json(n);
	if (o && !pods && list_add_findings(o, n) < 0) {
		json_object_put(o);
		o = NULL;
	}
	if (!o) {
		cli_error("cannot render the node: out of memory");
		node_free(n);
		sys_close(s);
		return 1;
	}
	if (c->json)
		cli_print_json_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	else if (pods)
		list_print_pods_text(stdout, o);
	else
		list_print_text(stdout, n, o, wide ? 0 : cli_terminal_width());
	json_object_put(o);
	node_free(n);
	sys_close(s);
	return fflush(stdout) == 0 ? 0 : 1;
}
