// SPDX-License-Identifier: MIT
/* The simulator's tree plumbing: files, relative links, names, counters and
 * events, and the writers of one PCI function, ibdev, netdev or VF state in
 * the kernel's exact formats (REFERENCE.md §1). Shared by the fixture writer
 * (sim_node.c) and the simulated kernel (sim_kernel.c, sys_sim.c). */
#include "core/sim/sim_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/guid.h"

int sim_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int join(char *buf, size_t size, const char *root, const char *rel)
{
	return sim_fmt(buf, size, "%s/%s", root, rel);
}

int sim_mkdirs(const char *root, const char *rel, struct err *e)
{
	char p[PATH_MAX];
	if (join(p, sizeof(p), root, rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", rel);
	/* Most parents exist already: try the whole path first, then climb. */
	if (mkdir(p, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return err_set(e, errno, "cannot create directory '%s'", p);
	char *slash = strrchr(p, '/');
	if (slash && slash > p + strlen(root)) {
		*slash = '\0';
		int r = sim_mkdirs(root, p + strlen(root) + 1, e);
		if (r < 0)
			return r;
		*slash = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return err_set(e, errno, "cannot create directory '%s'", p);
	return 0;
}

static int mkparent(const char *root, const char *rel, struct err *e)
{
	char dir[PATH_MAX];
	sim_fmt(dir, sizeof(dir), "%s", rel);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	return sim_mkdirs(root, dir, e);
}

int sim_putf(const char *root, struct err *e, const char *rel, const char *fmt, ...)
{
	char p[PATH_MAX], *content = NULL;
	if (join(p, sizeof(p), root, rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", rel);
	va_list ap;
	va_start(ap, fmt);
	int len = vasprintf(&content, fmt, ap);
	va_end(ap);
	if (len < 0)
		return err_set(e, ENOMEM, "cannot write '%s'", p);
	/* Open first: the parent usually exists, so mkdir -p only on ENOENT. */
	int r = 0, flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	int fd = open(p, flags, 0644);
	if (fd < 0 && errno == ENOENT && (r = mkparent(root, rel, e)) == 0)
		fd = open(p, flags, 0644);
	if (r == 0 && fd < 0)
		r = err_set(e, errno, "cannot create '%s'", p);
	if (fd >= 0) {
		ssize_t n = write(fd, content, (size_t)len);
		r = n < 0 ? -errno : (n == len ? 0 : -EIO);
		if (close(fd) < 0 && r == 0)
			r = -errno;
		if (r < 0)
			r = err_set(e, r, "cannot write '%s'", p);
	}
	free(content);
	return r;
}

int sim_symlink(const char *root, const char *link_rel, const char *target_rel, struct err *e)
{
	/* Skip the directories both paths share, then climb out of the rest. */
	const char *l = link_rel, *t = target_rel;
	for (;;) {
		const char *ls = strchr(l, '/'), *ts = strchr(t, '/');
		if (!ls || !ts || ls - l != ts - t || strncmp(l, t, (size_t)(ls - l)))
			break;
		l = ls + 1;
		t = ts + 1;
	}
	char target[PATH_MAX] = "";
	size_t len = 0;
	for (const char *c = l; *c; c++) {
		if (*c == '/' && len + 3 < sizeof(target)) {
			memcpy(target + len, "../", 4);
			len += 3;
		}
	}
	if (len + strlen(t) >= sizeof(target))
		return err_setx(e, ENAMETOOLONG, "link target '%s' is too long", target_rel);
	strcpy(target + len, t);

	char p[PATH_MAX];
	if (join(p, sizeof(p), root, link_rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", link_rel);
	int r = mkparent(root, link_rel, e);
	if (r < 0)
		return r;
	if (unlink(p) < 0 && errno != ENOENT)
		return err_set(e, errno, "cannot replace '%s'", p);
	if (symlink(target, p) < 0)
		return err_set(e, errno, "cannot link '%s' to '%s'", p, target);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int sim_rmtree(const char *root, const char *rel, struct err *e)
{
	char p[PATH_MAX];
	if (join(p, sizeof(p), root, rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", rel);
	struct stat st;
	if (lstat(p, &st) < 0)
		return errno == ENOENT ? 0 : err_set(e, errno, "cannot remove '%s'", p);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(p) < 0)
			return err_set(e, errno, "cannot remove '%s'", p);
		return 0;
	}
	if (nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return err_set(e, errno ? errno : EIO, "cannot remove '%s'", p);
	return 0;
}

int sim_get(const char *root, const char *rel, char *buf, size_t size)
{
	char p[PATH_MAX];
	if (size == 0 || join(p, sizeof(p), root, rel) < 0)
		return -ENAMETOOLONG;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, size - 1);
	int r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int sim_get_u64(const char *root, const char *rel, uint64_t *ret)
{
	char buf[64], *end;
	int r = sim_get(root, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

bool sim_exists(const char *root, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	return join(p, sizeof(p), root, rel) == 0 && lstat(p, &st) == 0;
}

int sim_resolve(const char *root, const char *rel, char *buf, size_t size)
{
	char p[PATH_MAX], real_root[PATH_MAX], real[PATH_MAX];
	if (join(p, sizeof(p), root, rel) < 0)
		return -ENAMETOOLONG;
	if (!realpath(root, real_root) || !realpath(p, real))
		return -errno;
	size_t n = strlen(real_root);
	if (strncmp(real, real_root, n) || (real[n] != '/' && real[n] != '\0'))
		return -EXDEV; /* points out of the tree */
	const char *r = real[n] == '/' ? real + n + 1 : real + n;
	if (strlen(r) >= size)
		return -ENAMETOOLONG;
	strcpy(buf, r);
	return 0;
}

int sim_free_name(const char *root, const char *class_rel, const char *prefix, char *buf,
		  size_t size)
{
	for (unsigned int i = 0; i < 100000; i++) {
		char rel[PATH_MAX];
		sim_fmt(rel, sizeof(rel), "%s/%s%u", class_rel, prefix, i);
		if (!sim_exists(root, rel)) {
			int n = snprintf(buf, size, "%s%u", prefix, i);
			return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
		}
	}
	return -ENFILE;
}

int sim_counter_next(const char *root, const char *name, unsigned int *ret, struct err *e)
{
	char rel[PATH_MAX];
	uint64_t v = 1;
	sim_fmt(rel, sizeof(rel), ".sim/%s", name);
	int r = sim_get_u64(root, rel, &v);
	if (r < 0 && r != -ENOENT)
		return err_set(e, r, "cannot read '%s'", rel);
	r = sim_putf(root, e, rel, "%llu\n", (unsigned long long)v + 1);
	if (r < 0)
		return r;
	*ret = (unsigned int)v;
	return 0;
}

int sim_event_add(const char *root, const char *action, const char *subsystem, const char *name,
		  const char *old, const char *fn_rel, struct err *e)
{
	char p[PATH_MAX], line[1024];
	if (join(p, sizeof(p), root, ".sim/events") < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", root);
	/* The devpath is the sysfs path without /sys, as in uevents. */
	const char *devpath = strncmp(fn_rel, "sys/", 4) ? fn_rel : fn_rel + 3;
	int n = snprintf(line, sizeof(line), "%s %s %s%s%s %s\n", action, subsystem, name,
			 old ? " " : "", old ? old : "", devpath);
	if (n < 0 || (size_t)n >= sizeof(line))
		return err_setx(e, ENAMETOOLONG, "event for '%s' is too long", name);
	int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_set(e, errno, "cannot open '%s'", p);
	/* One write per line: readers in other processes never see half an event. */
	ssize_t w = write(fd, line, (size_t)n);
	int r = w == n ? 0 : (w < 0 ? -errno : -EIO);
	close(fd);
	return r < 0 ? err_set(e, r, "cannot append to '%s'", p) : 0;
}

int sim_bdf_add(const char *bdf, unsigned int offset, char buf[static 16])
{
	unsigned int dom, bus, dev, fn;
	if (sscanf(bdf, "%4x:%2x:%2x.%1x", &dom, &bus, &dev, &fn) != 4)
		return -EINVAL;
	unsigned int rid = (bus << 8 | dev << 3 | fn) + offset;
	if (rid > 0xffff)
		return -ERANGE;
	sim_fmt(buf, 16, "%04x:%02x:%02x.%x", dom, rid >> 8, (rid >> 3) & 0x1f, rid & 7);
	return 0;
}

int sim_fn_rel(const char *root, const char *bdf, char *buf, size_t size)
{
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	return sim_resolve(root, rel, buf, size);
}

int sim_fn_write(const char *root, const char *fn_rel, const struct sim_fn_spec *f, struct err *e)
{
	char rel[PATH_MAX];
	int r = sim_mkdirs(root, fn_rel, e);
#define PUT(name, ...)                                                                             \
	do {                                                                                       \
		sim_fmt(rel, sizeof(rel), "%s/%s", fn_rel, name);                                  \
		if (r == 0)                                                                        \
			r = sim_putf(root, e, rel, __VA_ARGS__);                                   \
	} while (0)
	PUT("vendor", "0x15b3\n");
	PUT("device", "0x%04x\n", f->device);
	PUT("subsystem_vendor", "0x15b3\n");
	PUT("subsystem_device", "0x0051\n");
	PUT("class", "0x%06x\n", f->ethernet ? 0x020000 : 0x020700);
	PUT("numa_node", "%d\n", -1);
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

static const char *state_name(int s)
{
	static const char *names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};
	return s >= 0 && s <= 4 ? names[s] : "UNKNOWN";
}

static const char *phys_state_name(int s)
{
	static const char *names[] = {
		"Unknown", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp"};
	return s >= 0 && s <= 5 ? names[s] : "Unknown";
}

int sim_ibdev_write(const char *root, const char *fn_rel, const struct sim_ibdev_spec *d,
		    struct err *e)
{
	char dir[PATH_MAX], rel[PATH_MAX], g[GUID_STRLEN], sg[GUID_STRLEN], gid[64];
	int r = 0;
	sim_fmt(dir, sizeof(dir), "%s/infiniband/%s", fn_rel, d->name);
	guid_format_sysfs(d->node_guid, g);
	guid_format_sysfs(d->sys_image_guid, sg);
#define PUT(name, ...)                                                                             \
	do {                                                                                       \
		sim_fmt(rel, sizeof(rel), "%s/%s", dir, name);                                     \
		if (r == 0)                                                                        \
			r = sim_putf(root, e, rel, __VA_ARGS__);                                   \
	} while (0)
	PUT("node_type", "1: CA\n");
	PUT("node_guid", "%s\n", g);
	PUT("sys_image_guid", "%s\n", sg);
	PUT("fw_ver", "%s\n", d->fw_ver);
	PUT("hca_type", "MT%u\n", d->device);
	PUT("board_id", "MT_0000000838\n");
	PUT("node_desc", "%s %s\n", d->hostname ? d->hostname : "dgx-h200-07", d->name);
	PUT("ports/1/state", "%d: %s\n", d->state, state_name(d->state));
	PUT("ports/1/phys_state", "%d: %s\n", d->phys_state, phys_state_name(d->phys_state));
	PUT("ports/1/rate", "%s\n", d->rate);
	PUT("ports/1/link_layer", "%s\n", d->ethernet ? "Ethernet" : "InfiniBand");
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
	if (r < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "%s/device", dir);
	if ((r = sim_symlink(root, rel, fn_rel, e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "sys/class/infiniband/%s", d->name);
	return sim_symlink(root, rel, dir, e);
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
#define PUT(name, ...)                                                                             \
	do {                                                                                       \
		sim_fmt(rel, sizeof(rel), "%s/%s", dir, name);                                     \
		if (r == 0)                                                                        \
			r = sim_putf(root, e, rel, __VA_ARGS__);                                   \
	} while (0)
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
	if (r < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "%s/device", dir);
	if ((r = sim_symlink(root, rel, fn_rel, e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s", n->name);
	return sim_symlink(root, rel, dir, e);
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
