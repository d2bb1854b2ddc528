// SPDX-License-Identifier: MIT
/* Where the kubelet's pod-resources API and the files disagree: a binding
 * the CNI's files hold that the API does not confirm (pod-unconfirmed), and a
 * VF the API gives a running container that no CNI set up (pod-no-cni).
 * A checkpoint entry alone is pod-stale's (pods.c), with the API's word as
 * evidence. */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"
#include "core/pods/pods.h"

#define CNI_SOURCES (POD_SRC_MULTUS | POD_SRC_IB_SRIOV | POD_SRC_SRIOV)

static const char *api_where(const struct node *n)
{
	return n->podres.socket ? n->podres.socket : PODRES_SOCKET;
}

/* The file sources of b as evidence: which files name which pod. */
static void file_evidence(struct finding *f, const struct pod_binding *b)
{
	static const struct {
		unsigned int bit;
		const char *where;
	} src[] = {
		{POD_SRC_MULTUS, "/var/lib/cni/multus/results"},
		{POD_SRC_IB_SRIOV, "/var/lib/cni/ib-sriov"},
		{POD_SRC_SRIOV, "/var/lib/cni/sriov"},
		{POD_SRC_CHECKPOINT, "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"},
		{POD_SRC_PODLOG, "/var/log/pods"},
	};
	char who[128];
	pods_label(b, who, sizeof(who));
	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++)
		if (b->sources & src[i].bit)
			finding_evidence(f, src[i].where, "%s: pod %s", b->bdf, who);
}

static void unconfirmed(struct findings *out, const struct node *n, const struct pf *pf,
			const struct vf *vf, const struct pod_binding *b)
{
	char who[128], get[200];
	pods_label(b, who, sizeof(who));
	struct finding *f =
		check_add(out, check_find("pod-unconfirmed"), SUBJECT_VF, vf->fn.bdf,
			  "VF %s (%s VF %u) is pod %s's in the CNI's files, but the kubelet %s",
			  vf->fn.bdf, check_pf_label(pf), vf->index, who,
			  b->api_pod ? "gives it to another pod" : "lists no container holding it");
	if (!f)
		return;
	file_evidence(f, b);
	if (b->api_pod)
		finding_evidence(f, api_where(n), "List: %s is held by pod %s", vf->fn.bdf,
				 b->api_pod);
	else
		finding_evidence(f, api_where(n), "List: no running container holds %s",
				 vf->fn.bdf);
	snprintf(get, sizeof(get), "kubectl get pod -n %s %s -o wide: is it running on %s?",
		 escape_word_or(b->ns, "<namespace>"), escape_word_or(b->name, "<pod>"),
		 escape_word_or(n->hostname, "this node"));
	finding_remedy_manual(
		f, "the CNI's state outlived the pod, or the pod runs without the VF",
		(const char *const[]){get,
				      "if the pod is gone, its CNI DEL did not run: the VF keeps "
				      "the pod's name and netns state until the files are cleaned "
				      "(crictl rmp the sandbox, or remove the cache files)",
				      "if it runs, the kubelet did not allocate the VF to it: two "
				      "pods may be using one VF",
				      NULL});
}

static void no_cni(struct findings *out, const struct node *n, const struct pf *pf,
		   const struct vf *vf, const struct pod_binding *b)
{
	char who[128], get[240];
	pods_label(b, who, sizeof(who));
	struct finding *f =
		check_add(out, check_find("pod-no-cni"), SUBJECT_VF, vf->fn.bdf,
			  "VF %s (%s VF %u) is allocated to pod %s, but no CNI set it up",
			  vf->fn.bdf, check_pf_label(pf), vf->index, who);
	if (!f)
		return;
	finding_evidence(f, api_where(n), "List: container %s holds %s (%s)",
			 b->api_container ? b->api_container : "?", vf->fn.bdf,
			 b->api_resource ? b->api_resource : "?");
	finding_evidence(f, "/var/lib/cni", "no Multus, ib-sriov or sriov cache names %s",
			 vf->fn.bdf);
	snprintf(get, sizeof(get),
		 "kubectl get pod -n %s %s -o jsonpath='{.metadata.annotations}': its "
		 "k8s.v1.cni.cncf.io/networks must name a NetworkAttachmentDefinition",
		 escape_word_or(b->ns, "<namespace>"), escape_word_or(b->name, "<pod>"));
	finding_remedy_manual(
		f, "the pod has the device but no network on it",
		(const char *const[]){get,
				      "that NetworkAttachmentDefinition's "
				      "k8s.v1.cni.cncf.io/resourceName annotation must be the "
				      "resource the pod requests",
				      "the pod is still ContainerCreating while its CNI fails: "
				      "kubectl describe pod shows the CNI's error",
				      NULL});
}

/* Calls fn for each VF whose binding the one side holds and the other does
 * not: the API and no CNI (api), or a CNI and not the API (!api). Only when
 * the API answered: without it there is nothing to disagree with. */
static void each_disagreement(const struct node *n, struct findings *out, bool api,
			      void (*fn)(struct findings *, const struct node *, const struct pf *,
					 const struct vf *, const struct pod_binding *))
{
	if (n->podres.state != PODRES_OK)
		return;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct pod_binding *b = vf->pod;
			if (!b || b->stale)
				continue;
			bool by_api = b->sources & POD_SRC_API, by_cni = b->sources & CNI_SOURCES;
			if (by_api == api && by_cni == !api)
				fn(out, n, &n->pfs[i], vf, b);
		}
}

CHECK_FN(check_pod_unconfirmed)
{
	(void)o;
	each_disagreement(n, out, false, unconfirmed);
}

CHECK_FN(check_pod_no_cni)
{
	(void)o;
	each_disagreement(n, out, true, no_cni);
}
