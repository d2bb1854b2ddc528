/* SPDX-License-Identifier: MIT */
/* The PF -> VF tree's columns, one row model for every renderer: `ibvf list`
 * prints all of them, the console the ones its layout fits (layout.h picks
 * by width, compacts RATE and LINK). A column added here shows in both;
 * `list --json` holds every value they are made from. */
#pragma once

#include <stddef.h>

#include "core/model/node.h"

enum row_col {
	RC_DEVICE, /* "0000:18:00.0", "vf3 0000:18:00.4" (renderers add the tree glyphs) */
	RC_DRIVER,
	RC_NETDEV,
	RC_IBDEV,
	RC_STATE, /* the kernel's words: ACTIVE */
	RC_PHYS,  /* LinkUp */
	RC_RATE,  /* 400 Gb/sec (4X NDR) */
	RC_LINK,  /* InfiniBand */
	RC_FW,
	RC_VFS, /* a PF's numvfs/totalvfs */
	RC_NODE_GUID,
	RC_PORT_GUID,
	RC_POD,
	RC_N,
};

#define ROW_CELL_MAX 96

extern const char *const row_headers[RC_N];

/* The cells of one row: PF pf (vf NULL), VF vf of pf, or an RDMA device on no
 * PCI function (pf and vf NULL, orphan set). "-" where the function has none,
 * "?" where the kernel did not say, "" where the column is not the row's. */
void row_cells(const struct pf *pf, const struct vf *vf, const struct rdma *orphan,
	       char cells[RC_N][ROW_CELL_MAX]);

/* The cells of a row for a port after the first of a PF's (or an orphan
 * RDMA device's) RDMA device, which row_cells() shows on the device's row:
 * "port 2", its state, physical state, rate, link layer and port GUID; the
 * function's columns "". */
void row_port_cells(const struct port *p, char cells[RC_N][ROW_CELL_MAX]);
