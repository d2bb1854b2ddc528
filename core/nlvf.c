// SPDX-License-Identifier: MIT
/* Placeholder until written. */
#include "sys_impl.h"
