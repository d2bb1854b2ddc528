/* SPDX-License-Identifier: MIT */
/* GPUs and the PCIe distance between any two PCI functions, in the classes
 * operators know from `nvidia-smi topo -m`:
 *
 *   PIX   at most one PCIe switch between them (one bridge level each side)
 *   PXB   several PCIe switches, not through the host bridge
 *   PHB   through a PCIe host bridge (the same root complex, the CPU)
 *   NODE  between host bridges of one NUMA node
 *   SYS   across the SMP interconnect between NUMA nodes (QPI/UPI, xGMI)
 *
 * The one answer the checks, the console and the JSON use is topo_class(),
 * computed from the functions' device paths (the realpath of
 * /sys/bus/pci/devices/<bdf>, "/sys/devices/pci0000:17/0000:17:01.0/…") and
 * their NUMA nodes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum topo_class {
	TOPO_UNKNOWN = 0, /* a path is missing: no class */
	TOPO_SELF,	  /* the same function ("X" in nvidia-smi) */
	TOPO_PIX,
	TOPO_PXB,
	TOPO_PHB,
	TOPO_NODE,
	TOPO_SYS,
};

/* "PIX", "PXB", ..., "X" for TOPO_SELF, "?" for unknown. */
const char *topo_class_name(enum topo_class c);
/* Parses a class name (as topo_class_name gives it); -1 when none. */
int topo_class_parse(const char *s);

/* The class between two functions given their device paths (NULL: unknown)
 * and NUMA nodes (-1: the kernel does not know; two unknown nodes count as
 * one node). The rule, on the components of the paths:
 *   - a path without a "pciDDDD:BB" root complex, or ending at it: UNKNOWN;
 *   - the same path: SELF;
 *   - different root complexes: NODE when the NUMA nodes are equal, else SYS;
 *   - both functions directly below their deepest common ancestor (one bus
 *     behind one bridge, like a PF and its VFs, or two functions of a card):
 *     PIX;
 *   - the deepest common ancestor is the root complex itself or a root port
 *     (a component right under pciDDDD:BB): PHB;
 *   - else the common ancestor is inside a switch: PIX when each function is
 *     at most two levels below it (switch upstream port -> downstream port ->
 *     function), else PXB. */
enum topo_class topo_class(const char *devpath_a, int64_t numa_a, const char *devpath_b,
			   int64_t numa_b);

/* A GPU of the node: an NVIDIA display/3D controller from sysfs, with what
 * the driver's /proc/driver/nvidia/gpus/<bdf>/information says. */
struct gpu {
	char bdf[16];
	char *devpath; /* realpath of /sys/bus/pci/devices/<bdf>, from /sys */
	int64_t numa;  /* numa_node; -1 unknown */
	char *driver;  /* bound driver ("nvidia"), NULL when none */
	char *model;   /* "NVIDIA H200" (Model:), NULL when the driver says nothing */
	char *uuid;    /* "GPU-6f4a…" (GPU UUID:) */
	int64_t minor; /* Device Minor: (/dev/nvidia<minor>); -1 unknown */
	char **migs;   /* MIG device UUIDs placed on this GPU (see gpu_find_id) */
	size_t n_migs;
};

void gpu_fini(struct gpu *g);
/* The GPU a GPU device plugin's device ID names: a GPU UUID ("GPU-…"), a
 * MIG UUID placed on it ("MIG-…"), the legacy "MIG-GPU-<uuid>/<gi>/<ci>",
 * or a PCI address. NULL when none. */
const struct gpu *gpu_find_id(const struct gpu *gpus, size_t n, const char *id);
