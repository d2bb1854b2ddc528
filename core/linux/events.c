// SPDX-License-Identifier: MIT
/* Change events on the real node: the udev monitor's uevents (devices come,
 * go, bind, are renamed) and the kernel's link notifications, which uevents
 * do not cover (up/down, carrier, MTU, address, and the VF settings of a
 * PF: GUIDs and link state set by another tool). Both sockets sit in one
 * epoll set, so a caller polls one fd.
 *
 * A rename comes both ways (a "move" uevent and a new IFLA_IFNAME): the
 * second copy is dropped. Link additions and removals are left to the
 * uevents. */
#include "core/linux/events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libudev.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "core/linux/linkev.h"

/* Events waiting to be read; past this many the caller is told some were lost. */
#define QUEUE_MAX 64
/* Renames remembered to drop the copy the other source sends. */
#define MOVES_MAX 8
/* Room for a burst of notifications (VF creation brings hundreds of links). */
#define NL_RCVBUF (1 << 20)

struct move_seen {
	char name[64], old[64]; /* as struct sys_event has them */
	bool from_netlink, used;
};

struct linux_events {
	struct sys *s;
	struct udev *udev;
	struct udev_monitor *mon;
	struct nl_sock *nl;
	struct nl_cb *cb; /* nl's, with the handlers below */
	struct linkev *links;
	int epfd;
	struct sys_event queue[QUEUE_MAX];
	size_t head, n;
	bool lost;
	struct move_seen moves[MOVES_MAX];
	size_t next_move;
};

/* udevd re-broadcasts only the events of its own network namespace: listen
 * to it when it runs and we share pid 1's namespace (or cannot tell), else
 * take the kernel's uevents directly (minimal guests, private netns). */
static const char *monitor_source(void)
{
	struct stat self, init;

	if (access("/run/udev/control", F_OK) < 0)
		return "kernel";
	if (stat("/proc/self/ns/net", &self) < 0 || stat("/proc/1/ns/net", &init) < 0)
		return "udev";
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev ? "udev" : "kernel";
}

static int monitor_open(struct linux_events *ev)
{
	static const char *const subsystems[] = {"pci", "net", "infiniband"};
	struct udev_monitor *mon;
	int r = -ENOMEM;

	errno = 0;
	if (!(ev->udev = udev_new()))
		return errno ? -errno : -ENOMEM;
	if (!(mon = udev_monitor_new_from_netlink(ev->udev, monitor_source())))
		return errno ? -errno : -ENOMEM;
	for (size_t i = 0; i < sizeof(subsystems) / sizeof(subsystems[0]); i++)
		if ((r = udev_monitor_filter_add_match_subsystem_devtype(mon, subsystems[i],
									 NULL)) < 0)
			goto fail;
	if ((r = udev_monitor_enable_receiving(mon)) < 0)
		goto fail;
	ev->mon = mon;
	return 0;
fail:
	udev_monitor_unref(mon);
	return r < 0 ? r : -EIO;
}

/* Whether this rename was already reported by the other source (then the
 * copy is forgotten and dropped); else it is remembered. */
static bool move_is_copy(struct linux_events *ev, const struct sys_event *e, bool from_netlink)
{
	for (size_t i = 0; i < MOVES_MAX; i++) {
		struct move_seen *m = &ev->moves[i];
		if (m->used && m->from_netlink != from_netlink && !strcmp(m->name, e->name) &&
		    !strcmp(m->old, e->old_name)) {
			m->used = false;
			return true;
		}
	}
	struct move_seen *m = &ev->moves[ev->next_move++ % MOVES_MAX];
	snprintf(m->name, sizeof(m->name), "%s", e->name);
	snprintf(m->old, sizeof(m->old), "%s", e->old_name);
	m->from_netlink = from_netlink;
	m->used = true;
	return false;
}

static void uevent_fill(struct udev_device *d, struct sys_event *ev)
{
	const char *action = udev_device_get_action(d);
	const char *subsystem = udev_device_get_subsystem(d);
	const char *name = udev_device_get_sysname(d);
	const char *devpath = udev_device_get_devpath(d);
	const char *old = udev_device_get_property_value(d, "DEVPATH_OLD");
	const char *slash = old ? strrchr(old, '/') : NULL;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->action, sizeof(ev->action), "%s", action ? action : "");
	snprintf(ev->subsystem, sizeof(ev->subsystem), "%s", subsystem ? subsystem : "");
	snprintf(ev->name, sizeof(ev->name), "%s", name ? name : "");
	snprintf(ev->old_name, sizeof(ev->old_name), "%s", slash ? slash + 1 : old ? old : "");
	snprintf(ev->devpath, sizeof(ev->devpath), "%s", devpath ? devpath : "");
}

/* The link's sysfs devpath ("/devices/.../net/NAME"), as a uevent gives it,
 * so the event is placed the same way; empty when the link is gone. */
static void link_devpath(struct linux_events *ev, struct sys_event *e)
{
	char path[128], target[255]; /* with the leading '/', a devpath */
	const char *p = target;

	snprintf(path, sizeof(path), "/sys/class/net/%s", e->name);
	if (sys_readlink(ev->s, path, target, sizeof(target)) < 0)
		return;
	while (!strncmp(p, "../", 3))
		p += 3;
	snprintf(e->devpath, sizeof(e->devpath), "/%s", p);
}

/* The kernel's notifications carry no VF count: sysfs tells. */
static bool link_is_pf(void *arg, const char *ifname)
{
	struct linux_events *ev = arg;
	char path[96], v[32];

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/sriov_numvfs", ifname);
	return sys_read_attr(ev->s, path, v, sizeof(v)) > 0 && strtoul(v, NULL, 10) > 0;
}

static void queue_push(struct linux_events *ev, const struct sys_event *e)
{
	if (ev->n == QUEUE_MAX) {
		ev->lost = true;
		return;
	}
	ev->queue[(ev->head + ev->n++) % QUEUE_MAX] = *e;
}

static int nl_on_msg(struct nl_msg *msg, void *arg)
{
	struct linux_events *ev = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct sys_event out[LINKEV_MAX];
	/* Replies to our own dump fill the table; notifications come from
	 * the kernel on behalf of whoever made the change. */
	bool quiet =
		h->nlmsg_pid == nl_socket_get_local_port(ev->nl) && (h->nlmsg_flags & NLM_F_MULTI);
	int n;

	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
		return NL_OK;
	if ((n = linkev_parse(ev->links, h, quiet, link_is_pf, ev, out)) < 0) {
		ev->lost = true; /* a change was not understood */
		return NL_OK;
	}
	for (int i = 0; i < n; i++) {
		link_devpath(ev, &out[i]);
		if (strcmp(out[i].action, "move") || !move_is_copy(ev, &out[i], true))
			queue_push(ev, &out[i]);
	}
	return NL_OK;
}

static int nl_on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	return NL_SKIP; /* the first dump failed: links are learnt as they change */
}

/* Every link's state now, without VF lists or statistics: the baseline
 * the notifications are compared with. The replies arrive with them. */
static int nl_dump_request(struct linux_events *ev)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_DUMP);
	int r = -ENOMEM;

	if (msg && nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) == 0 &&
	    nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) == 0)
		r = nl_send_auto(ev->nl, msg) < 0 ? -EIO : 0;
	nlmsg_free(msg);
	return r;
}

static int nl_open(struct linux_events *ev)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk)
		return -ENOMEM;
	ev->nl = sk;
	nl_socket_disable_seq_check(sk);
	nl_socket_enable_msg_peek(sk);
	if (nl_connect(sk, NETLINK_ROUTE) < 0)
		return -EIO;
	if (nl_socket_add_memberships(sk, RTNLGRP_LINK, 0) < 0 ||
	    nl_socket_set_nonblocking(sk) < 0 ||
	    nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, nl_on_msg, ev) < 0 ||
	    nl_socket_modify_cb(sk, NL_CB_DUMP_INTR, NL_CB_CUSTOM, nl_on_msg, ev) < 0 ||
	    nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, nl_on_error, ev) < 0)
		return -EIO;
	nl_socket_set_buffer_size(sk, NL_RCVBUF, 0); /* a smaller one still works */
	if (!(ev->cb = nl_socket_get_cb(sk)))
		return -ENOMEM;
	return nl_dump_request(ev);
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event e = {.events = EPOLLIN, .data.fd = fd};
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

int linux_events_open(struct sys *s, struct linux_events **ret)
{
	struct linux_events *ev = calloc(1, sizeof(*ev));
	int r;

	if (!ev)
		return -ENOMEM;
	ev->s = s;
	ev->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ev->epfd < 0) {
		r = -errno;
		goto fail;
	}
	if (!(ev->links = linkev_new())) {
		r = -ENOMEM;
		goto fail;
	}
	if ((r = monitor_open(ev)) < 0 || (r = nl_open(ev)) < 0 ||
	    (r = epoll_add(ev->epfd, udev_monitor_get_fd(ev->mon))) < 0 ||
	    (r = epoll_add(ev->epfd, nl_socket_get_fd(ev->nl))) < 0)
		goto fail;
	*ret = ev;
	return 0;
fail:
	linux_events_free(ev);
	return r;
}

void linux_events_free(struct linux_events *ev)
{
	if (!ev)
		return;
	if (ev->epfd >= 0)
		close(ev->epfd);
	nl_cb_put(ev->cb);
	nl_socket_free(ev->nl);
	linkev_free(ev->links);
	udev_monitor_unref(ev->mon);
	udev_unref(ev->udev);
	free(ev);
}

int linux_events_fd(const struct linux_events *ev)
{
	return ev->epfd;
}

/* One uevent: 1, 0 when none is waiting, -errno. */
static int uevent_read(struct linux_events *ev, struct sys_event *ret)
{
	struct udev_device *d;

	errno = 0;
	if (!(d = udev_monitor_receive_device(ev->mon)))
		return errno == 0 || errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	uevent_fill(d, ret);
	udev_device_unref(d);
	return 1;
}

/* Uevents first: a rename's uevent is sent before its notification. */
int linux_events_read(struct linux_events *ev, struct sys_event *ret)
{
	for (;;) {
		if (ev->lost) {
			ev->lost = false;
			ev->n = 0;
			return -ENOBUFS;
		}
		if (ev->n) {
			*ret = ev->queue[ev->head];
			ev->head = (ev->head + 1) % QUEUE_MAX;
			ev->n--;
			return 1;
		}
		int r = uevent_read(ev, ret);
		if (r > 0 && !strcmp(ret->action, "move") && !strcmp(ret->subsystem, "net") &&
		    move_is_copy(ev, ret, false))
			continue;
		if (r != 0)
			return r;
		r = nl_recvmsgs_report(ev->nl, ev->cb);
		if (r == -NLE_AGAIN)
			r = 0; /* nothing waiting on the non-blocking socket */
		/* 0 also ends a dump whose next part has not come yet. */
		if (r == 0 && !ev->n && !ev->lost)
			return 0;
		if (r < 0) {
			/* Overrun (ENOBUFS): states are unknown; learn them again. */
			linkev_clear(ev->links);
			nl_dump_request(ev);
			return -ENOBUFS;
		}
	}
}
