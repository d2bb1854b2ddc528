// SPDX-License-Identifier: MIT
/* Which devices a device plugin resource selects, by each plugin's own
 * rules (devplugin.h), read from their sources:
 *
 * SR-IOV network device plugin (pkg/resources/deviceSelectors.go): vendors,
 * devices, drivers and linkTypes are exact, case-sensitive comparisons with
 * what it reads (ids as lowercase hex without 0x, as ghw gives them; the
 * link type is netlink's encapsulation name of the function's netdev, or of
 * its PF's when the VF has none); pfNames and rootDevices compare the PF's
 * netdev name or PCI address without regard to case, and "name#0-3,5" keeps
 * only those VF indexes; no wildcards. isRdma keeps functions with an RDMA
 * device. PFs whose VFs are enabled and functions without a driver are not
 * listed at all.
 *
 * RDMA shared device plugin (pkg/resources/device_selectors.go): vendors,
 * deviceIDs, drivers, ifNames (the function's first netdev) and linkTypes,
 * all exact; only functions with a driver and an RDMA device. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devplugin.h"

static const struct fn *dev_fn(const struct pf *pf, const struct vf *vf)
{
	return vf ? &vf->fn : &pf->fn;
}

bool devplugin_candidate(enum dp_plugin p, const struct pf *pf, const struct vf *vf)
{
	const struct fn *fn = dev_fn(pf, vf);
	if (!fn->driver)
		return false;
	if (p == DP_RDMA_SHARED)
		return fn->n_rdmas > 0;
	/* A PF with VFs enabled is left out; one without is a device of its own. */
	return vf || pf->n_vfs == 0;
}

/* netlink's EncapType names (vishvananda/netlink) for ARPHRD_* types. */
static const char *encap_name(const struct netdev *nd)
{
	if (!nd || !nd->type.known)
		return "";
	switch (nd->type.v) {
	case 1:
		return "ether";
	case 32:
		return "infiniband";
	case 772:
		return "loopback";
	case 65534:
		return "none";
	default:
		return "unknown";
	}
}

static const struct netdev *first_netdev(const struct fn *fn)
{
	return fn->n_netdevs ? &fn->netdevs[0] : NULL;
}

const char *devplugin_value(enum dp_plugin p, enum dp_field f, const struct pf *pf,
			    const struct vf *vf, char *buf, size_t size)
{
	const struct fn *fn = dev_fn(pf, vf);
	const struct netdev *nd = first_netdev(fn);
	buf[0] = '\0';
	switch (f) {
	case DP_VENDORS:
		if (fn->vendor.known)
			snprintf(buf, size, "%04llx", (unsigned long long)fn->vendor.v & 0xffff);
		break;
	case DP_DEVICES:
		if (fn->device.known)
			snprintf(buf, size, "%04llx", (unsigned long long)fn->device.v & 0xffff);
		break;
	case DP_DRIVERS:
		snprintf(buf, size, "%s", fn->driver ? fn->driver : "");
		break;
	case DP_PCI_ADDRESSES:
		snprintf(buf, size, "%s", fn->bdf);
		break;
	case DP_PF_NAMES:
		if (vf && first_netdev(&pf->fn))
			snprintf(buf, size, "%s", first_netdev(&pf->fn)->name);
		break;
	case DP_ROOT_DEVICES:
		if (vf)
			snprintf(buf, size, "%s", pf->fn.bdf);
		break;
	case DP_LINK_TYPES:
		/* The SR-IOV plugin asks the PF's netdev when the VF has none
		 * (it moved into a pod); the RDMA shared plugin leaves it empty. */
		if (!nd && vf && p == DP_SRIOV)
			nd = first_netdev(&pf->fn);
		snprintf(buf, size, "%s", encap_name(nd));
		break;
	case DP_IF_NAMES:
		snprintf(buf, size, "%s", nd ? nd->name : "");
		break;
	default:
		break;
	}
	return buf;
}

/* Go's strconv.Atoi: an optional sign, then decimal digits only. */
static bool atoi_go(const char *s, size_t len, long *ret)
{
	size_t i = 0;
	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i == len || len - i > 9)
		return false;
	for (size_t j = i; j < len; j++)
		if (!isdigit((unsigned char)s[j]))
			return false;
	char tmp[16];
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	*ret = strtol(tmp, NULL, 10);
	return true;
}

/* isSelected(): "name#0-3,5" holds VF index idx; a malformed entry ends the
 * search with false, as in the plugin. */
static bool index_selected(long idx, const char *sel)
{
	const char *hash = strchr(sel, '#');
	if (!hash)
		return true;
	if (strchr(hash + 1, '#'))
		return false;
	for (const char *e = hash + 1;;) {
		size_t len = strcspn(e, ",");
		const char *dash = memchr(e, '-', len);
		long a, b;
		if (dash) {
			if (memchr(dash + 1, '-', len - (size_t)(dash + 1 - e)) ||
			    !atoi_go(e, (size_t)(dash - e), &a) ||
			    !atoi_go(dash + 1, len - (size_t)(dash + 1 - e), &b))
				return false;
			if (idx >= a && idx <= b)
				return true;
		} else {
			if (!atoi_go(e, len, &a))
				return false;
			if (idx == a)
				return true;
		}
		if (!e[len])
			return false;
		e += len + 1;
	}
}

/* getItem(): the first entry whose part before '#' equals the name, any case. */
static bool pf_item_match(const struct dp_list *l, const char *name, long idx)
{
	if (!*name)
		return false;
	for (size_t i = 0; i < l->n; i++) {
		size_t len = strcspn(l->v[i], "#");
		if (len == strlen(name) && !strncasecmp(l->v[i], name, len))
			return index_selected(idx, l->v[i]);
	}
	return false;
}

static bool contains(const struct dp_list *l, const char *v)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], v))
			return true;
	return false;
}

bool devplugin_field_match(enum dp_plugin p, enum dp_field f, const struct dp_list *l,
			   const struct pf *pf, const struct vf *vf)
{
	char v[64];
	if (!l->n)
		return true;
	devplugin_value(p, f, pf, vf, v, sizeof(v));
	if (f == DP_PF_NAMES || f == DP_ROOT_DEVICES)
		return pf_item_match(l, v, vf ? (long)vf->index : -1);
	return contains(l, v);
}

bool devplugin_selector_match(enum dp_plugin p, const struct dp_selector *s, const struct pf *pf,
			      const struct vf *vf)
{
	for (int f = 0; f < DP_FIELDS; f++)
		if (!devplugin_field_match(p, (enum dp_field)f, &s->f[f], pf, vf))
			return false;
	if (p == DP_SRIOV && s->is_rdma && !dev_fn(pf, vf)->n_rdmas)
		return false;
	return true;
}

bool devplugin_match(const struct dp_resource *r, const struct node *n, const struct pf *pf,
		     const struct vf *vf)
{
	(void)n;
	if (r->error || !devplugin_candidate(r->plugin, pf, vf))
		return false;
	for (size_t i = 0; i < r->n_sel; i++)
		if (devplugin_selector_match(r->plugin, &r->sel[i], pf, vf))
			return true;
	return false;
}
