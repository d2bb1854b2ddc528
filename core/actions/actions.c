// SPDX-License-Identifier: MIT
/* Actions: a request and a node snapshot in, a checked plan out. VF count,
 * and link-state plans live here; renames in actions_rename.c, GUID plans in
 * actions_guid.c; the apply in apply.c. */
#include "actions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>

#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "core/model/names.h"

bool action_kernel_older(const char *release, int major, int minor)
{
	int ma, mi;
	if (!release || sscanf(release, "%d.%d", &ma, &mi) != 2)
		return true;
	return ma < major || (ma == major && mi < minor);
}

int action_refuse_pod(const struct vf *vf, const char *what, struct err *e)
{
	char who[160];
	pods_label(pods_holder(vf), who, sizeof(who));
	return err_setx(e, EBUSY,
			"cannot %s: VF %u (%s) is bound to pod '%s'; --force to do it anyway", what,
			vf->index, vf->fn.bdf, who);
}

int action_resolve(const struct node *n, const char *name, const struct pf **ret_pf,
		   const struct vf **ret_vf, struct err *e)
{
	struct node_ref ref;
	int r = node_resolve(n, name, &ref, e);
	if (r < 0)
		return r;
	if (!ref.pf)
		return err_setx(e, ENODEV, "'%s' is an RDMA device on no PCI function", name);
	*ret_pf = ref.pf;
	*ret_vf = ref.vf;
	return 0;
}

static unsigned int timeout_of(const struct action_req *req)
{
	return req->timeout_s ? req->timeout_s : ACTION_TIMEOUT_S;
}

static int plan_create(struct sys *s, const struct node *n, const struct action_req *req,
		       struct plan *p, struct err *e)
{
	const struct pf *pf;
	const struct vf *vf;
	char path[128];
	int r;

	if ((r = action_resolve(n, req->target, &pf, &vf, e)) < 0)
		return r;
	if (vf)
		return err_setx(e, EINVAL, "'%s' is VF %u of %s, not a PF", req->target, vf->index,
				pf->fn.bdf);
	if (!pf->sriov || !pf->totalvfs.known || !pf->numvfs.known)
		return err_setx(e, EINVAL, "%s is not SR-IOV capable (no sriov_totalvfs)",
				pf->fn.bdf);
	if (req->count > pf->totalvfs.v)
		return err_setx(e, EINVAL, "cannot create %u VFs on %s: its sriov_totalvfs is %lld",
				req->count, pf->fn.bdf, (long long)pf->totalvfs.v);
	snprintf(p->subject, sizeof(p->subject), "%s", pf->fn.bdf);
	unsigned int cur = (unsigned int)pf->numvfs.v;
	snprintf(p->summary, sizeof(p->summary), "%s VFs on %s: %u -> %u",
		 req->count ? "set the number of" : "destroy the", pf->fn.bdf, cur, req->count);
	if (cur == req->count)
		return 0;
	for (size_t i = 0; cur && i < pf->n_vfs; i++)
		if (pods_holder(&pf->vfs[i])) {
			if (!req->force)
				return action_refuse_pod(&pf->vfs[i], "remove the VFs", e);
			plan_note(p, "VF %u (%s) is bound to a pod: forced", pf->vfs[i].index,
				  pf->vfs[i].fn.bdf);
		}

	struct change *c = plan_add_change(p, CHANGE_NUMVFS);
	if (!c)
		return -ENOMEM;
	snprintf(c->bdf, sizeof(c->bdf), "%s", pf->fn.bdf);
	snprintf(c->before, sizeof(c->before), "%u", cur);
	snprintf(c->after, sizeof(c->after), "%u", req->count);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_numvfs", pf->fn.bdf);
	if (cur) {
		p->destructive = true;
		plan_note(p, "the %u VFs of %s go away with their names, GUIDs and traffic", cur,
			  pf->fn.bdf);
		if ((r = plan_write(p, path, "0",
				    "remove the VFs (the kernel takes a new count only from 0)")) <
			    0 ||
		    (r = plan_wait_vfs(p, pf->fn.bdf, 0, false, false, timeout_of(req))) < 0)
			return r;
	}
	if (req->count) {
		char v[16], desc[64];
		bool probe = pf->autoprobe.known ? pf->autoprobe.v != 0 : true;
		if (!probe)
			plan_note(p,
				  "sriov_drivers_autoprobe is 0 on %s: the VFs get no driver "
				  "(bind them through driver_override)",
				  pf->fn.bdf);
		snprintf(v, sizeof(v), "%u", req->count);
		snprintf(desc, sizeof(desc), "create %u VFs", req->count);
		bool netdev = probe && pf->fn.driver && pf->fn.n_netdevs;
		bool ibdev = netdev && pf->fn.n_rdmas && pf->fn.rdmas[0].node_guid.known &&
			     !strcmp(pf->fn.driver, "mlx5_core");
		if ((r = plan_write(p, path, v, desc)) < 0 ||
		    (r = plan_wait_vfs(p, pf->fn.bdf, req->count, netdev, ibdev, timeout_of(req))) <
			    0)
			return r;
		if (pf->fn.n_rdmas)
			plan_note(p, "new VFs start with zero GUIDs: 'ibvf vf guid --assign-all' "
				     "gives them unique ones");
	}
	return 0;
}

static int plan_state(struct sys *s, const struct node *n, const struct action_req *req,
		      struct plan *p, struct err *e)
{
	const struct pf *pf;
	const struct vf *vf;
	const char *name = vf_link_state_to_string(req->state);
	int r;

	if (!name)
		return err_setx(e, EINVAL, "the link state is auto, enable or disable");
	if ((r = action_resolve(n, req->target, &pf, &vf, e)) < 0)
		return r;
	if (!vf)
		return err_setx(e, EINVAL, "'%s' is a PF; the link state is set per VF",
				req->target);
	snprintf(p->subject, sizeof(p->subject), "%s", vf->fn.bdf);
	snprintf(p->summary, sizeof(p->summary), "set the link state of VF %u of %s (%s) to %s",
		 vf->index, pf->fn.bdf, vf->fn.bdf, name);
	if (pods_holder(vf) && !req->force)
		return action_refuse_pod(vf, "change its link state", e);
	const char *before = vf_link_state_to_string(vf_link_state_of(vf));
	if (before && !strcmp(before, name))
		return 0;
	struct change *c = plan_add_change(p, CHANGE_LINK_STATE);
	if (!c)
		return -ENOMEM;
	snprintf(c->bdf, sizeof(c->bdf), "%s", vf->fn.bdf);
	snprintf(c->pf, sizeof(c->pf), "%s", pf->fn.bdf);
	c->vf = vf->index;
	snprintf(c->before, sizeof(c->before), "%s", before ? before : "");
	snprintf(c->after, sizeof(c->after), "%s", name);
	if (req->state == IFLA_VF_LINK_STATE_DISABLE) {
		p->destructive = true;
		plan_note(p, "the VF's link goes down whatever the port does");
	}
	if (vf->admin.mofed) {
		char path[128], desc[96];
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov/%u/policy", pf->fn.bdf,
			 vf->index);
		snprintf(desc, sizeof(desc), "set the MLNX_OFED policy of VF %u to %s", vf->index,
			 vf_link_policy_to_string(req->state));
		return plan_write(p, path, vf_link_policy_to_string(req->state), desc);
	}
	if (!pf->fn.n_netdevs)
		return err_setx(e, ENODEV, "PF %s has no netdev to set the VF link state on",
				pf->fn.bdf);
	if (!vf->admin.netlink_known || !vf->admin.link_state.known)
		plan_note(p,
			  "the driver of %s reports no VF link state: it may not support "
			  "setting one",
			  pf->fn.bdf);
	return plan_vf_state(p, pf->fn.netdevs[0].name, vf->index, req->state);
}

int action_plan(struct sys *s, const struct node *n, const struct action_req *req,
		struct plan **ret, struct err *e)
{
	struct plan *p;
	int r = plan_new(action_kind_to_string(req->kind) ?: "?", req->target, &p);
	if (r < 0)
		return err_set(e, -r, "cannot make a plan");
	switch (req->kind) {
	case ACTION_CREATE:
		r = plan_create(s, n, req, p, e);
		break;
	case ACTION_RENAME:
		r = actions_plan_rename(s, n, req, p, e);
		break;
	case ACTION_RENAME_ALL:
		r = actions_plan_rename_all(s, n, req, p, e);
		break;
	case ACTION_RENAME_LINK:
		r = actions_plan_link_rename(s, n, req, p, e);
		break;
	case ACTION_GUID:
		r = actions_plan_guid(s, n, req, p, e);
		break;
	case ACTION_ASSIGN_ALL:
		r = actions_plan_assign_all(s, n, req, p, e);
		break;
	case ACTION_STATE:
		r = plan_state(s, n, req, p, e);
		break;
	case ACTION_PERSIST:
		r = actions_plan_persist(s, n, req, p, e);
		break;
	case ACTION_FILES_UNDO:
		r = actions_plan_files_undo(s, n, req, p, e);
		break;
	default:
		r = err_setx(e, EINVAL, "unknown action %d", (int)req->kind);
	}
	if (r == -ENOMEM) /* the plan builders leave e to this one message */
		err_set(e, ENOMEM, "cannot make a plan");
	if (r < 0) {
		plan_free(p);
		return r;
	}
	p->undo_of = req->undo_of;
	if (!p->n_steps)
		p->result = PLAN_NOTHING;
	*ret = p;
	return 0;
}
