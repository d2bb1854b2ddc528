// SPDX-License-Identifier: MIT
/* Reading RTM_NEWLINK messages: the link itself and its VF list.
 *
 * libnl's own link cache has no getter for the IB node and port GUIDs of a
 * VF, so the IFLA_VFINFO_LIST nest is parsed here. Payloads are copied out
 * with memcpy: attributes are only 4-byte aligned and struct ifla_vf_guid
 * holds a 64-bit field. */
#include "core/linux/nlvf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

/* Like nla_parse() without a policy, but a stream that does not end on an
 * attribute boundary (a cut attribute, a length running past the end) is
 * malformed rather than silently shortened. */
static int attrs_parse(struct nlattr **tb, int max, struct nlattr *head, int len)
{
	struct nlattr *nla;
	int rem;

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	nla_for_each_attr(nla, head, len, rem)
	{
		int type = nla_type(nla);
		if (type <= max)
			tb[type] = nla;
	}
	return rem > 0 ? -EBADMSG : 0;
}

/* Copies a fixed-size payload. Returns 1 when copied, 0 when the attribute
 * is absent, -EBADMSG when it is shorter than the struct. */
static int attr_get(const struct nlattr *a, void *dst, size_t size)
{
	if (!a)
		return 0;
	if (nla_len(a) < 0 || (size_t)nla_len(a) < size)
		return -EBADMSG;
	memcpy(dst, nla_data(a), size);
	return 1;
}

/* A NUL-terminated string attribute that must fit in size bytes. */
static int attr_get_string(const struct nlattr *a, char *dst, size_t size)
{
	size_t len = (size_t)nla_len(a);
	const char *s = nla_data(a);
	const char *nul = memchr(s, '\0', len);

	if (!nul || nul == s || (size_t)(nul - s) >= size)
		return -EBADMSG;
	memcpy(dst, s, (size_t)(nul - s) + 1);
	return 0;
}

/* Drivers that do not fill in a setting leave the kernel's (u32)-1. */
static int vf_setting(uint32_t v)
{
	return v > INT_MAX ? -1 : (int)v;
}

static void vf_init(struct sys_vf_info *vf, uint32_t index)
{
	memset(vf, 0, sizeof(*vf));
	vf->vf = index;
	vf->vlan = vf->qos = -1;
	vf->min_tx_rate = vf->max_tx_rate = -1;
	vf->spoofchk = vf->trust = vf->link_state = -1;
}

static int vf_parse_mac_vlan(struct nlattr **tb, struct sys_vf_info *vf)
{
	struct ifla_vf_mac mac;
	struct ifla_vf_vlan vlan;
	int r;

	if ((r = attr_get(tb[IFLA_VF_MAC], &mac, sizeof(mac))) < 0)
		return r;
	if (r) {
		vf->vf = mac.vf;
		memcpy(vf->mac, mac.mac, sizeof(vf->mac));
	}
	if ((r = attr_get(tb[IFLA_VF_VLAN], &vlan, sizeof(vlan))) < 0)
		return r;
	if (r) {
		vf->vlan = vlan.vlan;
		vf->qos = vlan.qos;
	}
	return 0;
}

/* IFLA_VF_RATE (min and max) supersedes the older IFLA_VF_TX_RATE (max). */
static int vf_parse_rates(struct nlattr **tb, struct sys_vf_info *vf)
{
	struct ifla_vf_tx_rate tx;
	struct ifla_vf_rate rate;
	int r;

	if ((r = attr_get(tb[IFLA_VF_TX_RATE], &tx, sizeof(tx))) < 0)
		return r;
	if (r)
		vf->max_tx_rate = tx.rate;
	if ((r = attr_get(tb[IFLA_VF_RATE], &rate, sizeof(rate))) < 0)
		return r;
	if (r) {
		vf->min_tx_rate = rate.min_tx_rate;
		vf->max_tx_rate = rate.max_tx_rate;
	}
	return 0;
}

static int vf_parse_settings(struct nlattr **tb, struct sys_vf_info *vf)
{
	struct ifla_vf_spoofchk spoofchk;
	struct ifla_vf_link_state link_state;
	struct ifla_vf_trust trust;
	int r;

	if ((r = attr_get(tb[IFLA_VF_SPOOFCHK], &spoofchk, sizeof(spoofchk))) < 0)
		return r;
	if (r)
		vf->spoofchk = vf_setting(spoofchk.setting);
	if ((r = attr_get(tb[IFLA_VF_LINK_STATE], &link_state, sizeof(link_state))) < 0)
		return r;
	if (r)
		vf->link_state = vf_setting(link_state.link_state);
	if ((r = attr_get(tb[IFLA_VF_TRUST], &trust, sizeof(trust))) < 0)
		return r;
	if (r)
		vf->trust = vf_setting(trust.setting);
	return 0;
}

static int vf_parse_guids(struct nlattr **tb, struct sys_vf_info *vf)
{
	struct ifla_vf_guid guid;
	int r;

	if ((r = attr_get(tb[IFLA_VF_IB_NODE_GUID], &guid, sizeof(guid))) < 0)
		return r;
	if (r) {
		vf->node_guid = guid.guid;
		vf->node_guid_known = true;
	}
	if ((r = attr_get(tb[IFLA_VF_IB_PORT_GUID], &guid, sizeof(guid))) < 0)
		return r;
	if (r) {
		vf->port_guid = guid.guid;
		vf->port_guid_known = true;
	}
	return 0;
}

/* One IFLA_VF_INFO nest; pos is the VF index when no IFLA_VF_MAC names it. */
static int vf_parse(struct nlattr *info, uint32_t pos, struct sys_vf_info *ret)
{
	struct nlattr *tb[IFLA_VF_MAX + 1];
	struct sys_vf_info vf;
	int r;

	if ((r = attrs_parse(tb, IFLA_VF_MAX, nla_data(info), nla_len(info))) < 0)
		return r;
	vf_init(&vf, pos);
	if ((r = vf_parse_mac_vlan(tb, &vf)) < 0 || (r = vf_parse_rates(tb, &vf)) < 0 ||
	    (r = vf_parse_settings(tb, &vf)) < 0 || (r = vf_parse_guids(tb, &vf)) < 0)
		return r;
	*ret = vf;
	return 0;
}

static int vf_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct sys_vf_info *)a)->vf, y = ((const struct sys_vf_info *)b)->vf;
	return x < y ? -1 : x > y;
}

/* Sorts by VF index; two entries for one VF make the list malformed. */
static int vfs_sort(struct sys_vf_info *vfs, size_t n)
{
	if (n > 1)
		qsort(vfs, n, sizeof(*vfs), vf_cmp);
	for (size_t i = 1; i < n; i++)
		if (vfs[i].vf == vfs[i - 1].vf)
			return -EBADMSG;
	return 0;
}

static int vfs_grow(struct sys_vf_info **vfs, size_t *cap, size_t n)
{
	if (n < *cap)
		return 0;
	if (n >= NLVF_VFS_MAX)
		return -EBADMSG;
	size_t ncap = *cap ? *cap * 2 : 8;
	if (ncap > NLVF_VFS_MAX)
		ncap = NLVF_VFS_MAX;
	struct sys_vf_info *nv = realloc(*vfs, ncap * sizeof(**vfs));
	if (!nv)
		return -ENOMEM;
	*vfs = nv;
	*cap = ncap;
	return 0;
}

int nlvf_parse_vfinfo_list(struct nlattr *list, struct sys_vf_info **ret, size_t *ret_n)
{
	struct sys_vf_info *vfs = NULL;
	size_t n = 0, cap = 0;
	struct nlattr *nla;
	int rem, r = 0;

	nla_for_each_nested(nla, list, rem)
	{
		if (nla_type(nla) != IFLA_VF_INFO)
			continue;
		if ((r = vfs_grow(&vfs, &cap, n)) < 0 ||
		    (r = vf_parse(nla, (uint32_t)n, &vfs[n])) < 0)
			goto fail;
		n++;
	}
	if (rem > 0 || (r = vfs_sort(vfs, n)) < 0) {
		r = -EBADMSG;
		goto fail;
	}
	*ret = vfs;
	*ret_n = n;
	return 0;
fail:
	free(vfs);
	return r;
}

/* IFLA_PROP_LIST holds one IFLA_ALT_IFNAME per alternative name; names past
 * SYS_ALTNAMES_MAX are dropped. */
static int link_parse_altnames(struct nlattr *list, struct sys_link *l)
{
	struct nlattr *nla;
	int rem;

	nla_for_each_nested(nla, list, rem)
	{
		if (nla_type(nla) != IFLA_ALT_IFNAME || l->n_altnames == SYS_ALTNAMES_MAX)
			continue;
		if (attr_get_string(nla, l->altnames[l->n_altnames], SYS_ALTIFNAMSIZ) < 0)
			return -EBADMSG;
		l->n_altnames++;
	}
	return rem > 0 ? -EBADMSG : 0;
}

static int link_parse_scalars(struct nlattr **tb, struct sys_link *l)
{
	uint32_t u32;
	uint8_t u8;
	int r;

	if ((r = attr_get(tb[IFLA_MTU], &u32, sizeof(u32))) < 0)
		return r;
	if (r)
		l->mtu = u32;
	if ((r = attr_get(tb[IFLA_OPERSTATE], &u8, sizeof(u8))) < 0)
		return r;
	if (r)
		l->operstate = u8;
	if ((r = attr_get(tb[IFLA_NUM_VF], &u32, sizeof(u32))) < 0)
		return r;
	if (r)
		l->num_vf = u32 > NLVF_VFS_MAX ? NLVF_VFS_MAX : (int)u32;
	if (tb[IFLA_ADDRESS]) {
		size_t len = (size_t)nla_len(tb[IFLA_ADDRESS]);
		if (len > sizeof(l->addr))
			return -EBADMSG;
		memcpy(l->addr, nla_data(tb[IFLA_ADDRESS]), len);
		l->addr_len = len;
	}
	return 0;
}

int nlvf_parse_link(struct nlmsghdr *h, struct sys_link *ret)
{
	const int hdrlen = sizeof(struct ifinfomsg);
	struct nlattr *tb[IFLA_MAX + 1];
	struct ifinfomsg ifi;
	struct sys_link l;
	int r;

	if (!nlmsg_valid_hdr(h, hdrlen))
		return -EBADMSG;
	if (h->nlmsg_type != RTM_NEWLINK)
		return -EINVAL;
	r = attrs_parse(tb, IFLA_MAX, nlmsg_attrdata(h, hdrlen), nlmsg_attrlen(h, hdrlen));
	if (r < 0 || !tb[IFLA_IFNAME])
		return -EBADMSG;
	memcpy(&ifi, nlmsg_data(h), sizeof(ifi));
	memset(&l, 0, sizeof(l));
	l.ifindex = ifi.ifi_index;
	l.flags = ifi.ifi_flags;
	l.type = ifi.ifi_type;
	l.operstate = -1;
	l.num_vf = -1;
	if (attr_get_string(tb[IFLA_IFNAME], l.name, sizeof(l.name)) < 0)
		return -EBADMSG;
	if ((r = link_parse_scalars(tb, &l)) < 0)
		return r;
	if (tb[IFLA_PROP_LIST] && (r = link_parse_altnames(tb[IFLA_PROP_LIST], &l)) < 0)
		return r;
	if (tb[IFLA_VFINFO_LIST] &&
	    (r = nlvf_parse_vfinfo_list(tb[IFLA_VFINFO_LIST], &l.vfs, &l.n_vfs)) < 0)
		return r;
	*ret = l;
	return 0;
}
