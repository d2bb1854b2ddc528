// SPDX-License-Identifier: MIT
/* View 7, the GPU topology: the node's GPUs against its HCAs as
 * `nvidia-smi topo -m` shows them, the pods holding each GPU, and each such
 * pod's VFs with their class to its nearest GPU, the far ones in the warning
 * colour (tui/render/topo_text.c, as `ibvf list --topo`). A text to scroll. */
#include <curses.h>
#include <stdlib.h>

#include "console_int.h"
#include "screen.h"
#include "tui/render/topo_text.h"

struct topo_view {
	struct text t;
	struct listw list;
};

static void rebuild(struct console *c, struct topo_view *tv)
{
	text_clear(&tv->t);
	if (c->node)
		topo_text(&tv->t, c->node);
	listw_set_rows(&tv->list, (long)tv->t.n);
}

static enum theme_role role_of(enum text_role r)
{
	switch (r) {
	case TEXT_HEADING:
		return TR_COLUMN_HEADER;
	case TEXT_WARNING:
		return TR_WARNING;
	case TEXT_ERROR:
		return TR_ERROR;
	default:
		return TR_NORMAL;
	}
}

static void topo_draw(struct console *c, struct view *v)
{
	struct topo_view *tv = v->state;
	struct rect r = c->lay.tree;
	if (c->lay.details.h) /* the whole body: the matrix wants the width and height */
		r.h = c->lay.details.y + c->lay.details.h - r.y;
	listw_fit(&tv->list, r.h);
	for (long i = 0; i < tv->list.page && tv->list.top + i < (long)tv->t.n; i++) {
		const struct text_line *l = &tv->t.lines[tv->list.top + i];
		screen_put(r.y + (int)i, 0, r.w, l->s, screen_attr(c, role_of(l->role)));
	}
}

static void topo_node_changed(struct console *c, struct view *v)
{
	rebuild(c, v->state);
}

static void topo_enter(struct console *c, struct view *v)
{
	rebuild(c, v->state);
}

static bool topo_action(struct console *c, struct view *v, enum key_action a)
{
	(void)v;
	if (a != KA_BACK)
		return false;
	screen_view_switch(c, VIEW_TREE);
	return true;
}

static void topo_free(struct view *v)
{
	struct topo_view *tv = v->state;
	if (tv)
		text_clear(&tv->t);
	free(tv);
	v->state = NULL;
}

void view_topo_init(struct console *c, struct view *v)
{
	(void)c;
	struct topo_view *tv = calloc(1, sizeof(*tv));
	if (tv)
		tv->list.text = true;
	*v = (struct view){.name = "Topology",
			   .state = tv,
			   .list = tv ? &tv->list : NULL,
			   .action = topo_action,
			   .draw = topo_draw,
			   .enter = topo_enter,
			   .node_changed = topo_node_changed,
			   .free = topo_free};
}
