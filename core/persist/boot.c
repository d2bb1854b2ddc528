// SPDX-License-Identifier: MIT
/* The next boot, predicted (boot.h). */
#include "boot.h"

#include <errno.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/persist/linkfile.h"
#include "core/persist/naming.h"
#include "core/persist/persist.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int boot_links_make(const struct node *n, const struct link_file *extra, size_t n_extra,
		    struct boot_links *ret)
{
	size_t cap = n->n_link_files + n_extra, k = 0;
	const struct link_file **v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* Both lists are in name order: merge them; an extra file (in /etc)
	 * masks a node file of the same name wherever it is. */
	size_t i = 0, j = 0;
	while (i < n->n_link_files || j < n_extra) {
		int c = i == n->n_link_files ? 1
			: j == n_extra	     ? -1
					     : strcmp(base_name(n->link_files[i].path),
						      base_name(extra[j].path));
		if (c < 0)
			v[k++] = &n->link_files[i++];
		else {
			if (c == 0)
				i++;
			v[k++] = &extra[j++];
		}
	}
	*ret = (struct boot_links){.v = v, .n = k};
	return 0;
}

void boot_links_free(struct boot_links *l)
{
	if (!l)
		return;
	free(l->v);
	*l = (struct boot_links){0};
}

/* Whether the VF's netdev is IPoIB: its own netdev's type, else (in a
 * pod) its PF's. */
static bool vf_is_ipoib(const struct pf *pf, const struct vf *vf)
{
	if (vf->fn.n_netdevs)
		return netdev_is_ib(&vf->fn.netdevs[0]);
	return pf->fn.n_netdevs ? netdev_is_ib(&pf->fn.netdevs[0]) : fn_is_ib(&pf->fn);
}

/* Whether another PF of the node sits on the same domain:bus:slot. */
static bool multi_function(const struct node *n, const struct pf *pf)
{
	size_t stem = strlen("0000:00:00");
	for (size_t i = 0; i < n->n_pfs; i++)
		if (&n->pfs[i] != pf && !strncmp(n->pfs[i].fn.bdf, pf->fn.bdf, stem))
			return true;
	return false;
}

bool boot_path_name(const struct node *n, const struct pf *pf, const struct vf *vf,
		    char out[static 16])
{
	unsigned int dom, bus, slot, func;
	if (sscanf(pf->fn.bdf, "%x:%x:%x.%x", &dom, &bus, &slot, &func) != 4)
		return false;
	char d[16] = "", f[8] = "";
	if (dom)
		snprintf(d, sizeof(d), "P%u", dom);
	if (multi_function(n, pf))
		snprintf(f, sizeof(f), "f%u", func);
	char buf[64];
	int len = snprintf(buf, sizeof(buf), "%s%sp%us%u%sv%u", vf_is_ipoib(pf, vf) ? "ib" : "en",
			   d, bus, slot, f, vf->index);
	if (len <= 0 || len >= 16)
		return false; /* udev gives no name longer than IFNAMSIZ */
	memcpy(out, buf, (size_t)len + 1);
	return true;
}

/* The name a NamePolicy= word gives the VF's new netdev ("" none). */
static bool policy_name(const struct node *n, const struct pf *pf, const struct vf *vf,
			const char *word, size_t len, char out[static 16])
{
	return len == 4 && !strncmp(word, "path", 4) && boot_path_name(n, pf, vf, out);
}

/* What udev does with the file it applies. */
static void apply_file(const struct node *n, const struct pf *pf, const struct vf *vf,
		       const struct link_file *lf, struct boot_name *ret)
{
	ret->file = lf;
	ret->source = BOOT_NAME_NONE;
	for (const char *p = lf->name_policy; p && *p;) {
		p += strspn(p, " \t");
		size_t len = strcspn(p, " \t");
		if (len && policy_name(n, pf, vf, p, len, ret->name)) {
			ret->source = BOOT_NAME_POLICY;
			snprintf(ret->policy, sizeof(ret->policy), "%.*s", (int)len, p);
			return;
		}
		p += len;
	}
	if (lf->name && naming_check(lf->name, true, NULL) == 0) {
		ret->source = BOOT_NAME_NAME;
		snprintf(ret->name, sizeof(ret->name), "%s", lf->name);
	}
}

int boot_vf_name(const struct node *n, const struct boot_links *links, const struct pf *pf,
		 const struct vf *vf, struct boot_name *ret)
{
	const char *now = vf_host_name(vf);
	if (!now)
		return -ENODEV;
	struct boot_links own = {0};
	if (!links) {
		if (boot_links_make(n, NULL, 0, &own) < 0)
			return -ENOMEM;
		links = &own;
	}
	/* At boot the netdev appears under the kernel's name: the one it has
	 * when it still has it, else the kernel's template's first. */
	const char *kname = naming_kernel_form(now) ? now : vf_is_ipoib(pf, vf) ? "ib0" : "eth0";
	*ret = (struct boot_name){.source = BOOT_NAME_NO_FILE};
	for (size_t i = 0; i < links->n; i++) {
		const struct link_file *lf = links->v[i];
		if (!linkfile_matches(lf, &vf->fn, kname))
			continue;
		if (!ret->file) {
			apply_file(n, pf, vf, lf, ret);
			continue;
		}
		if (lf->name || lf->name_policy) {
			ret->shadowed = lf; /* the first later one that would name it */
			break;
		}
	}
	boot_links_free(&own);
	return 0;
}

bool boot_vf_name_kept(const struct node *n, const struct pf *pf, const struct vf *vf)
{
	struct boot_name b;
	if (boot_vf_name(n, NULL, pf, vf, &b) < 0)
		return false;
	return b.name[0] && !strcmp(b.name, vf_host_name(vf));
}

unsigned int boot_pf_vfs(const struct node *n, const struct pf *pf)
{
	if (!boot_unit_runs(n, NULL, 0))
		return 0;
	for (size_t i = 0; i < n->n_persisted; i++)
		if (!strcmp(n->persisted[i].bdf, pf->fn.bdf))
			return n->persisted[i].numvfs;
	return 0;
}

const struct persisted_guid *boot_vf_guids(const struct node *n, const struct vf *vf)
{
	if (!boot_unit_runs(n, NULL, 0))
		return NULL;
	for (size_t i = 0; i < n->n_persisted_guids; i++)
		if (!strcmp(n->persisted_guids[i].bdf, vf->fn.bdf))
			return &n->persisted_guids[i];
	return NULL;
}

bool boot_unit_runs(const struct node *n, char *why, size_t size)
{
	const struct boot_unit *b = &n->boot_unit;
	char buf[8];
	if (!why) {
		why = buf;
		size = sizeof(buf);
	}
	if (!b->path)
		snprintf(why, size, "no %s on the node", PERSIST_UNIT);
	else if (b->masked)
		snprintf(why, size, "%s is masked", b->path);
	else if (b->error)
		snprintf(why, size, "%s", b->error);
	else if (!b->enabled_by)
		snprintf(why, size, "%s is not enabled (no .wants/ link starts it)", PERSIST_UNIT);
	else if (b->bad_exec)
		snprintf(why, size, "'%s' line %u: '%s' cannot run: %s", b->bad_exec_file,
			 b->bad_exec_line, b->bad_exec, strerror(b->bad_exec_errno));
	else
		return true;
	return false;
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *jguid(bool known, uint64_t g)
{
	char buf[GUID_STRLEN];
	if (!known)
		return NULL;
	guid_format_sysfs(g, buf);
	return json_object_new_string(buf);
}

static const char *how_of(const struct boot_name *b)
{
	switch (b->source) {
	case BOOT_NAME_NO_FILE:
		return "no .link file matches: the kernel's name";
	case BOOT_NAME_NONE:
		return "the first matching .link file gives no name: the kernel's";
	case BOOT_NAME_POLICY:
		return "NamePolicy=";
	case BOOT_NAME_NAME:
		return "Name=";
	}
	return "?";
}

static struct json_object *vf_json(const struct node *n, const struct boot_links *links,
				   const struct pf *pf, const struct vf *vf, bool exists,
				   size_t *changes)
{
	struct json_object *o = json_object_new_object();
	struct boot_name b = {.source = BOOT_NAME_NO_FILE};
	const char *now = vf_host_name(vf);
	bool named = now && boot_vf_name(n, links, pf, vf, &b) == 0;
	const struct persisted_guid *g = boot_vf_guids(n, vf);
	char how[96];
	snprintf(how, sizeof(how), "%s%s", how_of(&b),
		 b.source == BOOT_NAME_POLICY ? b.policy : "");
	json_object_object_add(o, "bdf", json_object_new_string(vf->fn.bdf));
	json_object_object_add(o, "pf", json_object_new_string(pf->fn.bdf));
	json_object_object_add(o, "vf", json_object_new_int((int)vf->index));
	json_object_object_add(o, "at_boot", json_object_new_boolean(exists));
	json_object_object_add(o, "name_now", jstr(now));
	json_object_object_add(o, "name_at_boot", named && b.name[0] ? jstr(b.name) : NULL);
	json_object_object_add(o, "decided_by", named && b.file ? jstr(b.file->path) : NULL);
	json_object_object_add(o, "how", named ? jstr(how) : NULL);
	json_object_object_add(o, "shadowed", named && b.shadowed ? jstr(b.shadowed->path) : NULL);
	json_object_object_add(o, "node_guid_now", jguid(vf->node_guid.known, vf->node_guid.v));
	json_object_object_add(o, "port_guid_now", jguid(vf->port_guid.known, vf->port_guid.v));
	/* Without a line of the unit, a VF starts with zero GUIDs. */
	json_object_object_add(o, "node_guid_at_boot",
			       exists ? jguid(true, g && g->has_node ? g->node : 0) : NULL);
	json_object_object_add(o, "port_guid_at_boot",
			       exists ? jguid(true, g && g->has_port ? g->port : 0) : NULL);
	bool same = exists && (!now || (b.name[0] && !strcmp(b.name, now))) &&
		    (!vf->node_guid.known || (g && g->has_node && g->node == vf->node_guid.v)) &&
		    (!vf->port_guid.known || (g && g->has_port && g->port == vf->port_guid.v));
	json_object_object_add(o, "same", json_object_new_boolean(same));
	*changes += !same;
	return o;
}

struct json_object *boot_to_json(const struct node *n)
{
	struct boot_links links;
	if (boot_links_make(n, NULL, 0, &links) < 0)
		return NULL;
	struct json_object *o = json_object_new_object(), *u = json_object_new_object(),
			   *pfs = json_object_new_array(), *vfs = json_object_new_array();
	char why[512] = "";
	bool runs = boot_unit_runs(n, why, sizeof(why));
	size_t changes = 0;
	json_object_object_add(o, "version", json_object_new_int(2));
	json_object_object_add(u, "path", jstr(n->boot_unit.path));
	json_object_object_add(u, "enabled_by", jstr(n->boot_unit.enabled_by));
	json_object_object_add(u, "runs", json_object_new_boolean(runs));
	json_object_object_add(u, "why", runs ? NULL : jstr(why));
	json_object_object_add(o, "unit", u);
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		if (!pf->sriov)
			continue;
		unsigned int at_boot = boot_pf_vfs(n, pf);
		struct json_object *p = json_object_new_object();
		json_object_object_add(p, "bdf", json_object_new_string(pf->fn.bdf));
		json_object_object_add(p, "vfs_now", json_object_new_int64((int64_t)pf->n_vfs));
		json_object_object_add(p, "vfs_at_boot", json_object_new_int64(at_boot));
		json_object_array_add(pfs, p);
		changes += at_boot != pf->n_vfs;
		for (size_t j = 0; j < pf->n_vfs; j++)
			json_object_array_add(vfs, vf_json(n, &links, pf, &pf->vfs[j],
							   pf->vfs[j].index < at_boot, &changes));
	}
	json_object_object_add(o, "pfs", pfs);
	json_object_object_add(o, "vfs", vfs);
	json_object_object_add(o, "changes", json_object_new_int64((int64_t)changes));
	boot_links_free(&links);
	return o;
}
