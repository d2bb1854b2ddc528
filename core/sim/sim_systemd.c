// SPDX-License-Identifier: MIT
/* The simulated node's systemd files (docs/fixture.md): the .link files and
 * the boot unit `ibvf persist` would have written, in its exact format
 * (core/persist/persist.c), so discovery reads them as it reads a real node's. */
#include "core/sim/sim_tree.h"
#include "core/base/guid.h"
#include "core/persist/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The faulty node's unit is an old install's: its ibvf is no longer there
 * (the boot-unit check finds it; `ibvf persist` writes the unit anew). */
#define IBVF_PATH_OLD "/usr/local/sbin/ibvf"
#define IBVF_PATH     "/usr/sbin/ibvf"

/* The programs a boot unit runs, as the node has them: a stand-in each (the
 * simulated boot runs modprobe and udevadm settle as no-ops, and an ibvf
 * line with the ibvf that reboots the node), mode 0755, so that systemd's
 * "is it there to run" has an answer on the simulated node. */
static int stand_in(const char *root, const char *rel, struct err *e)
{
	char path[PATH_MAX];
	int r = sim_putf(root, e, rel,
			 "#!/bin/false\n# A stand-in on the simulated node (docs/fixture.md).\n");
	if (r < 0)
		return r;
	sim_fmt(path, sizeof(path), "%s/%s", root, rel);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0755) < 0) {
		r = err_set(e, errno, "cannot make '%s' executable", path);
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	return 0;
}

int sim_systemd_programs(const char *root, struct err *e)
{
	int r = sim_mkdirs(root, "usr/sbin", e);
	if (r == 0)
		r = sim_mkdirs(root, "usr/bin", e);
	if (r == 0)
		r = stand_in(root, "usr/sbin/modprobe", e);
	if (r == 0)
		r = stand_in(root, "usr/bin/udevadm", e);
	if (r == 0)
		r = stand_in(root, "usr/sbin/ibvf", e);
	return r;
}

static int write_link(const char *root, const struct sim_vf_name *v, struct err *e)
{
	char rel[PATH_MAX], fname[64];
	persist_link_name(v->bdf, fname);
	sim_fmt(rel, sizeof(rel), "etc/systemd/network/%s", fname);
	return sim_putf(root, e, rel, PERSIST_LINK_CONTENT, v->vf, v->pf_bdf, v->name, v->bdf,
			v->name);
}

static int write_unit(const char *root, const struct sim_pf_count *counts, size_t n, bool old,
		      struct err *e)
{
	const char *ibvf = old ? IBVF_PATH_OLD : IBVF_PATH;
	size_t cap = 2048 + n * 128, len = 0;
	for (size_t i = 0; i < n; i++)
		cap += counts[i].guid0 ? counts[i].numvfs * 128 : 0;
	char *buf = malloc(cap);
	if (!buf)
		return err_set(e, ENOMEM, "cannot build the boot unit");
#define PUT(...) (len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__))
	PUT(PERSIST_UNIT_HEAD, "dgx-h200-07");
	PUT("ExecStart=/usr/sbin/modprobe -a mlx5_core\n"
	    "ExecStart=/usr/bin/udevadm settle --timeout=60\n");
	for (size_t i = 0; i < n; i++)
		PUT("ExecStart=%s vf create %s %u --yes --timeout 120\n", ibvf, counts[i].bdf,
		    counts[i].numvfs);
	if (n)
		PUT("# --force: before the kubelet runs no pod holds a VF, whatever CNI caches\n"
		    "# left from before the reboot say.\n");
	for (size_t i = 0; i < n; i++)
		for (unsigned int j = 0; counts[i].guid0 && j < counts[i].numvfs; j++) {
			char vf[16], g[GUID_STRLEN];
			if (sim_bdf_add(counts[i].bdf, 1 + j, vf) < 0)
				break;
			guid_format_sysfs(counts[i].guid0 + j, g); /* as persist writes it */
			PUT("ExecStart=%s vf guid %s --node %s --port %s --yes --force\n", ibvf, vf,
			    g, g);
		}
	PUT("ExecStart=/usr/bin/udevadm settle --timeout=60\n"
	    "\n"
	    "[Install]\n"
	    "WantedBy=multi-user.target\n");
#undef PUT
	int r = len < cap ? sim_putf(root, e, "etc/systemd/system/ibvf-sriov.service", "%s", buf)
			  : err_setx(e, EFBIG, "boot unit too long");
	free(buf);
	return r;
}

int sim_systemd_write(const char *root, const struct sim_vf_name *names, size_t n_names,
		      const struct sim_pf_count *counts, size_t n_counts, bool old_unit,
		      struct err *e)
{
	int r = sim_mkdirs(root, "etc/systemd/network", e);
	for (size_t i = 0; i < n_names && r == 0; i++)
		r = write_link(root, &names[i], e);
	if (r == 0)
		r = sim_systemd_programs(root, e);
	if (r == 0 && n_counts)
		r = write_unit(root, counts, n_counts, old_unit, e);
	/* Enabled, as `systemctl enable` leaves it ([Install] WantedBy=). */
	if (r == 0 && n_counts)
		r = sim_mkdirs(root, "etc/systemd/system/multi-user.target.wants", e);
	if (r == 0 && n_counts)
		r = sim_symlink(root, "etc/systemd/system/multi-user.target.wants/" PERSIST_UNIT,
				"etc/systemd/system/" PERSIST_UNIT, e);
	return r;
}
