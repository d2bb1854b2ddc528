// SPDX-License-Identifier: MIT
/* pod-affinity: a pod holding GPUs and VFs whose VF is NODE or SYS from
 * every GPU it holds (each GPUDirect RDMA transfer crosses the CPU's root
 * complex, or the link between the sockets) while a free VF sits closer to
 * one of them. The distance is topo_class()'s, the one answer the console and
 * the JSON show too. */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"
#include "core/pods/pods.h"

/* The closest free VF to the pod's GPUs, when closer than NODE. */
static const struct vf *better_vf(const struct node *n, const struct pod_binding *b,
				  const struct pf **ret_pf, enum topo_class *ret_c,
				  const struct gpu **ret_gpu)
{
	const struct vf *best = NULL;
	enum topo_class bc = TOPO_NODE;
	for (size_t i = 0; i < n->n_pfs; i++) {
		if (!check_pf_ib(&n->pfs[i]))
			continue;
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct gpu *g;
			if (pods_holder(vf) || !vf->fn.driver)
				continue;
			enum topo_class c = node_pod_gpu_nearest(n, b, &vf->fn, &g);
			if (c != TOPO_UNKNOWN && c < bc) {
				bc = c;
				best = vf;
				*ret_pf = &n->pfs[i];
				*ret_gpu = g;
			}
		}
	}
	*ret_c = bc;
	return best;
}

static void gpu_label(const struct node *n, const struct gpu *g, char *buf, size_t size)
{
	snprintf(buf, size, "GPU%zu %s", (size_t)(g - n->gpus), g->bdf);
}

static int64_t numa_of(const struct fn *fn)
{
	return fn->numa.known ? fn->numa.v : -1;
}

static void one(struct findings *out, const struct node *n, const struct pf *pf,
		const struct vf *vf, enum topo_class c, const struct gpu *near)
{
	const struct pf *bpf = NULL;
	const struct gpu *bgpu = NULL;
	enum topo_class bc;
	const struct vf *better = better_vf(n, vf->pod, &bpf, &bc, &bgpu);
	if (!better)
		return; /* nothing closer is free: the scheduler had no better choice */
	const struct pod_gpu *pg = node_pod_gpu_of(n, vf->pod, near);
	char who[128], g1[64], g2[64];
	pods_label(vf->pod, who, sizeof(who));
	gpu_label(n, near, g1, sizeof(g1));
	gpu_label(n, bgpu, g2, sizeof(g2));
	struct finding *f = check_add(
		out, check_find("pod-affinity"), SUBJECT_VF, vf->fn.bdf,
		"pod %s's VF %s (%s VF %u) is %s from its nearest GPU (%s); free VF %s is %s "
		"from %s",
		who, vf->fn.bdf, check_pf_label(pf), vf->index, topo_class_name(c), g1,
		better->fn.bdf, topo_class_name(bc), g2);
	if (!f)
		return;
	finding_evidence(f, vf->fn.devpath ? vf->fn.devpath : vf->fn.bdf, "numa_node %lld",
			 (long long)numa_of(&vf->fn));
	finding_evidence(f, near->devpath ? near->devpath : near->bdf, "%s, numa_node %lld",
			 near->uuid ? near->uuid : "GPU", (long long)near->numa);
	finding_evidence(f,
			 pg && (pg->sources & POD_SRC_API)
				 ? (n->podres.socket ? n->podres.socket : PODRES_SOCKET)
				 : "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint",
			 "pod %s holds %s and %s", who, pg && pg->id ? pg->id : near->bdf,
			 vf->fn.bdf);
	finding_evidence(f, better->fn.devpath ? better->fn.devpath : better->fn.bdf,
			 "free, %s from %s (%s VF %u)", topo_class_name(bc), g2,
			 check_pf_label(bpf), better->index);
	char pool[300], del[200];
	/* The resource name: "ib_gpu<N>" for GPU N; rootDevices the PF whose VFs
	 * sit under that GPU's switch. */
	snprintf(pool, sizeof(pool),
		 "or one resource per PCIe switch in the SR-IOV device plugin's resourceList: "
		 "{\"resourceName\": \"ib_gpu%zu\", \"selectors\": {\"rootDevices\": [\"%s\"], "
		 "\"isRdma\": true}}, and pods request it with the GPU under that switch",
		 (size_t)(bgpu - n->gpus), bpf->fn.bdf);
	snprintf(del, sizeof(del),
		 "kubectl delete pod -n %s %s: it is scheduled again with the hints",
		 escape_word_or(vf->pod->ns, "<namespace>"),
		 escape_word_or(vf->pod->name, "<pod>"));
	finding_remedy_manual(
		f, "let the kubelet align the pod's VF with its GPUs",
		(const char *const[]){
			"set the kubelet's Topology Manager: topologyManagerPolicy: "
			"single-numa-node (or restricted) and topologyManagerScope: pod in "
			"/var/lib/kubelet/config.yaml, then systemctl restart kubelet: the GPU "
			"and SR-IOV device plugins' NUMA hints then keep a pod's devices on one "
			"socket",
			pool, del, NULL});
}

CHECK_FN(check_pod_affinity)
{
	(void)o;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct gpu *near;
			if (!pods_holder(vf))
				continue;
			enum topo_class c = node_pod_gpu_nearest(n, vf->pod, &vf->fn, &near);
			if ((c == TOPO_NODE || c == TOPO_SYS) && near)
				one(out, n, &n->pfs[i], vf, c, near);
		}
}
