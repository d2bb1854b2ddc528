// SPDX-License-Identifier: MIT
/* SR-IOV checks: off in a compute HCA's firmware, and a VF count other than
 * the one ibvf's boot unit re-creates. */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"

static bool sriov_off(const struct pf *pf)
{
	return !pf->sriov || (pf->totalvfs.known && pf->totalvfs.v == 0);
}

static const struct persisted_pf *persisted_of(const struct node *n, const char *bdf)
{
	for (size_t i = 0; i < n->n_persisted; i++)
		if (strcmp(n->persisted[i].bdf, bdf) == 0)
			return &n->persisted[i];
	return NULL;
}

/* NUM_OF_VFS as the node's other HCAs of the model have it (their
 * sriov_totalvfs), else the persisted count, else 8. Also says whether any
 * other compute HCA has SR-IOV on. */
static long long fw_num_vfs(const struct node *n, const struct pf *pf, bool *ret_others)
{
	long long best = 0;
	*ret_others = false;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *q = &n->pfs[i];
		if (q == pf || sriov_off(q) || !check_pf_compute(n, q))
			continue;
		*ret_others = true;
		if (check_same_model(pf, q) && q->totalvfs.known && q->totalvfs.v > best)
			best = q->totalvfs.v;
	}
	const struct persisted_pf *p = persisted_of(n, pf->fn.bdf);
	if (!best && p && p->numvfs)
		best = p->numvfs;
	return best ? best : 8;
}

CHECK_FN(check_sriov_disabled)
{
	(void)o;
	const struct check_def *def = check_find("sriov-disabled");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		if (!sriov_off(pf) || !check_pf_compute(n, pf))
			continue;
		bool others;
		long long num = fw_num_vfs(n, pf, &others);
		const struct persisted_pf *p = persisted_of(n, pf->fn.bdf);
		struct finding *f =
			check_add(out, def, SUBJECT_PF, pf->fn.bdf,
				  "PF %s (%s) has SR-IOV off in firmware%s", pf->fn.bdf,
				  check_pf_label(pf), others ? "" : " (as every HCA of the node)");
		if (!f)
			return;
		/* No HCA of the node uses SR-IOV: maybe on purpose. */
		if (!others && !(p && p->numvfs))
			f->severity = CHECK_INFO;
		char where[128], set[128], reset[96], create[96];
		check_fn_path(where, sizeof(where), pf->fn.bdf, "sriov_totalvfs");
		if (pf->sriov && pf->totalvfs.known)
			finding_evidence(f, where, "%lld", (long long)pf->totalvfs.v);
		else
			finding_evidence(f, where, "(absent: no SR-IOV capability)");
		snprintf(set, sizeof(set), "mlxconfig -d %s set SRIOV_EN=1 NUM_OF_VFS=%lld",
			 pf->fn.bdf, num);
		snprintf(reset, sizeof(reset), "mlxfwreset -d %s reset -y, or reboot the node",
			 pf->fn.bdf);
		snprintf(create, sizeof(create), "then create the VFs: ibvf vf create %s %u",
			 pf->fn.bdf, p && p->numvfs ? p->numvfs : (unsigned int)num);
		finding_remedy_manual(f, "enable SR-IOV in the HCA's firmware, then reset it",
				      (const char *const[]){set, reset, create, NULL});
	}
}

static void layout_gone(struct findings *out, const struct node *n, const struct persisted_pf *p)
{
	struct finding *f = check_add(
		out, check_find("sriov-layout"), SUBJECT_NODE, NULL,
		"the boot unit creates %u VFs on %s, which is not on the node", p->numvfs, p->bdf);
	if (!f)
		return;
	f->reach = REACH_SUBJECT; /* about a PF gone, no function of the node */
	finding_evidence(
		f, n->persist_unit ? n->persist_unit : "/etc/systemd/system/ibvf-sriov.service",
		"vf create %s %u", p->bdf, p->numvfs);
	finding_remedy_ibvf(f, "write the boot unit again from the node as it is",
			    (const char *const[]){"persist", NULL});
}

CHECK_FN(check_sriov_layout)
{
	(void)o;
	const struct check_def *def = check_find("sriov-layout");
	for (size_t i = 0; i < n->n_persisted; i++) {
		const struct persisted_pf *p = &n->persisted[i];
		const struct pf *pf = node_find_pf(n, p->bdf);
		if (!pf) {
			layout_gone(out, n, p);
			continue;
		}
		if (!pf->numvfs.known || pf->numvfs.v == (long long)p->numvfs)
			continue;
		struct finding *f =
			check_add(out, def, SUBJECT_PF, pf->fn.bdf,
				  "PF %s (%s) has %lld VFs; the boot unit creates %u", pf->fn.bdf,
				  check_pf_label(pf), (long long)pf->numvfs.v, p->numvfs);
		if (!f)
			return;
		char where[128], back[320];
		check_fn_path(where, sizeof(where), pf->fn.bdf, "sriov_numvfs");
		finding_evidence(f, where, "%lld", (long long)pf->numvfs.v);
		finding_evidence(f,
				 n->persist_unit ? n->persist_unit
						 : "/etc/systemd/system/ibvf-sriov.service",
				 "vf create %s %u", p->bdf, p->numvfs);
		/* Keeping what runs is safe; going back to the unit's count removes
		 * the VFs with their names, GUIDs and pods' traffic: only when the
		 * operator asks for it by name. */
		snprintf(back, sizeof(back),
			 "keep the current layout: write the boot unit again from the node as "
			 "it is (to go back to the unit's %u instead: 'ibvf vf create %s %u', "
			 "and the %lld VFs go away with their names, GUIDs and traffic)",
			 p->numvfs, pf->fn.bdf, p->numvfs, (long long)pf->numvfs.v);
		finding_remedy_ibvf(f, back, (const char *const[]){"persist", NULL});
	}
}
