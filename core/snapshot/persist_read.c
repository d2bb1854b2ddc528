// SPDX-License-Identifier: MIT
/* The VF layout ibvf's boot unit re-creates, read back from the node (what
 * persist.c wrote, maybe edited by hand since): each
 * "ExecStart=... vf create <PF> <N> ..." of /etc/systemd/system/
 * ibvf-sriov.service and its drop-ins, in the order systemd reads them. It
 * runs once the PFs are known: a hand edit may name a PF by its netdev. */
#include "core/persist/persist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "core/sys/sys.h"

#define UNIT_DIR      "/etc/systemd/system"
#define UNIT_SIZE_MAX (256 << 10)
#define UNIT_PFS_MAX  256
#define UNIT_VFS_MAX  65535 /* a PCI function's VF count is 16 bits */
#define DROPINS_MAX   64

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

/* One ExecStart= command line: "vf create <PF> <N>" anywhere in it. */
static int exec_line(struct node *n, char *cmd)
{
	char *tok[32];
	size_t nt = 0;
	for (char *save, *t = strtok_r(cmd, " \t", &save); t && nt < 32;
	     t = strtok_r(NULL, " \t", &save))
		tok[nt++] = t;
	for (size_t i = 0; i + 1 < nt; i++) {
		if (!strcmp(tok[i], "vf") && !strcmp(tok[i + 1], "create"))
			return vf_create(n, tok + i + 2, nt - i - 2);
		const char *echo = tok[i] + (tok[i][0] == '\'' || tok[i][0] == '"');
		if (!strcmp(echo, "echo"))
			return echo_numvfs(n, tok + i + 1, nt - i - 1);
	}
	return 0;
}

/* One unit file's text: the [Service] section's ExecStart= lines; an empty
 * ExecStart= forgets the commands before it, as systemd does. */
static int unit_parse(struct node *n, char *text)
{
	bool service = false;
	int r = 0;
	for (char *save, *line = strtok_r(text, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		while (isspace((unsigned char)*line))
			line++;
		size_t len = strlen(line);
		while (len && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		if (*line == '[') {
			service = !strcmp(line, "[Service]");
			continue;
		}
		if (!service || strncmp(line, "ExecStart", 9))
			continue;
		char *v = line + 9;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v++ != '=')
			continue;
		while (*v && strchr(" \t-@+!:", *v))
			v++; /* systemd's prefixes: -@+!: */
		if (!*v) {
			n->n_persisted = 0;
			continue;
		}
		r = exec_line(n, v);
	}
	return r;
}

/* Joins "\"-continued lines, as systemd does. */
static void unfold(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] == '\n') {
			*o++ = ' ';
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
}

static int read_unit_file(struct sys *s, struct node *n, const char *path)
{
	char *text;
	if (sys_read_file(s, path, UNIT_SIZE_MAX, &text, NULL) < 0)
		return 0;
	unfold(text);
	int r = unit_parse(n, text);
	free(text);
	return r;
}

static bool masked(struct sys *s, const char *path)
{
	char target[64];
	return sys_readlink(s, path, target, sizeof(target)) > 0 && !strcmp(target, "/dev/null");
}

int persist_read(struct sys *s, struct node *n)
{
	const char *path = UNIT_DIR "/" PERSIST_UNIT;
	if (sys_exists(s, path) < 0 || masked(s, path))
		return 0;
	if (!(n->persist_unit = strdup(path)))
		return -ENOMEM;
	int r = read_unit_file(s, n, path);
	char **names;
	size_t nn;
	if (r < 0 || sys_list(s, UNIT_DIR "/" PERSIST_UNIT ".d", &names, &nn) < 0)
		return r;
	for (size_t i = 0; i < nn && i < DROPINS_MAX && r == 0; i++) {
		size_t len = strlen(names[i]);
		char p[512];
		if (len < 6 || strcmp(names[i] + len - 5, ".conf"))
			continue;
		snprintf(p, sizeof(p), "%s/%s.d/%s", UNIT_DIR, PERSIST_UNIT, names[i]);
		if (!masked(s, p))
			r = read_unit_file(s, n, p);
	}
	sys_list_free(names, nn);
	return r;
}
