// SPDX-License-Identifier: MIT
/* Kernel-log checks: a driver built for another kernel, a function whose probe
 * failed, and a VF left with no driver. */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"

#define MISMATCH_LINES_MAX (FINDING_EVIDENCE_MAX - 2)

/* The module loader's words for a module built against another kernel. */
static bool kmsg_mismatch(const struct kmsg_line *l)
{
	return l->msg && (strstr(l->msg, "Unknown symbol") ||
			  strstr(l->msg, "disagrees about version of symbol"));
}

static void mismatch_remedy(struct finding *f, const struct node *n)
{
	if (n->driver_version) {
		finding_remedy_manual(
			f,
			"install a driver built for the running kernel, or return to the inbox one",
			(const char *const[]){
				"download the MLNX_OFED/DOCA-OFED release that lists this kernel "
				"(or the newest one for the distribution) and unpack it",
				"./mlnxofedinstall --add-kernel-support --without-fw-update  "
				"(rebuilds the modules against $(uname -r))",
				"or return to the inbox driver: /usr/sbin/ofed_uninstall.sh "
				"--force",
				"then reload the driver (reboot, or modprobe -r mlx5_ib mlx5_core "
				"&& "
				"modprobe mlx5_core) and run 'ibvf check' again",
				NULL});
		return;
	}
	finding_remedy_manual(
		f, "install the modules built for the running kernel",
		(const char *const[]){
			"find the module loaded: modinfo -n mlx5_core (it should be under "
			"/lib/modules/$(uname -r)/kernel)",
			"remove out-of-tree copies (DKMS: dkms status; /lib/modules/$(uname "
			"-r)/updates) or reinstall the kernel's modules package for $(uname -r)",
			"then reboot, or modprobe -r mlx5_ib mlx5_core && modprobe mlx5_core",
			NULL});
}

CHECK_FN(check_kmsg_mismatch)
{
	(void)o;
	size_t first = n->n_kmsg, count = 0;
	for (size_t i = 0; i < n->n_kmsg; i++)
		if (kmsg_mismatch(&n->kmsg[i])) {
			first = first < i ? first : i;
			count++;
		}
	if (!count)
		return;
	struct finding *f = check_add(
		out, check_find("driver-kernel-mismatch"), SUBJECT_NODE, NULL,
		"the RDMA driver%s%s does not match kernel %s: %zu unresolved symbol line%s",
		n->driver_version ? " " : "", n->driver_version ? n->driver_version : "",
		n->kernel ? n->kernel : "(unknown)", count, count == 1 ? "" : "s");
	if (!f)
		return;
	if (n->kernel)
		finding_evidence(f, "/proc/sys/kernel/osrelease", "%s", n->kernel);
	if (n->driver_version)
		finding_evidence(f, "/sys/module/mlx5_core/version", "%s", n->driver_version);
	size_t shown = 0;
	for (size_t i = first; i < n->n_kmsg && shown < MISMATCH_LINES_MAX; i++) {
		if (!kmsg_mismatch(&n->kmsg[i]))
			continue;
		char where[64];
		check_kmsg_where(where, sizeof(where), &n->kmsg[i]);
		finding_evidence(f, where, "%s", n->kmsg[i].msg);
		shown++;
	}
	mismatch_remedy(f, n);
}

/* A probe-failure record's function: a VF or a PF of the node, or neither
 * (gone since: VFs destroyed and made again). */
static void probe_failed_one(struct findings *out, const struct node *n, const struct kmsg_line *l,
			     const char *bdf)
{
	const struct check_def *def = check_find("probe-failed");
	const struct pf *pf = NULL;
	const struct vf *vf = NULL;
	const struct fn *fn = node_find_fn(n, bdf, &pf, &vf);
	if (fn && fn->driver) {
		/* Probed again since, and bound now: history, not the fault. */
		struct finding *f = check_add(out, def, vf ? SUBJECT_VF : SUBJECT_PF, bdf,
					      "%s %s failed to probe earlier, bound to %s now",
					      vf ? "VF" : "PF", bdf, fn->driver);
		if (f) {
			char where[64];
			f->severity = CHECK_INFO;
			check_kmsg_where(where, sizeof(where), l);
			finding_evidence(f, where, "%s", l->msg);
		}
		return;
	}
	struct finding *f;
	if (vf)
		f = check_add(out, def, SUBJECT_VF, bdf,
			      "VF %s (%s VF %u) failed to probe: no driver, netdev or RDMA device",
			      bdf, check_pf_label(pf), vf->index);
	else if (fn)
		f = check_add(out, def, SUBJECT_PF, bdf,
			      "PF %s failed to probe: no driver, netdev or RDMA device", bdf);
	else
		f = check_add(out, def, SUBJECT_NODE, NULL,
			      "%s failed to probe and is no longer on the node", bdf);
	if (!f)
		return;
	if (!fn)
		f->severity = CHECK_INFO;
	char where[64];
	check_kmsg_where(where, sizeof(where), l);
	finding_evidence(f, where, "%s", l->msg);
	if (fn) {
		char path[128];
		check_fn_path(path, sizeof(path), bdf, "driver");
		finding_evidence(f, path, "(absent: no driver bound)");
	}
	char look[128], bind[128];
	snprintf(look, sizeof(look), "read why: dmesg | grep -e %s -e 'Unknown symbol'", bdf);
	snprintf(bind, sizeof(bind), "then bind it: echo %s > /sys/bus/pci/drivers/mlx5_core/bind",
		 bdf);
	finding_remedy_manual(
		f, "fix what made the probe fail, then bind the function again",
		(const char *const[]){look,
				      "a driver built for another kernel is fixed first (see "
				      "driver-kernel-mismatch)",
				      bind, NULL});
}

CHECK_FN(check_probe_failed)
{
	(void)o;
	/* One finding per function, from its latest failure record. */
	for (size_t i = 0; i < n->n_kmsg; i++) {
		char bdf[16];
		if (!n->kmsg[i].msg || !check_find_bdf(n->kmsg[i].msg, bdf) ||
		    check_probe_failure(n, bdf) != &n->kmsg[i])
			continue;
		probe_failed_one(out, n, &n->kmsg[i], bdf);
	}
}

CHECK_FN(check_vf_unbound)
{
	(void)o;
	const struct check_def *def = check_find("vf-unbound");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		/* sriov_drivers_autoprobe 0: VFs are left for vfio or a VM on purpose. */
		bool manual = pf->autoprobe.known && pf->autoprobe.v == 0;
		for (size_t j = 0; j < pf->n_vfs && !manual; j++) {
			const struct vf *vf = &pf->vfs[j];
			if (vf->fn.driver || check_probe_failure(n, vf->fn.bdf))
				continue;
			struct finding *f = check_add(out, def, SUBJECT_VF, vf->fn.bdf,
						      "VF %s (%s VF %u) has no driver bound",
						      vf->fn.bdf, check_pf_label(pf), vf->index);
			if (!f)
				return;
			char path[128];
			check_fn_path(path, sizeof(path), vf->fn.bdf, "driver");
			finding_evidence(f, path, "(absent: no driver bound)");
			check_fn_path(path, sizeof(path), pf->fn.bdf, "sriov_drivers_autoprobe");
			if (pf->autoprobe.known)
				finding_evidence(f, path, "%lld", (long long)pf->autoprobe.v);
			char bind[128], why[96];
			snprintf(bind, sizeof(bind),
				 "echo %s > /sys/bus/pci/drivers/mlx5_core/bind", vf->fn.bdf);
			snprintf(why, sizeof(why), "if that fails, dmesg | grep %s tells why",
				 vf->fn.bdf);
			finding_remedy_manual(f, "bind the VF to mlx5_core",
					      (const char *const[]){bind, why, NULL});
		}
	}
}
