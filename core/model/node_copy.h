/* SPDX-License-Identifier: MIT */
/* Deep copies of snapshot parts (core-internal, for refresh.c). Each copy
 * starts from the source and then replaces every pointer with one of its own
 * (NULL when out of memory, with *fail set), so node_free() can free a
 * partial copy and never touches the source. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "node.h"

/* strdup, NULL for NULL. */
char *node_copy_str(const char *s, bool *fail);
/* A zeroed array of n elements, or NULL (n is 0, or out of memory: *fail). */
void *node_copy_array(size_t n, size_t size, bool *fail);
char **node_copy_strv(char *const *v, size_t n, size_t *ret_n, bool *fail);
void node_copy_fn(struct fn *dst, const struct fn *src, bool *fail);
/* A VF without its pod binding: pods_attach() binds the new snapshot afresh. */
void node_copy_vf(struct vf *dst, const struct vf *src, bool *fail);
/* What the PF's netlink dump says of a VF into dst (the MOFED part is kept). */
void node_copy_vf_admin_netlink(struct vf_admin *dst, const struct vf_admin *src, bool *fail);
/* Whether two VFs' netlink admin state is the same (the MOFED part aside). */
bool node_vf_admin_netlink_eq(const struct vf_admin *a, const struct vf_admin *b);
/* The node's GPUs (a GPU's PCI function is not refreshed by events: a full
 * discovery reads them again). */
void node_copy_gpus(struct node *dst, const struct node *src, bool *fail);
