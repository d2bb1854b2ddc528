// SPDX-License-Identifier: MIT
/* Checks on the node's past: a port that keeps changing state, and a VF
 * whose GUID a boot reset to zero. They read the facts checks_opts.past
 * carries (core/history/facts.h fills them from the recorded history) and
 * the node as it is now; with no history they find nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_int.h"

static bool flapping(const struct check_port_changes *c)
{
	return c->count >= CHECK_FLAP_TRANSITIONS || (c->coalesced && c->count > 1);
}

static const struct check_port_changes *port_changes(const struct check_past *p, const char *bdf)
{
	for (size_t i = 0; i < p->n_ports; i++)
		if (!strcmp(p->ports[i].bdf, bdf))
			return &p->ports[i];
	return NULL;
}

static void flap_one(struct findings *out, const struct check_past *p,
		     const struct check_port_changes *c, const struct pf *pf, const struct vf *vf)
{
	const struct fn *fn = vf ? &vf->fn : &pf->fn;
	const struct rdma *r = fn_rdma(fn);
	const struct port *port = fn_port(fn);
	char first[CHECK_TIME_MAX], last[CHECK_TIME_MAX], since[CHECK_TIME_MAX];
	check_time_format(c->first_us, first);
	check_time_format(c->last_us, last);
	check_time_format(p->since_us, since);
	struct finding *f = check_add(
		out, check_find("port-flapping"), vf ? SUBJECT_VF : SUBJECT_PF, fn->bdf,
		"port of %s %s%s%s%s changed state %lld times %s%s", vf ? "VF" : "PF", fn->bdf,
		r ? " (" : "", r ? r->name : "", r ? ")" : "", (long long)c->count,
		p->since_us ? "since " : "in the recorded history", p->since_us ? since : "");
	if (!f)
		return;
	/* A VF's port follows its PF's: the PF's finding speaks for them. */
	if (vf)
		f->reach = REACH_SUBJECT;
	finding_evidence(f, p->where, "%lld port state changes from %s to %s%s",
			 (long long)c->count, first, last,
			 c->coalesced ? " (a rapid run the history folded into one row)" : "");
	finding_evidence(f, p->where, "states seen, in order: %s", c->states);
	char where[256], step[3][160];
	if (r && port) {
		check_port_path(where, sizeof(where), r->name, port, "state");
		finding_evidence(f, where, "%s now", port->state_name ? port->state_name : "?");
	}
	snprintf(step[0], sizeof(step[0]),
		 "ibstat %s %u (state, physical state and rate: run it again to see them change)",
		 escape_word_or(r ? r->name : NULL, "<rdma device>"), port ? port->num : 1);
	snprintf(step[1], sizeof(step[1]),
		 "reseat or replace the cable and transceiver of PF %s (mlxlink -d %s shows the "
		 "link's errors)",
		 pf->fn.bdf, pf->fn.bdf);
	snprintf(step[2], sizeof(step[2]),
		 "check the switch port (its error counters and log) and the subnet manager's "
		 "view of the port (its log: opensm.log or UFM's)");
	finding_remedy_manual(f, "find why the link drops: cable, transceiver or switch port",
			      (const char *const[]){step[0], step[1], step[2], NULL});
}

CHECK_FN(check_port_flapping)
{
	const struct check_past *p = &o->past;
	for (size_t i = 0; i < n->n_pfs && p->n_ports; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct check_port_changes *c = port_changes(p, pf->fn.bdf);
		bool pf_flaps = c && flapping(c);
		if (pf_flaps)
			flap_one(out, p, c, pf, NULL);
		for (size_t j = 0; !pf_flaps && j < pf->n_vfs; j++) {
			c = port_changes(p, pf->vfs[j].fn.bdf);
			if (c && flapping(c))
				flap_one(out, p, c, pf, &pf->vfs[j]);
		}
	}
}

static bool guid_zero_now(const struct vf *vf)
{
	return (vf->node_guid.known && vf->node_guid.v == 0) ||
	       (vf->port_guid.known && vf->port_guid.v == 0);
}

/* One finding per VF: its facts are those from index i on with its bdf
 * (sorted by function). Returns the index past them. */
static size_t lost_one(struct findings *out, const struct node *n, const struct check_past *p,
		       size_t i)
{
	const struct check_guid_lost *g = &p->guids_lost[i];
	size_t end = i;
	while (end < p->n_guids_lost && !strcmp(p->guids_lost[end].bdf, g->bdf))
		end++;
	const struct pf *pf = NULL;
	const struct vf *vf = NULL;
	if (!node_find_fn(n, g->bdf, &pf, &vf) || !vf)
		return end; /* gone since, or no VF: nothing of it to fix */
	bool zero = guid_zero_now(vf);
	char boot[CHECK_TIME_MAX], at[CHECK_TIME_MAX];
	check_time_format(g->boot_us, boot);
	struct finding *f = check_add(out, check_find("guid-lost-boot"), SUBJECT_VF, vf->fn.bdf,
				      "VF %s (%s VF %u) lost its %s GUID %s at the boot of %s%s",
				      vf->fn.bdf, check_pf_label(pf), vf->index,
				      end - i > 1 ? "node and port"
				      : g->port	  ? "port"
						  : "node",
				      g->old_guid, boot, zero ? ": still zero" : "");
	if (!f)
		return end;
	if (zero)
		f->severity = CHECK_CRITICAL;
	finding_evidence(f, p->where, "boot at %s (boot id %s): %s", boot,
			 g->boot_id[0] ? g->boot_id : "?", g->boot_text[0] ? g->boot_text : "?");
	for (size_t k = i; k < end; k++) {
		const struct check_guid_lost *x = &p->guids_lost[k];
		check_time_format(x->t_us, at);
		finding_evidence(f, p->where,
				 "at %s, in that boot's difference: %s GUID %s -> zero", at,
				 x->port ? "port" : "node", x->old_guid);
	}
	if (zero) {
		/* The GUID first; persist then keeps it (check --fix runs it last). */
		check_remedy_vf_guid(f, pf, vf);
		free(f->remedy.summary);
		f->remedy.summary = strdup("give the VF a GUID again ('ibvf check --fix guid-zero' "
					   "does it for every VF), then 'ibvf persist' keeps GUIDs "
					   "in the boot unit so the next boot sets them");
	} else {
		finding_remedy_ibvf(f,
				    "keep the VF's GUIDs in the boot unit ('ibvf persist'), so the "
				    "next boot sets them again",
				    (const char *const[]){"persist", NULL});
	}
	return end;
}

CHECK_FN(check_guid_lost_boot)
{
	for (size_t i = 0; i < o->past.n_guids_lost;)
		i = lost_one(out, n, &o->past, i);
}
