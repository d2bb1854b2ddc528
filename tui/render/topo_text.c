// SPDX-License-Identifier: MIT
#include "topo_text.h"

#include <stdio.h>
#include <string.h>

#include "core/pods/pods.h"

#define CELL	 6 /* "NODE  " */
#define LINE_MAX 512

static int64_t fn_numa(const struct fn *f)
{
	return f->numa.known ? f->numa.v : -1;
}

static const char *pf_name(const struct pf *pf)
{
	return pf->fn.n_rdmas && pf->fn.rdmas[0].name	    ? pf->fn.rdmas[0].name
	       : pf->fn.n_netdevs && pf->fn.netdevs[0].name ? pf->fn.netdevs[0].name
							    : pf->fn.bdf;
}

static void numa_text(int64_t numa, char *buf, size_t size)
{
	if (numa >= 0)
		snprintf(buf, size, "%lld", (long long)numa);
	else
		snprintf(buf, size, "N/A");
}

/* The pods holding GPU g, "ns/a ns/b", bounded. */
static void gpu_pods(const struct node *n, size_t g, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n->n_pod_gpus; i++) {
		const struct pod_gpu *pg = &n->pod_gpus[i];
		if (pg->gpu != (int)g)
			continue;
		char who[160];
		if (pg->ns && pg->name)
			snprintf(who, sizeof(who), "%s/%s", pg->ns, pg->name);
		else
			snprintf(who, sizeof(who), "uid %s", pg->uid ? pg->uid : "?");
		if (strstr(buf, who))
			continue;
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", len ? " " : "", who);
	}
}

static void matrix(struct text *out, const struct node *n)
{
	char line[LINE_MAX];
	int at = snprintf(line, sizeof(line), "%-7s", "");
	for (size_t j = 0; j < n->n_pfs && at < LINE_MAX - CELL; j++)
		at += snprintf(line + at, sizeof(line) - (size_t)at, "NIC%-*zu", CELL - 3, j);
	snprintf(line + at, sizeof(line) - (size_t)at, "%-6s%s", "NUMA", "PODS");
	text_add(out, TEXT_HEADING, "%s", line);
	for (size_t i = 0; i < n->n_gpus; i++) {
		const struct gpu *g = &n->gpus[i];
		char numa[24], pods[256];
		at = snprintf(line, sizeof(line), "GPU%-4zu", i);
		for (size_t j = 0; j < n->n_pfs && at < LINE_MAX - CELL; j++) {
			const struct fn *f = &n->pfs[j].fn;
			enum topo_class c = topo_class(g->devpath, g->numa, f->devpath, fn_numa(f));
			at += snprintf(line + at, sizeof(line) - (size_t)at, "%-*s", CELL,
				       topo_class_name(c));
		}
		numa_text(g->numa, numa, sizeof(numa));
		gpu_pods(n, i, pods, sizeof(pods));
		snprintf(line + at, sizeof(line) - (size_t)at, "%-6s%s", numa,
			 pods[0] ? pods : "-");
		text_add(out, TEXT_NORMAL, "%s", line);
	}
}

static void legend(struct text *out, const struct node *n)
{
	text_add(out, TEXT_NORMAL, "%s", "");
	for (size_t i = 0; i < n->n_gpus; i++) {
		char numa[24];
		numa_text(n->gpus[i].numa, numa, sizeof(numa));
		text_add(out, TEXT_NORMAL, "GPU%-4zu %s  %s  %s  NUMA %s", i, n->gpus[i].bdf,
			 n->gpus[i].model ? n->gpus[i].model : "(no driver information)",
			 n->gpus[i].uuid ? n->gpus[i].uuid : "-", numa);
	}
	for (size_t j = 0; j < n->n_pfs; j++) {
		const struct pf *pf = &n->pfs[j];
		char numa[24];
		numa_text(fn_numa(&pf->fn), numa, sizeof(numa));
		text_add(out, TEXT_NORMAL, "NIC%-4zu %s  %s  %zu VF%s  NUMA %s", j, pf->fn.bdf,
			 pf_name(pf), pf->n_vfs, pf->n_vfs == 1 ? "" : "s", numa);
	}
	text_add(out, TEXT_NORMAL,
		 "X self  PIX one PCIe switch  PXB several switches  PHB the host bridge (CPU)  "
		 "NODE across host bridges of a NUMA node  SYS across sockets");
}

/* Two allocations of one pod: same UID, else same namespace/name. */
static bool same_pod(const struct pod_gpu *a, const struct pod_gpu *b)
{
	return a->uid && b->uid ? !strcmp(a->uid, b->uid)
				: a->ns && b->ns && a->name && b->name && !strcmp(a->ns, b->ns) &&
					  !strcmp(a->name, b->name);
}

/* Whether pod_gpus[i] is the first allocation of its pod. */
static bool first_of_pod(const struct node *n, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (same_pod(&n->pod_gpus[i], &n->pod_gpus[k]))
			return false;
	return true;
}

static void pods(struct text *out, const struct node *n)
{
	bool any = false;
	for (size_t i = 0; i < n->n_pod_gpus; i++) {
		if (!first_of_pod(n, i))
			continue;
		const struct pod_gpu *pg = &n->pod_gpus[i];
		if (!any)
			text_add(out, TEXT_HEADING, "%s", "");
		if (!any)
			text_add(out, TEXT_HEADING,
				 "pods holding GPUs, each VF's class to the nearest");
		any = true;
		char line[LINE_MAX];
		int at = snprintf(line, sizeof(line), "%s/%s:", pg->ns ? pg->ns : "?",
				  pg->name ? pg->name : (pg->uid ? pg->uid : "?"));
		for (size_t k = i; k < n->n_pod_gpus && at < LINE_MAX - 40; k++) {
			const struct pod_gpu *o = &n->pod_gpus[k];
			if (!same_pod(pg, o))
				continue;
			if (o->gpu >= 0)
				at += snprintf(line + at, sizeof(line) - (size_t)at, " GPU%d",
					       o->gpu);
			else
				at += snprintf(line + at, sizeof(line) - (size_t)at,
					       " %.40s (not here)", o->id ? o->id : "?");
		}
		text_add(out, TEXT_NORMAL, "%s", line);
		for (size_t p = 0; p < n->n_pfs; p++)
			for (size_t v = 0; v < n->pfs[p].n_vfs; v++) {
				const struct vf *vf = &n->pfs[p].vfs[v];
				const struct pod_binding *b = pods_holder(vf);
				const struct gpu *g;
				if (!b || !node_pod_gpu_held(b, pg))
					continue;
				enum topo_class c = node_pod_gpu_nearest(n, b, &vf->fn, &g);
				bool far = c == TOPO_NODE || c == TOPO_SYS;
				text_add(out, far ? TEXT_WARNING : TEXT_OK,
					 "  VF %s (%s VF %u)  %s to GPU%zd%s", vf->fn.bdf,
					 pf_name(&n->pfs[p]), vf->index, topo_class_name(c),
					 g ? (ssize_t)(g - n->gpus) : (ssize_t)-1,
					 far ? "  far from its GPUs (ibvf check: pod-affinity)"
					     : "");
			}
	}
}

void topo_text(struct text *out, const struct node *n)
{
	if (!n->n_gpus) {
		text_add(
			out, TEXT_NORMAL,
			"no GPU on this node (no NVIDIA display or 3D controller in /sys/bus/pci)");
		return;
	}
	text_add(out, TEXT_HEADING, "GPU topology: %zu GPU%s, %zu HCA%s (as nvidia-smi topo -m)",
		 n->n_gpus, n->n_gpus == 1 ? "" : "s", n->n_pfs, n->n_pfs == 1 ? "" : "s");
	matrix(out, n);
	pods(out, n);
	legend(out, n);
}
