// SPDX-License-Identifier: MIT
/* GUID checks: zero, duplicated, all-ones or multicast node and port GUIDs. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "checks_int.h"
#include "guid.h"

/* Where a VF's port GUID in effect was read (discover's order: gids/0, the
 * IPoIB address, MOFED's sriov/<vf>/port), as a file path and its value. */
static void port_guid_evidence(struct finding *f, const struct pf *pf, const struct vf *vf)
{
	const struct fn *fn = &vf->fn;
	char where[256], g[GUID_STRLEN];
	if (fn->n_rdmas && fn->rdmas[0].n_ports && fn->rdmas[0].ports[0].port_guid.known) {
		const struct port *p = &fn->rdmas[0].ports[0];
		char rel[64];
		snprintf(rel, sizeof(rel), "ports/%u/gids/0", p->num);
		check_ib_path(where, sizeof(where), fn->rdmas[0].name, rel);
		finding_evidence(f, where,
				 "%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64
				 " (port GUID, low 64 bits)",
				 (p->port_guid.v >> 48) & 0xffff, (p->port_guid.v >> 32) & 0xffff,
				 (p->port_guid.v >> 16) & 0xffff, p->port_guid.v & 0xffff);
		return;
	}
	for (size_t i = 0; i < fn->n_netdevs; i++)
		if (fn->netdevs[i].addr_guid.known) {
			snprintf(where, sizeof(where), "/sys/class/net/%s/address",
				 fn->netdevs[i].name);
			finding_evidence(f, where, "%s",
					 fn->netdevs[i].address ? fn->netdevs[i].address : "?");
			return;
		}
	if (vf->admin.mofed && vf->admin.mofed_port.known) {
		char rel[64];
		snprintf(rel, sizeof(rel), "sriov/%u/port", vf->index);
		check_fn_path(where, sizeof(where), pf->fn.bdf, rel);
		guid_format_colon(vf->admin.mofed_port.v, g);
		finding_evidence(f, where, "%s", g);
	}
}

static bool vf_ethernet(const struct vf *vf)
{
	const struct fn *fn = &vf->fn;
	return fn->n_rdmas && fn->rdmas[0].n_ports && fn->rdmas[0].ports[0].link_layer &&
	       strcmp(fn->rdmas[0].ports[0].link_layer, "Ethernet") == 0;
}

static void remedy_scheme_guid(struct finding *f, const struct pf *pf, const struct vf *vf)
{
	uint64_t g;
	char gs[GUID_STRLEN];
	if (action_scheme_guid(pf, vf->index, false, 0, &g) < 0) {
		finding_remedy_ibvf(f, "give every VF with a zero or duplicate GUID one of its own",
				    (const char *const[]){"vf", "guid", "--assign-all", NULL});
		return;
	}
	guid_format_colon(g, gs);
	finding_remedy_ibvf(
		f, "give the VF a GUID of its own (ibvf's scheme, from the PF's GUID)",
		(const char *const[]){"vf", "guid", vf->fn.bdf, "--node", gs, "--port", gs, NULL});
}

CHECK_FN(check_guid_zero)
{
	(void)o;
	const struct check_def *def = check_def_of("guid-zero");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			bool zn = vf->node_guid.known && vf->node_guid.v == 0;
			bool zp = vf->port_guid.known && vf->port_guid.v == 0;
			/* A VF with no driver has no GUID in effect: MOFED's
			 * sriov/<vf>/port of 0 is not the fault (probe-failed). */
			if ((!zn && !zp) || vf_ethernet(vf) || !vf->fn.driver)
				continue;
			struct finding *f = check_add(
				out, def, SUBJECT_VF, vf->fn.bdf,
				"VF %s (%s VF %u) has a zero %s GUID", vf->fn.bdf,
				pf->fn.n_rdmas ? pf->fn.rdmas[0].name : pf->fn.bdf, vf->index,
				zn && zp ? "node and port"
				: zn	 ? "node"
					 : "port");
			if (!f)
				return;
			if (zn && vf->fn.n_rdmas) {
				char where[256];
				check_ib_path(where, sizeof(where), vf->fn.rdmas[0].name,
					      "node_guid");
				finding_evidence(f, where, "0000:0000:0000:0000");
			}
			if (zp)
				port_guid_evidence(f, pf, vf);
			remedy_scheme_guid(f, pf, vf);
		}
	}
}
