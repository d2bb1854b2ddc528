// SPDX-License-Identifier: MIT
/* vf state: a VF's link-state policy, by netlink or MLNX_OFED's sriov file. */
#include "planners.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>

#include "core/model/names.h"
#include "core/pods/pods.h"

int actions_plan_state(struct sys *s, const struct node *n, const struct action_req *req,
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
