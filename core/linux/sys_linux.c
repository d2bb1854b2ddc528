// SPDX-License-Identifier: MIT
/* The real node: files under the root prefix (the generic code in sys.c),
 * rtnetlink link operations in linux/nl_link.c, change events from
 * linux/events.c.
 *
 * Every netlink operation opens its own socket, so it acts in the network
 * namespace the calling thread is in at that moment (a socket opened before
 * a setns() would stay in the old one). With a root prefix other than "/",
 * files come from the captured tree while netlink still talks to the
 * running kernel. */
#include "core/sys/sys_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/linux/events.h"
#include "core/linux/nl_link.h"
#include "core/linux/podres_grpc.h"

struct sys_linux {
	struct sys base; /* first: struct sys * converts to struct sys_linux * */
	struct linux_events *events;
};

/* The event source is made on first use, in the caller's network namespace. */
static int linux_event_fd(struct sys *s)
{
	struct sys_linux *l = (struct sys_linux *)s;
	int r;

	if (!l->events && (r = linux_events_open(s, &l->events)) < 0)
		return r;
	return linux_events_fd(l->events);
}

/* -ENOBUFS means events were lost and the caller should re-read the node. */
static int linux_event_read(struct sys *s, struct sys_event *ret)
{
	struct sys_linux *l = (struct sys_linux *)s;
	int r;

	if (!l->events && (r = linux_events_open(s, &l->events)) < 0)
		return r;
	return linux_events_read(l->events, ret);
}

static void linux_close(struct sys *s)
{
	struct sys_linux *l = (struct sys_linux *)s;

	linux_events_free(l->events);
	sys_base_fini(s);
	free(l);
}

static int linux_reopen(struct sys *s, struct sys **ret, struct err *e)
{
	int r = sys_open_linux(s->root, ret, e);
	if (r < 0)
		return r;
	/* The same parameters: the kubelet's socket and bounds too. */
	struct podres_opts o = {s->podres_socket, s->podres_timeout_ms, s->podres_msg_max};
	sys_set_podres(*ret, &o);
	return 0;
}

/* A captured tree (a root other than "/") is read, never acted on: a
 * change by netlink would go to this host's kernel, to a link that only
 * shares the tree's name. */
static int host_change(const struct sys *s, const char *what, const char *ifname, struct err *e)
{
	if (!strcmp(s->root, "/"))
		return 0;
	return err_setx(e, EROFS,
			"cannot %s '%s': '%s' (--root) is a captured tree, read only; netlink "
			"would change this host's link of that name",
			what, ifname, s->root);
}

static int root_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e)
{
	int r = host_change(s, "rename", ifname, e);
	return r < 0 ? r : linux_link_rename(s, ifname, newname, e);
}

static int root_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e)
{
	int r = host_change(s, up ? "set up" : "set down", ifname, e);
	return r < 0 ? r : linux_link_set_up(s, ifname, up, e);
}

static int root_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf,
			    enum sys_guid_kind kind, uint64_t guid, struct err *e)
{
	int r = host_change(s, "set a VF GUID on", pf_ifname, e);
	return r < 0 ? r : linux_vf_set_guid(s, pf_ifname, vf, kind, guid, e);
}

static int root_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
				  struct err *e)
{
	int r = host_change(s, "set a VF link state on", pf_ifname, e);
	return r < 0 ? r : linux_vf_set_link_state(s, pf_ifname, vf, state, e);
}

static const struct sys_ops linux_ops = {
	.link_dump = linux_link_dump,
	.link_get = linux_link_get,
	.link_rename = root_link_rename,
	.link_set_up = root_link_set_up,
	.vf_set_guid = root_vf_set_guid,
	.vf_set_link_state = root_vf_set_link_state,
	.event_fd = linux_event_fd,
	.event_read = linux_event_read,
	.close = linux_close,
	.reopen = linux_reopen,
	.podres_read = linux_podres_read,
};

int sys_open_linux(const char *root, struct sys **ret, struct err *e)
{
	struct sys_linux *l = calloc(1, sizeof(*l));
	int r;

	if (!l)
		return err_set(e, ENOMEM, "cannot open the node at '%s'", root ? root : "/");
	if ((r = sys_base_init(&l->base, &linux_ops, root, false, e)) < 0) {
		free(l);
		return r;
	}
	*ret = &l->base;
	return 0;
}
