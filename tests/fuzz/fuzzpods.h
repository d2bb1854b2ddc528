/* SPDX-License-Identifier: MIT */
/* The pod-binding targets' shared part (fuzz_cni.c, fuzz_checkpoint.c): a
 * scratch node root with one pod log directory, and the oracle over what
 * pods_read() returns. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pod_set;
struct sys;

/* The scratch root opened as a node (sys_linux under it), made once. */
struct sys *fuzz_pods_sys(void);
/* Reads the bindings (never entering a netns) and checks them: each bound to
 * a canonical PCI address, once, in order; every string printable and
 * bounded (what a terminal, a unit or JSON gets); stale only for a binding
 * the checkpoint alone names. */
void fuzz_pods_check(struct sys *s);
