// SPDX-License-Identifier: MIT
/* GUID plans: one VF's node/port GUID, and --assign-all (the scheme is
 * documented in actions.h). A new GUID is set administratively (MLNX_OFED's
 * sriov/<vf>/ files where present, else netlink on the PF), takes effect at
 * the VF's unbind + bind, and the rebind's new kernel name is undone. */
#include "core/persist/naming.h"
#include "actions.h"
#include "planners.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/actions/refuse_operator.h"
#include "core/pods/operators.h"
#include "core/pods/pods.h"

/* A GUID in use on the node and who uses it. */
struct used {
	uint64_t guid;
	const char *bdf;
	const char *what;
	bool pf; /* a PF's: burnt in its firmware, never the one to change */
};

struct used_set {
	struct used *v;
	size_t n;
};

static int used_add(struct used_set *u, struct kguid g, const char *bdf, const char *what)
{
	if (!g.known || g.v == 0)
		return 0;
	struct used *nv = realloc(u->v, (u->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	u->v = nv;
	u->v[u->n++] = (struct used){g.v, bdf, what, false};
	return 0;
}

static int used_add_fn(struct used_set *u, const struct fn *f)
{
	int r = 0;
	for (size_t i = 0; r == 0 && i < f->n_rdmas; i++) {
		r = used_add(u, f->rdmas[i].node_guid, f->bdf, "node GUID");
		for (size_t j = 0; r == 0 && j < f->rdmas[i].n_ports; j++)
			r = used_add(u, f->rdmas[i].ports[j].port_guid, f->bdf, "port GUID");
	}
	return r;
}

/* Every GUID on the node: PFs' and VFs' in effect and administrative. */
static int used_collect(const struct node *n, struct used_set *u)
{
	int r = 0;
	for (size_t i = 0; r == 0 && i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		size_t from = u->n;
		r = used_add_fn(u, &pf->fn);
		for (size_t k = from; k < u->n; k++)
			u->v[k].pf = true;
		for (size_t j = 0; r == 0 && j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			const char *b = vf->fn.bdf;
			if ((r = used_add_fn(u, &vf->fn)) < 0 ||
			    (r = used_add(u, vf->node_guid, b, "node GUID")) < 0 ||
			    (r = used_add(u, vf->port_guid, b, "port GUID")) < 0 ||
			    (r = used_add(u, vf->admin.node_guid, b, "administrative node GUID")) <
				    0 ||
			    (r = used_add(u, vf->admin.port_guid, b, "administrative port GUID")) <
				    0)
				break;
		}
	}
	return r;
}

/* Who else (another function than self) uses g; NULL when nobody. */
static const struct used *used_by_other(const struct used_set *u, uint64_t g, const char *self)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].guid == g && strcmp(u->v[i].bdf, self))
			return &u->v[i];
	return NULL;
}

/* Who holds g before self, in the guid-duplicate check's order (a PF, or
 * a function with a lower PCI address): the later holder is the one to fix,
 * the first keeps its GUID. */
static const struct used *used_before(const struct used_set *u, uint64_t g, const char *self)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].guid == g && strcmp(u->v[i].bdf, self) &&
		    (u->v[i].pf || strcmp(u->v[i].bdf, self) < 0))
			return &u->v[i];
	return NULL;
}

static int check_guid(const struct used_set *u, uint64_t g, const char *self, struct err *e)
{
	char t[GUID_STRLEN];
	guid_format_sysfs(g, t);
	const char *why = guid_unassignable(g);
	if (why)
		return err_setx(e, EINVAL, "invalid GUID %s: %s", t, why);
	const struct used *o = used_by_other(u, g, self);
	if (o)
		return err_setx(e, EEXIST, "GUID %s is already in use on this node: the %s of %s",
				t, o->what, o->bdf);
	return 0;
}

static void add_guid_change(struct plan *p, const struct pf *pf, const struct vf *vf,
			    enum change_kind kind, struct kguid before, uint64_t after)
{
	struct change *c = plan_add_change(p, kind);
	if (!c)
		return;
	snprintf(c->bdf, sizeof(c->bdf), "%s", vf->fn.bdf);
	snprintf(c->pf, sizeof(c->pf), "%s", pf->fn.bdf);
	c->vf = vf->index;
	if (before.known)
		guid_format_sysfs(before.v, c->before);
	guid_format_sysfs(after, c->after);
}

static unsigned int timeout_of(const struct action_req *req)
{
	return req->timeout_s ? req->timeout_s : ACTION_TIMEOUT_S;
}

/* The steps that give one VF its GUIDs (set_node/set_port) and make them
 * take effect. */
static int guid_steps(struct plan *p, const struct node *n, const struct pf *pf,
		      const struct vf *vf, const uint64_t *node, const uint64_t *port,
		      const struct action_req *req, struct err *e)
{
	const char *driver = vf->fn.driver;
	if (!driver && pf->fn.driver && !strcmp(pf->fn.driver, "mlx5_core"))
		driver = "mlx5_core";
	if (!driver)
		return err_setx(e, ENODEV,
				"VF %u (%s) has no driver to rebind for the GUID to "
				"take effect",
				vf->index, vf->fn.bdf);
	if (!vf->admin.mofed && !pf->fn.n_netdevs)
		return err_setx(e, ENODEV, "PF %s has no netdev to set VF GUIDs on", pf->fn.bdf);

	const uint64_t *want[2] = {node, port};
	for (int k = 0; k < 2; k++) {
		if (!want[k])
			continue;
		int r;
		if (vf->admin.mofed) {
			char path[128], v[GUID_STRLEN], g[GUID_STRLEN], desc[128];
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov/%u/%s",
				 pf->fn.bdf, vf->index, k ? "port" : "node");
			guid_format_colon(*want[k], v); /* the form the file takes */
			guid_format_sysfs(*want[k], g);
			snprintf(desc, sizeof(desc),
				 "set the %s GUID of VF %u to %s (MLNX_OFED sriov file: it "
				 "takes the colon form)",
				 k ? "port" : "node", vf->index, g);
			r = plan_write(p, path, v, desc);
		} else {
			r = plan_vf_guid(p, pf->fn.netdevs[0].name, vf->index,
					 k ? SYS_GUID_PORT : SYS_GUID_NODE, *want[k]);
		}
		if (r < 0)
			return r;
	}
	add_guid_change(p, pf, vf, CHANGE_NODE_GUID, vf->node_guid, node ? *node : 0);
	if (!node)
		p->n_changes--;
	add_guid_change(p, pf, vf, CHANGE_PORT_GUID, vf->port_guid, port ? *port : 0);
	if (!port)
		p->n_changes--;

	int r = 0;
	if (vf->fn.driver)
		r = plan_unbind(p, vf->fn.driver, vf->fn.bdf);
	if (r == 0)
		r = plan_bind(p, driver, vf->fn.bdf);
	if (r == 0)
		r = plan_wait_netdev(p, vf->fn.bdf, pf->fn.n_rdmas > 0, timeout_of(req));
	if (r == 0 && vf->fn.n_netdevs)
		r = plan_rename_fn(
			p, vf->fn.bdf, vf->fn.netdevs[0].name,
			action_kernel_older(req->kernel[0] ? req->kernel : n->kernel, 6, 2));
	p->destructive = true;
	return r;
}

int actions_plan_guid(struct sys *s, const struct node *n, const struct action_req *req,
		      struct plan *p, struct err *e)
{
	const struct pf *pf;
	const struct vf *vf;
	struct used_set u = {0};
	int r;

	if (!req->set_node && !req->set_port)
		return err_setx(e, EINVAL, "give --node GUID, --port GUID or both");
	if ((r = action_resolve(n, req->target, &pf, &vf, e)) < 0)
		return r;
	if (!vf)
		return err_setx(e, EINVAL, "'%s' is a PF; GUIDs are set per VF", req->target);
	if (fn_is_eth(&pf->fn))
		return err_setx(e, EOPNOTSUPP,
				"cannot set the GUIDs of VF %s: its PF %s runs Ethernet, and VF "
				"GUIDs are InfiniBand's (the driver refuses them)",
				vf->fn.bdf, pf->fn.bdf);
	snprintf(p->subject, sizeof(p->subject), "%s", vf->fn.bdf);
	if ((r = used_collect(n, &u)) < 0)
		return err_set(e, -r, "cannot collect the node's GUIDs");
	if ((req->set_node && (r = check_guid(&u, req->node_guid, vf->fn.bdf, e)) < 0) ||
	    (req->set_port && (r = check_guid(&u, req->port_guid, vf->fn.bdf, e)) < 0)) {
		free(u.v);
		return r;
	}
	free(u.v);
	if (pods_holder(vf) && !req->force)
		return action_refuse_pod(vf, "change its GUIDs (the rebind cuts the pod's link)",
					 e);
	if ((r = action_refuse_operator(n, pf, ACTION_GUID, req->force, "change the VF's GUIDs", p,
					e)) < 0)
		return r;
	char ng[GUID_STRLEN] = "-", pg[GUID_STRLEN] = "-";
	if (req->set_node)
		guid_format_sysfs(req->node_guid, ng);
	if (req->set_port)
		guid_format_sysfs(req->port_guid, pg);
	snprintf(p->summary, sizeof(p->summary),
		 "set the GUIDs of VF %u of %s (%s): node %s, port %s", vf->index, pf->fn.bdf,
		 vf->fn.bdf, ng, pg);
	bool node_same =
		!req->set_node || (vf->node_guid.known && vf->node_guid.v == req->node_guid);
	bool port_same =
		!req->set_port || (vf->port_guid.known && vf->port_guid.v == req->port_guid);
	if (node_same && port_same)
		return 0;
	if (pods_holder(vf))
		plan_note(p,
			  "VF %u is bound to a pod: forced; its link goes down during the rebind",
			  vf->index);
	plan_note(p, "a new GUID takes effect when the VF's driver is rebound; the rebind "
		     "renames the netdev, and the last step gives it its name back");
	return guid_steps(p, n, pf, vf, req->set_node ? &req->node_guid : NULL,
			  req->set_port ? &req->port_guid : NULL, req, e);
}

/* Zero, unknown while the PF says zero, or held first by another. */
static bool guid_needs_fix(const struct used_set *u, struct kguid eff, struct kguid admin,
			   const char *self)
{
	if (eff.known)
		return eff.v == 0 || used_before(u, eff.v, self);
	return !admin.known || admin.v == 0;
}

/* What assign-all plans, per VF of the node in order: whether it gets new
 * GUIDs (fix) and which (fresh); keep holds every GUID that stays. */
struct assign {
	struct used_set u, keep;
	bool *fix;
	uint64_t *fresh;
	size_t n_fix;
};

/* Pass 1 for the k-th VF: whether it needs new GUIDs and may get them. */
static int assign_decide(struct assign *a, const struct node *n, const struct pf *pf,
			 const struct vf *vf, size_t k, bool *noted, const struct action_req *req,
			 struct plan *p, struct err *e)
{
	bool ib = fn_is_ib(&pf->fn);
	bool need = guid_needs_fix(&a->u, vf->node_guid, vf->admin.node_guid, vf->fn.bdf) ||
		    guid_needs_fix(&a->u, vf->port_guid, vf->admin.port_guid, vf->fn.bdf);
	int r = 0;
	if (need && !ib) {
		if (!*noted)
			plan_note(p, "%s is not InfiniBand: its VFs' GUIDs are left alone",
				  pf->fn.bdf);
		*noted = true;
		need = false;
	}
	if (!ib || !need) {
	} else if (operators_conflict(n, pf->fn.bdf, ACTION_ASSIGN_ALL) && !req->force) {
		plan_note(p, "skipped VF %u (%s): %s sets its GUIDs (--force to include it)",
			  vf->index, vf->fn.bdf,
			  operators_name(operators_conflict(n, pf->fn.bdf, ACTION_ASSIGN_ALL)->op));
		need = false;
	} else if (pods_holder(vf) && !req->force) {
		plan_note(p, "skipped VF %u (%s): bound to a pod (--force to include it)",
			  vf->index, vf->fn.bdf);
		need = false;
	} else if (!vf->fn.driver) {
		plan_note(p, "skipped VF %u (%s): no driver bound (probe failed?); bind it first",
			  vf->index, vf->fn.bdf);
		need = false;
	}
	if (need &&
	    (r = naming_scheme_guid(pf, vf->index, req->has_prefix, req->prefix, &a->fresh[k])) < 0)
		return err_setx(e, -r == ERANGE ? ERANGE : ENODATA,
				r == -ERANGE ? "VF %u of %s does not fit the prefix scheme "
					       "(VF index above 255)"
					     : "cannot derive GUIDs for VF %u of %s: its PF "
					       "has no node GUID; give --prefix",
				vf->index, pf->fn.bdf);
	a->fix[k] = need;
	a->n_fix += need;
	if (!need) {
		struct kguid g[4] = {vf->node_guid, vf->port_guid, vf->admin.node_guid,
				     vf->admin.port_guid};
		for (int t = 0; t < 4 && r == 0; t++)
			r = used_add(&a->keep, g[t], vf->fn.bdf, t % 2 ? "port GUID" : "node GUID");
	}
	return r;
}

/* Pass 2: the new GUIDs against what stays, then the steps. */
static int assign_steps(const struct assign *a, const struct node *n, const struct action_req *req,
			struct plan *p, struct err *e)
{
	size_t k = 0;
	int r;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t j = 0; j < pf->n_vfs; j++, k++) {
			if (!a->fix[k])
				continue;
			const struct vf *vf = &pf->vfs[j];
			if ((r = check_guid(&a->keep, a->fresh[k], vf->fn.bdf, e)) < 0)
				return r;
			bool same = vf->node_guid.known && vf->node_guid.v == a->fresh[k] &&
				    vf->port_guid.known && vf->port_guid.v == a->fresh[k];
			if (!same &&
			    (r = guid_steps(p, n, pf, vf, &a->fresh[k], &a->fresh[k], req, e)) < 0)
				return r;
		}
	}
	if (p->n_steps)
		plan_note(p, "each VF is rebound for its GUIDs to take effect (its link drops "
			     "briefly) and keeps its name");
	return 0;
}

int actions_plan_assign_all(struct sys *s, const struct node *n, const struct action_req *req,
			    struct plan *p, struct err *e)
{
	struct assign a = {0};
	size_t total = 0;
	int r;

	snprintf(p->subject, sizeof(p->subject), "%s", n->hostname ? n->hostname : "node");
	if ((r = used_collect(n, &a.u)) < 0)
		return err_set(e, -r, "cannot collect the node's GUIDs");
	/* Pass 1: which VFs get new GUIDs; the GUIDs of all others stay. */
	for (size_t i = 0; i < n->n_pfs; i++)
		total += n->pfs[i].n_vfs;
	a.fix = calloc(total + 1, sizeof(*a.fix));
	if (!a.fix || !(a.fresh = calloc(total + 1, sizeof(*a.fresh)))) {
		r = err_set(e, ENOMEM, "cannot plan GUIDs");
		goto out;
	}
	size_t k = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		bool noted = false;
		for (size_t j = 0; j < pf->n_vfs; j++, k++)
			if ((r = assign_decide(&a, n, pf, &pf->vfs[j], k, &noted, req, p, e)) < 0)
				goto out;
		if ((r = used_add_fn(&a.keep, &pf->fn)) < 0)
			goto out;
	}
	snprintf(p->summary, sizeof(p->summary), "assign unique GUIDs to %zu VF%s (%s)", a.n_fix,
		 a.n_fix == 1 ? "" : "s",
		 req->has_prefix ? "from the prefix" : "from the PF GUIDs");
	if (a.n_fix)
		r = assign_steps(&a, n, req, p, e);
out:
	free(a.fix);
	free(a.fresh);
	free(a.u.v);
	free(a.keep.v);
	return r;
}
