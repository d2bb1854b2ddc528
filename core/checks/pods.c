// SPDX-License-Identifier: MIT
/* Pod checks: a kubelet checkpoint entry nothing confirms, a pod netns gone
 * while a binding still assigns a VF to it, a CNI cache file cut short. */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"

#define CHECKPOINT "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"

static void stale_one(struct findings *out, const struct node *n, const struct pod_binding *b,
		      const struct vf *vf, const char *pf_label)
{
	const char *uid = b->uid ? b->uid : "?";
	struct finding *f;
	if (vf)
		f = check_add(out, check_find("pod-stale"), SUBJECT_VF, vf->fn.bdf,
			      "VF %s (%s VF %u) is held by pod UID %s in the kubelet checkpoint "
			      "only",
			      vf->fn.bdf, pf_label, vf->index, uid);
	else
		f = check_add(out, check_find("pod-stale"), SUBJECT_NODE, NULL,
			      "the kubelet checkpoint gives %s, no VF of this node, to pod UID %s",
			      b->bdf, uid);
	if (!f)
		return;
	if (b->resource) /* the device plugin resource whose count it skews */
		snprintf(f->topic, sizeof(f->topic), "%s", b->resource);
	finding_evidence(f, CHECKPOINT, "PodUID %s, DeviceIDs [%s]%s%s", uid, b->bdf,
			 b->resource ? ", ResourceName " : "", b->resource ? b->resource : "");
	char where[160];
	snprintf(where, sizeof(where), "/var/log/pods/*_%s", uid);
	if (b->sources & POD_SRC_PODLOG)
		finding_evidence(f, where, "present: the pod's log directory outlives it");
	else
		finding_evidence(f, where, "(absent: no pod log, no CNI cache names it)");
	if (n->podres.state == PODRES_OK)
		finding_evidence(f, n->podres.socket ? n->podres.socket : PODRES_SOCKET,
				 "List: no running container holds %s%s%s", b->bdf,
				 b->api_pod ? "; it is given to pod " : "",
				 b->api_pod ? b->api_pod : "");
	char look[192];
	snprintf(look, sizeof(look),
		 "kubectl get pods -A -o custom-columns=UID:.metadata.uid,NODE:.spec.nodeName | "
		 "grep %s: check no pod of that UID runs on %s",
		 escape_word_or(uid, "<pod UID>"), escape_word_or(n->hostname, "this node"));
	finding_remedy_manual(
		f, "nothing holds the VF: the entry outlived its pod",
		(const char *const[]){
			"kubelet keeps a device's checkpoint entry until it restarts or the pod is "
			"deleted through the API server",
			look, "then systemctl restart kubelet (running pods keep their devices)",
			NULL});
}

CHECK_FN(check_pod_stale)
{
	(void)o;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			if (vf->pod && vf->pod->stale)
				stale_one(out, n, vf->pod, vf, check_pf_label(&n->pfs[i]));
		}
	for (size_t i = 0; i < n->n_pods_unplaced; i++)
		if (n->pods_unplaced[i].stale)
			stale_one(out, n, &n->pods_unplaced[i], NULL, NULL);
}

CHECK_FN(check_pod_netns_gone)
{
	(void)o;
	const struct check_def *def = check_find("pod-netns-gone");
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct pod_binding *b = vf->pod;
			if (!b || b->stale || !b->netns || !b->netns_present.known ||
			    b->netns_present.v != 0)
				continue;
			struct finding *f = check_add(
				out, def, SUBJECT_VF, vf->fn.bdf,
				"VF %s (%s VF %u) is assigned to pod %s/%s, whose netns %s is gone",
				vf->fn.bdf, check_pf_label(&n->pfs[i]), vf->index,
				b->ns ? b->ns : "?", b->name ? b->name : "?", b->netns);
			if (!f)
				return;
			finding_evidence(f, b->netns, "(absent)");
			if ((b->sources & POD_SRC_MULTUS) && b->network && b->container_id &&
			    b->ifname) {
				char where[320];
				snprintf(where, sizeof(where),
					 "/var/lib/cni/multus/results/%s-%s-%s", b->network,
					 b->container_id, b->ifname);
				finding_evidence(f, where, "\"netns\":\"%s\"", b->netns);
			}
			char get[160];
			snprintf(get, sizeof(get),
				 "kubectl get pod -n %s %s: if it still runs, delete it so kubelet "
				 "makes a new sandbox",
				 escape_word_or(b->ns, "<namespace>"),
				 escape_word_or(b->name, "<pod>"));
			finding_remedy_manual(
				f, "the pod's sandbox is gone but its CNI state was not cleaned up",
				(const char *const[]){
					get,
					"the VF's netdev returns to the host when the netns goes; "
					"ibvf list shows where it is",
					NULL});
		}
}

CHECK_FN(check_cni_cache_broken)
{
	(void)o;
	const struct check_def *def = check_find("cni-cache-broken");
	for (size_t i = 0; i < n->n_cni_broken; i++) {
		const struct bad_file *b = &n->cni_broken[i];
		if (!b->path)
			continue;
		struct finding *f = check_add(out, def, SUBJECT_NODE, NULL,
					      "CNI cache file %s cannot be read whole", b->path);
		if (!f)
			return;
		finding_evidence(f, b->path, "%s", b->why ? b->why : "unreadable");
		finding_remedy_manual(f, "the CNI's DEL for that pod will fail on this file",
				      (const char *const[]){"find the pod from the file's name "
							    "(<network>-<containerID>-<ifName>): "
							    "crictl inspectp <containerID>",
							    "if the pod is gone, remove the file; "
							    "if it runs, delete the pod so "
							    "its ADD writes the file again",
							    NULL});
	}
}
