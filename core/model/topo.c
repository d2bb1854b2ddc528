/* SPDX-License-Identifier: MIT */
#include "core/model/topo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const class_names[] = {
	[TOPO_UNKNOWN] = "?", [TOPO_SELF] = "X",    [TOPO_PIX] = "PIX", [TOPO_PXB] = "PXB",
	[TOPO_PHB] = "PHB",   [TOPO_NODE] = "NODE", [TOPO_SYS] = "SYS",
};

const char *topo_class_name(enum topo_class c)
{
	return (unsigned int)c < sizeof(class_names) / sizeof(class_names[0]) ? class_names[c]
									      : "?";
}

int topo_class_parse(const char *s)
{
	for (size_t i = 0; s && i < sizeof(class_names) / sizeof(class_names[0]); i++)
		if (!strcmp(s, class_names[i]))
			return (int)i;
	return -1;
}

void gpu_fini(struct gpu *g)
{
	if (!g)
		return;
	free(g->devpath);
	free(g->driver);
	free(g->model);
	free(g->uuid);
	for (size_t i = 0; i < g->n_migs; i++)
		free(g->migs[i]);
	free(g->migs);
	memset(g, 0, sizeof(*g));
}

/* The offset of the first component after the root complex's "pciDDDD:BB"
 * in path, or -1 when the path has none. */
static long pci_root_end(const char *path)
{
	for (const char *p = path; (p = strstr(p, "/pci")); p++) {
		const char *c = p + 4, *q = c;
		while (isxdigit((unsigned char)*q))
			q++;
		if (q - c != 4 || *q++ != ':')
			continue;
		c = q;
		while (isxdigit((unsigned char)*q))
			q++;
		if (q - c == 2 && (*q == '/' || !*q))
			return q - path;
	}
	return -1;
}

/* How many components p (starting at a '/' or its end) has. */
static size_t path_depth(const char *p)
{
	size_t n = 0;
	for (; *p; p++)
		if (*p != '/' && p[-1] == '/')
			n++;
	return n;
}

/* How many leading components a and b share. */
static size_t path_common(const char *a, const char *b)
{
	size_t n = 0;
	for (;;) {
		while (*a == '/')
			a++;
		while (*b == '/')
			b++;
		size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
		if (!la || la != lb || memcmp(a, b, la))
			return n;
		n++;
		a += la;
		b += lb;
	}
}

enum topo_class topo_class(const char *devpath_a, int64_t numa_a, const char *devpath_b,
			   int64_t numa_b)
{
	if (!devpath_a || !devpath_b)
		return TOPO_UNKNOWN;
	long ra = pci_root_end(devpath_a), rb = pci_root_end(devpath_b);
	if (ra < 0 || rb < 0)
		return TOPO_UNKNOWN;
	const char *a = devpath_a + ra, *b = devpath_b + rb;
	size_t da = path_depth(a), db = path_depth(b);
	if (!da || !db)
		return TOPO_UNKNOWN; /* a root complex, no function */
	if (ra != rb || memcmp(devpath_a, devpath_b, (size_t)ra))
		return numa_a == numa_b ? TOPO_NODE : TOPO_SYS;
	size_t common = path_common(a, b);
	if (common == da && common == db)
		return TOPO_SELF;
	/* Below the deepest common ancestor, each side's levels. */
	size_t ua = da - common, ub = db - common;
	if (ua == 1 && ub == 1)
		return TOPO_PIX; /* on one bus behind one bridge (a PF and its VFs) */
	if (common <= 1)
		return TOPO_PHB; /* only the host bridge or a root port in common */
	return ua <= 2 && ub <= 2 ? TOPO_PIX : TOPO_PXB;
}

/* A PCI address in any of the forms device plugins and nvidia-smi write
 * ("0000:18:00.0", "00000000:1B:00.0", "18:00.0") as one number. */
static bool bdf_parse(const char *s, unsigned long long *ret)
{
	unsigned int dom = 0, bus, dev, fn;
	int end = 0;
	if (s[strspn(s, "0123456789abcdefABCDEF:.")])
		return false; /* sscanf would take "0x" */
	if (sscanf(s, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &end) != 4 || s[end]) {
		end = 0;
		dom = 0;
		if (sscanf(s, "%x:%x.%x%n", &bus, &dev, &fn, &end) != 3 || s[end])
			return false;
	}
	if (bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	*ret = (unsigned long long)dom << 16 | bus << 8 | dev << 3 | fn;
	return true;
}

const struct gpu *gpu_find_id(const struct gpu *gpus, size_t n, const char *id)
{
	if (!id || !*id)
		return NULL;
	if (!strncmp(id, "MIG-GPU-", 8)) { /* legacy: MIG-GPU-<uuid>/<gi>/<ci> */
		size_t len = strcspn(id + 4, "/");
		for (size_t i = 0; i < n; i++)
			if (gpus[i].uuid && strlen(gpus[i].uuid) == len &&
			    !strncasecmp(gpus[i].uuid, id + 4, len))
				return &gpus[i];
		return NULL;
	}
	if (!strncmp(id, "MIG-", 4)) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < gpus[i].n_migs; j++)
				if (!strcasecmp(gpus[i].migs[j], id))
					return &gpus[i];
		return NULL;
	}
	if (!strncmp(id, "GPU-", 4)) {
		for (size_t i = 0; i < n; i++)
			if (gpus[i].uuid && !strcasecmp(gpus[i].uuid, id))
				return &gpus[i];
		return NULL;
	}
	unsigned long long want, have;
	if (!bdf_parse(id, &want))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (bdf_parse(gpus[i].bdf, &have) && have == want)
			return &gpus[i];
	return NULL;
}
