// SPDX-License-Identifier: MIT
/* The kubelet's device-plugin checkpoint (core/pods/pods.c) and the device
 * plugins' config.json (core/pods/devplugin_parse.c) against any bytes: the
 * kubelet rewrites its checkpoint while pods start, and a ConfigMap holds
 * what its author typed. The input is the checkpoint on a scratch node (read
 * and merged by pods_read(), oracle in fuzzpods.h) and, as is, a config.
 * Config oracle: a parsed config names its plugin and keeps every bound of
 * core/devplugin.h. */
#include <errno.h>
#include <string.h>

#include "core/pods/devplugin.h"
#include "fuzzpods.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECKPOINT "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"

static void check_list(const struct dp_list *l)
{
	if (l->n > DP_VALUES_MAX)
		fuzz_fail("a selector list of %zu values", l->n);
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i] || strlen(l->v[i]) > DP_VALUE_LEN)
			fuzz_fail("selector value %zu missing or too long", i);
}

static void config(const uint8_t *data, size_t size)
{
	struct dp_config c;
	int r = devplugin_parse((const char *)data, size, "/fuzz/config.json", &c);
	if (r == -ENOMSG)
		return;
	if (r < 0)
		fuzz_fail("devplugin_parse: %d", r);
	if (c.plugin != DP_SRIOV && c.plugin != DP_RDMA_SHARED)
		fuzz_fail("config of plugin %d", c.plugin);
	if (c.n_res > DP_RESOURCES_MAX)
		fuzz_fail("%zu resources", c.n_res);
	for (size_t i = 0; i < c.n_res; i++) {
		const struct dp_resource *res = &c.res[i];
		char label[512];
		if (res->n_sel > DP_SELECTORS_MAX)
			fuzz_fail("%zu selectors", res->n_sel);
		for (size_t j = 0; j < res->n_sel; j++)
			for (int f = 0; f < DP_FIELDS; f++)
				check_list(&res->sel[j].f[f]);
		devplugin_resource_label(res, label, sizeof(label));
		devplugin_names(res, "nvidia.com/ibvf");
	}
	dp_config_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sys *s = fuzz_pods_sys();
	fuzz_write(fuzz_root(), CHECKPOINT, data, size);
	fuzz_pods_check(s);
	config(data, size);
	return 0;
}
