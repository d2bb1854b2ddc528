// SPDX-License-Identifier: MIT
/* The writers of one PCI function, ibdev, netdev or VF state in the kernel's
 * exact formats (docs/kernel.md, docs/fixture.md). Shared by the fixture
 * writer (sim_node.c) and the simulated kernel (sim_kernel.c). */
#include "core/sim/sim_tree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/model/names.h"

int sim_fn_write(const char *root, const char *fn_rel, const struct sim_fn_spec *f, struct err *e)
{
	char rel[PATH_MAX];
	int r = sim_mkdirs(root, fn_rel, e);
#define PUT(name, ...) SIM_PUT_IN(fn_rel, name, __VA_ARGS__)
	PUT("vendor", "0x15b3\n");
	PUT("device", "0x%04x\n", f->device);
	PUT("subsystem_vendor", "0x15b3\n");
	PUT("subsystem_device", "0x0051\n");
	PUT("class", "0x%06x\n", f->ethernet ? 0x020000 : 0x020700);
	char numa[16] = "";
	if (f->pf_rel) { /* a VF is on its PF's node */
		sim_fmt(rel, sizeof(rel), "%s/numa_node", f->pf_rel);
		if (sim_get(root, rel, numa, sizeof(numa)) < 0)
			*numa = '\0';
	}
	PUT("numa_node", "%s\n", *numa ? numa : f->numa_node ? f->numa_node : "-1");
	if (!f->pf_rel) {
		PUT("sriov_totalvfs", "%u\n", f->totalvfs);
		PUT("sriov_numvfs", "%u\n", f->numvfs);
		PUT("sriov_drivers_autoprobe", "1\n");
		PUT("sriov_offset", "%u\n", f->vf_offset);
		PUT("sriov_stride", "%u\n", f->vf_stride);
		PUT("sriov_vf_device", "%x\n", SIM_VF_DEVICE);
	}
#undef PUT
	if (r < 0)
		return r;
	if (f->pf_rel) {
		char pf_link[PATH_MAX];
		sim_fmt(rel, sizeof(rel), "%s/physfn", fn_rel);
		if ((r = sim_symlink(root, rel, f->pf_rel, e)) < 0)
			return r;
		sim_fmt(pf_link, sizeof(pf_link), "%s/virtfn%u", f->pf_rel, f->vf_index);
		if ((r = sim_symlink(root, pf_link, fn_rel, e)) < 0)
			return r;
	}
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s", f->bdf);
	return sim_symlink(root, rel, fn_rel, e);
}

int sim_fn_bind(const char *root, const char *fn_rel, const char *bdf, struct err *e)
{
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "%s/driver", fn_rel);
	int r = sim_symlink(root, rel, "sys/bus/pci/drivers/mlx5_core", e);
	if (r < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/drivers/mlx5_core/%s", bdf);
	return sim_symlink(root, rel, fn_rel, e);
}

static void gid_format(uint64_t prefix, uint64_t guid, char *buf, size_t size)
{
	sim_fmt(buf, size, "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x\n",
		(unsigned int)(prefix >> 48), (unsigned int)(prefix >> 32) & 0xffff,
		(unsigned int)(prefix >> 16) & 0xffff, (unsigned int)prefix & 0xffff,
		(unsigned int)(guid >> 48), (unsigned int)(guid >> 32) & 0xffff,
		(unsigned int)(guid >> 16) & 0xffff, (unsigned int)guid & 0xffff);
}

static uint64_t mac_eui64(const uint8_t m[6])
{
	return (uint64_t)(m[0] ^ 2) << 56 | (uint64_t)m[1] << 48 | (uint64_t)m[2] << 40 |
	       0xfffeULL << 24 | (uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
}

/* The kernel's words (drivers/infiniband/core/sysfs.c): "UNKNOWN" and
 * "Unknown" for a value it has none for. */
static const char *state_name(int s)
{
	const char *w = port_state_to_string(s);
	return w && s <= PORT_STATE_ACTIVE ? w : "UNKNOWN";
}

static const char *phys_state_name(int s)
{
	const char *w = port_phys_state_to_sysfs(s);
	return w ? w : "Unknown";
}

/* A class device's two links, as sysfs has them: DIR/device -> the PCI
 * function, and sys/class/CLASS/NAME -> DIR. */
static int class_links(const char *root, const char *dir, const char *fn_rel, const char *class,
		       const char *name, struct err *e)
{
	char rel[PATH_MAX];
	int r;
	sim_fmt(rel, sizeof(rel), "%s/device", dir);
	if ((r = sim_symlink(root, rel, fn_rel, e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "sys/class/%s/%s", class, name);
	return sim_symlink(root, rel, dir, e);
}

int sim_ibdev_write(const char *root, const char *fn_rel, const struct sim_ibdev_spec *d,
		    struct err *e)
{
	char dir[PATH_MAX], rel[PATH_MAX], g[GUID_STRLEN], sg[GUID_STRLEN], gid[64];
	int r = 0;
	sim_fmt(dir, sizeof(dir), "%s/infiniband/%s", fn_rel, d->name);
	guid_format_sysfs(d->node_guid, g);
	guid_format_sysfs(d->sys_image_guid, sg);
#define PUT(name, ...) SIM_PUT_IN(dir, name, __VA_ARGS__)
	PUT("node_type", "1: CA\n");
	PUT("node_guid", "%s\n", g);
	PUT("sys_image_guid", "%s\n", sg);
	PUT("fw_ver", "%s\n", d->fw_ver);
	PUT("hca_type", "MT%u\n", d->device);
	PUT("board_id", "%s\n", d->board_id ? d->board_id : SIM_BOARD_COMPUTE);
	PUT("node_desc", "%s %s\n", d->hostname ? d->hostname : "dgx-h200-07", d->name);
	PUT("ports/1/state", "%d: %s\n", d->state, state_name(d->state));
	PUT("ports/1/phys_state", "%d: %s\n", d->phys_state, phys_state_name(d->phys_state));
	PUT("ports/1/rate", "%s\n", d->rate);
	PUT("ports/1/link_layer", "%s\n",
	    link_layer_to_string(d->ethernet ? LINK_LAYER_ETHERNET : LINK_LAYER_INFINIBAND));
	PUT("ports/1/lid", "0x%x\n", d->lid);
	PUT("ports/1/sm_lid", "0x%x\n", d->sm_lid);
	PUT("ports/1/lid_mask_count", "0\n");
	PUT("ports/1/sm_sl", "0\n");
	PUT("ports/1/cap_mask", "0x%08x\n", d->ethernet ? 0x04010000u : 0xa651e848u);
	uint64_t port_guid = d->ethernet ? mac_eui64(d->mac) : d->port_guid;
	gid_format(0xfe80000000000000ULL, port_guid, gid, sizeof(gid));
	PUT("ports/1/gids/0", "%s", gid);
	gid_format(0, 0, gid, sizeof(gid));
	PUT("ports/1/gids/1", "%s", gid);
	PUT("ports/1/gids/2", "%s", gid);
	PUT("ports/1/gids/3", "%s", gid);
	PUT("ports/1/pkeys/0", "0xffff\n");
	PUT("ports/1/pkeys/1", "0x0000\n");
#undef PUT
	return r < 0 ? r : class_links(root, dir, fn_rel, "infiniband", d->name, e);
}

int sim_netdev_write(const char *root, const char *fn_rel, const struct sim_netdev_spec *n,
		     struct err *e)
{
	char dir[PATH_MAX], rel[PATH_MAX], addr[64];
	int r = 0;
	sim_fmt(dir, sizeof(dir), "%s/net/%s", fn_rel, n->name);
	if (n->ethernet) {
		sim_fmt(addr, sizeof(addr), "%02x:%02x:%02x:%02x:%02x:%02x", n->mac[0], n->mac[1],
			n->mac[2], n->mac[3], n->mac[4], n->mac[5]);
	} else {
		uint64_t g = n->port_guid;
		int len = snprintf(addr, sizeof(addr), "00:%02x:%02x:%02x:fe:80:00:00:00:00:00:00",
				   (n->qpn >> 16) & 0xff, (n->qpn >> 8) & 0xff, n->qpn & 0xff);
		for (int i = 7; i >= 0; i--)
			len += snprintf(addr + len, sizeof(addr) - (size_t)len, ":%02x",
					(unsigned int)(g >> (i * 8)) & 0xff);
	}
	bool oper = n->up && n->carrier;
#define PUT(name, ...) SIM_PUT_IN(dir, name, __VA_ARGS__)
	PUT("address", "%s\n", addr);
	PUT("addr_len", "%d\n", n->ethernet ? 6 : 20);
	PUT("broadcast", "%s\n",
	    n->ethernet ? "ff:ff:ff:ff:ff:ff"
			: "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff");
	PUT("type", "%d\n", n->ethernet ? 1 : 32);
	PUT("ifindex", "%u\n", n->ifindex);
	PUT("iflink", "%u\n", n->ifindex);
	PUT("flags", "0x%x\n", n->up ? 0x1003 : 0x1002);
	PUT("operstate", "%s\n", oper ? "up" : "down");
	PUT("mtu", "%u\n", n->mtu);
	PUT("dev_port", "%u\n", n->dev_port);
	PUT("dev_id", "0x0\n");
	PUT("tx_queue_len", "%d\n", n->ethernet ? 1000 : 256);
#undef PUT
	return r < 0 ? r : class_links(root, dir, fn_rel, "net", n->name, e);
}

int sim_mofed_write(const char *root, const char *pf_rel, unsigned int vf, uint64_t node,
		    uint64_t port, const char *policy, struct err *e)
{
	char rel[PATH_MAX], g[GUID_STRLEN];
	int r;
	guid_format_colon(node, g);
	sim_fmt(rel, sizeof(rel), "%s/sriov/%u/node", pf_rel, vf);
	if ((r = sim_putf(root, e, rel, "%s\n", g)) < 0)
		return r;
	guid_format_colon(port, g);
	sim_fmt(rel, sizeof(rel), "%s/sriov/%u/port", pf_rel, vf);
	if ((r = sim_putf(root, e, rel, "%s\n", g)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "%s/sriov/%u/policy", pf_rel, vf);
	return sim_putf(root, e, rel, "%s\n", policy);
}
