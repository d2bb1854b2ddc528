// SPDX-License-Identifier: MIT
/* systemd .link files and the oneshot unit that recreate the VF layout at
 * boot (see persist.h). */
#include "persist.h"

#include <json-c/json.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/escape.h"
#include "core/base/guid.h"
#include "naming.h"

static void note(struct persist *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A module name that can stand in the unit's modprobe line as it is: not an
 * option either (a planted driver link named "-r" would unload the rest). */
static bool driver_word(const char *d)
{
	size_t n = strspn(d, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	return n > 0 && n <= 64 && !d[n] && d[0] != '-';
}

/* Whether the space-separated list holds w as a whole word. */
static bool has_word(const char *list, const char *w)
{
	size_t len = strlen(w);
	for (const char *p = list; (p = strstr(p, w)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
	return false;
}

static void note(struct persist *p, const char *fmt, ...)
{
	if (p->n_notes >= PERSIST_NOTES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->n_notes++], sizeof(p->notes[0]), fmt, ap);
	va_end(ap);
}

static struct persist_file *add_file(struct persist *p, const char *subdir, const char *name)
{
	struct persist_file *f = realloc(p->files, (p->n_files + 1) * sizeof(*f));
	if (!f)
		return NULL;
	p->files = f;
	f = &p->files[p->n_files++];
	memset(f, 0, sizeof(*f));
	snprintf(f->subdir, sizeof(f->subdir), "%s", subdir);
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

bool persist_kernel_name(const char *name)
{
	return naming_kernel_form(name);
}

void persist_link_name(const char *bdf, char buf[static 64])
{
	snprintf(buf, 64, PERSIST_LINK_PREFIX "%s.link", bdf);
	for (char *c = buf; *c; c++)
		if (*c == ':')
			*c = '-';
}

static int link_file(struct persist *p, const struct pf *pf, const struct vf *vf)
{
	const char *name = vf_host_name(vf);
	struct err e;
	if (!name) {
		note(p, "VF %u of %s (%s) has no netdev: no .link file", vf->index, pf->fn.bdf,
		     vf->fn.bdf);
		return 0;
	}
	if (persist_kernel_name(name)) {
		note(p,
		     "VF %u of %s (%s) has the kernel name '%s', which changes from boot to "
		     "boot: no .link file (give it a name with 'ibvf vf rename')",
		     vf->index, pf->fn.bdf, vf->fn.bdf, name);
		return 0;
	}
	if (naming_check_ifname(name, &e) < 0) {
		note(p, "VF %s: %s", vf->fn.bdf, e.msg);
		return 0;
	}
	char fname[64];
	persist_link_name(vf->fn.bdf, fname);
	struct persist_file *f = add_file(p, "systemd/network", fname);
	if (!f || asprintf(&f->content, PERSIST_LINK_CONTENT, vf->index, pf->fn.bdf, name,
			   vf->fn.bdf, name) < 0) {
		if (f)
			f->content = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A growing string for the unit. */
struct buf {
	char *s;
	size_t len;
	bool failed;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	char *add;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&add, fmt, ap);
	va_end(ap);
	char *ns = n < 0 ? NULL : realloc(b->s, b->len + (size_t)n + 1);
	if (!ns) {
		if (n >= 0)
			free(add);
		b->failed = true;
		return;
	}
	memcpy(ns + b->len, add, (size_t)n + 1);
	b->s = ns;
	b->len += (size_t)n;
	free(add);
}

/* A command of the unit and the request it makes, for the dry check. */
static void add_cmd(struct persist *p, struct buf *b, const struct action_req *req)
{
	if (b->failed)
		return;
	struct persist_cmd *c = realloc(p->cmds, (p->n_cmds + 1) * sizeof(*c));
	if (!c) {
		b->failed = true;
		return;
	}
	p->cmds = c;
	c = &p->cmds[p->n_cmds++];
	const char *bol = b->len ? b->s + b->len - 1 : b->s;
	while (bol > b->s && bol[-1] != '\n')
		bol--; /* the line just put, without its newline */
	snprintf(c->line, sizeof(c->line), "%.*s", (int)(b->s + b->len - bol - 1), bol);
	c->req = *req;
}

static bool guid_ok(struct kguid g)
{
	return g.known && g.v && g.v != UINT64_MAX;
}

static void unit_body(struct persist *p, const struct node *n, const struct persist_opts *o,
		      struct buf *b)
{
	const char *modprobe = o->modprobe ? o->modprobe : "/usr/sbin/modprobe";
	const char *udevadm = o->udevadm ? o->udevadm : "/usr/bin/udevadm";
	char drivers[256] = "", host[65];
	/* The hostname goes into a comment line: printable ASCII only. */
	snprintf(host, sizeof(host), "%s", n->hostname ? n->hostname : "this node");
	for (char *c = host; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';

	put(b, PERSIST_UNIT_HEAD, host);
	for (size_t i = 0; i < n->n_pfs; i++) {
		const char *d = n->pfs[i].fn.driver;
		if (n->pfs[i].n_vfs && d && driver_word(d) && !has_word(drivers, d) &&
		    strlen(drivers) + strlen(d) + 2 < sizeof(drivers)) {
			if (*drivers)
				strcat(drivers, " ");
			strcat(drivers, d);
		}
	}
	if (*drivers)
		put(b, "ExecStart=%s -a %s\n", modprobe, drivers);
	put(b, "ExecStart=%s settle --timeout=60\n", udevadm);
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		if (!pf->sriov || !pf->n_vfs)
			continue;
		put(b, "ExecStart=%s vf create %s %zu --yes --timeout 120\n", o->ibvf, pf->fn.bdf,
		    pf->n_vfs);
		struct action_req req = {
			.kind = ACTION_CREATE, .count = (unsigned int)pf->n_vfs, .timeout_s = 120};
		snprintf(req.target, sizeof(req.target), "%s", pf->fn.bdf);
		add_cmd(p, b, &req);
	}
	put(b, "# --force: before the kubelet runs no pod holds a VF, whatever CNI caches\n"
	       "# left from before the reboot say.\n");
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			char ng[GUID_STRLEN], pg[GUID_STRLEN];
			if (!vf->fn.n_rdmas && !vf->node_guid.known && !vf->port_guid.known)
				continue; /* not an RDMA VF: no GUIDs to keep */
			if (fn_is_eth(&n->pfs[i].fn)) {
				if (j == 0)
					note(p,
					     "%s runs Ethernet: the unit sets no GUIDs for its VFs "
					     "(the driver refuses them)",
					     n->pfs[i].fn.bdf);
				continue;
			}
			if (!vf->fn.driver) { /* failed to probe: nothing to read or keep */
				note(p,
				     "%s has no driver (probe failed?): the unit sets no GUID for "
				     "it; once it binds, give it one and run persist again",
				     vf->fn.bdf);
				continue;
			}
			if (!guid_ok(vf->node_guid) || !guid_ok(vf->port_guid)) {
				if (!p->n_unassigned++)
					snprintf(p->unassigned, sizeof(p->unassigned), "%s",
						 vf->fn.bdf);
				continue;
			}
			guid_format_sysfs(vf->node_guid.v, ng);
			guid_format_sysfs(vf->port_guid.v, pg);
			put(b, "ExecStart=%s vf guid %s --node %s --port %s --yes --force\n",
			    o->ibvf, vf->fn.bdf, ng, pg);
			struct action_req req = {.kind = ACTION_GUID,
						 .set_node = true,
						 .set_port = true,
						 .node_guid = vf->node_guid.v,
						 .port_guid = vf->port_guid.v,
						 .force = true};
			snprintf(req.target, sizeof(req.target), "%s", vf->fn.bdf);
			add_cmd(p, b, &req);
		}
	put(b,
	    "ExecStart=%s settle --timeout=60\n"
	    "\n"
	    "[Install]\n"
	    "WantedBy=multi-user.target\n",
	    udevadm);
}

/* Every PCI name the files hold is one (0000:18:00.4): a name is whatever
 * sysfs (or a tree under --root) lists, and a newline or '%' in it would be a
 * line or a specifier of the unit. */
static int pci_names_check(const struct node *n, struct err *e)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j <= n->pfs[i].n_vfs && n->pfs[i].n_vfs; j++) {
			const char *bdf = j ? n->pfs[i].vfs[j - 1].fn.bdf : n->pfs[i].fn.bdf;
			char canon[16], shown[64];
			escape_term_into(shown, sizeof(shown), bdf);
			if (!node_bdf_normalize(bdf, false, canon) || strcmp(bdf, canon))
				return err_setx(e, EINVAL,
						"cannot persist: the %s '%s' is not a PCI address "
						"(dddd:bb:dd.f) and cannot go into the files; "
						"nothing was written",
						j ? "VF" : "PF", shown);
		}
	return 0;
}

int persist_build(const struct node *n, const struct persist_opts *o, struct persist **ret,
		  struct err *e)
{
	if (!o->ibvf || o->ibvf[0] != '/')
		return err_setx(e, EINVAL, "the unit needs the absolute path of ibvf");
	int r = pci_names_check(n, e);
	if (r < 0)
		return r;
	struct persist *p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(e, ENOMEM, "cannot build the files");
	for (size_t i = 0; r == 0 && i < n->n_pfs; i++)
		for (size_t j = 0; r == 0 && j < n->pfs[i].n_vfs; j++)
			r = link_file(p, &n->pfs[i], &n->pfs[i].vfs[j]);
	struct buf b = {0};
	if (r == 0)
		unit_body(p, n, o, &b);
	struct persist_file *f =
		r == 0 && !b.failed ? add_file(p, "systemd/system", PERSIST_UNIT) : NULL;
	if (!f) {
		free(b.s);
		persist_free(p);
		return err_set(e, ENOMEM, "cannot build the files");
	}
	f->content = b.s;
	*ret = p;
	return 0;
}

void persist_free(struct persist *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_files; i++)
		free(p->files[i].content);
	free(p->files);
	free(p->cmds);
	free(p);
}
