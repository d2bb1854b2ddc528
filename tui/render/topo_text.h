/* SPDX-License-Identifier: MIT */
/* The node's GPUs and HCAs as `nvidia-smi topo -m` shows them: one row per
 * GPU, one column per HCA (its PF), each cell the PCIe class between them
 * (core/model/topo.h, the one answer), the GPU's NUMA node and the pods
 * holding it; then each pod holding GPUs with its VFs and the class of each
 * to the nearest of its GPUs, the far ones marked; then the legend.
 * The console's Topology view and `ibvf list --topo`. */
#pragma once

#include "core/model/node.h"
#include "tui/base/text.h"

void topo_text(struct text *out, const struct node *n);
