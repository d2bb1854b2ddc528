/* SPDX-License-Identifier: MIT */
/* The console's PF -> VF tree as rows: built from a snapshot, the functions
 * that vanished from it (shown as gone), the collapsed PFs and the filter.
 * Everything is keyed by PCI address so it survives rebuilds. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/model/node.h"

/* A function that vanished from the node while the console watched. */
struct ghost {
	char bdf[16], pf_bdf[16];
	int vf; /* -1: a PF */
	char netdev[48], ibdev[48];
	double gone_at; /* monotonic seconds */
	time_t gone_wall;
};

enum row_kind {
	ROW_PF,
	ROW_VF,
	ROW_PORT, /* a port after the first of the PF's RDMA device (a dual-port HCA) */
};

struct tree_row {
	enum row_kind kind;
	char bdf[16];
	int vf;			   /* VF index, -1 for a PF (and its ports) */
	unsigned int port;	   /* ROW_PORT: the port's index in the PF's RDMA device */
	const struct pf *pf;	   /* the PF of the row, when present */
	const struct vf *vfp;	   /* a present VF */
	const struct ghost *ghost; /* set when the function is gone */
	bool last;		   /* the last child shown under its PF */
	bool collapsed;		   /* a PF whose VFs are hidden */
	size_t n_children;	   /* a PF's VFs, gone ones included */
};

struct tree {
	struct tree_row *rows;
	size_t n, cap;
	int device_w; /* the widest DEVICE cell, in columns */
};

struct tree_input {
	const struct node *node;
	const struct ghost *ghosts;
	size_t n_ghosts;
	const char (*collapsed)[16]; /* BDFs of collapsed PFs */
	size_t n_collapsed;
	const char *filter; /* NULL or "": everything */
};

/* Fills ret (zero it first, or pass a tree to reuse). Returns 0 or -ENOMEM. */
int tree_build(const struct tree_input *in, struct tree *ret);
void tree_free(struct tree *t);
/* The row of a PCI function, or -1. */
long tree_find(const struct tree *t, const char *bdf);
/* Whether a row's names, BDF, GUIDs or states contain text (any case). */
bool tree_row_matches(const struct tree_row *r, const char *text);

/* Accessors used by the drawing code and the filter. */
const struct fn *tree_row_fn(const struct tree_row *r);
const struct port *tree_row_port(const struct tree_row *r);
const char *tree_row_netdev(const struct tree_row *r);
const char *tree_row_ibdev(const struct tree_row *r);
