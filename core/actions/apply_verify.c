// SPDX-License-Identifier: MIT
/* The verify of an applied plan: each change read back from the node as
 * re-read after the steps (or from its file). */
#include "actions.h"
#include "planners.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/base/safefile.h"
#include "core/model/names.h"

static void verify_guid(struct change *c, struct kguid eff, struct kguid admin)
{
	char t[GUID_STRLEN];
	struct kguid g = eff.known ? eff : admin;
	if (!g.known) {
		snprintf(c->verify, sizeof(c->verify), "the %s cannot be read back",
			 change_kind_name(c->kind));
		return;
	}
	guid_format_sysfs(g.v, t);
	c->verified = !strcmp(t, c->after);
	if (!c->verified)
		snprintf(c->verify, sizeof(c->verify), "the %s %s is %s",
			 eff.known ? "" : "administrative", change_kind_name(c->kind), t);
}

static void verify_file(struct change *c)
{
	char *now = NULL;
	struct err e = {{0}};
	if (safefile_read(c->file, SAFEFILE_MAX, &now, &e) < 0) {
		plan_fmt(c->verify, sizeof(c->verify), "%s", e.msg);
		return;
	}
	c->verified = c->new_content ? now && !strcmp(now, c->new_content) : !now;
	if (!c->verified)
		plan_fmt(c->verify, sizeof(c->verify), "'%s' is %s", c->file,
			 now ? "not what was written" : "absent");
	free(now);
}

static void verify_symlink(struct change *c)
{
	char now[PATH_MAX];
	struct err e = {{0}};
	int r = safefile_readlink(c->file, now, sizeof(now), &e);
	if (r < 0 && r != -ENOENT && r != -EINVAL) {
		plan_fmt(c->verify, sizeof(c->verify), "%s", e.msg);
		return;
	}
	c->verified = c->new_content ? r == 0 && !strcmp(now, c->new_content) : r == -ENOENT;
	if (!c->verified)
		plan_fmt(c->verify, sizeof(c->verify), "'%s' is %s", c->file,
			 r == 0		? "a link elsewhere"
			 : r == -EINVAL ? "not a link"
					: "absent");
}

void action_verify_change(struct sys *s, const struct node *n, struct change *c)
{
	if (c->kind == CHANGE_FILE) {
		verify_file(c);
		return;
	}
	if (c->kind == CHANGE_SYMLINK) {
		verify_symlink(c);
		return;
	}
	const struct vf *vf = NULL;
	const struct fn *f = c->bdf[0] ? node_find_fn(n, c->bdf, NULL, &vf) : NULL;
	if (c->bdf[0] && !f && !(c->kind == CHANGE_NUMVFS)) {
		snprintf(c->verify, sizeof(c->verify), "%s is gone from the node", c->bdf);
		return;
	}
	switch (c->kind) {
	case CHANGE_NUMVFS: {
		const struct pf *pf = node_find_pf(n, c->bdf);
		long long want = atoll(c->after);
		c->verified = pf && pf->numvfs.known && pf->numvfs.v == want &&
			      (long long)pf->n_vfs == want;
		if (!c->verified)
			snprintf(c->verify, sizeof(c->verify),
				 "%s has %lld VFs (sriov_numvfs %lld)", c->bdf,
				 pf ? (long long)pf->n_vfs : -1LL,
				 pf && pf->numvfs.known ? (long long)pf->numvfs.v : -1LL);
		break;
	}
	case CHANGE_NAME:
		if (f) {
			for (size_t i = 0; i < f->n_netdevs && !c->verified; i++)
				c->verified = !strcmp(f->netdevs[i].name, c->after);
			if (!c->verified)
				snprintf(c->verify, sizeof(c->verify), "%s's netdev is '%s'",
					 c->bdf, f->n_netdevs ? f->netdevs[0].name : "(none)");
		} else {
			char path[64 + SYS_IFNAMSIZ], buf[32];
			plan_fmt(path, sizeof(path), "/sys/class/net/%s/ifindex", c->after);
			c->verified = sys_read_attr(s, path, buf, sizeof(buf)) > 0 &&
				      atoi(buf) == c->ifindex;
			if (!c->verified)
				snprintf(c->verify, sizeof(c->verify), "link %d is not named '%s'",
					 c->ifindex, c->after);
		}
		break;
	case CHANGE_NODE_GUID:
		verify_guid(c, vf ? vf->node_guid : (struct kguid){0},
			    vf ? vf->admin.node_guid : (struct kguid){0});
		break;
	case CHANGE_PORT_GUID:
		verify_guid(c, vf ? vf->port_guid : (struct kguid){0},
			    vf ? vf->admin.port_guid : (struct kguid){0});
		break;
	case CHANGE_FILE:
	case CHANGE_SYMLINK:
		break;
	case CHANGE_LINK_STATE: {
		const char *got = vf_link_state_to_string(vf_link_state_of(vf));
		c->verified = got && !strcmp(got, c->after);
		if (!c->verified)
			snprintf(c->verify, sizeof(c->verify), "the link state is %s",
				 got ? got : "unknown");
		break;
	}
	}
}
