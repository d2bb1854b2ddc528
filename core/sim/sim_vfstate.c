// SPDX-License-Identifier: MIT
/* The administrative VF state a PF's netlink dump reports, in one file per
 * PF: .sim/vf/<pf bdf>, one line per VF,
 *
 *   VF MAC NODE_GUID PORT_GUID LINK_STATE SPOOFCHK TRUST
 *
 * so the simulated RTM_GETLINK of a PF reads one file, as the kernel answers
 * from memory, not a few files per VF. Writes replace the file whole
 * (rename), so a reader in another process never sees half of it. Fixtures
 * made before kept a directory of one-value files per VF: those are read,
 * and turned into the file at the first write. */
#include "core/sim/sim_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/guid.h"

/* SIM_VFS_MAX lines of at most ~80 bytes, and room. */
#define STATE_MAX (64 * 1024)

/* The file's text (NUL-terminated); -EISDIR for an old fixture's directory. */
static int text_load(const char *root, const char *pf_bdf, char **ret)
{
	char p[PATH_MAX];
	if (sim_fmt(p, sizeof(p), "%s/.sim/vf/%s", root, pf_bdf) < 0)
		return -ENAMETOOLONG;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char *buf = malloc(STATE_MAX + 1);
	ssize_t n = 0, len = 0;
	while (buf && (n = read(fd, buf + len, (size_t)(STATE_MAX - len))) > 0)
		len += n;
	int r = !buf ? -ENOMEM : n < 0 ? -errno : len == STATE_MAX ? -EFBIG : 0;
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

static int line_parse(const char *line, unsigned int *vf, struct sim_vf_admin *a)
{
	char node[GUID_STRLEN], port[GUID_STRLEN];
	unsigned int m[6];
	memset(a, 0, sizeof(*a));
	if (sscanf(line, "%u %x:%x:%x:%x:%x:%x %23s %23s %d %d %d", vf, &m[0], &m[1], &m[2], &m[3],
		   &m[4], &m[5], node, port, &a->link_state, &a->spoofchk, &a->trust) != 12 ||
	    guid_parse(node, &a->node_guid) < 0 || guid_parse(port, &a->port_guid) < 0)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		a->mac[i] = (uint8_t)m[i];
	return 0;
}

static int line_format(char *buf, size_t size, unsigned int vf, const struct sim_vf_admin *a)
{
	char node[GUID_STRLEN], port[GUID_STRLEN];
	guid_format_colon(a->node_guid, node);
	guid_format_colon(a->port_guid, port);
	return sim_fmt(buf, size, "%u %02x:%02x:%02x:%02x:%02x:%02x %s %s %d %d %d\n", vf,
		       a->mac[0], a->mac[1], a->mac[2], a->mac[3], a->mac[4], a->mac[5], node, port,
		       a->link_state, a->spoofchk, a->trust);
}

/* An old fixture's .sim/vf/<pf>/<vf>/{mac,node_guid,...}. */
static int old_read(const char *root, const char *pf_bdf, unsigned int vf, struct sim_vf_admin *ret)
{
	static const char *const names[] = {"mac",	  "node_guid", "port_guid",
					    "link_state", "spoofchk",  "trust"};
	char rel[PATH_MAX], v[6][64], line[512];
	for (int i = 0; i < 6; i++) {
		sim_fmt(rel, sizeof(rel), ".sim/vf/%s/%u/%s", pf_bdf, vf, names[i]);
		if (sim_get(root, rel, v[i], sizeof(v[i])) < 0)
			return -ENOENT;
	}
	sim_fmt(line, sizeof(line), "%u %s %s %s %s %s %s", vf, v[0], v[1], v[2], v[3], v[4], v[5]);
	return line_parse(line, &vf, ret);
}

int sim_vf_admin_load(const char *root, const char *pf_bdf, struct sim_vf_admin *ret, bool *have,
		      unsigned int n)
{
	char *text = NULL;
	int r = text_load(root, pf_bdf, &text);
	memset(have, 0, n * sizeof(*have));
	if (r == -EISDIR) {
		for (unsigned int vf = 0; vf < n; vf++)
			have[vf] = old_read(root, pf_bdf, vf, &ret[vf]) == 0;
		return 0;
	}
	if (r < 0)
		return r;
	for (char *l = text, *end; *l; l = end + (*end == '\n')) {
		end = l + strcspn(l, "\n");
		struct sim_vf_admin a;
		unsigned int vf;
		if (line_parse(l, &vf, &a) == 0 && vf < n) {
			ret[vf] = a;
			have[vf] = true;
		}
	}
	free(text);
	return 0;
}

int sim_vf_admin_read(const char *root, const char *pf_bdf, unsigned int vf,
		      struct sim_vf_admin *ret)
{
	struct sim_vf_admin *all = calloc(vf + 1, sizeof(*all));
	bool *have = calloc(vf + 1, sizeof(*have));
	int r = all && have ? sim_vf_admin_load(root, pf_bdf, all, have, vf + 1) : -ENOMEM;
	if (r == 0 && !have[vf])
		r = -ENOENT;
	if (r == 0)
		*ret = all[vf];
	free(all);
	free(have);
	return r;
}

/* The new text: every other VF's line as it was, then vf's. */
static int text_build(const char *root, const char *pf_bdf, unsigned int vf,
		      const struct sim_vf_admin *a, char *out, size_t size)
{
	struct sim_vf_admin *all = calloc(SIM_VFS_MAX + 1, sizeof(*all));
	bool have[SIM_VFS_MAX + 1];
	int r = all ? sim_vf_admin_load(root, pf_bdf, all, have, SIM_VFS_MAX + 1) : -ENOMEM;
	if (r == -ENOENT)
		r = 0; /* the PF's first VF */
	size_t len = 0;
	out[0] = '\0';
	for (unsigned int i = 0; r == 0 && i <= SIM_VFS_MAX; i++) {
		if (i != vf && !have[i])
			continue;
		r = line_format(out + len, size - len, i, i == vf ? a : &all[i]);
		len += strlen(out + len);
	}
	free(all);
	return r;
}

int sim_vf_admin_write(const char *root, const char *pf_bdf, unsigned int vf,
		       const struct sim_vf_admin *a, struct err *e)
{
	char rel[PATH_MAX], tmp[PATH_MAX], dst[PATH_MAX];
	if (vf > SIM_VFS_MAX)
		return err_setx(e, ERANGE, "VF %u is past the simulator's %u", vf, SIM_VFS_MAX);
	char *text = malloc(STATE_MAX);
	int r = text ? text_build(root, pf_bdf, vf, a, text, STATE_MAX) : -ENOMEM;
	if (r < 0) {
		free(text);
		return err_set(e, r, "cannot read the VF state of '%s'", pf_bdf);
	}
	sim_fmt(rel, sizeof(rel), ".sim/vf/%s.new", pf_bdf);
	r = sim_putf(root, e, rel, "%s", text);
	free(text);
	sim_fmt(tmp, sizeof(tmp), "%s/%s", root, rel);
	sim_fmt(rel, sizeof(rel), ".sim/vf/%s", pf_bdf);
	sim_fmt(dst, sizeof(dst), "%s/%s", root, rel);
	if (r == 0 && rename(tmp, dst) < 0) {
		r = -errno;
		if (r == -EISDIR && sim_rmtree(root, rel, e) == 0) /* an old fixture's */
			r = rename(tmp, dst) < 0 ? -errno : 0;
	}
	return r < 0 ? err_set(e, r, "cannot write the VF state of '%s'", pf_bdf) : 0;
}
