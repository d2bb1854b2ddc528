// SPDX-License-Identifier: MIT
/* Drawing: every view draws from the current snapshot and the console's own
 * state, never from the kernel. */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "console_int.h"
#include "screen.h"
#include "tui/render/rows.h"
#include "core/base/guid.h"
#include "core/snapshot/kmsg.h"
#include "core/pods/pods.h"
#include "tui/base/text.h"
#include "core/model/names.h"

void console_theme_apply(struct console *c)
{
	c->colors = !c->no_color && has_colors() && start_color() == OK;
	c->ncolors = c->colors ? COLORS : 0;
	if (!c->colors)
		return;
	use_default_colors();
	for (int i = 0; i < TR_N && i + 1 < COLOR_PAIRS; i++) {
		const struct theme_style *s = &c->theme.role[i];
		init_pair((short)(i + 1), theme_color_fit(s->fg, c->ncolors),
			  theme_color_fit(s->bg, c->ncolors));
	}
	c->dirty = true;
}

static void fill(int y, int x, int w, int attr)
{
	screen_put(y, x, w, "", attr);
}

static const char *str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* Pods holding VFs (stale checkpoint entries are not pods). */
static size_t count_pods(const struct node *n)
{
	const char *seen[256];
	size_t k = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct pod_binding *b = pods_holder(&n->pfs[i].vfs[j]);
			if (!b || !b->uid)
				continue;
			size_t m = 0;
			while (m < k && strcmp(seen[m], b->uid))
				m++;
			if (m == k && k < sizeof(seen) / sizeof(seen[0]))
				seen[k++] = b->uid;
		}
	return k;
}

static void draw_header(struct console *c)
{
	const struct node *n = c->node;
	const struct rect *h = &c->lay.header;
	size_t vfs = 0, ports = 0, active = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		vfs += n->pfs[i].n_vfs;
		for (size_t j = 0; j <= n->pfs[i].n_vfs; j++) {
			const struct fn *f = j ? &n->pfs[i].vfs[j - 1].fn : &n->pfs[i].fn;
			for (size_t k = 0; k < f->n_rdmas; k++)
				for (size_t p = 0; p < f->rdmas[k].n_ports; p++) {
					ports++;
					active += f->rdmas[k].ports[p].state.known &&
						  f->rdmas[k].ports[p].state.v == PORT_STATE_ACTIVE;
				}
		}
	}
	char clock[16], line[512];
	time_t now = time(NULL);
	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
	int hv = screen_attr(c, TR_HEADER_VALUE), hd = screen_attr(c, TR_HEADER);
	for (int y = 0; y < h->h; y++)
		fill(h->y + y, 0, h->w, hd);
	if (h->h == 1) {
		snprintf(line, sizeof(line), " %s  PFs %zu  VFs %zu  active %zu/%zu",
			 str_or(n->hostname, "?"), n->n_pfs, vfs, active, ports);
		screen_put(h->y, 0, h->w - 10, line, hv);
		screen_put(h->y, h->w - 9, 9, clock, hd);
		return;
	}
	snprintf(line, sizeof(line), " host %s  kernel %s  mlx5_core %s", str_or(n->hostname, "?"),
		 str_or(n->kernel, "?"), str_or(n->driver_version, "(in-tree)"));
	screen_put(h->y, 0, h->w - 10, line, hv);
	screen_put(h->y, h->w - 9, 9, clock, hd);
	snprintf(line, sizeof(line), " PFs %zu  VFs %zu  active ports %zu/%zu  pods %zu", n->n_pfs,
		 vfs, active, ports, count_pods(n));
	screen_put(h->y + 1, 0, h->w, line, hd);
	size_t kerr = kmsg_count_errors(n);
	if (kerr) {
		char k[64];
		snprintf(k, sizeof(k), "kernel log: %zu driver error%s (L)", kerr,
			 kerr == 1 ? "" : "s");
		int x = (int)strlen(line) + 2;
		if (x + (int)strlen(k) < h->w)
			screen_put(h->y + 1, x, (int)strlen(k), k, screen_attr(c, TR_ERROR));
	}
}

/* The row model's column (tui/render/rows.h) each of the console's shows. */
static const enum row_col col_of[TC_N] = {
	[TC_DEVICE] = RC_DEVICE, [TC_NETDEV] = RC_NETDEV, [TC_IBDEV] = RC_IBDEV,
	[TC_STATE] = RC_STATE,	 [TC_PHYS] = RC_PHYS,	  [TC_RATE] = RC_RATE,
	[TC_LINK] = RC_LINK,	 [TC_FW] = RC_FW,	  [TC_GUID] = RC_PORT_GUID,
	[TC_POD] = RC_POD,
};

/* A PF handing out VFs on Ethernet while PFs of the same device are on
 * InfiniBand: the seed's fallen-back compute port (storage ports carry no VFs). */
static bool is_fallback(const struct node *n, const struct pf *pf)
{
	const struct fn *f = pf ? &pf->fn : NULL;
	if (!f || !fn_is_eth(f) || !f->device.known || !pf->numvfs.known || pf->numvfs.v == 0)
		return false;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct fn *o = &n->pfs[i].fn;
		if (o->device.known && o->device.v == f->device.v && fn_is_ib(o))
			return true;
	}
	return false;
}

static void compact_rate(const char *rate, char *buf, size_t size)
{
	/* "400 Gb/sec (4X NDR)" -> "400G NDR" */
	double g;
	char sp[8] = "";
	if (rate && sscanf(rate, "%lf Gb/sec (%*[0-9]X %7[A-Z])", &g, sp) >= 1)
		snprintf(buf, size, "%gG %s", g, sp);
	else
		snprintf(buf, size, "%s", str_or(rate, "?"));
}

/* Whether one of the row's findings is of check id. */
static bool row_has(const struct console_mark *m, const struct console *c, const char *id)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (!strcmp(console_mark_finding(c, m, i)->id, id))
			return true;
	return false;
}

static void draw_row(struct console *c, const struct tree_row *r, int y, const struct tree_cols *tc,
		     bool selected)
{
	char cell[TC_N][96];
	enum theme_role role[TC_N];
	enum snap_field fields[TC_N] = {
		SNAP_PRESENT, SNAP_NETDEV,     SNAP_IBDEV, SNAP_PORT_STATE, SNAP_PHYS_STATE,
		SNAP_RATE,    SNAP_LINK_LAYER, SNAP_FW,	   SNAP_PORT_GUID,  SNAP_N_FIELDS};
	const struct port *p = tree_row_port(r);
	const struct fn *f = tree_row_fn(r);
	const struct console_mark *m =
		r->ghost || r->kind == ROW_PORT ? NULL : console_mark_find(c, r->bdf);
	enum theme_role base = r->ghost ? TR_GONE : r->kind != ROW_VF ? TR_PF : TR_VF;
	for (int i = 0; i < TC_N; i++)
		role[i] = base;
	char cells[RC_N][ROW_CELL_MAX];
	if (r->kind == ROW_PORT) {
		if (p)
			row_port_cells(p, cells);
		else
			memset(cells, 0, sizeof(cells));
	} else if (!r->ghost)
		row_cells(r->pf, r->kind == ROW_VF ? r->vfp : NULL, NULL, cells);
	for (int i = 0; i < TC_N; i++)
		snprintf(cell[i], sizeof(cell[0]), "%s", r->ghost ? "" : cells[col_of[i]]);
	if (r->kind == ROW_PORT) {
		snprintf(cell[TC_DEVICE], sizeof(cell[0]), "     port %u",
			 p ? p->num : r->port + 1);
		for (int i = 0; i < TC_N; i++)
			fields[i] = SNAP_N_FIELDS; /* the changes marked are the PF's port 1's */
	} else if (r->kind == ROW_PF) {
		const char *g = !r->n_children ? " "
				: r->collapsed ? (c->utf8 ? "▸" : "+")
					       : (c->utf8 ? "▾" : "-");
		snprintf(cell[TC_DEVICE], sizeof(cell[0]), "   %s %s", g, r->bdf);
	} else {
		const char *g = r->last ? (c->utf8 ? "└─" : "`-") : (c->utf8 ? "├─" : "|-");
		snprintf(cell[TC_DEVICE], sizeof(cell[0]), "   %s vf%d %s", g, r->vf, r->bdf);
	}
	if (r->ghost) {
		snprintf(cell[TC_NETDEV], sizeof(cell[0]), "%s", str_or(tree_row_netdev(r), "-"));
		snprintf(cell[TC_IBDEV], sizeof(cell[0]), "%s", str_or(tree_row_ibdev(r), "-"));
		snprintf(cell[TC_STATE], sizeof(cell[0]), "gone");
	}
	if (p && tc->compact[TC_RATE])
		compact_rate(p->rate, cell[TC_RATE], sizeof(cell[0]));
	if (tc->compact[TC_LINK])
		snprintf(cell[TC_LINK], sizeof(cell[0]), "%s",
			 port_is_ib(p)	  ? "IB"
			 : port_is_eth(p) ? "Eth"
					  : cell[TC_LINK]);
	(void)f;
	if (!r->ghost) {
		role[TC_STATE] = p ? screen_port_role(p) : base;
		role[TC_PHYS] = p && p->phys_state.known && p->phys_state.v == PORT_PHYS_LINK_UP
					? base
					: TR_WARNING;
		if (port_is_eth(p) && is_fallback(c->node, r->pf))
			role[TC_LINK] = TR_ETHERNET;
		if (row_has(m, c, "guid-zero"))
			role[TC_GUID] = TR_GUID_ZERO;
		if (row_has(m, c, "firmware-old"))
			role[TC_FW] = TR_WARNING;
	}
	int sel = screen_attr(c, TR_SELECTION);
	if (selected)
		fill(y, 0, c->lay.tree.w, sel);
	for (int i = 0; i < TC_N; i++) {
		if (!tc->shown[i])
			continue;
		int attr = selected ? sel : screen_attr(c, role[i]);
		if (fields[i] != SNAP_N_FIELDS && console_is_changed(c, r->bdf, fields[i]))
			attr = screen_attr(c, TR_CHANGED);
		screen_put(y, tc->x[i], tc->w[i], cell[i], attr);
	}
	/* The findings mark, as `ibvf list` has it: "!!" critical, "!" warning
	 * (info is no fault: the details and the Checks view list it). */
	if (m && m->max > CHECK_INFO && tc->w[TC_DEVICE] >= 2)
		screen_put(y, tc->x[TC_DEVICE], 2, console_severity_mark(m->max),
			   selected ? sel | (int)A_BOLD
				    : screen_attr(c, console_severity_role(m->max)));
}

void console_draw_tree(struct console *c)
{
	const struct rect *t = &c->lay.tree;
	struct tree_cols tc;
	layout_tree_columns(t->w, c->tree.device_w, &tc);
	int ch = screen_attr(c, TR_COLUMN_HEADER);
	fill(t->y, 0, t->w, ch);
	for (int i = 0; i < TC_N; i++)
		if (tc.shown[i])
			screen_put(t->y, tc.x[i], tc.w[i], row_headers[col_of[i]], ch);
	listw_fit(&c->tl, console_visible_rows(c));
	for (int y = 1; y < t->h; y++) {
		long row = c->tl.top + y - 1;
		if (row >= (long)c->tree.n)
			break;
		draw_row(c, &c->tree.rows[row], t->y + y, &tc, row == c->tl.sel);
	}
	if (!c->tree.n)
		screen_put(
			t->y + 1, 1, t->w - 1,
			c->tl.filter[0]
				? "nothing matches the filter (/ to change it, Esc in it restores)"
				: "no SR-IOV or RDMA PCI functions found",
			screen_attr(c, TR_WARNING));
}

static void details_draw(struct console *c, struct view *view)
{
	struct rect d = view->at;
	if (d.h < 2)
		return;
	char title[160];
	console_details_title(c, title, sizeof(title));
	screen_put(d.y, 0, d.w, title, screen_attr(c, TR_DETAILS_TITLE));
	/* As many columns as the fields need, at least 40 wide each. */
	struct dline lines[96];
	size_t n = console_details(c, lines, 96, 38);
	int rows = d.h - 1, ncols = (int)((n + (size_t)rows - 1) / (size_t)rows);
	int maxc = d.w / 40 > 4 ? 4 : d.w / 40;
	ncols = ncols > maxc ? maxc : ncols < 1 ? 1 : ncols;
	int colw = d.w / ncols, label_w = 13, value_w = colw - label_w - 2;
	n = console_details(c, lines, 96, value_w);
	size_t cap = (size_t)(d.h - 1) * (size_t)ncols;
	for (size_t i = 0; i < n && i < cap; i++) {
		int y = d.y + 1 + (int)(i % (size_t)(d.h - 1)),
		    x = (int)(i / (size_t)(d.h - 1)) * colw;
		const char *v = lines[i].value;
		char more[64];
		if (i + 1 == cap && n > cap) {
			snprintf(more, sizeof(more), "... %zu more (d: all)", n - cap + 1);
			screen_put(y, x, colw, more, screen_attr(c, TR_STATUS));
			break;
		}
		screen_put(y, x, label_w, lines[i].label, screen_attr(c, TR_DETAILS_LABEL));
		screen_put(y, x + label_w + 1, value_w, v,
			   screen_attr(c, lines[i].changed ? TR_CHANGED : lines[i].role));
	}
}

void view_details_init(struct console *c, struct view *v)
{
	(void)c;
	*v = (struct view){.name = "Details", .draw = details_draw};
}

/* When the bar is too narrow the action keys go first, Help and Quit last. */
static void draw_fkeys(struct console *c)
{
	static const struct {
		const char *key, *label;
		int keep; /* the higher, the longer it stays */
	} keys[] = {
		{"F1", "Help", 9}, {"F2", "Cmd", 8},	{"F3", "Filter", 7},
		{"F5", "Tree", 5}, {"F6", "Create", 3}, {"F7", "Rename", 2},
		{"F8", "GUID", 1}, {"F9", "Snap", 6},	{"F10", "Quit", 9},
	};
	enum {
		N_KEYS = sizeof(keys) / sizeof(keys[0])
	};
	const struct rect *f = &c->lay.fkeys;
	fill(f->y, 0, f->w, screen_attr(c, TR_FKEY_LABEL));
	int need = 0, drop = 0;
	for (size_t i = 0; i < N_KEYS; i++)
		need += (int)strlen(keys[i].key) + (int)strlen(keys[i].label) + 2;
	while (need > f->w && drop < 8) { /* Help and Quit stay */
		drop++;
		for (size_t i = 0; i < N_KEYS; i++)
			if (keys[i].keep == drop)
				need -= (int)strlen(keys[i].key) + (int)strlen(keys[i].label) + 2;
	}
	int x = 0;
	for (size_t i = 0; i < N_KEYS; i++) {
		if (keys[i].keep <= drop)
			continue;
		int kw = (int)strlen(keys[i].key), lw = (int)strlen(keys[i].label) + 2;
		if (x + kw + lw > f->w)
			break;
		screen_put(f->y, x, kw, keys[i].key, screen_attr(c, TR_FKEY));
		screen_put(f->y, x + kw, lw, keys[i].label, screen_attr(c, TR_FKEY_LABEL));
		x += kw + lw;
	}
}

static void draw_status(struct console *c)
{
	const struct rect *s = &c->lay.status;
	char line[300];
	if (c->mode == MODE_FILTER || c->mode == MODE_COMMAND) {
		snprintf(line, sizeof(line), "%s%s", c->mode == MODE_FILTER ? "/" : ":",
			 c->mode == MODE_FILTER ? c->filtering->list->filter : c->cmd);
		screen_put(s->y, 0, s->w, line, screen_attr(c, TR_PROMPT));
		int len = (int)strlen(line);
		curs_set(1);
		move(s->y, len < s->w ? len : s->w - 1);
		return;
	}
	curs_set(0);
	if (c->msg[0])
		screen_put(s->y, 0, s->w, c->msg, screen_attr(c, c->msg_role));
}

void console_draw(struct console *c)
{
	const struct layout *l = &c->lay;
	if (l->mode == LAYOUT_TOO_SMALL) {
		char m[64];
		snprintf(m, sizeof(m), "terminal too small: %dx%d, need %dx%d", l->cols, l->rows,
			 LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		mvaddnstr(l->rows / 2, 0, m, l->cols > 0 ? l->cols : 0);
		return;
	}
	draw_header(c);
	console_draw_views(c);
	struct view *v = &c->views[c->view];
	v->draw(c, v);
	draw_fkeys(c);
	draw_status(c);
	if (c->overlay) {
		curs_set(0);
		c->overlay->draw(c, c->overlay);
	}
}
