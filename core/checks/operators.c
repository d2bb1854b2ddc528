// SPDX-License-Identifier: MIT
/* operator-managed: the PFs whose VF count or GUIDs an operator sets
 * (core/pods/operators.h), so that ibvf's actions there are refused unless
 * forced and the remedy is the operator's (docs/coexistence.md). */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"
#include "core/pods/operators.h"

CHECK_FN(check_operator_managed)
{
	(void)o;
	const struct check_def *def = check_find("operator-managed");
	/* Its daemon runs but applied no PF config yet: a policy selecting a
	 * PF makes it the operator's at the next sync. */
	for (size_t i = 0; !n->n_op_claims && i < n->n_op_pods; i++) {
		if (!strstr(n->op_pods[i], "/" OPERATORS_DAEMON))
			continue;
		struct finding *f = check_add(out, def, SUBJECT_NODE, NULL,
					      "the SR-IOV Network Operator's config daemon runs "
					      "here and configures no PF yet");
		if (f) {
			finding_evidence(f, "/var/log/pods", "pod %s", n->op_pods[i]);
			finding_evidence(f, OPERATORS_PF_DIR, "no PF config applied");
			finding_remedy_manual(
				f,
				"decide who owns the VFs before a policy selects this node's PFs",
				(const char *const[]){"let the operator own them: a "
						      "SriovNetworkNodePolicy per PF, "
						      "and no ibvf persist (docs/coexistence.md)",
						      NULL});
		}
		break;
	}
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct op_claim *c = operators_claim(n, pf->fn.bdf);
		if (!c)
			continue;
		struct finding *f =
			check_add(out, def, SUBJECT_PF, pf->fn.bdf, "%s sets the %s of %s",
				  operators_name(c->op), operators_sets(c), check_pf_label(pf));
		if (!f)
			return;
		for (size_t k = 0; k < c->n_evidence; k++) {
			const char *ev = c->evidence[k];
			if (!strncmp(ev, "pod ", 4))
				finding_evidence(f, "/var/log/pods", "the config daemon's %s", ev);
			else if (c->want_numvfs >= 0)
				finding_evidence(f, ev, "numVfs %d%s", c->want_numvfs,
						 c->externally_managed ? ", externallyManaged"
								       : "");
			else
				finding_evidence(f, ev, "%s",
						 c->externally_managed ? "externallyManaged"
								       : "present");
		}
		char yaml[1024];
		operators_policy_yaml(n, pf, c, true, yaml, sizeof(yaml));
		finding_remedy_manual(
			f,
			"change the operator's policy, not the node (ibvf refuses unless --force)",
			(const char *const[]){yaml,
					      "ibvf persist is not for these VFs: the operator "
					      "sets them again at "
					      "every sync and at boot",
					      NULL});
	}
}
