/* SPDX-License-Identifier: MIT */
/* The real node's change events: uevents from a udev monitor and rtnetlink
 * link notifications (RTNLGRP_LINK), behind one epoll fd that is readable
 * when either has something. Made in the caller's network namespace. */
#pragma once

#include "core/sys/sys.h"

struct linux_events;

/* Files (the PF check, devpaths) are read through s. */
int linux_events_open(struct sys *s, struct linux_events **ret);
void linux_events_free(struct linux_events *ev);
int linux_events_fd(const struct linux_events *ev);
/* 1 with an event, 0 when none is pending, -ENOBUFS when some were lost
 * (read the whole node again), another -errno on failure. Never blocks. */
int linux_events_read(struct linux_events *ev, struct sys_event *ret);
