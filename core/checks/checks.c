// SPDX-License-Identifier: MIT
/* The check table, running it, and findings as JSON (checks.h). */
#include "checks.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_int.h"

const struct check_def checks_table[] = {
	{"guid-zero", CHECK_CRITICAL, "zero GUID",
	 "A VF whose node or port GUID is zero cannot join the InfiniBand fabric: its port stays "
	 "DOWN and a pod given it has no RDMA network.",
	 check_guid_zero, REACH_SUBJECT},
	/* checks part (issue 11): every check but the device plugins'. */
	{"driver-kernel-mismatch", CHECK_CRITICAL, "RDMA driver built for another kernel",
	 "A driver module built against another kernel loads with unresolved symbols: functions "
	 "fail to probe, and VFs come up late, misnamed or not at all.",
	 check_kmsg_mismatch, REACH_BELOW},
	{"probe-failed", CHECK_CRITICAL, "PCI function failed to probe",
	 "A function whose probe failed has no driver, netdev or RDMA device: nothing on it works, "
	 "and its GUIDs or port state say nothing about why.",
	 check_probe_failed, REACH_SUBJECT},
	{"vf-unbound", CHECK_WARNING, "VF with no driver",
	 "A VF with no driver bound has no netdev or RDMA device, so no pod can be given it.",
	 check_vf_unbound, REACH_SUBJECT},
	{"guid-duplicate", CHECK_CRITICAL, "duplicate GUID",
	 "Two ports with one GUID confuse the subnet manager: one of them, or both, cannot be "
	 "reached, and traffic for one may reach the other.",
	 check_guid_duplicate, REACH_SUBJECT},
	{"guid-invalid", CHECK_WARNING, "invalid GUID",
	 "A GUID of all ones, or with the EUI-64 group (I/G) bit set, is no valid port or node "
	 "identity: the subnet manager may refuse it or route to it wrongly.",
	 check_guid_invalid, REACH_SUBJECT},
	{"port-down", CHECK_CRITICAL, "InfiniBand port down",
	 "A port that is not ACTIVE and LinkUp carries no RDMA traffic: every pod on it loses its "
	 "network.",
	 check_port_down, REACH_BELOW},
	{"ethernet-fallback", CHECK_CRITICAL, "compute HCA fallen back to Ethernet",
	 "A compute HCA whose port runs Ethernet is off the InfiniBand fabric: its VFs carry no "
	 "InfiniBand traffic, and device plugins selecting InfiniBand skip them.",
	 check_ethernet_fallback, REACH_BELOW},
	{"firmware-old", CHECK_WARNING, "firmware below the SR-IOV minimum",
	 "Firmware older than the minimum for its model has SR-IOV faults fixed since: VF ports "
	 "that do not come up, link-type fallbacks.",
	 check_firmware_old, REACH_BELOW},
	{"sriov-disabled", CHECK_WARNING, "SR-IOV off in firmware",
	 "With SR-IOV off in the HCA's firmware the kernel offers no VFs at all on it.",
	 check_sriov_disabled, REACH_SUBJECT},
	{"sriov-layout", CHECK_WARNING, "VF count differs from the persisted layout",
	 "The boot unit will re-create the persisted count at the next boot, so the node does not "
	 "come back as it runs now.",
	 check_sriov_layout, REACH_BELOW},
	{"rate-degraded", CHECK_WARNING, "link below its model's rate",
	 "A port trained below the rate or width of its model's other ports (a lane or cable "
	 "fault) caps every VF on it.",
	 check_rate_degraded, REACH_BELOW},
	{"name-unstable", CHECK_WARNING, "VF name the next boot does not keep",
	 "At boot udev names each new netdev by the first .link file that matches it; a VF whose "
	 "name no file gives back comes up as ib<N>/eth<N> in probe order, which changes from "
	 "boot to boot: configs and CNIs naming it break.",
	 check_name_unstable, REACH_SUBJECT},
	{"boot-unit", CHECK_CRITICAL, "boot unit will not run",
	 "SR-IOV VFs do not survive a reboot: sriov_numvfs starts at 0 and only ibvf-sriov.service "
	 "creates them again (and sets their GUIDs). A unit that is not enabled, or whose program "
	 "is gone, leaves the node without its VFs and every pod on them without its network.",
	 check_boot_unit, REACH_BELOW},
	{"name-changed", CHECK_INFO, "netdev or RDMA name changed",
	 "A netdev renamed under a running workload breaks whatever finds it by name.",
	 check_name_changed, REACH_SUBJECT},
	{"name-collision", CHECK_CRITICAL, "pod VF's host name taken",
	 "When the pod goes, the CNI renames the VF back to its host name; with that name taken "
	 "the rename fails and the VF is left misnamed or stuck in the pod's netns.",
	 check_name_collision, REACH_SUBJECT},
	{"pod-stale", CHECK_WARNING, "stale kubelet checkpoint entry",
	 "A checkpoint entry no pod confirms marks the VF as allocated: the device plugin's count "
	 "is off and the VF looks busy though nothing uses it.",
	 check_pod_stale, REACH_SUBJECT},
	{"pod-unconfirmed", CHECK_WARNING, "pod binding the kubelet does not confirm",
	 "The CNI's files give the VF to a pod the kubelet's pod-resources API does not run with "
	 "it: the files outlived the pod (its VF keeps the pod's name and state), or two pods "
	 "use one VF.",
	 check_pod_unconfirmed, REACH_SUBJECT},
	{"pod-no-cni", CHECK_WARNING, "VF allocated but never set up",
	 "The kubelet gave the VF to a running container but no CNI configured it: the pod has "
	 "the device and no network on it, or is stuck starting while its CNI fails.",
	 check_pod_no_cni, REACH_SUBJECT},
	{"pod-affinity", CHECK_WARNING, "pod VF far from its GPUs",
	 "A VF on another PCIe root complex or socket than the pod's GPUs moves every GPUDirect "
	 "RDMA transfer through the CPU and the link between the sockets, and loses a large "
	 "part of the port's bandwidth.",
	 check_pod_affinity, REACH_SUBJECT},
	{"operator-managed", CHECK_INFO, "PF configured by an operator",
	 "The SR-IOV Network Operator's config daemon sets this PF's VF count and VF GUIDs from "
	 "its "
	 "policies and sets them again at each sync: ibvf changing them, or its boot unit setting "
	 "them, fights it; the change belongs in the operator's policy.",
	 check_operator_managed, REACH_BELOW},
	{"pod-netns-gone", CHECK_WARNING, "pod netns gone",
	 "A binding whose network namespace is gone names a pod that no longer has the VF: the "
	 "CNI's cleanup did not run.",
	 check_pod_netns_gone, REACH_SUBJECT},
	{"cni-cache-broken", CHECK_WARNING, "half-written CNI cache file",
	 "The CNI reads its cache file to undo what it did when the pod goes: a truncated file "
	 "makes that DEL fail and leaves the VF in limbo.",
	 check_cni_cache_broken, REACH_SUBJECT},
	/* the recorded history (core/checks/past.c) */
	{"port-flapping", CHECK_WARNING, "port keeps changing state",
	 "A link that goes down and up again drops every RDMA connection on it each time: jobs "
	 "stall or fail while the port looks ACTIVE whenever anyone checks.",
	 check_port_flapping, REACH_BELOW},
	{"guid-lost-boot", CHECK_WARNING, "VF GUID lost at boot",
	 "VFs come back from a reboot with zero GUIDs unless the boot unit sets them: a VF "
	 "without its GUID is off the fabric, and one given another GUID is a stranger to the "
	 "subnet manager's and the pods' configuration.",
	 check_guid_lost_boot, REACH_SUBJECT},
	/* dp */
	{"dp-selector-empty", CHECK_WARNING, "device plugin resource selects nothing",
	 "A device plugin resource whose selectors match none of the node's VFs is advertised "
	 "with 0 devices: pods requesting it stay Pending, or fail to bind their VF.",
	 check_dp_selector_empty, REACH_BELOW},
	{"dp-link-type", CHECK_WARNING, "device plugin resource mixes link layers",
	 "A resource that holds Ethernet VFs (or VFs without an RDMA device) next to "
	 "InfiniBand ones hands some pods a VF that cannot reach the InfiniBand fabric.",
	 check_dp_link_type, REACH_BELOW},
	{"dp-config-invalid", CHECK_WARNING, "device plugin config refused",
	 "A device plugin refuses a config it cannot parse and advertises none of its "
	 "resources: every pod requesting them stays Pending.",
	 check_dp_config_invalid, REACH_BELOW},
	{"dp-not-allocatable", CHECK_WARNING, "device plugin VF not allocatable",
	 "A VF the device plugin's config selects that the kubelet does not list as allocatable "
	 "is never given to a pod: the node offers fewer VFs than the config says.",
	 check_dp_not_allocatable, REACH_SUBJECT},
	{"dp-config-skipped", CHECK_INFO, "device plugin configs left out",
	 "ibvf reads device plugin configs only from the plugins' own pods and up to its limits: "
	 "a config in another pod is not the plugin's, and one left out is not judged.",
	 check_dp_config_skipped, REACH_BELOW},
};
const size_t checks_table_len = sizeof(checks_table) / sizeof(checks_table[0]);

/* Which finding explains which: a consequence whose cause is found is
 * folded under it (core/checks/group.c); without its cause it is a problem
 * of its own. One row a pair. */
const struct check_cause check_causes_table[] = {
	{"guid-zero", "port-down", CAUSE_SAME},
	{"driver-kernel-mismatch", "probe-failed", CAUSE_NODE},
	{"driver-kernel-mismatch", "vf-unbound", CAUSE_NODE},
	{"port-down", "port-down", CAUSE_PF}, /* a PF's port: its VFs' */
	{"ethernet-fallback", "port-down", CAUSE_PF},
	{"ethernet-fallback", "rate-degraded", CAUSE_PF},
	{"ethernet-fallback", "dp-link-type", CAUSE_PF_TOPIC},
	{"pod-stale", "dp-not-allocatable", CAUSE_TOPIC},
	/* a unit that will not run is written anew by persist, for the VFs
	 * the node has now */
	{"boot-unit", "sriov-layout", CAUSE_NODE},
	/* a kernel-named VF took a pod VF's host name (probe order): its name
	 * of its own (rename --all) frees it */
	{"name-unstable", "name-collision", CAUSE_SUBJECT_TOPIC},
};
const size_t check_causes_table_len = sizeof(check_causes_table) / sizeof(check_causes_table[0]);

/* The batch forms of per-VF remedies (ibvf help vf). */
const struct check_batch check_batches_table[] = {
	{"guid-zero",
	 {"vf", "guid", NULL},
	 "unique GUIDs for every VF with zero or duplicate GUIDs",
	 {"vf", "guid", "--assign-all", NULL}},
	{"guid-duplicate",
	 {"vf", "guid", NULL},
	 "unique GUIDs for every VF with zero or duplicate GUIDs",
	 {"vf", "guid", "--assign-all", NULL}},
	{"name-unstable",
	 {"vf", "rename", NULL},
	 "every VF not in a pod to its predictable name",
	 {"vf", "rename", "--all", NULL}},
};
const size_t check_batches_table_len = sizeof(check_batches_table) / sizeof(check_batches_table[0]);

const struct check_def *check_find(const char *id)
{
	for (size_t i = 0; i < checks_table_len; i++)
		if (strcmp(checks_table[i].id, id) == 0)
			return &checks_table[i];
	return NULL;
}

static const char *const severity_names[] = {"info", "warning", "critical"};

const char *check_severity_name(enum check_severity s)
{
	return (unsigned int)s < 3 ? severity_names[s] : "?";
}

int check_severity_parse(const char *s, enum check_severity *ret)
{
	for (unsigned int i = 0; i < 3; i++)
		if (strcmp(s, severity_names[i]) == 0) {
			*ret = (enum check_severity)i;
			return 0;
		}
	return -EINVAL;
}

void check_fn_path(char *buf, size_t size, const char *bdf, const char *rel)
{
	snprintf(buf, size, "/sys/bus/pci/devices/%s/%s", bdf, rel);
}

void check_ib_path(char *buf, size_t size, const char *ibdev, const char *rel)
{
	snprintf(buf, size, "/sys/class/infiniband/%s/%s", ibdev, rel);
}

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

struct finding *check_add(struct findings *out, const struct check_def *def,
			  enum finding_subject kind, const char *bdf, const char *fmt, ...)
{
	if (out->n >= FINDINGS_MAX) {
		out->n_dropped++;
		return NULL;
	}
	if (out->n == out->alloc) {
		size_t a = out->alloc ? out->alloc * 2 : 16;
		struct finding *v = realloc(out->v, a * sizeof(*v));
		if (!v)
			return NULL;
		out->v = v;
		out->alloc = a;
	}
	struct finding *f = &out->v[out->n];
	*f = (struct finding){.id = def->id,
			      .severity = def->severity,
			      .kind = kind,
			      .reach = def->reach,
			      .why = def->why};
	snprintf(f->subject, sizeof(f->subject), "%s", bdf ? bdf : "");
	va_list ap;
	va_start(ap, fmt);
	f->title = vfmt(fmt, ap);
	va_end(ap);
	if (!f->title)
		return NULL;
	out->n++;
	return f;
}

void finding_evidence(struct finding *f, const char *where, const char *fmt, ...)
{
	if (!f || f->n_evidence >= FINDING_EVIDENCE_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *value = vfmt(fmt, ap);
	va_end(ap);
	char *w = strdup(where);
	if (!value || !w) {
		free(value);
		free(w);
		return;
	}
	f->evidence[f->n_evidence++] = (struct finding_evidence){.where = w, .value = value};
}

static void remedy_set(struct finding *f, enum remedy_kind kind, const char *summary,
		       const char *const *v)
{
	if (!f)
		return;
	f->remedy.kind = kind;
	f->remedy.summary = strdup(summary);
	for (size_t i = 0; v && v[i] && f->remedy.n_steps < FINDING_STEPS_MAX; i++) {
		char *s = strdup(v[i]);
		if (!s)
			break;
		f->remedy.steps[f->remedy.n_steps++] = s;
	}
}

void finding_remedy_ibvf(struct finding *f, const char *summary, const char *const *argv)
{
	remedy_set(f, REMEDY_IBVF, summary, argv);
}

void finding_remedy_manual(struct finding *f, const char *summary, const char *const *steps)
{
	remedy_set(f, REMEDY_MANUAL, summary, steps);
}

void finding_fini(struct finding *f)
{
	free(f->title);
	for (size_t i = 0; i < f->n_evidence; i++) {
		free(f->evidence[i].where);
		free(f->evidence[i].value);
	}
	free(f->remedy.summary);
	for (size_t i = 0; i < f->remedy.n_steps; i++)
		free(f->remedy.steps[i]);
}

void findings_fini(struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		finding_fini(&fs->v[i]);
	free(fs->v);
	problems_fini(fs);
	*fs = (struct findings){0};
}

static size_t table_index(const char *id)
{
	const struct check_def *d = check_find(id);
	return d ? (size_t)(d - checks_table) : checks_table_len;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	int c = strcmp(x->subject, y->subject);
	if (c)
		return c;
	size_t i = table_index(x->id), j = table_index(y->id);
	return i < j ? -1 : i > j;
}

int checks_run(const struct node *n, const struct checks_opts *opts, struct findings *out)
{
	static const struct checks_opts none = {0};
	*out = (struct findings){0};
	for (size_t i = 0; i < checks_table_len; i++)
		checks_table[i].run(out, n, opts ? opts : &none);
	for (size_t i = 0; i < out->n; i++)
		if (!out->v[i].remedy.summary && out->v[i].remedy.kind != REMEDY_NONE) {
			findings_fini(out);
			return -ENOMEM;
		}
	/* qsort is not stable: the subject and table order break ties, and
	 * findings of one check on one subject keep their order by title. */
	if (out->n) /* qsort(NULL, 0, ...) is undefined */
		qsort(out->v, out->n, sizeof(*out->v), cmp_finding);
	for (size_t i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		const struct pf *pf = NULL;
		if (f->subject[0] && node_find_fn(n, f->subject, &pf, NULL) && pf) {
			snprintf(f->pf, sizeof(f->pf), "%s", pf->fn.bdf);
			snprintf(f->pf_label, sizeof(f->pf_label), "%s", check_pf_label(pf));
		}
	}
	findings_link(out);
	if (findings_group(out) < 0) {
		findings_fini(out);
		return -ENOMEM;
	}
	return 0;
}

enum check_severity findings_max_severity(const struct findings *fs)
{
	enum check_severity m = CHECK_INFO;
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].severity > m)
			m = fs->v[i].severity;
	return m;
}

static const char *const subject_names[] = {"node", "pf", "vf"};
static const char *const remedy_names[] = {"none", "ibvf", "manual"};

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *finding_to_json(const struct finding *f)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "id", jstr(f->id));
	json_object_object_add(o, "severity", jstr(check_severity_name(f->severity)));
	json_object_object_add(o, "subject", f->subject[0] ? jstr(f->subject) : NULL);
	json_object_object_add(o, "subject_kind", jstr(subject_names[f->kind]));
	json_object_object_add(o, "title", jstr(f->title));
	json_object_object_add(o, "why", jstr(f->why));
	struct json_object *ev = json_object_new_array();
	for (size_t i = 0; ev && i < f->n_evidence; i++) {
		struct json_object *e = json_object_new_object();
		json_object_object_add(e, "where", jstr(f->evidence[i].where));
		json_object_object_add(e, "value", jstr(f->evidence[i].value));
		json_object_array_add(ev, e);
	}
	json_object_object_add(o, "evidence", ev);
	json_object_object_add(o, "remedy", finding_remedy_to_json(&f->remedy));
	struct json_object *c = NULL;
	if (f->cause.id) {
		c = json_object_new_object();
		json_object_object_add(c, "check", jstr(f->cause.id));
		json_object_object_add(c, "subject",
				       f->cause.subject[0] ? jstr(f->cause.subject) : NULL);
	}
	json_object_object_add(o, "caused_by", c);
	json_object_object_add(o, "group",
			       f->group ? json_object_new_int64((int64_t)f->group) : NULL);
	return o;
}

struct json_object *finding_remedy_to_json(const struct finding_remedy *rm)
{
	struct json_object *r = json_object_new_object();
	if (!r)
		return NULL;
	json_object_object_add(r, "kind", jstr(remedy_names[rm->kind]));
	json_object_object_add(r, "summary", jstr(rm->summary));
	struct json_object *steps = json_object_new_array();
	for (size_t i = 0; steps && i < rm->n_steps; i++)
		json_object_array_add(steps, jstr(rm->steps[i]));
	json_object_object_add(r, rm->kind == REMEDY_IBVF ? "argv" : "steps", steps);
	return r;
}

struct json_object *findings_to_json(const struct findings *fs)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	size_t counts[3] = {0};
	json_object_object_add(o, "version", json_object_new_int(CHECKS_JSON_VERSION));
	for (size_t i = 0; i < fs->n; i++) {
		counts[fs->v[i].severity]++;
		json_object_array_add(a, finding_to_json(&fs->v[i]));
	}
	json_object_object_add(o, "findings", a);
	json_object_object_add(o, "problems", problems_to_json(fs));
	struct json_object *c = json_object_new_object();
	for (unsigned int s = 3; s-- > 0;)
		json_object_object_add(c, severity_names[s],
				       json_object_new_int64((int64_t)counts[s]));
	json_object_object_add(o, "counts", c);
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)fs->n_dropped));
	return o;
}
