// SPDX-License-Identifier: MIT
/* The simulated DGX H200 (docs/fixture.md): 8 ConnectX-7 compute HCAs in
 * InfiniBand mode with their VFs, two dual-port ConnectX-7 for storage in
 * Ethernet mode, and the faults of the field report unless healthy. */
#include "core/sim/sim_tree.h"
#include "core/model/names.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTNAME       "dgx-h200-07"
#define KERNEL_DEFAULT "6.8.0-55-generic"
#define PFS_MAX	       (SIM_PFS_MAX + 4)

/* The DGX H200's compute HCAs (mlx5_0,3,4,5 on socket 0, mlx5_6,9,10,11 on
 * socket 1) and storage ports. Compute HCA i shares a PCIe switch with GPU i:
 *   pci0000:<B-3>/0000:<B-3>:01.0        root port
 *     0000:<B-2>:00.0                      switch upstream port
 *       0000:<B-1>:00.0 / 0000:<B>:00.0    downstream port, the HCA (and its VFs)
 *       0000:<B-1>:01.0 / 0000:<B+3>:00.0  downstream port, GPU i
 * (the DGX's own GPU addresses: 1b, 43, 52, 61, 9d, c3, d1, df). */
static const unsigned int dgx_compute_bus[] = {0x18, 0x40, 0x4f, 0x5e, 0x9a, 0xc0, 0xce, 0xdc};
static const unsigned int dgx_storage_bus[] = {0x29, 0xaa};
#define DGX_GPUS 8
/* The buses a compute HCA's switch and GPU take around the HCA's bus. */
#define SWITCH_BUS_BELOW 3
#define SWITCH_BUS_ABOVE 3

/* Seeded faults, by compute HCA index (0 = mlx5_0 ... 7 = mlx5_11). */
enum {
	ZERO_GUID_A = 0,   /* mlx5_0: all VFs zero GUIDs, kernel names, 18:00.2 failed probe */
	PORT_DOWN_PF = 1,  /* mlx5_3 VF 5: 1: DOWN / 2: Polling */
	ZERO_GUID_B = 2,   /* mlx5_4: all VFs zero GUIDs */
	KNAMES_B = 3,	   /* mlx5_5: kernel-named VFs */
	ETH_PF = 4,	   /* mlx5_6: fell back to Ethernet */
	DUP_PF = 5,	   /* mlx5_9 VF 2: the GUID of mlx5_5 VF 2 */
	OLD_FW_PF = 6,	   /* mlx5_10: firmware 28.39.1002 */
	SLOW_PF = 7,	   /* mlx5_11: port trained at 2X, 200 Gb/sec */
	PINNED_PF = 1,	   /* mlx5_3: the only VF names .link files pin */
	UNIT_PF = 5,	   /* mlx5_9: the boot unit re-creates another VF count */
	MOFED_LAST_PF = 3, /* sriov/<vf>/ files on mlx5_0,3,4,5 only */
};
#define PORT_DOWN_VF	5
#define FAILED_PROBE_VF 1
#define DUP_VF		2

/* VFs held by pods: {compute index, VF}, in SIM_POD_VFS order. */
static const unsigned int pod_vfs[SIM_POD_VFS][2] = {{1, 3}, {5, 0}, {7, 0}, {3, 5}};
#define STALE_PF 0
#define STALE_VF 2 /* 0000:18:00.3 */
/* Each pod gets the GPU behind its VF's switch; on the seeded node
 * llm-serve-0 (VF on mlx5_5, socket 0) got GPU 6 on socket 1, while mlx5_10's
 * VFs beside that GPU were free. */
#define FAR_GPU_SLOT 3
#define FAR_GPU	     6

struct pfdef {
	unsigned int bus, fn;
	int compute; /* index among compute PFs, -1 for storage */
	char bdf[16], rel[PATH_MAX], ibdev[16], netdev[16];
	unsigned int ifindex_order;
	int numa;			     /* the socket: buses below 0x80 are socket 0's */
	char gpu_bdf[16], gpu_rel[PATH_MAX]; /* the GPU behind its switch ("" none) */
};

struct build {
	const char *root;
	const struct sim_fixture_opts *o;
	unsigned int pfs, vfs;
	bool faulty;
	struct pfdef pf[PFS_MAX];
	size_t n_pf;
	unsigned int next_ibdev, next_lid;
	struct sim_pod_vf pods[SIM_POD_VFS];
	char (*all_vfs)[16];
	size_t n_all_vfs;
	struct sim_vf_name *names; /* VF names .link files pin */
	size_t n_names;
	struct err *e;
};

/* Whether a PF on bus (its root bus below it, its VFs' above) would meet a
 * placed PF, or a DGX compute HCA's switch and GPU. */
static bool used_bus(const struct build *b, unsigned int bus)
{
	for (size_t i = 0; i < b->n_pf; i++) {
		const struct pfdef *p = &b->pf[i];
		unsigned int below = 1, above = 1;
		if (p->compute >= 0 && p->compute < DGX_GPUS) {
			below = SWITCH_BUS_BELOW + 1;
			above = SWITCH_BUS_ABOVE + 1;
		}
		if (bus + below >= p->bus && bus <= p->bus + above)
			return true;
	}
	return false;
}

static int cmp_pf(const void *a, const void *b)
{
	const struct pfdef *x = a, *y = b;
	return (int)(x->bus << 8 | x->fn) - (int)(y->bus << 8 | y->fn);
}

/* Places the PFs on their buses (the DGX's own first, then free even buses)
 * and names them in PCI order, as the kernel probes them. */
static int plan_pfs(struct build *b)
{
	for (unsigned int i = 0; i < 2; i++)
		for (unsigned int fn = 0; fn < 2; fn++)
			b->pf[b->n_pf++] =
				(struct pfdef){.bus = dgx_storage_bus[i], .fn = fn, .compute = -1};
	for (unsigned int c = 0; c < b->pfs && c < 8; c++)
		b->pf[b->n_pf++] = (struct pfdef){.bus = dgx_compute_bus[c], .compute = (int)c};
	for (unsigned int c = 8, bus = 0x02; c < b->pfs; c++) {
		while (bus < 0xfe && used_bus(b, bus))
			bus += 2;
		if (bus >= 0xfe)
			return err_setx(b->e, ERANGE, "no free PCI bus for %u PFs", b->pfs);
		b->pf[b->n_pf++] = (struct pfdef){.bus = bus, .compute = (int)c};
	}
	qsort(b->pf, b->n_pf, sizeof(b->pf[0]), cmp_pf);
	for (size_t i = 0; i < b->n_pf; i++) {
		struct pfdef *p = &b->pf[i];
		sim_fmt(p->bdf, sizeof(p->bdf), "0000:%02x:00.%u", p->bus, p->fn);
		p->numa = p->bus >= 0x80;
		if (p->compute >= 0 && p->compute < DGX_GPUS) {
			unsigned int rb = p->bus - SWITCH_BUS_BELOW;
			char sw[128];
			sim_fmt(sw, sizeof(sw),
				"sys/devices/pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0", rb, rb,
				rb + 1);
			sim_fmt(p->rel, sizeof(p->rel), "%s/0000:%02x:00.0/%s", sw, p->bus - 1,
				p->bdf);
			sim_fmt(p->gpu_bdf, sizeof(p->gpu_bdf), "0000:%02x:00.0",
				p->bus + SWITCH_BUS_ABOVE);
			sim_fmt(p->gpu_rel, sizeof(p->gpu_rel), "%s/0000:%02x:01.0/%s", sw,
				p->bus - 1, p->gpu_bdf);
		} else {
			sim_fmt(p->rel, sizeof(p->rel),
				"sys/devices/pci0000:%02x/0000:%02x:01.0/%s", p->bus - 1,
				p->bus - 1, p->bdf);
		}
		sim_fmt(p->ibdev, sizeof(p->ibdev), "mlx5_%zu", i);
		bool eth = p->compute < 0 || (b->faulty && p->compute == ETH_PF);
		if (p->compute < 0)
			sim_fmt(p->netdev, sizeof(p->netdev), "enp%us0f%unp%u", p->bus, p->fn,
				p->fn);
		else
			sim_fmt(p->netdev, sizeof(p->netdev), eth ? "enp%us0np0" : "ibp%us0",
				p->bus);
	}
	b->next_ibdev = (unsigned int)b->n_pf;
	return 0;
}

static bool pf_ethernet(const struct build *b, const struct pfdef *p)
{
	return p->compute < 0 || (b->faulty && p->compute == ETH_PF);
}

static const char *pf_fw(const struct build *b, const struct pfdef *p)
{
	return b->faulty && p->compute == OLD_FW_PF ? SIM_FW_OLD : SIM_FW_OK;
}

static const char *pf_rate(const struct build *b, const struct pfdef *p)
{
	if (pf_ethernet(b, p))
		return SIM_RATE_HDR;
	return b->faulty && p->compute == SLOW_PF ? SIM_RATE_2X : SIM_RATE_NDR;
}

static const char *pf_board(const struct pfdef *p)
{
	return p->compute < 0 ? SIM_BOARD_STORAGE : SIM_BOARD_COMPUTE;
}

static bool pf_mofed(const struct build *b, const struct pfdef *p)
{
	return p->compute >= 0 && (!b->faulty || p->compute <= MOFED_LAST_PF);
}

static uint64_t pf_guid(const struct pfdef *p)
{
	return SIM_OUI_GUID | (uint64_t)p->bus << 16 | (uint64_t)p->fn << 15;
}

static void pf_mac(const struct pfdef *p, uint8_t mac[6])
{
	const uint8_t m[6] = {0xa0, 0x88, 0xc2, (uint8_t)p->bus, (uint8_t)(0x80 | p->fn), 0};
	memcpy(mac, m, 6);
}

static int write_pf(struct build *b, struct pfdef *p)
{
	bool eth = pf_ethernet(b, p);
	unsigned int vfs = p->compute >= 0 ? b->vfs : 0;
	unsigned int total = vfs > 16 ? vfs : 16;
	struct sim_fn_spec f = {
		.bdf = p->bdf,
		.device = SIM_PF_DEVICE,
		.ethernet = eth,
		.totalvfs = total,
		.numvfs = vfs,
		/* Function 1 of a dual-port card numbers its VFs after function 0's. */
		.vf_offset = p->compute >= 0 ? 1 : (p->fn ? total + 1 : 2),
		.vf_stride = 1,
		.numa_node = p->numa ? "1" : "0",
	};
	int r = sim_fn_write(b->root, p->rel, &f, b->e);
	if (r == 0)
		r = sim_fn_bind(b->root, p->rel, p->bdf, b->e);
	if (r < 0)
		return r;
	struct sim_ibdev_spec d = {
		.name = p->ibdev,
		.device = SIM_PF_DEVICE,
		.node_guid = pf_guid(p),
		.sys_image_guid = pf_guid(p),
		.port_guid = pf_guid(p),
		.fw_ver = pf_fw(b, p),
		.board_id = pf_board(p),
		.ethernet = eth,
		.state = 4,
		.phys_state = 5,
		.rate = pf_rate(b, p),
		.lid = eth ? 0 : b->next_lid++,
		.sm_lid = eth ? 0 : 1,
		.hostname = HOSTNAME,
	};
	pf_mac(p, d.mac);
	if ((r = sim_ibdev_write(b->root, p->rel, &d, b->e)) < 0)
		return r;
	unsigned int ifindex;
	if ((r = sim_counter_next(b->root, "next_ifindex", &ifindex, b->e)) < 0)
		return r;
	struct sim_netdev_spec n = {
		.name = p->netdev,
		.ifindex = ifindex,
		.ethernet = eth,
		.up = true,
		.carrier = true,
		.mtu = eth ? 9000 : 4092,
		.dev_port = 0,
		.qpn = 0x1087,
		.port_guid = pf_guid(p),
	};
	pf_mac(p, n.mac);
	if ((r = sim_netdev_write(b->root, p->rel, &n, b->e)) < 0)
		return r;
	if (pf_mofed(b, p)) {
		char rel[PATH_MAX];
		sim_fmt(rel, sizeof(rel), "%s/sriov", p->rel);
		r = sim_mkdirs(b->root, rel, b->e);
	}
	return r;
}

/* How one VF of the fixture looks. */
struct vfplan {
	bool zero_guid, kernel_name, probe_failed, port_down, in_pod;
	int pod_slot;
	uint64_t guid;
};

static uint64_t vf_guid(const struct pfdef *p, unsigned int vf)
{
	return SIM_OUI_GUID | (uint64_t)p->bus << 16 | (vf + 1);
}

static struct vfplan plan_vf(const struct build *b, const struct pfdef *p, unsigned int vf)
{
	struct vfplan v = {.pod_slot = -1, .guid = vf_guid(p, vf)};
	for (int i = 0; i < SIM_POD_VFS; i++)
		if ((int)pod_vfs[i][0] == p->compute && pod_vfs[i][1] == vf)
			v.pod_slot = i;
	v.in_pod = v.pod_slot >= 0 && !(p->compute == ETH_PF && b->faulty);
	if (!b->faulty)
		return v;
	v.zero_guid = p->compute == ZERO_GUID_A || p->compute == ZERO_GUID_B;
	v.kernel_name = p->compute == ZERO_GUID_A || p->compute == KNAMES_B;
	v.probe_failed = p->compute == ZERO_GUID_A && vf == FAILED_PROBE_VF;
	v.port_down = p->compute == PORT_DOWN_PF && vf == PORT_DOWN_VF;
	if (p->compute == DUP_PF && vf == DUP_VF)
		for (size_t i = 0; i < b->n_pf; i++)
			if (b->pf[i].compute == KNAMES_B)
				v.guid = vf_guid(&b->pf[i], DUP_VF);
	if (v.zero_guid)
		v.guid = 0;
	return v;
}

/* The VF's netdev, or its record in the pod that holds it. */
static int write_vf_netdev(struct build *b, const struct pfdef *p, unsigned int vf, const char *rel,
			   const char bdf[16], const struct vfplan *v, bool carrier,
			   const uint8_t mac[6])
{
	char name[16];
	bool eth = pf_ethernet(b, p);
	int r = 0;
	unsigned int ifindex;
	if (v->kernel_name)
		r = sim_free_name(b->root, "sys/class/net", eth ? "eth" : "ib", name, sizeof(name));
	else
		sim_fmt(name, sizeof(name), "%.*sv%u", (int)(strlen(p->netdev) - (eth ? 3 : 0)),
			p->netdev, vf);
	if (r < 0)
		return err_set(b->e, r, "no free netdev name for '%s'", bdf);
	if (!b->faulty || (p->compute == PINNED_PF && !v->kernel_name)) {
		struct sim_vf_name *nm = &b->names[b->n_names++];
		memcpy(nm->bdf, bdf, 16);
		memcpy(nm->pf_bdf, p->bdf, 16);
		memcpy(nm->name, name, 16);
		nm->vf = vf;
	}
	if (v->in_pod) {
		/* Moved into the pod's netns: gone from the host's sysfs. */
		struct sim_pod_vf *pod = &b->pods[v->pod_slot];
		pod->present = true;
		memcpy(pod->bdf, bdf, 16);
		pod->vf = vf;
		pod->guid = v->guid;
		sim_fmt(pod->host_ifname, sizeof(pod->host_ifname), "%s", name);
		return 0;
	}
	if ((r = sim_counter_next(b->root, "next_ifindex", &ifindex, b->e)) < 0)
		return r;
	struct sim_netdev_spec n = {
		.name = name,
		.ifindex = ifindex,
		.ethernet = eth,
		.up = true,
		.carrier = carrier,
		.mtu = eth ? 9000 : 4092,
		.qpn = 0x1087 + 0x100 * (vf + 1),
		.port_guid = v->guid,
	};
	memcpy(n.mac, mac, 6);
	return sim_netdev_write(b->root, rel, &n, b->e);
}

static int write_vf(struct build *b, const struct pfdef *p, unsigned int vf)
{
	char bdf[16], rel[PATH_MAX], name[16];
	unsigned int offset = 1, lid = 0;
	int r = sim_bdf_add(p->bdf, offset + vf, bdf);
	if (r < 0)
		return err_setx(b->e, ERANGE, "VF %u of '%s' is past PCI bus ff", vf, p->bdf);
	sim_fmt(rel, sizeof(rel), "%.*s/%s", (int)(strrchr(p->rel, '/') - p->rel), p->rel, bdf);
	bool eth = pf_ethernet(b, p);
	struct vfplan v = plan_vf(b, p, vf);
	struct sim_fn_spec f = {.bdf = bdf,
				.device = SIM_VF_DEVICE,
				.ethernet = eth,
				.pf_rel = p->rel,
				.vf_index = vf};
	if ((r = sim_fn_write(b->root, rel, &f, b->e)) < 0)
		return r;
	memcpy(b->all_vfs[b->n_all_vfs++], bdf, 16);

	struct sim_vf_admin a = {.node_guid = v.guid, .port_guid = v.guid, .link_state = 0};
	const uint8_t mac[6] = {
		0xa0, 0x88, 0xc2, (uint8_t)p->bus, (uint8_t)((vf + 1) >> 8), (uint8_t)(vf + 1)};
	if (eth)
		memcpy(a.mac, mac, 6);
	if ((r = sim_vf_admin_write(b->root, p->bdf, vf, &a, b->e)) < 0)
		return r;
	if (pf_mofed(b, p)) {
		uint64_t g = v.probe_failed ? 0 : v.guid;
		if ((r = sim_mofed_write(b->root, p->rel, vf, g, g,
					 vf_link_policy_to_string(VF_LINK_STATE_AUTO), b->e)) < 0)
			return r;
	}
	if (v.probe_failed)
		return 0; /* mlx5_core: probe of ... failed: no driver, netdev, ibdev */

	bool active = !eth && v.guid && !v.port_down;
	if (active)
		lid = b->next_lid++;
	if ((r = sim_fn_bind(b->root, rel, bdf, b->e)) < 0)
		return r;
	sim_fmt(name, sizeof(name), "mlx5_%u", b->next_ibdev++);
	struct sim_ibdev_spec d = {
		.name = name,
		.device = SIM_VF_DEVICE,
		.node_guid = v.guid,
		.sys_image_guid = pf_guid(p),
		.port_guid = v.guid,
		.fw_ver = pf_fw(b, p),
		.board_id = pf_board(p),
		.ethernet = eth,
		.state = eth || active ? 4 : 1,
		.phys_state = v.port_down ? 2 : 5,
		.rate = pf_rate(b, p),
		.lid = lid,
		.sm_lid = eth ? 0 : 1,
		.hostname = HOSTNAME,
	};
	memcpy(d.mac, mac, 6);
	if ((r = sim_ibdev_write(b->root, rel, &d, b->e)) < 0)
		return r;

	return write_vf_netdev(b, p, vf, rel, bdf, &v, eth || active, mac);
}

static int write_kmsg(struct build *b, const char *kernel)
{
	char buf[4096];
	size_t len = 0;
	unsigned int seq = 0;
	unsigned long long usec = 0;
#define LINE(prio, ...)                                                                            \
	do {                                                                                       \
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%d,%u,%llu,-;", prio,       \
					seq++, usec);                                              \
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, __VA_ARGS__);                \
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "\n");                       \
	} while (0)
	LINE(5,
	     "Linux version %s (buildd@lcy02-amd64-027) (x86_64-linux-gnu-gcc-13 (Ubuntu "
	     "13.3.0-6ubuntu2~24.04) 13.3.0) #55-Ubuntu SMP PREEMPT_DYNAMIC",
	     kernel);
	LINE(6,
	     "Command line: BOOT_IMAGE=/boot/vmlinuz-%s root=/dev/md0 ro intel_iommu=on "
	     "iommu=pt pci=realloc=off",
	     kernel);
	/* The stamps and levels are the kernel's: module loading warns (4) of
	 * an unknown symbol, and 6.8's driver core warns (4) "<driver>: probe
	 * of <bdf> failed" (later kernels: "<driver> <bdf>: probe with driver
	 * <driver> failed", an error). */
	if (b->faulty) {
		usec = 4102311;
		LINE(4, "mlx5_core: Unknown symbol strlcpy (err -2)");
	}
	usec = 4211873;
	LINE(6, "mlx5_core 0000:18:00.0: firmware version: %s", SIM_FW_OK);
	if (b->faulty) {
		usec = 4212015;
		for (size_t i = 0; i < b->n_pf; i++)
			if (b->pf[i].compute == OLD_FW_PF)
				LINE(6, "mlx5_core %s: firmware version: %s", b->pf[i].bdf,
				     SIM_FW_OLD);
		usec = 9870554;
		for (size_t i = 0; i < b->n_pf; i++)
			if (b->pf[i].compute == ETH_PF)
				LINE(4,
				     "mlx5_core %s: mlx5_port_module_event: Port module event: "
				     "module 0, Cable plugged",
				     b->pf[i].bdf);
	}
	usec = 130002211;
	LINE(6,
	     "mlx5_core 0000:18:00.0: E-Switch: Enable: mode(LEGACY), nvfs(%u), active vports(%u)",
	     b->vfs, b->vfs + 1);
	if (b->faulty) {
		usec = 130412907;
		LINE(4, "mlx5_core: probe of 0000:18:00.2 failed with error -2");
	}
	usec = 130980114;
	LINE(6, "mlx5_ib: Mellanox ConnectX InfiniBand driver v%s",
	     b->faulty ? "25.01-0.6.0" : "24.10-0.7.0");
#undef LINE
	if (len >= sizeof(buf))
		return err_setx(b->e, EFBIG, "kernel log is too long");
	return sim_putf(b->root, b->e, "dev/kmsg", "%s", buf);
}

static int write_system(struct build *b)
{
	const char *kernel = b->o->kernel ? b->o->kernel : KERNEL_DEFAULT;
	const char *ver = b->faulty ? "25.01-0.6.0" : "24.10-0.7.0";
	int r = sim_putf(b->root, b->e, "proc/sys/kernel/osrelease", "%s\n", kernel);
	if (r == 0)
		r = sim_putf(b->root, b->e, "proc/sys/kernel/hostname", "%s\n", HOSTNAME);
	if (r == 0)
		r = sim_putf(b->root, b->e, "sys/module/mlx5_core/version", "%s\n", ver);
	if (r == 0)
		r = sim_putf(b->root, b->e, "sys/bus/pci/drivers/mlx5_core/bind", "%s", "");
	if (r == 0)
		r = sim_putf(b->root, b->e, "sys/bus/pci/drivers/mlx5_core/unbind", "%s", "");
	if (r == 0)
		r = sim_putf(b->root, b->e, ".sim/kernel", "%s\n", kernel);
	if (r == 0)
		r = sim_putf(b->root, b->e, ".sim/events", "%s", "");
	if (r == 0)
		r = sim_putf(b->root, b->e, ".sim/lock", "%s", "");
	if (r == 0)
		r = sim_putf(b->root, b->e, ".sim/next_ifindex", "2\n");
	if (r == 0 && b->faulty) /* the driver fails it at every probe */
		r = sim_putf(b->root, b->e, ".sim/probe_fail", "0000:18:00.2 -2\n");
	if (r == 0)
		r = write_kmsg(b, kernel);
	if (r == 0)
		r = sim_boot_identity(b->root, b->o->at_us, b->e);
	if (r < 0)
		return r;
	/* The loopback: a netdev on no PCI function. */
	const char *lo = "sys/devices/virtual/net/lo";
	char rel[PATH_MAX];
	const char *files[][2] = {
		{"address", "00:00:00:00:00:00"},
		{"addr_len", "6"},
		{"type", "772"},
		{"ifindex", "1"},
		{"flags", "0x9"},
		{"operstate", "unknown"},
		{"mtu", "65536"},
		{"dev_port", "0"},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && r == 0; i++) {
		sim_fmt(rel, sizeof(rel), "%s/%s", lo, files[i][0]);
		r = sim_putf(b->root, b->e, rel, "%s\n", files[i][1]);
	}
	return r < 0 ? r : sim_symlink(b->root, "sys/class/net/lo", lo, b->e);
}

/* The .link files and boot unit `ibvf persist` would have left: every VF
 * name of a healthy node; on the faulty one only mlx5_3's, and a unit from
 * before mlx5_9 had its VFs re-created with another count. */
static int write_systemd(struct build *b)
{
	struct sim_pf_count counts[PFS_MAX];
	size_t n = 0;
	for (size_t i = 0; i < b->n_pf; i++) {
		const struct pfdef *p = &b->pf[i];
		if (p->compute < 0 || !b->vfs)
			continue;
		memcpy(counts[n].bdf, p->bdf, 16);
		counts[n].numvfs = b->vfs;
		/* A healthy node's unit is the one persist writes: it keeps the
		 * VFs' GUIDs too; the seeded one's old unit does not. */
		counts[n].guid0 = !b->faulty && !pf_ethernet(b, p) ? vf_guid(p, 0) : 0;
		if (b->faulty && p->compute == UNIT_PF)
			counts[n].numvfs = b->vfs > 1 ? b->vfs / 2 : 4;
		n++;
	}
	return sim_systemd_write(b->root, b->names, b->n_names, counts, n, b->faulty, b->e);
}

/* The GPU each pod got with its VF: the one behind the VF's switch, but
 * FAR_GPU for FAR_GPU_SLOT on the seeded node (when the node has it). */
static void plan_pod_gpus(struct build *b, size_t n_gpus)
{
	for (int i = 0; i < SIM_POD_VFS; i++) {
		struct sim_pod_vf *v = &b->pods[i];
		unsigned int g = pod_vfs[i][0];
		if (b->faulty && i == FAR_GPU_SLOT && FAR_GPU < n_gpus)
			g = FAR_GPU;
		if (!v->present || g >= n_gpus)
			continue;
		sim_gpu_uuid(g, v->gpu_uuid);
		v->gpu_numa = dgx_compute_bus[g] >= 0x80;
	}
}

static int check_empty(const char *dir, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? sim_mkdirs("", dir + 1, e)
				       : err_set(e, errno, "cannot open '%s'", dir);
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r = err_setx(e, ENOTEMPTY, "'%s' is not empty", dir);
	closedir(d);
	return r;
}

int sim_fixture_create(const char *dir, const struct sim_fixture_opts *o, struct err *e)
{
	struct build b = {.root = dir, .o = o, .e = e, .faulty = !o->healthy, .next_lid = 0x1a};
	b.pfs = o->pfs ? o->pfs : 8;
	b.vfs = o->vfs || o->vfs_set ? o->vfs : 8;
	if (b.pfs > SIM_PFS_MAX || b.vfs > SIM_VFS_MAX)
		return err_setx(e, ERANGE, "%u PFs of %u VFs is beyond the simulator (%d, %d)",
				b.pfs, b.vfs, SIM_PFS_MAX, SIM_VFS_MAX);
	char abs[PATH_MAX];
	if (dir[0] != '/') {
		if (!realpath(".", abs) || strlen(abs) + strlen(dir) + 2 > sizeof(abs))
			return err_set(e, errno ? errno : ENAMETOOLONG, "cannot resolve '%s'", dir);
		strcat(strcat(abs, "/"), dir);
		b.root = abs;
	}
	int r = check_empty(b.root, e);
	if (r < 0)
		return r;
	b.all_vfs = calloc((size_t)b.pfs * b.vfs + 1, sizeof(*b.all_vfs));
	b.names = calloc((size_t)b.pfs * b.vfs + 1, sizeof(*b.names));
	if (!b.all_vfs || !b.names) {
		free(b.all_vfs);
		free(b.names);
		return err_set(e, ENOMEM, "cannot build the fixture");
	}
	if ((r = plan_pfs(&b)) < 0 || (r = write_system(&b)) < 0)
		goto out;
	for (size_t i = 0; i < b.n_pf && r == 0; i++)
		r = write_pf(&b, &b.pf[i]);
	for (size_t i = 0; i < b.n_pf && r == 0; i++)
		for (unsigned int vf = 0; b.pf[i].compute >= 0 && vf < b.vfs && r == 0; vf++)
			r = write_vf(&b, &b.pf[i], vf);
	if (r < 0)
		goto out;
	char gpus[DGX_GPUS][SIM_GPU_UUID_LEN];
	size_t n_gpus = 0;
	for (size_t i = 0; i < b.n_pf && r == 0; i++)
		if (b.pf[i].gpu_bdf[0]) {
			struct sim_gpu_spec g = {.bdf = b.pf[i].gpu_bdf,
						 .index = (unsigned int)b.pf[i].compute,
						 .numa_node = b.pf[i].numa};
			r = sim_gpu_write(b.root, b.pf[i].gpu_rel, &g, e);
			sim_gpu_uuid(g.index, gpus[n_gpus++]);
		}
	if (r < 0)
		goto out;
	plan_pod_gpus(&b, n_gpus);
	char stale[16] = "";
	for (size_t i = 0; i < b.n_pf; i++)
		if (b.faulty && b.pf[i].compute == STALE_PF && STALE_VF < b.vfs)
			sim_bdf_add(b.pf[i].bdf, 1 + STALE_VF, stale);
	/* The SR-IOV plugin advertises the VFs its config selects: every one on
	 * a healthy node, none with the field report's config. */
	r = sim_k8s_write(b.root, b.pods, *stale ? stale : NULL, b.faulty, b.all_vfs,
			  b.faulty ? 0 : b.n_all_vfs, gpus, n_gpus, e);
	if (r == 0 && b.vfs) /* the plugins run where there are VFs to hand out */
		r = sim_devplugin_write(b.root, b.faulty, e);
	if (r == 0)
		r = write_systemd(&b);
	if (r == 0)
		r = sim_putf(b.root, e, ".sim/next_lid", "%u\n", b.next_lid);
out:
	free(b.all_vfs);
	free(b.names);
	return r;
}
