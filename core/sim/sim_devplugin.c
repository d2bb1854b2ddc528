// SPDX-License-Identifier: MIT
/* The simulated node's device plugins (docs/kubernetes.md): the SR-IOV
 * network device plugin's and the RDMA shared device plugin's ConfigMaps, as
 * kubelet mounts them into the plugin pods' volumes:
 *
 *   var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~configmap/<volume>/
 *       ..2026_11_30_08_14_03.2846108231/config.json   the file
 *       ..data -> ..2026_11_30_08_14_03.2846108231
 *       config.json -> ..data/config.json
 *
 * The SR-IOV plugin's resource nvidia.com/ibvf (the one the pods request)
 * selects the compute VFs; with the faults it carries the field report's
 * values instead (device 101c, pfNames mlx-*), which select nothing on
 * ConnectX-7 VFs (101e) behind ibp* PFs. The RDMA shared plugin's config is
 * right on both. */
#include "core/sim/sim_tree.h"

#include <limits.h>
#include <stdio.h>

#define NAMESPACE "nvidia-network-operator"
#define STAMP	  "..2026_11_30_08_14_03.2846108231"

struct plugin_pod {
	const char *name, *uid, *container, *volume;
};

static const struct plugin_pod sriov_dp = {"sriov-device-plugin-7wq4z",
					   "4e8b1f2a-9c3d-4e5f-8a6b-7c8d9e0f1a55", "kube-sriovdp",
					   "config-volume"};
static const struct plugin_pod rdma_dp = {"rdma-shared-dp-ds-k2x9m",
					  "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c66", "rdma-shared-dp",
					  "config"};

/* As a ConfigMap's data is usually written: by hand, indented. */
static const char sriov_ok[] = "{\n"
			       "  \"resourceList\": [\n"
			       "    {\n"
			       "      \"resourcePrefix\": \"nvidia.com\",\n"
			       "      \"resourceName\": \"ibvf\",\n"
			       "      \"selectors\": {\n"
			       "        \"vendors\": [\"15b3\"],\n"
			       "        \"devices\": [\"101e\"],\n"
			       "        \"drivers\": [\"mlx5_core\"],\n"
			       "        \"linkTypes\": [\"infiniband\"],\n"
			       "        \"isRdma\": true\n"
			       "      }\n"
			       "    }\n"
			       "  ]\n"
			       "}\n";

static const char sriov_field_report[] = "{\n"
					 "  \"resourceList\": [{\n"
					 "    \"resourcePrefix\": \"nvidia.com\",\n"
					 "    \"resourceName\": \"ibvf\",\n"
					 "    \"selectors\": {\n"
					 "      \"vendors\": [\"15b3\"],\n"
					 "      \"devices\": [\"101c\"],\n"
					 "      \"pfNames\": [\"mlx-*\"],\n"
					 "      \"isRdma\": true\n"
					 "    }\n"
					 "  }]\n"
					 "}\n";

static const char rdma_ok[] = "{\n"
			      "  \"periodicUpdateInterval\": 300,\n"
			      "  \"configList\": [\n"
			      "    {\n"
			      "      \"resourceName\": \"hca_shared_ib\",\n"
			      "      \"rdmaHcaMax\": 63,\n"
			      "      \"selectors\": {\n"
			      "        \"vendors\": [\"15b3\"],\n"
			      "        \"deviceIDs\": [\"1021\"],\n"
			      "        \"linkTypes\": [\"infiniband\"]\n"
			      "      }\n"
			      "    }\n"
			      "  ]\n"
			      "}\n";

static int write_pod(const char *root, const struct plugin_pod *p, const char *config,
		     struct err *e)
{
	char vol[PATH_MAX], rel[PATH_MAX], target[PATH_MAX];
	int r = sim_fmt(vol, sizeof(vol),
			"var/lib/kubelet/pods/%s/volumes/kubernetes.io~configmap/%s", p->uid,
			p->volume);
	if (r == 0)
		r = sim_fmt(rel, sizeof(rel), "%s/%s/config.json", vol, STAMP);
	if (r == 0)
		r = sim_putf(root, e, rel, "%s", config);
	if (r == 0 && (r = sim_fmt(rel, sizeof(rel), "%s/..data", vol)) == 0 &&
	    (r = sim_fmt(target, sizeof(target), "%s/%s", vol, STAMP)) == 0)
		r = sim_symlink(root, rel, target, e);
	if (r == 0 && (r = sim_fmt(rel, sizeof(rel), "%s/config.json", vol)) == 0 &&
	    (r = sim_fmt(target, sizeof(target), "%s/..data/config.json", vol)) == 0)
		r = sim_symlink(root, rel, target, e);
	/* Its log directory names the pod, as for every pod kubelet runs. */
	if (r == 0 && (r = sim_fmt(rel, sizeof(rel), "var/log/pods/%s_%s_%s/%s/0.log", NAMESPACE,
				   p->name, p->uid, p->container)) == 0)
		r = sim_putf(root, e, rel, "%s", "");
	return r;
}

int sim_devplugin_write(const char *root, bool faulty, struct err *e)
{
	int r = write_pod(root, &sriov_dp, faulty ? sriov_field_report : sriov_ok, e);
	if (r == 0)
		r = write_pod(root, &rdma_dp, rdma_ok, e);
	return r;
}
