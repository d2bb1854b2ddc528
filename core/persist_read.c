// SPDX-License-Identifier: MIT
/* The VF layout ibvf's boot unit re-creates, read back from the node (what
 * persist.c wrote, maybe edited by hand since): each
 * "ExecStart=... vf create <PF> <N> ..." of /etc/systemd/system/
 * ibvf-sriov.service and its drop-ins, in the order systemd reads them. */
#include "persist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys.h"

#define UNIT_DIR      "/etc/systemd/system"
#define UNIT_SIZE_MAX (256 << 10)
#define UNIT_PFS_MAX  256
#define UNIT_VFS_MAX  65535 /* a PCI function's VF count is 16 bits */
#define DROPINS_MAX   64

/* "0000:18:00.0" (or "18:00.0", domain 0) as the kernel writes it. */
static bool bdf_parse(const char *s, char *ret, size_t size)
{
	unsigned int dom = 0, bus, dev, fn;
	char tail;
	if (sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4) {
		dom = 0;
		if (sscanf(s, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
			return false;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(ret, size, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
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

/* One ExecStart= command line: "vf create <PF> <N>" anywhere in it. */
static int exec_line(struct node *n, char *cmd)
{
	char *tok[16];
	size_t nt = 0;
	for (char *save, *t = strtok_r(cmd, " \t", &save); t && nt < 16;
	     t = strtok_r(NULL, " \t", &save))
		tok[nt++] = t;
	for (size_t i = 0; i + 3 < nt; i++) {
		if (strcmp(tok[i], "vf") || strcmp(tok[i + 1], "create"))
			continue;
		char bdf[16], *end;
		unsigned long num = strtoul(tok[i + 3], &end, 10);
		if (!bdf_parse(tok[i + 2], bdf, sizeof(bdf)) || *end || end == tok[i + 3] ||
		    num > UNIT_VFS_MAX)
			return 0;
		return persisted_set(n, bdf, (unsigned int)num);
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
