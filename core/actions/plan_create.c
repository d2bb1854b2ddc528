// SPDX-License-Identifier: MIT
/* vf create / vf destroy: a PF's VF count, through 0 as the kernel wants. */
#include "planners.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions/refuse_operator.h"
#include "core/pods/pods.h"

int actions_plan_create(struct sys *s, const struct node *n, const struct action_req *req,
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
	if ((r = action_refuse_operator(n, pf, ACTION_CREATE, req->force, "change the VF count", p,
					e)) < 0)
		return r;
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
		    (r = plan_wait_vfs(p, pf->fn.bdf, 0, false, false, action_timeout(req))) < 0)
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
		    (r = plan_wait_vfs(p, pf->fn.bdf, req->count, netdev, ibdev,
				       action_timeout(req))) < 0)
			return r;
		if (pf->fn.n_rdmas)
			plan_note(p, "new VFs start with zero GUIDs: 'ibvf vf guid --assign-all' "
				     "gives them unique ones");
	}
	return 0;
}
