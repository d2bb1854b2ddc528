// SPDX-License-Identifier: MIT
/* The simulated node's power cycle (sim_boot.h): what the kernel gives at
 * boot, before any unit runs. */
#include "core/sim/sim_boot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/sim/sim_tree.h"
#include "core/sim/sys_sim.h"

#define KMSG_MAX (1 << 20)
#define VFS_MAX	 (SIM_PFS_MAX * (SIM_VFS_MAX + 1))

void sim_boot_note(struct sim_boot_log *log, const char *fmt, ...)
{
	if (!log || log->n >= SIM_BOOT_NOTES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(log->notes[log->n++], sizeof(log->notes[0]), fmt, ap);
	va_end(ap);
}

/* A random (version 4) UUID as the kernel's boot_id has it. */
void sim_uuid_random(char buf[static 37])
{
	uint8_t b[16];
	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != sizeof(b)) {
		uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
		for (size_t i = 0; i < sizeof(b); i++, x = x * 6364136223846793005ULL + 1)
			b[i] = (uint8_t)(x >> 56);
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

int sim_boot_identity(const char *root, int64_t at_us, struct err *e)
{
	char id[37];
	if (at_us <= 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		at_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	}
	/* The kernel wrote its log since it booted: btime is before the
	 * last record's stamp, in whole seconds as /proc/stat has it. */
	int64_t up_us = (int64_t)sim_kmsg_last_usec(root);
	long long btime = (long long)((at_us - up_us) / 1000000);
	if ((at_us - up_us) % 1000000)
		btime--;
	sim_uuid_random(id);
	int r = sim_putf(root, e, "proc/sys/kernel/random/boot_id", "%s\n", id);
	if (r == 0)
		r = sim_putf(root, e, "proc/stat",
			     "cpu  0 0 0 0 0 0 0 0 0 0\n"
			     "intr 0\n"
			     "ctxt 0\n"
			     "btime %lld\n"
			     "processes 1\n"
			     "procs_running 1\n"
			     "procs_blocked 0\n",
			     btime);
	return r;
}

/* The bus's PCI functions that are SR-IOV PFs (have sriov_totalvfs). */
static int list_pfs(struct sys *s, char ***ret, size_t *ret_n)
{
	char **names;
	size_t n, k = 0;
	int r = sys_list(s, "/sys/bus/pci/devices", &names, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		char path[128];
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_totalvfs", names[i]);
		if (sys_exists(s, path) == 0)
			names[k++] = names[i];
		else
			free(names[i]);
	}
	*ret = names;
	*ret_n = k;
	return 0;
}

struct vf_set {
	char (*bdf)[16];
	size_t n;
};

/* Every VF of the PF gone, as writing 0 to sriov_numvfs does; their BDFs
 * into vfs. */
static int pf_reset(const char *root, const char *pf, struct vf_set *vfs, size_t *ret_n,
		    struct err *e)
{
	char pf_rel[PATH_MAX], rel[PATH_MAX], fn[PATH_MAX], what[128];
	uint64_t numvfs = 0;
	if (sim_fn_rel(root, pf, pf_rel, sizeof(pf_rel)) < 0)
		return 0;
	sim_fmt(rel, sizeof(rel), "%s/sriov_numvfs", pf_rel);
	if (sim_get_u64(root, rel, &numvfs) < 0 || numvfs == 0)
		return 0;
	for (unsigned int i = 0; i < numvfs && vfs->n < VFS_MAX; i++) {
		sim_fmt(rel, sizeof(rel), "%s/virtfn%u", pf_rel, i);
		if (sim_resolve(root, rel, fn, sizeof(fn)) == 0)
			sim_fmt(vfs->bdf[vfs->n++], 16, "%s", strrchr(fn, '/') + 1);
	}
	sim_fmt(what, sizeof(what), "cannot power off the VFs of '%s'", pf);
	int r = sim_kernel_set_numvfs(root, pf_rel, "0", what, e);
	sim_fmt(rel, sizeof(rel), "%s/sriov_drivers_autoprobe", pf_rel);
	if (r == 0)
		r = sim_putf(root, e, rel, "1\n"); /* the kernel's default */
	*ret_n = (size_t)numvfs;
	return r;
}

/* The PF's netdev named as at boot: its .link file, else its path name. */
static int pf_name(struct sys *s, const char *pf, struct sim_boot_log *log, struct err *e)
{
	char path[128], **names, now[16];
	size_t n;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", pf);
	if (sys_list(s, path, &names, &n) < 0)
		return 0;
	int r = n ? sim_udev_net_add(sys_root(s), pf, names[0], true, now, e) : 0;
	if (r == 0 && n && strcmp(now, names[0]))
		sim_boot_note(log, "PF %s: netdev '%s' is named '%s' at boot", pf, names[0], now);
	sys_list_free(names, n);
	return r;
}

/* The boot's ifindexes: lo is 1, the PFs' netdevs follow in probe (PCI)
 * order, and the VFs the unit creates come after them. */
static int ifindex_reset(struct sys *s, char **pfs, size_t n_pfs, struct err *e)
{
	unsigned int next = 2;
	int r = 0;
	for (size_t i = 0; i < n_pfs && r == 0; i++) {
		char path[128], rel[PATH_MAX], **names;
		size_t n;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", pfs[i]);
		if (sys_list(s, path, &names, &n) < 0)
			continue;
		for (size_t k = 0; k < n && r == 0; k++, next++) {
			sim_fmt(rel, sizeof(rel), "sys/class/net/%s/ifindex", names[k]);
			r = sim_putf(sys_root(s), e, rel, "%u\n", next);
			sim_fmt(rel, sizeof(rel), "sys/class/net/%s/iflink", names[k]);
			if (r == 0)
				r = sim_putf(sys_root(s), e, rel, "%u\n", next);
		}
		sys_list_free(names, n);
	}
	return r == 0 ? sim_putf(sys_root(s), e, ".sim/next_ifindex", "%u\n", next) : r;
}

/* /run is a tmpfs: the pods' network namespace files are gone. */
static int netns_clear(struct sys *s, size_t *ret_n, struct err *e)
{
	char **names;
	size_t n;
	*ret_n = 0;
	if (sys_list(s, "/var/run/netns", &names, &n) < 0)
		return 0;
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		char rel[PATH_MAX];
		sim_fmt(rel, sizeof(rel), "var/run/netns/%s", names[i]);
		r = sim_rmtree(sys_root(s), rel, e);
	}
	*ret_n = n;
	sys_list_free(names, n);
	return r;
}

static bool names_vf(const char *msg, const struct vf_set *vfs)
{
	for (size_t i = 0; i < vfs->n; i++)
		if (strstr(msg, vfs->bdf[i]))
			return true;
	return false;
}

/* The kernel log of a fresh boot: the previous boot's records, less those
 * of the VFs' lives (which the boot unit's VFs will write anew: E-Switch
 * enables, probe failures of VFs), numbered from 0 again. The kernel, the
 * driver and the firmware are the same, so they say the same at boot. */
static int kmsg_reboot(struct sys *s, const struct vf_set *vfs, size_t *ret_dropped, struct err *e)
{
	char *text, *out;
	size_t len, o = 0;
	int r = sys_read_file(s, "/dev/kmsg", KMSG_MAX, &text, &len);
	if (r < 0)
		return r == -ENOENT ? 0 : err_set(e, -r, "cannot read the kernel log");
	size_t cap = 2 * len + 64; /* renumbered SEQs may take more digits */
	if (!(out = malloc(cap))) {
		free(text);
		return err_set(e, ENOMEM, "cannot rewrite the kernel log");
	}
	unsigned int seq = 0;
	*ret_dropped = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *semi = strchr(line, ';'), *c1 = strchr(line, ',');
		char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		if (!semi || !c2 || c2 > semi) {
			int w = snprintf(out + o, cap - o, "%s\n", line); /* not a record: kept */
			o += w > 0 && (size_t)w < cap - o ? (size_t)w : 0;
			continue;
		}
		if (strstr(semi, "E-Switch: ") || names_vf(semi, vfs)) {
			(*ret_dropped)++;
			continue;
		}
		/* "PRIO,SEQ,USEC,...;MSG" with SEQ renumbered: never longer */
		int w = snprintf(out + o, cap - o, "%.*s%u%s\n", (int)(c1 + 1 - line), line, seq++,
				 c2);
		o += w > 0 && (size_t)w < cap - o ? (size_t)w : 0;
	}
	out[o] = '\0';
	r = sim_putf(sys_root(s), e, "dev/kmsg", "%s", out);
	free(out);
	free(text);
	return r;
}

int sim_boot_power_cycle(struct sys *s, uint64_t seed, int64_t at_us, struct sim_boot_log *log,
			 struct err *e)
{
	if (!sys_is_sim(s))
		return err_setx(e, EOPNOTSUPP, "only a simulated node reboots this way");
	const char *root = sys_root(s);
	struct vf_set vfs = {.bdf = calloc(VFS_MAX, sizeof(*vfs.bdf))};
	char **pfs = NULL;
	size_t n_pfs = 0, n_ns = 0, dropped = 0;
	if (!vfs.bdf)
		return err_set(e, ENOMEM, "cannot reboot the simulated node");
	int lock = sys_sim_lock((struct sim *)s, e);
	if (lock < 0) {
		free(vfs.bdf);
		return lock;
	}
	int r = list_pfs(s, &pfs, &n_pfs);
	if (r < 0)
		r = err_set(e, -r, "cannot list the PCI functions of '%s'", root);
	for (size_t i = 0; i < n_pfs && r == 0; i++) {
		size_t had = 0;
		r = pf_reset(root, pfs[i], &vfs, &had, e);
		if (r == 0 && had)
			sim_boot_note(log, "PF %s: its %zu VFs are gone (sriov_numvfs 0)", pfs[i],
				      had);
		if (r == 0)
			r = pf_name(s, pfs[i], log, e);
	}
	if (r == 0)
		r = ifindex_reset(s, pfs, n_pfs, e);
	if (r == 0 && (r = netns_clear(s, &n_ns, e)) == 0 && n_ns)
		sim_boot_note(log, "/run is empty again: %zu pod network namespace%s gone", n_ns,
			      n_ns == 1 ? " is" : "s are");
	if (r == 0 && (r = kmsg_reboot(s, &vfs, &dropped, e)) == 0)
		sim_boot_note(log,
			      "the kernel log is a fresh boot's (%zu record%s of the old VFs "
			      "dropped)",
			      dropped, dropped == 1 ? "" : "s");
	if (r == 0 && (r = sim_boot_identity(root, at_us, e)) == 0) {
		char id[40] = "";
		sim_get(root, "proc/sys/kernel/random/boot_id", id, sizeof(id));
		sim_boot_note(log, "a new boot: boot_id %s (proc/stat's btime)", id);
	}
	if (r == 0)
		r = sim_putf(root, e, ".sim/probe", "shuffle %llu\n", (unsigned long long)seed);
	if (r == 0)
		sim_boot_note(log, "new VFs are probed in a shuffled order (seed %llu)",
			      (unsigned long long)seed);
	sys_sim_unlock(lock);
	for (size_t i = 0; i < n_pfs; i++)
		free(pfs[i]);
	free(pfs);
	free(vfs.bdf);
	return r;
}
