/* SPDX-License-Identifier: MIT */
/* `ibvf metrics`: the node as Prometheus text exposition (format 0.0.4),
 * what is ibvf's own (the VF <-> PF tree, GUID faults, pod bindings, pinned
 * names, findings, validation results); the port counters, state and rate
 * are node_exporter's infiniband collector's and are not repeated here
 * (docs/metrics.md). Each family's HELP and TYPE once, its samples together;
 * every label value from the node or a file escaped (\\, \", \n) and made
 * valid UTF-8. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct node;
struct findings;

/* One function's count from the recorded history (hist_store_sums()). */
struct metrics_count {
	char pci[16], pf[16]; /* pf == pci for a PF */
	int64_t n;
};

/* What the recorded history holds (core/history/store.h), as counts. */
struct metrics_past {
	bool read; /* a store was read; else no counter has samples */
	const struct metrics_count *renames, *port_changes;
	size_t n_renames, n_port_changes;
};

struct metrics_in {
	const struct node *node;
	const struct findings *findings; /* checks_run() over node */
	/* The bench history's entries (bench_history_read(): the last two of
	 * every key), oldest first; NULL when it was not read. */
	struct json_object *history;
	size_t history_skipped;	 /* its corrupt lines */
	uint64_t history_unread; /* its bytes past the read bound, not read */
	double now;		 /* seconds since the epoch: the round's end */
	double duration;	 /* the round's discovery and checks, seconds */
	unsigned int interval;	 /* --interval S, 0 when run once */
	struct metrics_past past;
};

/* Writes the exposition of in to f: 0, or -EIO when f failed. */
int metrics_write(FILE *f, const struct metrics_in *in);

/* s as a label value between the quotes: \ " and newline escaped, every
 * byte that is not valid UTF-8 as U+FFFD; NULL as the empty value. */
void metrics_label_value(FILE *f, const char *s);

/* metrics_validation.c: the validation families, from the history. */
struct metrics_writer;
void metrics_validation(struct metrics_writer *w, const struct metrics_in *in);

/* For metrics_validation.c: one family's HELP and TYPE, and one sample. */
struct metrics_label {
	const char *name, *value;
};
#define METRICS_LABELS_MAX 12
struct metrics_fnlabels {
	struct metrics_label l[METRICS_LABELS_MAX];
	size_t n;
	char vf[12], port[12];
};
void metrics_family(struct metrics_writer *w, const char *name, const char *type, const char *help);
void metrics_sample(struct metrics_writer *w, const char *name, const struct metrics_label *l,
		    size_t n, double v);
struct pf;
struct vf;
/* The labels that identify a PF (vf NULL) or a VF: pci, and pf and vf for
 * a VF; the only ones of a value series, so that a series does not start
 * again when a name changes (a pod takes the VF, a rename). */
void metrics_id_labels(struct metrics_fnlabels *fl, const struct pf *pf, const struct vf *vf);
/* The labels of an _info series: the identity, then the names: ifname,
 * device (the RDMA device, node_exporter's label), port. */
void metrics_fn_labels(struct metrics_fnlabels *fl, const struct pf *pf, const struct vf *vf);
/* Appends one label (ignored beyond METRICS_LABELS_MAX). */
void metrics_add_label(struct metrics_fnlabels *fl, const char *name, const char *value);
