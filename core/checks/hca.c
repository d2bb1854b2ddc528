// SPDX-License-Identifier: MIT
/* HCA checks: a compute HCA fallen back to Ethernet, firmware below the
 * minimum for SR-IOV, SR-IOV off in firmware or not as persisted, a port
 * running below its model's rate. "Compute HCA" and "same model" live here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_int.h"

bool check_pf_ib(const struct pf *pf)
{
	return port_is_ib(fn_port(&pf->fn));
}

bool check_same_model(const struct pf *a, const struct pf *b)
{
	const struct rdma *ra = fn_rdma(&a->fn), *rb = fn_rdma(&b->fn);
	if (!a->fn.vendor.known || !b->fn.vendor.known || a->fn.vendor.v != b->fn.vendor.v ||
	    !a->fn.device.known || !b->fn.device.known || a->fn.device.v != b->fn.device.v)
		return false;
	return !ra || !rb || !ra->board_id || !rb->board_id ||
	       strcmp(ra->board_id, rb->board_id) == 0;
}

static bool board_known(const struct pf *a, const struct pf *b)
{
	const struct rdma *ra = fn_rdma(&a->fn), *rb = fn_rdma(&b->fn);
	return ra && rb && ra->board_id && rb->board_id;
}

/* How many of the node's PFs share pf's PCI slot (dddd:bb:dd), and whether
 * one of the others runs InfiniBand. */
static size_t slot_functions(const struct node *n, const struct pf *pf, bool *ret_ib_sibling)
{
	size_t c = 0;
	*ret_ib_sibling = false;
	for (size_t i = 0; i < n->n_pfs; i++)
		if (strncmp(n->pfs[i].fn.bdf, pf->fn.bdf, 10) == 0) {
			c++;
			if (&n->pfs[i] != pf && check_pf_ib(&n->pfs[i]))
				*ret_ib_sibling = true;
		}
	return c;
}

bool check_pf_fallback(const struct node *n, const struct pf *pf, const struct pf **ret_ib)
{
	if (!port_is_eth(fn_port(&pf->fn)))
		return false;
	bool ib_sibling, unused;
	size_t fns = slot_functions(n, pf, &ib_sibling);
	/* A card with one port in each mode was set so on purpose. */
	if (ib_sibling)
		return false;
	bool vfs = pf->numvfs.known && pf->numvfs.v > 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *q = &n->pfs[i];
		/* Same model, laid out as the InfiniBand HCAs are (a dual-port
		 * storage card of the same chip has two functions per slot);
		 * without a board_id to compare, its VFs must be enabled too. */
		if (!check_pf_ib(q) || !check_same_model(pf, q) ||
		    slot_functions(n, q, &unused) != fns || (!board_known(pf, q) && !vfs))
			continue;
		if (ret_ib)
			*ret_ib = q;
		return true;
	}
	return false;
}

bool check_pf_compute(const struct node *n, const struct pf *pf)
{
	return check_pf_ib(pf) || check_pf_fallback(n, pf, NULL);
}

CHECK_FN(check_ethernet_fallback)
{
	(void)o;
	const struct check_def *def = check_find("ethernet-fallback");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i], *ib = NULL;
		if (!check_pf_fallback(n, pf, &ib))
			continue;
		const struct rdma *r = fn_rdma(&pf->fn), *rib = fn_rdma(&ib->fn);
		struct finding *f = check_add(
			out, def, SUBJECT_PF, pf->fn.bdf,
			"PF %s (%s) runs Ethernet, but is the same HCA model as the InfiniBand %s",
			pf->fn.bdf, r->name, rib->name);
		if (!f)
			return;
		char where[256];
		check_port_path(where, sizeof(where), r->name, &r->ports[0], "link_layer");
		finding_evidence(f, where, "%s", r->ports[0].link_layer);
		check_port_path(where, sizeof(where), rib->name, &rib->ports[0], "link_layer");
		finding_evidence(f, where, "%s", rib->ports[0].link_layer);
		check_fn_path(where, sizeof(where), pf->fn.bdf, "device");
		finding_evidence(f, where, "0x%04llx (as %s)", (long long)pf->fn.device.v,
				 ib->fn.bdf);
		if (r->board_id && rib->board_id) {
			check_ib_path(where, sizeof(where), r->name, "board_id");
			finding_evidence(f, where, "%s (as %s)", r->board_id, rib->name);
		}
		if (pf->numvfs.known) {
			check_fn_path(where, sizeof(where), pf->fn.bdf, "sriov_numvfs");
			finding_evidence(f, where, "%lld", (long long)pf->numvfs.v);
		}
		char set[96], reset[96];
		/* Port N of a multi-port card is function N-1. */
		unsigned int port = (unsigned int)strtoul(pf->fn.bdf + 11, NULL, 16) + 1;
		snprintf(set, sizeof(set), "mlxconfig -d %s set LINK_TYPE_P%u=1", pf->fn.bdf, port);
		snprintf(reset, sizeof(reset),
			 "mlxfwreset -d %s reset -y (or reboot the node) for the firmware to apply "
			 "it",
			 pf->fn.bdf);
		finding_remedy_manual(
			f, "set the port back to InfiniBand in firmware, then reset",
			(const char *const[]){
				set, reset,
				"ibvf vf create the VFs again afterwards if the reset "
				"removed them",
				NULL});
	}
}

/* Firmware below which SR-IOV is not stable (the field report; NVIDIA's
 * release notes), by PCI device id of the PF. The one table. */
static const struct fw_min {
	int64_t device;
	const char *model, *min;
} fw_mins[] = {
	{0x1021, "ConnectX-7", "28.43.1014"},
	{0xa2dc, "BlueField-3", "32.43.1014"},
};

const char *check_fw_minimum(int64_t pci_device, const char **ret_model)
{
	for (size_t i = 0; i < sizeof(fw_mins) / sizeof(fw_mins[0]); i++)
		if (fw_mins[i].device == pci_device) {
			if (ret_model)
				*ret_model = fw_mins[i].model;
			return fw_mins[i].min;
		}
	return NULL;
}

/* Up to 4 dot-separated decimal fields of at most 9 digits each. */
static int fw_parse(const char *s, long v[4], size_t *ret_n)
{
	size_t n = 0;
	while (n < 4) {
		char *end;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		errno = 0;
		v[n++] = strtol(s, &end, 10);
		if (errno || end - s > 9)
			return -EINVAL;
		if (*end != '.') {
			*ret_n = n;
			return *end ? -EINVAL : 0;
		}
		s = end + 1;
	}
	return -EINVAL;
}

int check_fw_compare(const char *a, const char *b, int *ret)
{
	long va[4] = {0}, vb[4] = {0};
	size_t na, nb;
	if (fw_parse(a, va, &na) < 0 || fw_parse(b, vb, &nb) < 0)
		return -EINVAL;
	for (size_t i = 0; i < 4; i++)
		if (va[i] != vb[i]) {
			*ret = va[i] < vb[i] ? -1 : 1;
			return 0;
		}
	*ret = 0;
	return 0;
}

CHECK_FN(check_firmware_old)
{
	(void)o;
	const struct check_def *def = check_find("firmware-old");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct rdma *r = fn_rdma(&pf->fn);
		const char *model, *min;
		int c;
		/* Only where SR-IOV is used: a compute HCA, or any PF with VFs. */
		if (!r || !r->fw_ver || !pf->fn.device.known ||
		    !(min = check_fw_minimum(pf->fn.device.v, &model)) ||
		    check_fw_compare(r->fw_ver, min, &c) < 0 || c >= 0 ||
		    !(check_pf_compute(n, pf) || (pf->numvfs.known && pf->numvfs.v > 0)))
			continue;
		struct finding *f = check_add(out, def, SUBJECT_PF, pf->fn.bdf,
					      "PF %s (%s, %s) runs firmware %s, below %s",
					      pf->fn.bdf, r->name, model, r->fw_ver, min);
		if (!f)
			return;
		char where[256], q[96], burn[160], reset[96];
		check_ib_path(where, sizeof(where), r->name, "fw_ver");
		finding_evidence(f, where, "%s", r->fw_ver);
		check_fn_path(where, sizeof(where), pf->fn.bdf, "device");
		finding_evidence(f, where, "0x%04llx (%s: %s or later)", (long long)pf->fn.device.v,
				 model, min);
		snprintf(q, sizeof(q), "mlxfwmanager -d %s --query (shows the PSID and versions)",
			 pf->fn.bdf);
		snprintf(burn, sizeof(burn),
			 "mlxfwmanager -d %s -u -i <firmware image for the PSID, %s or later> "
			 "(or mlxfwmanager --online -u -d %s)",
			 pf->fn.bdf, min, pf->fn.bdf);
		snprintf(reset, sizeof(reset), "mlxfwreset -d %s reset -y, or reboot the node",
			 pf->fn.bdf);
		finding_remedy_manual(f, "update the HCA's firmware, then reset it",
				      (const char *const[]){q, burn, reset, NULL});
	}
}

/* The link width of a rate: 4 for "400 Gb/sec (4X NDR)"; 0 when unknown. */
static unsigned int rate_width(const char *rate)
{
	const char *p = rate ? strchr(rate, '(') : NULL;
	if (!p || p[1] < '1' || p[1] > '9')
		return 0;
	char *end;
	unsigned long w = strtoul(p + 1, &end, 10);
	return *end == 'X' && w <= 64 ? (unsigned int)w : 0;
}

static bool port_up_ib(const struct port *p)
{
	return port_is_ib(p) && p->state.known && p->state.v == PORT_STATE_ACTIVE &&
	       p->rate_mbps.known;
}

/* The best ACTIVE InfiniBand port among PFs of pf's model: its rate and
 * width, and the PF it is on. */
static const struct pf *best_of_model(const struct node *n, const struct pf *pf, int64_t *ret_mbps,
				      unsigned int *ret_width)
{
	const struct pf *best = NULL;
	*ret_mbps = 0;
	*ret_width = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *q = &n->pfs[i];
		const struct port *p = fn_port(&q->fn);
		if (!port_up_ib(p) || !check_same_model(pf, q))
			continue;
		if (p->rate_mbps.v > *ret_mbps) {
			*ret_mbps = p->rate_mbps.v;
			best = q;
		}
		if (rate_width(p->rate) > *ret_width)
			*ret_width = rate_width(p->rate);
	}
	return best;
}

CHECK_FN(check_rate_degraded)
{
	(void)o;
	const struct check_def *def = check_find("rate-degraded");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct port *p = fn_port(&pf->fn);
		int64_t best_mbps;
		unsigned int best_w, w = p ? rate_width(p->rate) : 0;
		if (!port_up_ib(p))
			continue;
		const struct pf *best = best_of_model(n, pf, &best_mbps, &best_w);
		if (!best || (p->rate_mbps.v >= best_mbps && (!w || w >= best_w)))
			continue;
		const struct rdma *r = fn_rdma(&pf->fn), *rb = fn_rdma(&best->fn);
		struct finding *f =
			check_add(out, def, SUBJECT_PF, pf->fn.bdf,
				  "PF %s (%s) links at %s, below its model's %s", pf->fn.bdf,
				  r->name, p->rate, fn_port(&best->fn)->rate);
		if (!f)
			return;
		char where[256], link[96];
		check_port_path(where, sizeof(where), r->name, p, "rate");
		finding_evidence(f, where, "%s", p->rate);
		check_port_path(where, sizeof(where), rb->name, &rb->ports[0], "rate");
		finding_evidence(f, where, "%s (same model)", rb->ports[0].rate);
		snprintf(link, sizeof(link),
			 "mlxlink -d %s (cable type, lanes up, FEC and error counters)",
			 pf->fn.bdf);
		finding_remedy_manual(
			f, "find the lane or cable fault: the link trains below what it can",
			(const char *const[]){link,
					      "reseat or replace the cable (or transceiver); check "
					      "the switch port's configured speed and width",
					      "the port retrains when the link goes down and up",
					      NULL});
	}
}
