// SPDX-License-Identifier: MIT
/* `ibvf --sim debug pod-start NAMESPACE/NAME VF [--ifname IF] [--uid UID]`:
 * a pod that asked for a VF starts on the simulated node, as the kubelet,
 * the device plugin and ib-sriov-cni start it, and the kernel then renames
 * the PF's other kernel-named VFs (core/sim/sim_podstart.c). The VF is
 * found by the one resolver, and "held by a pod" is pods_holder()'s. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/sim/sim_boot.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"
#include "tui/base/cli.h"
#include "tui/base/text.h"

/* The VF pod-start may give a pod: its PCI address into bdf, or 1 (said). */
static int vf_free(struct sys *s, const char *name, char bdf[static 16])
{
	struct node *n = NULL;
	struct node_ref ref;
	struct err e = {{0}};
	char esc[256], label[400];
	int rc = 1;
	if (node_discover(s, &n, &e) < 0) {
		cli_error("%s", e.msg);
		return 1;
	}
	text_escape_into(esc, sizeof(esc), name);
	if (node_resolve(n, name, &ref, &e) < 0)
		cli_error("debug pod-start: %s", e.msg);
	else if (!ref.vf)
		cli_error("debug pod-start: '%s' is a PF (%s), not a VF: a pod is given a VF", esc,
			  ref.pf ? ref.pf->fn.bdf : "no PCI function");
	else if (pods_holder_label(ref.vf, label, sizeof(label)))
		cli_error("debug pod-start: VF %s is held by pod %s already", ref.vf->fn.bdf,
			  label);
	else if (ref.vf->fn.n_netdevs == 0)
		cli_error("debug pod-start: VF %s has no netdev on the host (%s): the CNI's ADD "
			  "would fail",
			  ref.vf->fn.bdf,
			  ref.vf->fn.driver ? "its netdev is gone"
					    : "no driver: its probe failed, or it was unbound");
	else {
		snprintf(bdf, 16, "%s", ref.vf->fn.bdf);
		rc = 0;
	}
	node_free(n);
	return rc;
}

int podstart_run(const struct cli *c, const char *pod, const char *vf, const char *ifname,
		 const char *uid)
{
	char ns[256], esc[600], bdf[16];
	const char *slash = strchr(pod, '/');
	text_escape_into(esc, sizeof(esc), pod);
	if (!slash || slash == pod || (size_t)(slash - pod) >= sizeof(ns) || !slash[1]) {
		cli_error("debug pod-start: '%s' is not NAMESPACE/NAME", esc);
		return EXIT_USAGE;
	}
	snprintf(ns, sizeof(ns), "%.*s", (int)(slash - pod), pod);
	struct sim_pod_start p = {.ns = ns, .name = slash + 1, .uid = uid, .ifname = ifname};
	struct sys *s;
	if (cli_open(c, &s) < 0)
		return 1;
	int rc = vf_free(s, vf, bdf);
	if (rc == 0) {
		struct sim_boot_log log = {.n = 0};
		struct err e = {{0}};
		p.bdf = bdf;
		int r = sim_pod_start(s, &p, &log, &e);
		for (size_t i = 0; i < log.n; i++) {
			text_escape_into(esc, sizeof(esc), log.notes[i]);
			printf("pod-start: %s\n", esc);
		}
		if (r < 0) {
			text_escape_into(esc, sizeof(esc), e.msg);
			cli_error("debug pod-start: %s", esc);
			rc = r == -EINVAL ? EXIT_USAGE : 1;
		}
	}
	sys_close(s);
	return rc;
}
