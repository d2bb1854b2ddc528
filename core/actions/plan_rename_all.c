// SPDX-License-Identifier: MIT
/* rename-all: every VF to its policy name (naming.h), or back to the names
 * a rename-all's journal entry replaced, as one plan. Names that move
 * between the renamed VFs are ordered so that each target is free when its
 * step runs; a cycle (a swap) goes through a temporary name. */
#include "core/base/escape.h"
#include "actions.h"
#include "planners.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "core/persist/naming.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "core/model/names.h"

/* Skip notes kept in the plan; past them one note counts the rest. */
#define SKIP_NOTES_MAX (PLAN_NOTES_MAX - 4)

struct move {
	const struct pf *pf;
	const struct vf *vf;
	char from[SYS_IFNAMSIZ], cur[SYS_IFNAMSIZ], to[SYS_IFNAMSIZ];
	bool up, done;
};

struct rename_all {
	struct move *m;
	size_t n, skipped, already, unnoted;
	char (*want)[SYS_IFNAMSIZ]; /* per VF in node order; "" = not asked */
	char (*why)[200];	    /* per VF: why the policy has no name for it */
	struct sys_link *links;
	size_t n_links;
};

static void skip(struct rename_all *ra, struct plan *p, const struct vf *vf, const char *why)
{
	ra->skipped++;
	if (ra->skipped > SKIP_NOTES_MAX) {
		ra->unnoted++;
		return;
	}
	plan_note(p, "skipped VF %u (%s): %s", vf->index, vf->fn.bdf, why);
}

/* Who other than the renamed VFs holds name: "" when nobody. */
static void taken_by(const struct rename_all *ra, struct sys *s, const struct node *n,
		     const char *name, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < ra->n_links; i++) {
		const struct sys_link *l = &ra->links[i];
		bool moving = false;
		for (size_t k = 0; k < ra->n && !moving; k++)
			moving = !strcmp(ra->m[k].from, l->name);
		if (!strcmp(l->name, name) && !moving) {
			snprintf(buf, size, "the netdev '%s' (not renamed by this plan)", name);
			return;
		}
		for (size_t j = 0; j < l->n_altnames; j++)
			if (!strcmp(l->altnames[j], name)) {
				/* The kernel refuses a rename to any name in use, the
				 * link's own altnames too. */
				snprintf(buf, size,
					 "an altname of '%s' (drop it first: ip link property del "
					 "dev %s altname %s)",
					 l->name, escape_word_or(l->name, "<netdev>"),
					 escape_word_or(name, "<altname>"));
				return;
			}
	}
	bool moving = false;
	for (size_t k = 0; k < ra->n && !moving; k++)
		moving = !strcmp(ra->m[k].from, name);
	struct node_ref ref;
	if (!moving && !node_lookup(n, name, NODE_NAME_NETDEV | NODE_NAME_ALTNAME, &ref)) {
		snprintf(buf, size, "the netdev of %s (not renamed by this plan)", ref.fn->bdf);
		return;
	}
	char path[64 + SYS_IFNAMSIZ], idx[32];
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", name);
	if (!moving && sys_read_attr(s, path, idx, sizeof(idx)) > 0) {
		snprintf(buf, size, "the netdev '%s' (not renamed by this plan)", name);
		return;
	}
}

/* The names asked for, from the policy. */
static int want_policy(struct rename_all *ra, const struct node *n, const struct action_req *req,
		       struct err *e)
{
	struct naming_entry *v;
	size_t nv;
	int r = naming_node(n, req->scheme, &v, &nv, e);
	if (r < 0)
		return r;
	for (size_t k = 0; k < nv; k++) {
		snprintf(ra->want[k], sizeof(ra->want[k]), "%s", v[k].name);
		snprintf(ra->why[k], sizeof(ra->why[k]), "%.199s", v[k].error);
	}
	free(v);
	return 0;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

/* The names asked for, from a rename-all's journal entry: the names before. */
static int want_journal(struct rename_all *ra, struct sys *s, const struct node *n, long long id,
			struct err *e)
{
	struct json_object *entries, *ent = NULL, *changes;
	int r = journal_read(s, &entries, NULL, e);
	if (r < 0)
		return r;
	if ((r = journal_find(entries, id, &ent, e)) < 0) {
		json_object_put(entries);
		return r;
	}
	if (action_kind_from_string(jstr(ent, "action")) != ACTION_RENAME_ALL ||
	    !json_object_object_get_ex(ent, "changes", &changes) || !changes) {
		json_object_put(entries);
		return err_setx(e, ENOENT, "no rename-all journal entry %lld", id);
	}
	for (size_t i = 0; r == 0 && i < json_object_array_length(changes); i++) {
		struct json_object *c = json_object_array_get_idx(changes, i);
		const char *bdf = jstr(c, "bdf"), *before = jstr(c, "before");
		if (strcmp(jstr(c, "kind") ?: "", "name") || !bdf)
			continue;
		if (!before) {
			r = err_setx(e, EOPNOTSUPP,
				     "journal entry %lld: %s's name before is unknown", id, bdf);
			break;
		}
		struct err ce;
		if (naming_check(before, true, &ce) < 0) {
			r = err_setx(e, EINVAL, "journal entry %lld, %s: %s", id, bdf, ce.msg);
			break;
		}
		size_t k = 0;
		bool found = false;
		for (size_t a = 0; a < n->n_pfs && !found; a++)
			for (size_t b = 0; b < n->pfs[a].n_vfs && !found; b++, k++)
				found = !strcmp(n->pfs[a].vfs[b].fn.bdf, bdf);
		if (!found)
			r = err_setx(e, ENODEV, "journal entry %lld: VF %s is gone from the node",
				     id, bdf);
		else
			snprintf(ra->want[k - 1], sizeof(ra->want[0]), "%s", before);
	}
	json_object_put(entries);
	return r;
}

/* Which VFs move, which are skipped and why. */
static int choose(struct rename_all *ra, const struct node *n, const struct action_req *req,
		  struct plan *p, struct err *e)
{
	size_t k = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++, k++) {
			const struct pf *pf = &n->pfs[i];
			const struct vf *vf = &pf->vfs[j];
			const struct pod_binding *b = pods_holder(vf);
			char who[128];
			if (!ra->want[k][0] && !ra->why[k][0])
				continue;
			if (b && !req->force) {
				if (req->undo_of)
					return action_refuse_pod(vf, "rename it back", e);
				char why[200];
				pods_label(b, who, sizeof(who));
				snprintf(why, sizeof(why),
					 "bound to pod '%s' (--force to include it)", who);
				skip(ra, p, vf, why);
				continue;
			}
			if (!vf->fn.n_netdevs) {
				skip(ra, p, vf,
				     b ? "its netdev is in the pod's namespace"
				       : "no netdev on the host (no driver bound?)");
				continue;
			}
			if (ra->why[k][0])
				return err_setx(e, EINVAL, "%s", ra->why[k]);
			const struct netdev *nd = &vf->fn.netdevs[0];
			if (b) {
				pods_label(b, who, sizeof(who));
				plan_note(p, "VF %u (%s) is bound to pod '%s': forced", vf->index,
					  vf->fn.bdf, who);
			}
			if (!strcmp(nd->name, ra->want[k])) {
				ra->already++;
				continue;
			}
			struct move *m = &ra->m[ra->n++];
			*m = (struct move){.pf = pf, .vf = vf};
			snprintf(m->from, sizeof(m->from), "%s", nd->name);
			snprintf(m->cur, sizeof(m->cur), "%s", nd->name);
			snprintf(m->to, sizeof(m->to), "%s", ra->want[k]);
			m->up = nd->flags.known && (nd->flags.v & IFF_UP);
		}
	if (ra->unnoted)
		plan_note(p, "and %zu more VFs skipped", ra->unnoted);
	return 0;
}

/* Every target free of anything this plan does not move, and told apart.
 * An undo may give back a name a pod's VF will want (the collision was
 * there before): a note, not a refusal. */
static int check_targets(const struct rename_all *ra, struct sys *s, const struct node *n,
			 bool undo, bool force, struct plan *p, struct err *e)
{
	char who[256];
	for (size_t i = 0; i < ra->n; i++) {
		const struct move *m = &ra->m[i];
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ra->m[j].to, m->to))
				return err_setx(e, EEXIST, "VFs %s and %s would both be named '%s'",
						ra->m[j].vf->fn.bdf, m->vf->fn.bdf, m->to);
		taken_by(ra, s, n, m->to, who, sizeof(who));
		if (!who[0])
			pods_reserving(n, m->to, who, sizeof(who));
		/* An undo goes through the same guard as the rename: a name a
		 * pod's VF gets back only with --force (then a note says so). */
		if (who[0] && force && strstr(who, "gets back")) {
			plan_note(p, "forced: '%s' for VF %s is %s", m->to, m->vf->fn.bdf, who);
			continue;
		}
		if (who[0])
			return err_setx(e, EEXIST,
					"cannot rename VF %u of %s (%s) to '%s': it is %s; rename "
					"that first%s%s",
					m->vf->index, m->pf->fn.bdf, m->vf->fn.bdf, m->to, who,
					undo ? "" : " or choose another --scheme",
					strstr(who, "gets back") ? ", or --force" : "");
	}
	return 0;
}

/* Whether a move still pending holds name now. */
static bool held(const struct rename_all *ra, const char *name)
{
	for (size_t i = 0; i < ra->n; i++)
		if (!ra->m[i].done && !strcmp(ra->m[i].cur, name))
			return true;
	return false;
}

static int temp_name(const struct rename_all *ra, struct sys *s, const struct node *n,
		     char ret[SYS_IFNAMSIZ])
{
	char who[256];
	for (unsigned int t = 0; t < 1000; t++) {
		bool used = false;
		snprintf(ret, SYS_IFNAMSIZ, "ibvftmp%u", t);
		for (size_t i = 0; i < ra->n && !used; i++)
			used = !strcmp(ra->m[i].to, ret) || !strcmp(ra->m[i].cur, ret) ||
			       !strcmp(ra->m[i].from, ret);
		if (!used)
			taken_by(ra, s, n, ret, who, sizeof(who));
		if (!used && !who[0])
			pods_reserving(n, ret, who, sizeof(who));
		if (!used && !who[0])
			return 0;
	}
	return -EEXIST;
}

/* The steps: each move once its target is free; a cycle through a
 * temporary name. */
static int order(struct rename_all *ra, struct sys *s, const struct node *n, const char *kernel,
		 struct plan *p, struct err *e)
{
	size_t left = ra->n;
	int r;
	while (left) {
		bool progressed = false;
		for (size_t i = 0; i < ra->n; i++) {
			struct move *m = &ra->m[i];
			if (m->done || held(ra, m->to))
				continue;
			if ((r = action_rename_steps(p, kernel, m->cur, m->to, m->up)) < 0)
				return r;
			m->done = progressed = true;
			left--;
		}
		if (progressed || !left)
			continue;
		struct move *m = NULL;
		for (size_t i = 0; i < ra->n && !m; i++)
			if (!ra->m[i].done)
				m = &ra->m[i];
		char tmp[SYS_IFNAMSIZ];
		if (temp_name(ra, s, n, tmp) < 0)
			return err_setx(e, EEXIST,
					"no free temporary name to break a cycle of "
					"renames");
		plan_note(p,
			  "'%s' (VF %s) goes through the temporary name '%s': the names "
			  "move in a cycle",
			  m->cur, m->vf->fn.bdf, tmp);
		if ((r = action_rename_steps(p, kernel, m->cur, tmp, m->up)) < 0)
			return r;
		snprintf(m->cur, sizeof(m->cur), "%s", tmp);
	}
	return 0;
}

static int add_changes(const struct rename_all *ra, struct plan *p)
{
	for (size_t i = 0; i < ra->n; i++) {
		const struct move *m = &ra->m[i];
		struct change *c = plan_add_change(p, CHANGE_NAME);
		if (!c)
			return -ENOMEM;
		snprintf(c->bdf, sizeof(c->bdf), "%s", m->vf->fn.bdf);
		snprintf(c->pf, sizeof(c->pf), "%s", m->pf->fn.bdf);
		c->vf = m->vf->index;
		snprintf(c->before, sizeof(c->before), "%s", m->from);
		snprintf(c->after, sizeof(c->after), "%s", m->to);
	}
	return 0;
}

int actions_plan_rename_all(struct sys *s, const struct node *n, const struct action_req *req,
			    struct plan *p, struct err *e)
{
	struct rename_all ra = {0};
	size_t total = 0;
	int r;

	snprintf(p->subject, sizeof(p->subject), "%s", n->hostname ? n->hostname : "node");
	for (size_t i = 0; i < n->n_pfs; i++)
		total += n->pfs[i].n_vfs;
	ra.m = calloc(total + 1, sizeof(*ra.m));
	ra.want = calloc(total + 1, sizeof(*ra.want));
	ra.why = calloc(total + 1, sizeof(*ra.why));
	if (!ra.m || !ra.want || !ra.why) {
		r = -ENOMEM;
		goto out;
	}
	r = req->undo_of ? want_journal(&ra, s, n, req->undo_of, e) : want_policy(&ra, n, req, e);
	if (r < 0 || (r = choose(&ra, n, req, p, e)) < 0)
		goto out;
	const char *scheme = req->scheme[0] ? req->scheme : NAMING_DEFAULT_SCHEME;
	if (req->undo_of)
		snprintf(p->summary, sizeof(p->summary),
			 "%zu VF%s renamed back to their names before journal entry %lld, %zu "
			 "skipped",
			 ra.n, ra.n == 1 ? "" : "s", req->undo_of, ra.skipped);
	else
		snprintf(p->summary, sizeof(p->summary),
			 "%zu VF%s renamed to scheme '%s', %zu already so named, %zu skipped", ra.n,
			 ra.n == 1 ? "" : "s", scheme, ra.already, ra.skipped);
	if (!ra.n)
		goto out;
	struct err le;
	if (sys_link_dump(s, &ra.links, &ra.n_links, &le) < 0) {
		ra.links = NULL;
		ra.n_links = 0;
	}
	if ((r = check_targets(&ra, s, n, req->undo_of != 0, req->force, p, e)) < 0 ||
	    (r = order(&ra, s, n, action_kernel_of(n, req), p, e)) < 0 ||
	    (r = add_changes(&ra, p)) < 0)
		goto out;
	plan_note(p, "a rename breaks whatever refers to the old name (scripts, configs); "
		     "'ibvf persist' pins the new names with .link files");
out:
	sys_links_free(ra.links, ra.n_links);
	free(ra.m);
	free(ra.want);
	free(ra.why);
	return r;
}
