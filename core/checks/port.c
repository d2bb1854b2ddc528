// SPDX-License-Identifier: MIT
/* port-down: an InfiniBand port not ACTIVE or not LinkUp, with its likely
 * cause ranked from the evidence. A PF whose own port is down gets one
 * finding for itself and its VFs; Ethernet ports are not this check's. */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"

static bool port_down(const struct port *p)
{
	return (p->state.known && p->state.v != PORT_STATE_ACTIVE) ||
	       (p->phys_state.known && p->phys_state.v != PORT_PHYS_LINK_UP);
}

static bool port_active(const struct port *p)
{
	return p && p->state.known && p->state.v == PORT_STATE_ACTIVE;
}

/* The VF's InfiniBand port, when it has a driver (a failed probe is
 * probe-failed's, not a port fault). */
static const struct port *vf_port(const struct vf *vf)
{
	const struct port *p = fn_port(&vf->fn);
	return vf->fn.driver && port_is_ib(p) ? p : NULL;
}

static const char *word(const char *s)
{
	return s ? s : "?";
}

static void state_evidence(struct finding *f, const struct rdma *r, const struct port *p)
{
	char where[256];
	if (p->state.known) {
		check_port_path(where, sizeof(where), r->name, p, "state");
		finding_evidence(f, where, "%lld: %s", (long long)p->state.v, word(p->state_name));
	}
	if (p->phys_state.known) {
		check_port_path(where, sizeof(where), r->name, p, "phys_state");
		finding_evidence(f, where, "%lld: %s", (long long)p->phys_state.v,
				 word(p->phys_state_name));
	}
}

static void sm_lid_evidence(struct finding *f, const struct rdma *r, const struct port *p)
{
	char where[256];
	if (!p->sm_lid.known)
		return;
	check_port_path(where, sizeof(where), r->name, p, "sm_lid");
	finding_evidence(f, where, "0x%llx", (long long)p->sm_lid.v);
}

static void remedy_link(struct finding *f, const char *bdf, const struct port *p)
{
	char link[128];
	snprintf(link, sizeof(link), "mlxlink -d %s -m (cable, module and peer port)", bdf);
	finding_remedy_manual(
		f, "bring the physical link up: cable, transceiver or switch port",
		(const char *const[]){
			link,
			p->phys_state.known && p->phys_state.v == PORT_PHYS_DISABLED
				? "the port is Disabled: enable it on the switch side "
				  "(or ibportstate <lid> <port> enable)"
				: "reseat or replace the cable; check the switch port "
				  "is up and configured for this speed",
			NULL});
}

static void remedy_no_sm(struct finding *f, const char *ibdev)
{
	char info[96];
	snprintf(info, sizeof(info), "sminfo -C %s -P 1 (answers only when an SM runs)",
		 escape_word_or(ibdev, "<rdma device>"));
	finding_remedy_manual(
		f, "run a subnet manager on the fabric",
		(const char *const[]){info,
				      "start one on a host of the fabric: systemctl enable --now "
				      "opensm (or enable the SM on a managed switch or UFM)",
				      "for VFs, with virtualization: virt_enabled 2 in "
				      "/etc/opensm/opensm.conf",
				      NULL});
}

static void remedy_sm_virt(struct finding *f)
{
	finding_remedy_manual(
		f, "turn on virtualization in the subnet manager",
		(const char *const[]){
			"on the SM's host: set 'virt_enabled 2' in /etc/opensm/opensm.conf",
			"systemctl restart opensm (UFM: enable virtualization in its SM settings)",
			"the VF ports go ACTIVE at the next sweep", NULL});
}

/* The PF's own port is down: one finding, its VFs' ports counted in. */
static void pf_down(struct findings *out, const struct pf *pf, const struct rdma *r,
		    const struct port *p)
{
	size_t vfs_down = 0;
	const struct vf *first = NULL;
	for (size_t j = 0; j < pf->n_vfs; j++) {
		const struct port *vp = vf_port(&pf->vfs[j]);
		if (vp && port_down(vp)) {
			vfs_down++;
			first = first ? first : &pf->vfs[j];
		}
	}
	bool link = p->phys_state.known && p->phys_state.v != PORT_PHYS_LINK_UP;
	bool no_sm = !link && p->sm_lid.known && p->sm_lid.v == 0;
	const char *cause = link    ? "the physical link is not up (cable, module or switch port)"
			    : no_sm ? "no subnet manager answers (sm_lid 0)"
				    : "the subnet manager has not brought the port up";
	char vfs[64] = "";
	if (vfs_down)
		snprintf(vfs, sizeof(vfs), ", and %zu VF port%s with it", vfs_down,
			 vfs_down == 1 ? "" : "s");
	struct finding *f = check_add(out, check_find("port-down"), SUBJECT_PF, pf->fn.bdf,
				      "PF %s (%s) port %s (%s)%s: likely %s", pf->fn.bdf, r->name,
				      word(p->state_name), word(p->phys_state_name), vfs, cause);
	if (!f)
		return;
	/* Without VFs, a port disabled on purpose (an unused second port) is
	 * worth knowing only; one polling for a peer is a warning. */
	if (!(pf->numvfs.known && pf->numvfs.v > 0))
		f->severity = p->phys_state.known && p->phys_state.v == PORT_PHYS_DISABLED
				      ? CHECK_INFO
				      : CHECK_WARNING;
	state_evidence(f, r, p);
	sm_lid_evidence(f, r, p);
	if (first) {
		const struct rdma *vr = fn_rdma(&first->fn);
		char where[256];
		check_port_path(where, sizeof(where), vr->name, &vr->ports[0], "state");
		finding_evidence(f, where, "%lld: %s (VF %u; %zu VF ports down)",
				 (long long)vr->ports[0].state.v, word(vr->ports[0].state_name),
				 first->index, vfs_down);
	}
	if (link)
		remedy_link(f, pf->fn.bdf, p);
	else if (no_sm)
		remedy_no_sm(f, r->name);
	else
		finding_remedy_manual(
			f, "look at the port from the subnet manager's side",
			(const char *const[]){
				"sminfo; ibstat (a port stuck in INIT waits for the SM to sweep)",
				"the SM's log (opensm: /var/log/opensm.log) for this port GUID",
				NULL});
}

static bool policy_disable(const struct vf *vf)
{
	return (vf->admin.link_state.known && vf->admin.link_state.v == VF_LINK_STATE_DISABLE) ||
	       (vf->admin.mofed_policy &&
		vf_link_policy_from_string(vf->admin.mofed_policy) == VF_LINK_STATE_DISABLE);
}

/* Whether the VF's down port is explained by its own setting: a disable
 * policy or a zero port GUID. Adds the finding when so. */
static bool vf_down_explained(struct findings *out, const struct pf *pf, const struct vf *vf,
			      const struct port *p)
{
	bool pol = policy_disable(vf), zero = vf->port_guid.known && vf->port_guid.v == 0;
	if (!pol && !zero)
		return false;
	const struct rdma *r = fn_rdma(&vf->fn);
	struct finding *f = check_add(
		out, check_find("port-down"), SUBJECT_VF, vf->fn.bdf,
		"VF %s (%s VF %u) port %s (%s): likely %s", vf->fn.bdf, check_pf_label(pf),
		vf->index, word(p->state_name), word(p->phys_state_name),
		pol ? "its link-state policy is disable" : "its port GUID is zero");
	if (!f)
		return true;
	state_evidence(f, r, p);
	char where[256];
	if (pol && vf->admin.mofed_policy) {
		char rel[64];
		snprintf(rel, sizeof(rel), "sriov/%u/policy", vf->index);
		check_fn_path(where, sizeof(where), pf->fn.bdf, rel);
		finding_evidence(f, where, "%s", vf->admin.mofed_policy);
	} else if (pol) {
		finding_evidence(f, "ip link show (the PF's vf list)", "vf %u link-state disable",
				 vf->index);
	}
	if (pol)
		finding_remedy_ibvf(
			f, "let the VF's link follow the PF's",
			(const char *const[]){"vf", "state", vf->fn.bdf,
					      vf_link_state_to_string(VF_LINK_STATE_AUTO), NULL});
	else
		check_remedy_vf_guid(f, pf, vf);
	return true;
}

/* Whether a VF port that shares pf's subnet manager is ACTIVE anywhere on
 * the node: then the SM does virtualization. */
static bool sm_virt_seen(const struct node *n, const struct port *pfp)
{
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct port *q = fn_port(&n->pfs[i].fn);
		if (!q || !q->sm_lid.known || !pfp->sm_lid.known || q->sm_lid.v != pfp->sm_lid.v)
			continue;
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			if (port_active(vf_port(&n->pfs[i].vfs[j])))
				return true;
	}
	return false;
}

static void vf_down_alone(struct findings *out, const struct pf *pf, const struct rdma *pr,
			  const struct vf *vf, const struct port *p)
{
	struct finding *f =
		check_add(out, check_find("port-down"), SUBJECT_VF, vf->fn.bdf,
			  "VF %s (%s VF %u) port %s (%s) while its PF is ACTIVE", vf->fn.bdf,
			  pr->name, vf->index, word(p->state_name), word(p->phys_state_name));
	if (!f)
		return;
	state_evidence(f, fn_rdma(&vf->fn), p);
	state_evidence(f, pr, &pr->ports[0]);
	char unbind[128], bind[128];
	snprintf(unbind, sizeof(unbind), "echo %s > /sys/bus/pci/drivers/mlx5_core/unbind",
		 vf->fn.bdf);
	snprintf(bind, sizeof(bind), "echo %s > /sys/bus/pci/drivers/mlx5_core/bind", vf->fn.bdf);
	finding_remedy_manual(
		f, "look for the port GUID in the SM's log, then rebind the VF",
		(const char *const[]){"the SM's log (opensm: /var/log/opensm.log) for this "
				      "VF's port GUID: a refused or duplicate GUID",
				      unbind, bind, NULL});
}

static void vfs_sm_virt(struct findings *out, const struct pf *pf, const struct rdma *pr,
			const struct vf *first, size_t count)
{
	struct finding *f = check_add(
		out, check_find("port-down"), SUBJECT_PF, pf->fn.bdf,
		"%zu VF port%s of PF %s (%s) down while the PF is ACTIVE: likely the subnet "
		"manager has virtualization off",
		count, count == 1 ? "" : "s", pf->fn.bdf, pr->name);
	if (!f)
		return;
	state_evidence(f, pr, &pr->ports[0]);
	state_evidence(f, fn_rdma(&first->fn), vf_port(first));
	remedy_sm_virt(f);
}

static void pf_vfs_down(struct findings *out, const struct node *n, const struct pf *pf,
			const struct rdma *pr)
{
	size_t unexplained = 0, active = 0;
	const struct vf *first = NULL;
	for (size_t j = 0; j < pf->n_vfs; j++) {
		const struct port *p = vf_port(&pf->vfs[j]);
		active += port_active(p);
		if (!p || !port_down(p) || vf_down_explained(out, pf, &pf->vfs[j], p))
			continue;
		unexplained++;
		first = first ? first : &pf->vfs[j];
	}
	if (!unexplained)
		return;
	if (!active && !sm_virt_seen(n, &pr->ports[0])) {
		vfs_sm_virt(out, pf, pr, first, unexplained);
		return;
	}
	for (size_t j = 0; j < pf->n_vfs; j++) {
		const struct vf *vf = &pf->vfs[j];
		const struct port *p = vf_port(vf);
		if (p && port_down(p) && !policy_disable(vf) &&
		    !(vf->port_guid.known && vf->port_guid.v == 0))
			vf_down_alone(out, pf, pr, vf, p);
	}
}

CHECK_FN(check_port_down)
{
	(void)o;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct rdma *r = fn_rdma(&pf->fn);
		const struct port *p = fn_port(&pf->fn);
		if (!port_is_ib(p))
			continue;
		if (port_down(p))
			pf_down(out, pf, r, p);
		else
			pf_vfs_down(out, n, pf, r);
	}
}
