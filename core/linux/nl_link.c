// SPDX-License-Identifier: MIT
/* The real node's rtnetlink link operations through libnl: link dump and
 * get, rename, up/down, and the VF GUID and link-state set (sys_linux.c
 * holds the node and its ops table).
 *
 * Every operation opens its own socket, so it acts in the network
 * namespace the calling thread is in at that moment (a socket opened before
 * a setns() would stay in the old one). */
#include "core/linux/nl_link.h"

#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "core/base/guid.h"
#include "core/linux/nlvf.h"
#include "core/model/names.h"

/* A node with more links than this is not one ibvf can show anyway. */
#define LINKS_MAX 65536
/* A dump raced with a change (NLM_F_DUMP_INTR): start over this often. */
#define DUMP_TRIES 5

/* Called for each RTM_NEWLINK reply; a negative return fails the request. */
typedef int (*nl_link_fn)(struct nlmsghdr *h, void *arg);

struct nl_req {
	nl_link_fn fn;
	void *arg;
	int fn_err; /* first failure of fn */
	int kerr;   /* errno from the kernel's NLMSG_ERROR */
	bool done;  /* ACK, NLMSG_DONE or error seen */
};

static int fail(struct err *e, int r, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "<what>: <strerror>" with " (<hint>)" when there is one. */
static int fail(struct err *e, int r, const char *hint, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r > 0)
		r = -r;
	if (hint)
		return err_setx(e, r, "%s: %s (%s)", what, strerror(-r), hint);
	return err_setx(e, r, "%s: %s", what, strerror(-r));
}

/* The hints that hold for every netlink change. */
static const char *hint_common(int r)
{
	return r == -EPERM ? "changing links needs CAP_NET_ADMIN" : NULL;
}

/* libnl's own errors (the kernel's come through nl_req.kerr). */
static int nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_AF_NOSUPPORT:
		return -EAFNOSUPPORT;
	case NLE_DUMP_INTR:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

static int nl_on_valid(struct nl_msg *msg, void *arg)
{
	struct nl_req *req = arg;

	if (req->fn && req->fn_err == 0) {
		int r = req->fn(nlmsg_hdr(msg), req->arg);
		if (r < 0)
			req->fn_err = r;
	}
	return NL_OK;
}

static int nl_on_done(struct nl_msg *msg, void *arg)
{
	((struct nl_req *)arg)->done = true;
	return NL_STOP;
}

static int nl_on_error(struct sockaddr_nl *nla, struct nlmsgerr *nlerr, void *arg)
{
	struct nl_req *req = arg;

	req->kerr = nlerr->error < 0 ? -nlerr->error : nlerr->error;
	req->done = true;
	return NL_STOP;
}

static int nl_open(struct nl_req *req, struct nl_sock **ret)
{
	struct nl_sock *sk = nl_socket_alloc();
	int r;

	if (!sk)
		return -ENOMEM;
	if ((r = nl_connect(sk, NETLINK_ROUTE)) < 0) {
		nl_socket_free(sk);
		return nlerr_to_errno(r);
	}
	nl_socket_disable_auto_ack(sk);
	nl_socket_enable_msg_peek(sk);
	if (nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, nl_on_valid, req) < 0 ||
	    nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, nl_on_done, req) < 0 ||
	    nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, nl_on_done, req) < 0 ||
	    nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, nl_on_error, req) < 0) {
		nl_socket_free(sk);
		return -ENOMEM;
	}
	*ret = sk;
	return 0;
}

/* Sends msg (which must ask for an ACK or a dump) on a fresh socket in the
 * current network namespace, feeds RTM_NEWLINK replies to fn and waits for
 * the ACK or the end of the dump. Frees msg. Returns 0 or -errno. */
static int nl_exchange(struct nl_msg *msg, nl_link_fn fn, void *arg)
{
	struct nl_req req = {.fn = fn, .arg = arg};
	struct nl_sock *sk = NULL;
	int r;

	if (!msg)
		return -ENOMEM;
	if ((r = nl_open(&req, &sk)) < 0)
		goto out;
	r = nl_send_auto(sk, msg);
	while (r >= 0 && !req.done)
		r = nl_recvmsgs_default(sk);
	if (req.kerr)
		r = -req.kerr;
	else if (r < 0)
		r = nlerr_to_errno(r);
	else
		r = req.fn_err;
	nl_socket_free(sk);
out:
	nlmsg_free(msg);
	return r;
}

/* A request for one link: by index when ifindex > 0, else by the name put
 * in afterwards. */
static struct nl_msg *link_msg(int type, int nlflags, int ifindex, unsigned int flags,
			       unsigned int change)
{
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_index = ifindex,
		.ifi_flags = flags,
		.ifi_change = change,
	};
	struct nl_msg *msg = nlmsg_alloc_simple(type, nlflags);

	if (msg && nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int link_collect_one(struct nlmsghdr *h, void *arg)
{
	struct sys_link *l = arg;

	free(l->vfs);
	l->vfs = NULL;
	l->n_vfs = 0;
	return nlvf_parse_link(h, l);
}

/* The link named ifname (a name or an altname), with its VFs when ext_mask
 * asks for them; no message. Free ret->vfs. */
static int link_query(const char *ifname, uint32_t ext_mask, struct sys_link *ret)
{
	size_t len = strlen(ifname);
	struct sys_link l = {.ifindex = 0};
	struct nl_msg *msg;
	int r;

	if (len == 0 || len >= SYS_ALTIFNAMSIZ)
		return -EINVAL;
	msg = link_msg(RTM_GETLINK, NLM_F_ACK, 0, 0, 0);
	if (msg &&
	    (nla_put_string(msg, len < IFNAMSIZ ? IFLA_IFNAME : IFLA_ALT_IFNAME, ifname) < 0 ||
	     (ext_mask && nla_put_u32(msg, IFLA_EXT_MASK, ext_mask) < 0))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	r = nl_exchange(msg, link_collect_one, &l);
	if (r == 0 && l.ifindex <= 0)
		r = -EBADMSG;
	if (r < 0) {
		free(l.vfs);
		return r;
	}
	*ret = l;
	return 0;
}

/* link_query() with a message. */
static int link_lookup(const char *ifname, uint32_t ext_mask, struct sys_link *ret, struct err *e)
{
	int r = link_query(ifname, ext_mask, ret);

	if (r < 0)
		return fail(e, r, NULL, "cannot find link '%s'", ifname);
	return 0;
}

/* What the dump reports of one link, VF list included (the same ext mask). */
int linux_link_get(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e)
{
	size_t len = strlen(ifname);
	int r;

	if (len == 0 || len >= SYS_ALTIFNAMSIZ)
		return err_setx(e, -ENODEV, "no network interface '%.*s'", SYS_ALTIFNAMSIZ, ifname);
	r = link_query(ifname, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS, ret);
	if (r == -ENODEV)
		return err_setx(e, r, "no network interface '%s'", ifname);
	if (r < 0)
		return fail(e, r, NULL, "cannot get link '%s'", ifname);
	return 0;
}

struct link_list {
	struct sys_link *v;
	size_t n, cap;
};

static int link_collect(struct nlmsghdr *h, void *arg)
{
	struct link_list *list = arg;

	if (list->n == list->cap) {
		if (list->cap >= LINKS_MAX)
			return -E2BIG;
		size_t cap = list->cap ? list->cap * 2 : 32;
		struct sys_link *v = realloc(list->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		list->v = v;
		list->cap = cap;
	}
	int r = nlvf_parse_link(h, &list->v[list->n]);
	if (r == 0)
		list->n++;
	return r;
}

static int link_cmp(const void *a, const void *b)
{
	int x = ((const struct sys_link *)a)->ifindex, y = ((const struct sys_link *)b)->ifindex;
	return x < y ? -1 : x > y;
}

static int link_dump_once(struct link_list *list)
{
	struct nl_msg *msg = link_msg(RTM_GETLINK, NLM_F_DUMP, 0, 0, 0);

	if (msg && nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return nl_exchange(msg, link_collect, list);
}

int linux_link_dump(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e)
{
	struct link_list list = {0};
	int r = -EAGAIN;

	for (int i = 0; i < DUMP_TRIES && r == -EAGAIN; i++) {
		sys_links_free(list.v, list.n);
		list = (struct link_list){0};
		r = link_dump_once(&list);
	}
	if (r < 0) {
		sys_links_free(list.v, list.n);
		return fail(e, r, r == -EAGAIN ? "links kept changing during the dump" : NULL,
			    "cannot list network links");
	}
	if (list.n > 1)
		qsort(list.v, list.n, sizeof(*list.v), link_cmp);
	*ret = list.v;
	*ret_n = list.n;
	return 0;
}

static const char *rename_hint(int r, const struct sys_link *l)
{
	if (r == -EBUSY && (l->flags & IFF_UP))
		return "link is up; kernels before 6.2 cannot rename an up link";
	if (r == -EEXIST)
		return "the name is taken by another link or an altname";
	return hint_common(r);
}

int linux_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e)
{
	struct sys_link l;
	struct nl_msg *msg;
	int r;

	if (!*newname || strlen(newname) >= IFNAMSIZ)
		return fail(e, -EINVAL, "a name has 1 to 15 characters",
			    "cannot rename '%s' to '%s'", ifname, newname);
	if ((r = link_lookup(ifname, 0, &l, e)) < 0)
		return r;
	free(l.vfs);
	msg = link_msg(RTM_SETLINK, NLM_F_ACK, l.ifindex, 0, 0);
	if (msg && nla_put_string(msg, IFLA_IFNAME, newname) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if ((r = nl_exchange(msg, NULL, NULL)) < 0)
		return fail(e, r, rename_hint(r, &l), "cannot rename '%s' to '%s'", ifname,
			    newname);
	return 0;
}

int linux_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e)
{
	struct sys_link l;
	int r;

	if ((r = link_lookup(ifname, 0, &l, e)) < 0)
		return r;
	free(l.vfs);
	r = nl_exchange(link_msg(RTM_SETLINK, NLM_F_ACK, l.ifindex, up ? IFF_UP : 0, IFF_UP), NULL,
			NULL);
	if (r < 0)
		return fail(e, r, hint_common(r), "cannot set '%s' %s", ifname, up ? "up" : "down");
	return 0;
}

/* RTM_SETLINK on the PF with IFLA_VFINFO_LIST → IFLA_VF_INFO → one attribute. */
static struct nl_msg *vf_msg(int ifindex, int attr, const void *data, size_t len)
{
	struct nl_msg *msg = link_msg(RTM_SETLINK, NLM_F_ACK, ifindex, 0, 0);
	struct nlattr *list, *info;

	if (!msg)
		return NULL;
	if (!(list = nla_nest_start(msg, IFLA_VFINFO_LIST)) ||
	    !(info = nla_nest_start(msg, IFLA_VF_INFO)) || nla_put(msg, attr, (int)len, data) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	nla_nest_end(msg, info);
	nla_nest_end(msg, list);
	return msg;
}

/* One VF setting on a PF: checks that the VF exists first, so that a wrong
 * PF or VF number gets a clearer message than the driver's EOPNOTSUPP. */
struct vf_change {
	const char *pf;
	uint32_t vf;
	int attr;
	const void *data;
	size_t len;
	const char *what;	 /* "set the port GUID of VF 3 of 'ib0' to '…'" */
	const char *unsupported; /* hint for EOPNOTSUPP */
};

static int vf_apply(const struct vf_change *c, struct err *e)
{
	struct sys_link l;
	int r;

	if ((r = link_lookup(c->pf, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS, &l, e)) < 0)
		return r;
	free(l.vfs);
	if (l.num_vf <= 0)
		return err_setx(e, -ENODEV, "cannot %s: '%s' has no SR-IOV VFs", c->what, c->pf);
	if (c->vf >= (uint32_t)l.num_vf)
		return err_setx(e, -ENODEV, "cannot %s: '%s' has %d VFs", c->what, c->pf, l.num_vf);
	r = nl_exchange(vf_msg(l.ifindex, c->attr, c->data, c->len), NULL, NULL);
	if (r < 0)
		return fail(e, r, r == -EOPNOTSUPP ? c->unsupported : hint_common(r), "cannot %s",
			    c->what);
	return 0;
}

int linux_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf, enum sys_guid_kind kind,
		      uint64_t guid, struct err *e)
{
	struct ifla_vf_guid ivg;
	char text[GUID_STRLEN], what[256];
	const bool node = kind == SYS_GUID_NODE;

	memset(&ivg, 0, sizeof(ivg));
	ivg.vf = vf;
	ivg.guid = guid;
	guid_format_sysfs(guid, text);
	snprintf(what, sizeof(what), "set the %s GUID of VF %u of '%s' to '%s'",
		 node ? "node" : "port", vf, pf_ifname, text);
	const struct vf_change c = {
		.pf = pf_ifname,
		.vf = vf,
		.attr = node ? IFLA_VF_IB_NODE_GUID : IFLA_VF_IB_PORT_GUID,
		.data = &ivg,
		.len = sizeof(ivg),
		.what = what,
		.unsupported = "the driver cannot set VF GUIDs; is it an InfiniBand PF?",
	};
	return vf_apply(&c, e);
}

int linux_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
			    struct err *e)
{
	const char *name = vf_link_state_to_string(state);
	struct ifla_vf_link_state ivl = {.vf = vf, .link_state = (uint32_t)state};
	char what[256];

	if (!name)
		return err_setx(e, -EINVAL,
				"cannot set the link state of VF %u of '%s': unknown state %d", vf,
				pf_ifname, state);
	snprintf(what, sizeof(what), "set the link state of VF %u of '%s' to '%s'", vf, pf_ifname,
		 name);
	const struct vf_change c = {
		.pf = pf_ifname,
		.vf = vf,
		.attr = IFLA_VF_LINK_STATE,
		.data = &ivl,
		.len = sizeof(ivl),
		.what = what,
		.unsupported = "the driver does not support VF link state",
	};
	return vf_apply(&c, e);
}
