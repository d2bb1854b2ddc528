// SPDX-License-Identifier: MIT
/* ibvf's boot unit read back from the node as systemd will take it at the
 * next boot (core/persist/unit.c reads it: search path, drop-ins, word
 * splitting): the VF layout it re-creates (each "... vf create <PF> <N> ..."
 * or a shell's "echo N > .../sriov_numvfs", maybe a hand edit), whether it
 * is enabled (a .wants/ or .requires/ link) and whether each ExecStart=
 * program is there to run. It runs once the PFs are known: a hand edit may
 * name a PF by its netdev. */
#include "core/persist/persist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "core/base/guid.h"
#include "core/persist/unit.h"
#include "core/sys/sys.h"

#define UNIT_DIR     "/etc/systemd/system"
#define UNIT_PFS_MAX 256
#define UNIT_VFS_MAX 65535 /* a PCI function's VF count is 16 bits */

/* The PF a unit names: its PCI address ("0000:18:00.0", "18:00.0"), or a
 * hand edit's netdev or ibdev name of a PF of the node. */
static bool pf_target(const struct node *n, const char *name, char bdf[static 16])
{
	struct node_ref ref;
	if (node_bdf_normalize(name, true, bdf))
		return true;
	if (node_lookup(n, name, NODE_NAME_NETDEV | NODE_NAME_ALTNAME | NODE_NAME_RDMA, &ref) < 0 ||
	    !ref.pf || ref.vf)
		return false;
	memcpy(bdf, ref.pf->fn.bdf, 16);
	return true;
}

static int persisted_set(struct node *n, const char *bdf, unsigned int numvfs)
{
	for (size_t i = 0; i < n->n_persisted; i++)
		if (!strcmp(n->persisted[i].bdf, bdf)) {
			n->persisted[i].numvfs = numvfs; /* the last one runs last */
			return 0;
		}
	if (n->n_persisted >= UNIT_PFS_MAX)
		return 0;
	struct persisted_pf *v = realloc(n->persisted, (n->n_persisted + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n->persisted = v;
	v[n->n_persisted] = (struct persisted_pf){.numvfs = numvfs};
	snprintf(v[n->n_persisted].bdf, sizeof(v->bdf), "%s", bdf);
	n->n_persisted++;
	return 0;
}

static bool count_parse(const char *s, unsigned int *ret)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || v > UNIT_VFS_MAX)
		return false;
	*ret = (unsigned int)v;
	return true;
}

/* "ibvf vf create [options] <PF> <N> [options]". */
static int vf_create(struct node *n, char **tok, size_t nt)
{
	const char *args[2];
	size_t na = 0;
	for (size_t i = 0; i < nt && na < 2; i++) {
		if (tok[i][0] != '-')
			args[na++] = tok[i];
		else if (!strcmp(tok[i], "--timeout"))
			i++; /* its value */
	}
	char bdf[16];
	unsigned int num;
	if (na < 2 || !pf_target(n, args[0], bdf) || !count_parse(args[1], &num))
		return 0;
	return persisted_set(n, bdf, num);
}

/* A hand edit's "sh -c 'echo 8 > /sys/bus/pci/devices/<PF>/sriov_numvfs'"
 * (or /sys/class/net/<PF netdev>/device/sriov_numvfs). */
static int echo_numvfs(struct node *n, char **tok, size_t nt)
{
	if (nt < 3 || strcmp(tok[1], ">"))
		return 0;
	char path[256], bdf[16], *p = path;
	unsigned int num;
	snprintf(path, sizeof(path), "%s", tok[2]);
	path[strcspn(path, "'\";")] = '\0';
	size_t len = strlen(path);
	const char *tail = "/sriov_numvfs";
	if (len < strlen(tail) || strcmp(path + len - strlen(tail), tail) ||
	    !count_parse(tok[0], &num))
		return 0;
	path[len - strlen(tail)] = '\0';
	if (!strncmp(p, "/sys/bus/pci/devices/", 21)) {
		p += 21;
	} else if (!strncmp(p, "/sys/class/net/", 15) && strlen(p) > 22 &&
		   !strcmp(p + strlen(p) - 7, "/device")) {
		p[strlen(p) - 7] = '\0';
		p += 15;
	} else {
		return 0;
	}
	return pf_target(n, p, bdf) ? persisted_set(n, bdf, num) : 0;
}

/* "ibvf vf guid <VF> [--node G] [--port G] [options]": the GUIDs the unit
 * sets (the last line for a VF wins, as it runs last). */
static int vf_guid(struct node *n, char **tok, size_t nt)
{
	struct persisted_guid g = {0};
	const char *target = NULL;
	for (size_t i = 0; i < nt; i++) {
		bool node = !strcmp(tok[i], "--node"), port = !strcmp(tok[i], "--port");
		if ((node || port) && i + 1 < nt) {
			uint64_t v;
			if (guid_parse(tok[++i], &v) < 0)
				return 0;
			*(node ? &g.node : &g.port) = v;
			*(node ? &g.has_node : &g.has_port) = true;
		} else if (!strcmp(tok[i], "--timeout") || !strcmp(tok[i], "--prefix")) {
			i++;
		} else if (tok[i][0] != '-' && !target) {
			target = tok[i];
		}
	}
	if (!target || !node_bdf_normalize(target, true, g.bdf) || (!g.has_node && !g.has_port))
		return 0;
	for (size_t i = 0; i < n->n_persisted_guids; i++)
		if (!strcmp(n->persisted_guids[i].bdf, g.bdf)) {
			n->persisted_guids[i] = g;
			return 0;
		}
	if (n->n_persisted_guids >= UNIT_VFS_MAX)
		return 0;
	struct persisted_guid *v =
		realloc(n->persisted_guids, (n->n_persisted_guids + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n->persisted_guids = v;
	v[n->n_persisted_guids++] = g;
	return 0;
}

/* One ExecStart= command line, as words: "vf create <PF> <N>" or "vf guid
 * <VF> ..." anywhere in it, or a shell's "echo N > .../sriov_numvfs" (the
 * words of its -c). */
static int exec_words(struct node *n, char **argv, size_t argc)
{
	for (size_t i = 0; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "vf") && !strcmp(argv[i + 1], "create"))
			return vf_create(n, argv + i + 2, argc - i - 2);
		if (!strcmp(argv[i], "vf") && !strcmp(argv[i + 1], "guid"))
			return vf_guid(n, argv + i + 2, argc - i - 2);
	}
	for (size_t i = 0; i + 1 < argc; i++) {
		if (strcmp(argv[i], "-c"))
			continue;
		char cmd[1024], *tok[32];
		size_t nt = 0;
		snprintf(cmd, sizeof(cmd), "%s", argv[i + 1]);
		for (char *save, *t = strtok_r(cmd, " \t", &save); t && nt < 32;
		     t = strtok_r(NULL, " \t", &save))
			tok[nt++] = t;
		for (size_t j = 0; j < nt; j++)
			if (!strcmp(tok[j], "echo"))
				return echo_numvfs(n, tok + j + 1, nt - j - 1);
	}
	return 0;
}

static int dup_into(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? strdup(s) : NULL;
	return !s || *dst ? 0 : -ENOMEM;
}

/* The link that starts the unit at boot: NAME in any <target>.wants/ or
 * <target>.requires/ of systemd's unit directories (what `systemctl
 * enable` makes from [Install]). */
static int find_enabled(struct sys *s, struct boot_unit *b)
{
	static const char *const dirs[] = {
		"/etc/systemd/system",	   "/run/systemd/system", "/usr/local/lib/systemd/system",
		"/usr/lib/systemd/system", "/lib/systemd/system",
	};
	int r = 0;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]) && !b->enabled_by && r == 0; d++) {
		char **names;
		size_t nn;
		if (sys_list(s, dirs[d], &names, &nn) < 0)
			continue;
		for (size_t i = 0; i < nn && !b->enabled_by && r == 0; i++) {
			size_t len = strlen(names[i]);
			bool wants = len > 6 && !strcmp(names[i] + len - 6, ".wants");
			bool requires = len > 9 && !strcmp(names[i] + len - 9, ".requires");
			char path[768];
			if (!wants && !requires)
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", dirs[d], names[i], PERSIST_UNIT);
			char target[8];
			if (sys_exists(s, path) == 0 ||
			    sys_readlink(s, path, target, sizeof(target)) != -ENOENT)
				r = dup_into(&b->enabled_by, path);
		}
		sys_list_free(names, nn);
	}
	return r;
}

int persist_read(struct sys *s, struct node *n)
{
	struct boot_unit *b = &n->boot_unit;
	struct unit u = {0};
	struct err e = {{0}};
	int r = unit_load(s, PERSIST_UNIT, &u, &e);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* A line systemd reads and ibvf cannot: the unit is there, what it
		 * runs is not known. */
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", UNIT_DIR, PERSIST_UNIT);
		if (dup_into(&n->persist_unit, path) < 0 || dup_into(&b->path, path) < 0 ||
		    dup_into(&b->error, e.msg) < 0)
			return -ENOMEM;
		return find_enabled(s, b);
	}
	if (!u.path) {
		unit_fini(&u);
		return 0;
	}
	b->masked = u.masked;
	if (dup_into(&b->path, u.path) < 0) {
		unit_fini(&u);
		return -ENOMEM;
	}
	if (u.masked) {
		unit_fini(&u);
		return 0;
	}
	if (dup_into(&n->persist_unit, u.path) < 0)
		r = -ENOMEM;
	b->n_execs = u.n_execs;
	for (size_t i = 0; r == 0 && i < u.n_execs; i++) {
		const struct unit_exec *x = &u.execs[i];
		r = exec_words(n, x->argv, x->argc);
		int x_r = r == 0 && !b->bad_exec && sys_programs_visible(s)
				  ? sys_exec_check(s, x->argv[0])
				  : 0;
		if (x_r < 0 && x_r != -ENOMEM) {
			b->bad_exec_errno = -x_r;
			b->bad_exec_line = x->line;
			if (dup_into(&b->bad_exec, x->argv[0]) < 0 ||
			    dup_into(&b->bad_exec_file, x->file) < 0)
				r = -ENOMEM;
		}
	}
	unit_fini(&u);
	return r < 0 ? r : find_enabled(s, b);
}
