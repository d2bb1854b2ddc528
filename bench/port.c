// SPDX-License-Identifier: MIT
/* This side's port block (port.h). */
#include "port.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/exchange.h"
#include "core/model/attr.h"

uint32_t bench_port_verbs_rate_mbps(unsigned int active_speed, unsigned int active_width,
				    uint8_t *ret_width)
{
	/* Per lane, in Mb/s, as the kernel's rate_show() (SDR 2.5 .. NDR 100). */
	static const struct {
		unsigned int code, mbps;
	} speeds[] = {{1, 2500},   {2, 5000},	{4, 10000},  {8, 10000},
		      {16, 14000}, {32, 25000}, {64, 50000}, {128, 100000}};
	static const struct {
		unsigned int code, lanes;
	} widths[] = {{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}};
	unsigned int mbps = 0, lanes = 0;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == active_speed)
			mbps = speeds[i].mbps;
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].code == active_width)
			lanes = widths[i].lanes;
	*ret_width = (uint8_t)lanes;
	return mbps * lanes;
}

/* FNV-1a, 64 bits: an identity, not a secret. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

void bench_port_identity(const char *host, const char *pf_bdf, unsigned int port, uint8_t ret[16])
{
	unsigned int dom, bus, dev, fn;
	char tail;
	memset(ret, 0, 16);
	if (!host[0] || sscanf(pf_bdf, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) != 4 ||
	    dev > 31 || fn > 7 || port > 255)
		return;
	uint64_t h = fnv1a(host);
	for (int i = 0; i < 8; i++)
		ret[i] = (uint8_t)(h >> (56 - 8 * i));
	ret[8] = (uint8_t)(dom >> 8);
	ret[9] = (uint8_t)dom;
	ret[10] = (uint8_t)bus;
	ret[11] = (uint8_t)(dev << 3 | fn);
	ret[12] = (uint8_t)port;
}

/* The PCI function of ibdev: its `device` link, or for a software device
 * (rxe) the `device` of the netdev its `parent` names. */
static void device_bdf(struct sys *s, const char *ibdev, char *buf, size_t size)
{
	char path[PATH_MAX], parent[64];
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", ibdev);
	if (sys_readlink_name(s, path, buf, size) > 0)
		return;
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/parent", ibdev);
	if (sys_read_attr(s, path, parent, sizeof(parent)) <= 0 || strchr(parent, '/'))
		return;
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", parent);
	if (sys_readlink_name(s, path, buf, size) <= 0)
		buf[0] = '\0';
}

/* The VF's index on its PF: the virtfnN link that names it. */
static int vf_index(struct sys *s, const char *pf, const char *vf)
{
	char path[PATH_MAX], name[32], **names = NULL;
	size_t n = 0;
	int idx = -1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", pf);
	if (sys_list(s, path, &names, &n) < 0)
		return -1;
	for (size_t i = 0; i < n && idx < 0; i++) {
		char *end;
		if (strncmp(names[i], "virtfn", 6))
			continue;
		long k = strtol(names[i] + 6, &end, 10);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", pf, names[i]);
		if (!*end && k >= 0 && k < 4096 &&
		    sys_readlink_name(s, path, name, sizeof(name)) > 0 && !strcmp(name, vf))
			idx = (int)k;
	}
	sys_list_free(names, n);
	return idx;
}

/* The VF's max_tx_rate in Mb/s from its PF's netlink VF list; 0: none. */
static uint32_t vf_cap(struct sys *s, const char *pf, int vf)
{
	char path[PATH_MAX], **names = NULL;
	size_t n = 0;
	uint32_t cap = 0;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", pf);
	if (sys_list(s, path, &names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n && !cap; i++) {
		struct sys_link l = {0};
		struct err e;
		if (sys_link_get(s, names[i], &l, &e) < 0)
			continue;
		for (size_t j = 0; j < l.n_vfs; j++)
			if ((int)l.vfs[j].vf == vf && l.vfs[j].max_tx_rate > 0 &&
			    l.vfs[j].max_tx_rate <= EXCHANGE_MAX_RATE_MBPS)
				cap = (uint32_t)l.vfs[j].max_tx_rate;
		sys_link_fini(&l);
	}
	sys_list_free(names, n);
	return cap;
}

/* The machine: the kernel's boot_id (one per node, shared by its
 * containers), else /etc/machine-id. */
static void host_id(struct sys *s, char *buf, size_t size)
{
	if (sys_read_attr(s, "/proc/sys/kernel/random/boot_id", buf, size) > 0)
		return;
	if (sys_read_attr(s, "/etc/machine-id", buf, size) > 0)
		return;
	buf[0] = '\0';
}

uint16_t bench_port_parse_lid(const char *s)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 16);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || end == s || *end || v == 0 || v >= 0xc000)
		return 0;
	return (uint16_t)v;
}

/* The LID of port `port` of the PF's RDMA device (its infiniband/ entry). */
static uint16_t pf_lid(struct sys *s, const char *pf_bdf, unsigned int port)
{
	char path[PATH_MAX], buf[ATTR_MAX], **names = NULL;
	size_t n = 0;
	uint16_t lid = 0;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/infiniband", pf_bdf);
	if (sys_list(s, path, &names, &n) < 0)
		return 0;
	if (n >= 1 &&
	    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/infiniband/%s/ports/%u/lid",
		     pf_bdf, names[0], port) < (int)sizeof(path) &&
	    sys_read_attr(s, path, buf, sizeof(buf)) > 0)
		lid = bench_port_parse_lid(buf);
	sys_list_free(names, n);
	return lid;
}

void bench_port_probe(struct sys *s, const char *ibdev, unsigned int port,
		      unsigned int active_speed, unsigned int active_width,
		      struct bench_port_info *ret)
{
	struct bench_port_info p = {.vf_index = -1};
	char path[PATH_MAX], rate[ATTR_MAX], host[64];
	uint8_t verbs_width;
	uint32_t verbs_rate = bench_port_verbs_rate_mbps(active_speed, active_width, &verbs_width);
	p.width = verbs_width;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/rate", ibdev, port);
	struct kval k = {0};
	if (sys_read_attr(s, path, rate, sizeof(rate)) > 0)
		k = attr_parse_rate_mbps(rate);
	p.rate_mbps =
		k.known && k.v > 0 && k.v <= EXCHANGE_MAX_RATE_MBPS ? (uint32_t)k.v : verbs_rate;
	device_bdf(s, ibdev, p.bdf, sizeof(p.bdf));
	if (p.bdf[0]) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", p.bdf);
		if (sys_readlink_name(s, path, p.pf_bdf, sizeof(p.pf_bdf)) > 0) {
			p.vf_index = vf_index(s, p.pf_bdf, p.bdf);
			if (p.vf_index >= 0)
				p.max_tx_rate_mbps = vf_cap(s, p.pf_bdf, p.vf_index);
			p.pf_lid = pf_lid(s, p.pf_bdf, port);
		} else {
			snprintf(p.pf_bdf, sizeof(p.pf_bdf), "%s", p.bdf);
		}
	}
	host_id(s, host, sizeof(host));
	bench_port_identity(host, p.pf_bdf, port, p.phys_port);
	*ret = p;
}
