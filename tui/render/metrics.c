// SPDX-License-Identifier: MIT
/* The node as Prometheus text exposition (metrics.h, docs/metrics.md). */
#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/checks/checks.h"
#include "core/base/escape.h"
#include "core/persist/boot.h"
#include "core/model/node.h"

struct metrics_writer {
	FILE *f;
	const struct metrics_in *in;
};

void metrics_label_value(FILE *f, const char *s)
{
	while (s && *s) {
		size_t k = escape_utf8_len(s);
		if (!k) { /* not UTF-8: the replacement character, as JSON output has it */
			fputs("\xef\xbf\xbd", f);
			s++;
			continue;
		}
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fwrite(s, 1, k, f);
		s += k;
	}
}

void metrics_family(struct metrics_writer *w, const char *name, const char *type, const char *help)
{
	fprintf(w->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void print_value(FILE *f, double v)
{
	char buf[40];
	if (v == floor(v) && fabs(v) < 1e15) {
		fprintf(f, "%.0f", v);
		return;
	}
	/* The shortest form that reads back as v: 2.5e-06, not 2.4999999999999998e-06. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

void metrics_sample(struct metrics_writer *w, const char *name, const struct metrics_label *l,
		    size_t n, double v)
{
	fputs(name, w->f);
	for (size_t i = 0; i < n; i++) {
		fprintf(w->f, "%c%s=\"", i ? ',' : '{', l[i].name);
		metrics_label_value(w->f, l[i].value);
		fputc('"', w->f);
	}
	fputs(n ? "} " : " ", w->f);
	print_value(w->f, v);
	fputc('\n', w->f);
}

void metrics_add_label(struct metrics_fnlabels *fl, const char *name, const char *value)
{
	if (fl->n < METRICS_LABELS_MAX)
		fl->l[fl->n++] = (struct metrics_label){name, value ? value : ""};
}

void metrics_id_labels(struct metrics_fnlabels *fl, const struct pf *pf, const struct vf *vf)
{
	fl->n = 0;
	metrics_add_label(fl, "pci", vf ? vf->fn.bdf : pf->fn.bdf);
	if (vf) {
		snprintf(fl->vf, sizeof(fl->vf), "%u", vf->index);
		metrics_add_label(fl, "pf", pf->fn.bdf);
		metrics_add_label(fl, "vf", fl->vf);
	}
}

void metrics_fn_labels(struct metrics_fnlabels *fl, const struct pf *pf, const struct vf *vf)
{
	const struct fn *fn = vf ? &vf->fn : &pf->fn;
	const struct rdma *r = fn->n_rdmas ? &fn->rdmas[0] : NULL;
	metrics_id_labels(fl, pf, vf);
	fl->port[0] = '\0';
	if (r && r->n_ports)
		snprintf(fl->port, sizeof(fl->port), "%u", r->ports[0].num);
	metrics_add_label(fl, "ifname", fn->n_netdevs ? fn->netdevs[0].name : NULL);
	/* node_exporter's infiniband collector's name for the RDMA device. */
	metrics_add_label(fl, "device", r ? r->name : NULL);
	metrics_add_label(fl, "port", fl->port);
}

static const char *fn_link_layer(const struct fn *fn)
{
	const struct rdma *r = fn->n_rdmas ? &fn->rdmas[0] : NULL;
	return r && r->n_ports ? r->ports[0].link_layer : NULL;
}

static void pf_families(struct metrics_writer *w)
{
	const struct node *n = w->in->node;
	struct metrics_fnlabels fl;
	metrics_family(w, "ibvf_pf_info", "gauge",
		       "A PF of the node (1): its names, link layer and driver");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		metrics_fn_labels(&fl, pf, NULL);
		metrics_add_label(&fl, "link_layer", fn_link_layer(&pf->fn));
		metrics_add_label(&fl, "driver", pf->fn.driver);
		metrics_sample(w, "ibvf_pf_info", fl.l, fl.n, 1);
	}
	metrics_family(w, "ibvf_pf_sriov_vfs", "gauge", "VFs enabled on the PF (sriov_numvfs)");
	for (size_t i = 0; i < n->n_pfs; i++)
		if (n->pfs[i].numvfs.known) {
			metrics_id_labels(&fl, &n->pfs[i], NULL);
			metrics_sample(w, "ibvf_pf_sriov_vfs", fl.l, fl.n,
				       (double)n->pfs[i].numvfs.v);
		}
	metrics_family(w, "ibvf_pf_sriov_vfs_max", "gauge", "VFs the PF supports (sriov_totalvfs)");
	for (size_t i = 0; i < n->n_pfs; i++)
		if (n->pfs[i].totalvfs.known) {
			metrics_id_labels(&fl, &n->pfs[i], NULL);
			metrics_sample(w, "ibvf_pf_sriov_vfs_max", fl.l, fl.n,
				       (double)n->pfs[i].totalvfs.v);
		}
}

/* The GUID faults the checks found on one VF (the one rule: core/checks). */
enum {
	FAULT_ZERO = 1,
	FAULT_DUP = 2
};
struct fault {
	const char *bdf;
	unsigned int bits;
};

static int cmp_fault(const void *a, const void *b)
{
	return strcmp(((const struct fault *)a)->bdf, ((const struct fault *)b)->bdf);
}

static unsigned int faults_of(const struct fault *v, size_t n, const char *bdf)
{
	unsigned int bits = 0;
	struct fault key = {.bdf = bdf};
	const struct fault *f = n ? bsearch(&key, v, n, sizeof(*v), cmp_fault) : NULL;
	/* bsearch lands on any of the equal ones: look both ways. */
	for (const struct fault *p = f; p && p >= v && !strcmp(p->bdf, bdf); p--)
		bits |= p->bits;
	for (const struct fault *p = f; p && p < v + n && !strcmp(p->bdf, bdf); p++)
		bits |= p->bits;
	return bits;
}

static size_t collect_faults(const struct findings *fs, struct fault **ret)
{
	size_t n = 0;
	struct fault *v = fs && fs->n ? calloc(fs->n, sizeof(*v)) : NULL;
	for (size_t i = 0; v && i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		if (f->kind != SUBJECT_VF)
			continue;
		if (!strcmp(f->id, "guid-zero"))
			v[n++] = (struct fault){f->subject, FAULT_ZERO};
		else if (!strcmp(f->id, "guid-duplicate"))
			v[n++] = (struct fault){f->subject, FAULT_DUP};
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_fault);
	*ret = v;
	return n;
}

/* A family of one sample per VF: value(vf) or, when it returns < 0, none. */
static void vf_family(struct metrics_writer *w, const char *name, const char *help,
		      double (*value)(struct metrics_writer *w, const struct vf *vf, void *arg),
		      void *arg)
{
	const struct node *n = w->in->node;
	struct metrics_fnlabels fl;
	metrics_family(w, name, "gauge", help);
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			double v = value(w, &n->pfs[i].vfs[j], arg);
			if (v < 0)
				continue;
			metrics_id_labels(&fl, &n->pfs[i], &n->pfs[i].vfs[j]);
			metrics_sample(w, name, fl.l, fl.n, v);
		}
}

struct faults {
	struct fault *v;
	size_t n;
};

static double guid_zero(struct metrics_writer *w, const struct vf *vf, void *arg)
{
	(void)w;
	struct faults *f = arg;
	return faults_of(f->v, f->n, vf->fn.bdf) & FAULT_ZERO ? 1 : 0;
}

static double guid_dup(struct metrics_writer *w, const struct vf *vf, void *arg)
{
	(void)w;
	struct faults *f = arg;
	return faults_of(f->v, f->n, vf->fn.bdf) & FAULT_DUP ? 1 : 0;
}

/* 1 when the next boot gives the netdev the name it has (the prediction
 * name-unstable reads, core/persist/boot.h); no sample for a VF without a
 * netdev. */
static double name_pinned(struct metrics_writer *w, const struct vf *vf, void *arg)
{
	(void)arg;
	const char *name = vf->fn.n_netdevs ? vf->fn.netdevs[0].name : NULL;
	const struct pf *pf = NULL;
	if (!name || !node_find_fn(w->in->node, vf->fn.bdf, &pf, NULL) || !pf)
		return -1;
	return boot_vf_name_kept(w->in->node, pf, vf) ? 1 : 0;
}

static void vf_families(struct metrics_writer *w)
{
	const struct node *n = w->in->node;
	struct metrics_fnlabels fl;
	metrics_family(w, "ibvf_vf_info", "gauge",
		       "A VF of the node (1): its PF and index, names, link layer and driver");
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			metrics_fn_labels(&fl, &n->pfs[i], vf);
			metrics_add_label(&fl, "link_layer", fn_link_layer(&vf->fn));
			metrics_add_label(&fl, "driver", vf->fn.driver);
			metrics_sample(w, "ibvf_vf_info", fl.l, fl.n, 1);
		}
	struct faults f;
	f.n = collect_faults(w->in->findings, &f.v);
	vf_family(w, "ibvf_vf_guid_zero", "1 when the VF's node or port GUID is zero (guid-zero)",
		  guid_zero, &f);
	vf_family(w, "ibvf_vf_guid_duplicate",
		  "1 when another function has the VF's node or port GUID (guid-duplicate)",
		  guid_dup, &f);
	free(f.v);
	vf_family(w, "ibvf_vf_name_pinned",
		  "1 when a .link file gives the VF's netdev the name it has at boot", name_pinned,
		  NULL);
	metrics_family(w, "ibvf_vf_pod_info", "gauge",
		       "The pod a VF is bound to (1); stale=\"true\": only a kubelet checkpoint "
		       "entry no pod confirms");
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct pod_binding *b = vf->pod;
			if (!b)
				continue;
			metrics_id_labels(&fl, &n->pfs[i], vf);
			metrics_add_label(&fl, "namespace", b->ns);
			metrics_add_label(&fl, "pod", b->name);
			metrics_add_label(&fl, "uid", b->uid);
			metrics_add_label(&fl, "stale", b->stale ? "true" : "false");
			metrics_sample(w, "ibvf_vf_pod_info", fl.l, fl.n, 1);
		}
}

/* Every check id with every severity, 0 when none: alerts see the series. */
static void findings_family(struct metrics_writer *w)
{
	const struct findings *fs = w->in->findings;
	size_t *count = calloc(checks_table_len * 3, sizeof(*count));
	for (size_t i = 0; count && fs && i < fs->n; i++)
		for (size_t k = 0; k < checks_table_len; k++)
			if (fs->v[i].id == checks_table[k].id ||
			    !strcmp(fs->v[i].id, checks_table[k].id)) {
				if ((unsigned int)fs->v[i].severity < 3)
					count[k * 3 + fs->v[i].severity]++;
				break;
			}
	metrics_family(w, "ibvf_findings", "gauge",
		       "Findings of 'ibvf check' on the node, by check id and severity");
	for (size_t k = 0; k < checks_table_len; k++)
		for (unsigned int s = 0; s < 3; s++) {
			struct metrics_label l[] = {
				{"check", checks_table[k].id},
				{"severity", check_severity_name((enum check_severity)s)},
			};
			metrics_sample(w, "ibvf_findings", l, 2,
				       count ? (double)count[k * 3 + s] : 0);
		}
	free(count);
}

/* Problems (findings_group()) by the check of their group and their
 * severity (the worst of its findings and those it explains), every id
 * with every severity. */
static void problems_family(struct metrics_writer *w)
{
	const struct findings *fs = w->in->findings;
	size_t *count = calloc(checks_table_len * 3, sizeof(*count));
	for (size_t i = 0; count && fs && i < fs->n_problems; i++) {
		const struct check_def *d = check_find(fs->problems[i].check);
		if (d && (unsigned int)fs->problems[i].severity < 3)
			count[(size_t)(d - checks_table) * 3 + fs->problems[i].severity]++;
	}
	metrics_family(w, "ibvf_problems", "gauge",
		       "Problems of 'ibvf check' on the node (findings of one check grouped, with "
		       "the findings they explain), by check id and severity");
	for (size_t k = 0; k < checks_table_len; k++)
		for (unsigned int s = 0; s < 3; s++) {
			struct metrics_label l[] = {
				{"check", checks_table[k].id},
				{"severity", check_severity_name((enum check_severity)s)},
			};
			metrics_sample(w, "ibvf_problems", l, 2,
				       count ? (double)count[k * 3 + s] : 0);
		}
	free(count);
}

static void health_families(struct metrics_writer *w)
{
	const struct metrics_in *in = w->in;
	metrics_family(w, "ibvf_metrics_interval_seconds", "gauge",
		       "The --interval of the ibvf metrics writing this (0: run once)");
	metrics_sample(w, "ibvf_metrics_interval_seconds", NULL, 0, in->interval);
	metrics_family(w, "ibvf_metrics_duration_seconds", "gauge",
		       "Time the round took to discover the node and run the checks");
	metrics_sample(w, "ibvf_metrics_duration_seconds", NULL, 0, in->duration);
	metrics_family(w, "ibvf_metrics_last_success_timestamp_seconds", "gauge",
		       "When ibvf metrics last read the node whole (seconds since the epoch)");
	metrics_sample(w, "ibvf_metrics_last_success_timestamp_seconds", NULL, 0, in->now);
	metrics_family(w, "ibvf_kernel_log_read", "gauge",
		       "1 when the kernel log was read; 0: the kernel-log checks did not run "
		       "(their findings read 0)");
	metrics_sample(w, "ibvf_kernel_log_read", NULL, 0,
		       in->node && in->node->kmsg_unknown ? 0 : 1);
}

/* Counts from the recorded history, labelled by the function only: pci,
 * and pf for a VF (what it is called, its rdma device, changes; the
 * counter must not start again when a name does). */
static void count_family(struct metrics_writer *w, const char *name, const char *help,
			 const struct metrics_count *v, size_t n, bool vfs_only)
{
	metrics_family(w, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		bool vf = strcmp(v[i].pci, v[i].pf) != 0 && v[i].pf[0];
		if (vfs_only && !vf)
			continue;
		struct metrics_label l[] = {{"pci", v[i].pci}, {"pf", v[i].pf}};
		metrics_sample(w, name, l, vf ? 2 : 1, (double)v[i].n);
	}
}

static void past_families(struct metrics_writer *w)
{
	const struct metrics_past *p = &w->in->past;
	metrics_family(w, "ibvf_history_up", "gauge",
		       "1 when the recorded history (/var/lib/ibvf/history.db) was read; 0: none, "
		       "or it could not be read (the history counters have no samples)");
	metrics_sample(w, "ibvf_history_up", NULL, 0, p->read ? 1 : 0);
	if (!p->read)
		return;
	count_family(w, "ibvf_vf_renames_total",
		     "Renames of the VF's netdev or RDMA device the history recorded (within its "
		     "retention)",
		     p->renames, p->n_renames, true);
	count_family(w, "ibvf_port_state_changes_total",
		     "Port state changes (ACTIVE, DOWN, ...) of the PF or VF the history recorded "
		     "(within its retention)",
		     p->port_changes, p->n_port_changes, false);
}

int metrics_write(FILE *f, const struct metrics_in *in)
{
	struct metrics_writer w = {.f = f, .in = in};
	pf_families(&w);
	vf_families(&w);
	findings_family(&w);
	problems_family(&w);
	metrics_validation(&w, in);
	past_families(&w);
	health_families(&w);
	return ferror(f) ? -EIO : 0;
}
