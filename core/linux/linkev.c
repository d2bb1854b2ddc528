// SPDX-License-Identifier: MIT
/* Link notifications into events, by comparison with each link's last
 * state (linkev.h). */
#include "core/linux/linkev.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include "core/linux/nlvf.h"

/* As many links as a node can show (sys_linux.c's dump stops there too). */
#define LINKEV_LINKS_MAX 65536

/* What a link's notifications are compared on. */
struct link_state {
	int ifindex;
	char name[SYS_IFNAMSIZ];
	unsigned int flags;
	int operstate;
	unsigned int mtu;
	uint8_t addr[32];
	size_t addr_len;
};

struct linkev {
	struct link_state *v; /* sorted by ifindex */
	size_t n, cap;
};

struct linkev *linkev_new(void)
{
	return calloc(1, sizeof(struct linkev));
}

void linkev_free(struct linkev *t)
{
	if (t)
		free(t->v);
	free(t);
}

void linkev_clear(struct linkev *t)
{
	t->n = 0;
}

/* The slot of ifindex, or where it would go; *found says which. */
static size_t slot(const struct linkev *t, int ifindex, bool *found)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].ifindex < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->n && t->v[lo].ifindex == ifindex;
	return lo;
}

static int insert(struct linkev *t, size_t at)
{
	if (t->n == t->cap) {
		if (t->cap >= LINKEV_LINKS_MAX)
			return -E2BIG;
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct link_state *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	memmove(&t->v[at + 1], &t->v[at], (t->n - at) * sizeof(*t->v));
	t->n++;
	return 0;
}

static void state_of(const struct sys_link *l, struct link_state *st)
{
	memset(st, 0, sizeof(*st));
	st->ifindex = l->ifindex;
	memcpy(st->name, l->name, sizeof(st->name));
	st->flags = l->flags;
	st->operstate = l->operstate;
	st->mtu = l->mtu;
	st->addr_len = l->addr_len;
	memcpy(st->addr, l->addr, l->addr_len);
}

/* Flags (up, running, lower-up: carrier), operstate, MTU or address. */
static bool state_changed(const struct link_state *a, const struct link_state *b)
{
	return a->flags != b->flags || a->operstate != b->operstate || a->mtu != b->mtu ||
	       a->addr_len != b->addr_len || memcmp(a->addr, b->addr, a->addr_len);
}

static void event_set(struct sys_event *ev, const char *action, const char *name, const char *old)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->action, sizeof(ev->action), "%s", action);
	snprintf(ev->subsystem, sizeof(ev->subsystem), "net");
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	snprintf(ev->old_name, sizeof(ev->old_name), "%s", old ? old : "");
}

/* A PF with VFs: the message says so when it carries the VF count or list
 * (a dump asked for them), else the caller finds out. */
static bool link_is_pf(const struct sys_link *l, linkev_is_pf_fn is_pf, void *arg)
{
	if (l->num_vf >= 0 || l->n_vfs)
		return l->num_vf > 0 || l->n_vfs > 0;
	return is_pf && is_pf(arg, l->name);
}

/* The events of an RTM_NEWLINK for a link seen before (was) or not (NULL). */
static int classify(const struct link_state *was, const struct link_state *now,
		    const struct sys_link *l, linkev_is_pf_fn is_pf, void *arg,
		    struct sys_event ret[LINKEV_MAX])
{
	int n = 0;
	bool renamed = was && strcmp(was->name, now->name);

	if (renamed)
		event_set(&ret[n++], "move", now->name, was->name);
	else if (!was || state_changed(was, now))
		event_set(&ret[n++], "change", now->name, NULL);
	/* A rename alone says nothing of the VFs; anything else on a PF may. */
	if ((!renamed || state_changed(was, now)) && link_is_pf(l, is_pf, arg))
		event_set(&ret[n++], SYS_EVENT_VF_ADMIN, now->name, NULL);
	return n;
}

static int on_dellink(struct linkev *t, struct nlmsghdr *h)
{
	struct ifinfomsg ifi;
	bool found;

	if (!nlmsg_valid_hdr(h, sizeof(ifi)))
		return -EBADMSG;
	memcpy(&ifi, nlmsg_data(h), sizeof(ifi));
	size_t at = slot(t, ifi.ifi_index, &found);
	if (found) {
		memmove(&t->v[at], &t->v[at + 1], (t->n - at - 1) * sizeof(*t->v));
		t->n--;
	}
	return 0;
}

int linkev_parse(struct linkev *t, struct nlmsghdr *h, bool quiet, linkev_is_pf_fn is_pf, void *arg,
		 struct sys_event ret[LINKEV_MAX])
{
	struct ifinfomsg ifi;
	struct sys_link l;
	struct link_state now;
	bool found;
	int r;

	if (!nlmsg_valid_hdr(h, sizeof(ifi)))
		return -EBADMSG;
	memcpy(&ifi, nlmsg_data(h), sizeof(ifi));
	if (ifi.ifi_family != AF_UNSPEC)
		return 0; /* a bridge port's view (AF_BRIDGE), not the link's */
	if (h->nlmsg_type == RTM_DELLINK)
		return on_dellink(t, h);
	if ((r = nlvf_parse_link(h, &l)) < 0)
		return r;
	state_of(&l, &now);
	size_t at = slot(t, now.ifindex, &found);
	struct link_state was = found ? t->v[at] : now;
	r = !found ? insert(t, at) : 0;
	if (r == 0) {
		t->v[at] = now;
		r = quiet ? 0 : classify(found ? &was : NULL, &now, &l, is_pf, arg, ret);
	}
	free(l.vfs);
	return r;
}
