// SPDX-License-Identifier: MIT
/* Rename plans: one VF's netdev and any link; every VF to its policy name
 * is actions_rename_all.c. The rules for a name are naming.h's. */
#include "actions.h"
#include "planners.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/persist/naming.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"

/* Whether name is taken on the node (a netdev or an altname), other than by
 * the link with ifindex self. The netlink dump sees every link of this
 * namespace; the model adds what it read from sysfs. */
static int name_check_free(struct sys *s, const struct node *n, const char *name, int self,
			   struct err *e)
{
	struct sys_link *links = NULL;
	size_t nl = 0;
	struct err le;
	if (sys_link_dump(s, &links, &nl, &le) == 0) {
		for (size_t i = 0; i < nl; i++) {
			const struct sys_link *l = &links[i];
			bool alt = false, hit = !strcmp(l->name, name) && l->ifindex != self;
			for (size_t j = 0; !hit && j < l->n_altnames; j++)
				hit = alt = !strcmp(l->altnames[j], name);
			if (hit) {
				int r = err_setx(e, EEXIST, "cannot use the name '%s': it is %s",
						 name,
						 alt ? "an altname of another link" : "taken");
				if (alt)
					snprintf(e->msg + strlen(e->msg),
						 sizeof(e->msg) - strlen(e->msg), " ('%s')",
						 l->name);
				sys_links_free(links, nl);
				return r;
			}
		}
		sys_links_free(links, nl);
	}
	char path[64 + SYS_IFNAMSIZ], idx[32];
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", name);
	if (sys_read_attr(s, path, idx, sizeof(idx)) > 0 && atoi(idx) != self)
		return err_setx(e, EEXIST, "cannot use the name '%s': it is taken", name);
	struct node_ref ref;
	if (!node_lookup(n, name, NODE_NAME_NETDEV | NODE_NAME_ALTNAME, &ref) &&
	    !(ref.netdev->ifindex.known && ref.netdev->ifindex.v == self))
		return err_setx(e, EEXIST, "cannot use the name '%s': it is taken by %s", name,
				ref.fn->bdf);
	return 0;
}

const char *action_kernel_of(const struct node *n, const struct action_req *req)
{
	return req->kernel[0] ? req->kernel : n->kernel;
}

static bool fn_is_up(const struct netdev *nd)
{
	return nd->flags.known && (nd->flags.v & IFF_UP);
}

int action_rename_steps(struct plan *p, const char *kernel, const char *from, const char *to,
			bool up)
{
	int r;
	if (!up || !action_kernel_older(kernel, 6, 2))
		return plan_rename(p, from, to);
	plan_note(p, "kernel %s cannot rename an up link (before 6.2): down, rename, up",
		  kernel ? kernel : "(unknown)");
	if ((r = plan_link_up(p, from, false)) < 0 || (r = plan_rename(p, from, to)) < 0)
		return r;
	return plan_link_up(p, to, true);
}

int actions_plan_rename(struct sys *s, const struct node *n, const struct action_req *req,
			struct plan *p, struct err *e)
{
	const struct pf *pf;
	const struct vf *vf;
	int r;

	/* A kernel form comes back at the next probe: only forced, an undo
	 * too (it goes through the rename's guards). */
	if ((r = naming_check(req->name, true, e)) < 0)
		return r;
	if (!req->force && naming_kernel_form(req->name))
		return err_setx(e, EINVAL,
				"cannot rename to '%s': it is a kernel name, which the next probe "
				"hands to whichever netdev comes first; --force to do it anyway",
				req->name);
	if ((r = action_resolve(n, req->target, &pf, &vf, e)) < 0)
		return r;
	if (!vf)
		return err_setx(e, EINVAL, "'%s' is a PF; ibvf vf rename renames VF netdevs",
				req->target);
	snprintf(p->subject, sizeof(p->subject), "%s", vf->fn.bdf);
	if (pods_holder(vf) && !req->force)
		return action_refuse_pod(vf, "rename it", e);
	if (!vf->fn.n_netdevs)
		return err_setx(e, ENODEV,
				"VF %u (%s) has no netdev here: no driver bound, or it moved into "
				"a pod's namespace",
				vf->index, vf->fn.bdf);
	const struct netdev *nd = &vf->fn.netdevs[0];
	snprintf(p->summary, sizeof(p->summary), "rename VF %u of %s (%s): '%s' -> '%s'", vf->index,
		 pf->fn.bdf, vf->fn.bdf, nd->name, req->name);
	if (!strcmp(nd->name, req->name))
		return 0;
	if ((r = name_check_free(s, n, req->name, nd->ifindex.known ? (int)nd->ifindex.v : -1, e)) <
	    0)
		return r;
	char who[256];
	pods_reserving(n, req->name, who, sizeof(who));
	if (who[0] && !req->force)
		return err_setx(
			e, EEXIST,
			"cannot rename VF %u of %s (%s) to '%s': it is %s; --force to do it "
			"anyway",
			vf->index, pf->fn.bdf, vf->fn.bdf, req->name, who);
	if (who[0])
		plan_note(p, "forced: '%s' is %s", req->name, who);
	struct change *c = plan_add_change(p, CHANGE_NAME);
	if (!c)
		return -ENOMEM;
	snprintf(c->bdf, sizeof(c->bdf), "%s", vf->fn.bdf);
	snprintf(c->pf, sizeof(c->pf), "%s", pf->fn.bdf);
	c->vf = vf->index;
	snprintf(c->before, sizeof(c->before), "%s", nd->name);
	snprintf(c->after, sizeof(c->after), "%s", req->name);
	return action_rename_steps(p, action_kernel_of(n, req), nd->name, req->name, fn_is_up(nd));
}

/* Any netdev, by name: the rename path without the VF around it. */
int actions_plan_link_rename(struct sys *s, const struct node *n, const struct action_req *req,
			     struct plan *p, struct err *e)
{
	struct sys_link *links = NULL, *l = NULL;
	size_t nl = 0;
	int r;

	if ((r = naming_check_ifname(req->name, e)) < 0)
		return r;
	if ((r = sys_link_dump(s, &links, &nl, e)) < 0)
		return r;
	for (size_t i = 0; i < nl && !l; i++)
		if (!strcmp(links[i].name, req->target))
			l = &links[i];
	if (!l) {
		sys_links_free(links, nl);
		return err_setx(e, ENODEV, "no link '%s'", req->target);
	}
	int ifindex = l->ifindex;
	bool up = l->flags & IFF_UP;
	sys_links_free(links, nl);
	snprintf(p->summary, sizeof(p->summary), "rename '%s' -> '%s'", req->target, req->name);
	if (!strcmp(req->target, req->name))
		return 0;
	if ((r = name_check_free(s, n, req->name, ifindex, e)) < 0)
		return r;
	struct change *c = plan_add_change(p, CHANGE_NAME);
	if (!c)
		return -ENOMEM;
	c->ifindex = ifindex;
	snprintf(c->before, sizeof(c->before), "%s", req->target);
	snprintf(c->after, sizeof(c->after), "%s", req->name);
	return action_rename_steps(p, action_kernel_of(n, req), req->target, req->name, up);
}
