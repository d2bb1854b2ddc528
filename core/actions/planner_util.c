// SPDX-License-Identifier: MIT
/* The small helpers every planner uses (planners.h): what a target names,
 * the refusal for a pod's VF, kernel releases, waits. */
#include "planners.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"

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

unsigned int action_timeout(const struct action_req *req)
{
	return req->timeout_s ? req->timeout_s : ACTION_TIMEOUT_S;
}
