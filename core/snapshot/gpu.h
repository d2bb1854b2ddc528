/* SPDX-License-Identifier: MIT */
/* The node's GPUs (core/model/topo.h's struct gpu): NVIDIA display and 3D
 * controllers among the PCI functions, what the driver's
 * /proc/driver/nvidia/gpus/<bdf>/information says of each, and the MIG
 * devices the CDI specs place on them. Core-internal (discovery). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/model/topo.h"

struct discover;

#define GPU_VENDOR_NVIDIA 0x10de
#define GPU_INFO_MAX	  (16u << 10) /* the information file read */
#define GPU_CDI_MAX	  (1u << 20)  /* one CDI spec */
#define GPU_CDI_FILES_MAX 64	      /* specs read per directory */

/* Whether the function bdf (not a VF) is an NVIDIA GPU, by its vendor and
 * class; when it is, appends it with its driver's information to d->n->gpus.
 * Returns 1 for a GPU, 0 for another function, -ENOMEM. */
int gpu_probe(struct discover *d, const char *bdf);
/* After every function was probed: sorts the GPUs by BDF and places the MIG
 * devices of the CDI specs on them. */
void gpu_finish(struct discover *d);

/* Fills g's model, uuid and minor from the text of an information file
 * ("Model: \t\t NVIDIA H200" lines); lines it does not know, or too long
 * for a field, are skipped. Returns how many fields it took. */
int gpu_info_parse(const char *text, struct gpu *g);
/* Places the MIG UUIDs of one CDI spec (JSON) on the GPU whose device node
 * /dev/nvidia<minor> their device names. Returns how many it placed,
 * -EINVAL for a document that is no CDI spec, -ENOMEM. */
int gpu_cdi_place(struct gpu *gpus, size_t n, const char *json, size_t len);
