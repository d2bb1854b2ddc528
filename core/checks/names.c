// SPDX-License-Identifier: MIT
/* Name checks: a VF netdev whose name the next boot does not give it back
 * (core/persist/boot.h predicts it from the .link files), a name seen to
 * change, and a pod VF's host name the kernel has given to another netdev. */
#include <stdio.h>
#include <string.h>

#include "checks_int.h"
#include "core/persist/boot.h"
#include "core/persist/linkfile.h"
#include "core/persist/naming.h"
#include "core/persist/persist.h"

static bool name_in_use(const struct node *n, const char *name)
{
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t k = 0; k < pf->fn.n_netdevs; k++)
			if (!strcmp(pf->fn.netdevs[k].name, name))
				return true;
		for (size_t j = 0; j < pf->n_vfs; j++)
			for (size_t k = 0; k < pf->vfs[j].fn.n_netdevs; k++)
				if (!strcmp(pf->vfs[j].fn.netdevs[k].name, name))
					return true;
	}
	return false;
}

/* Who on the node other than self has the netdev name: NULL when nobody. */
static const struct fn *name_holder(const struct node *n, const char *name, const struct fn *self,
				    bool *ret_vf)
{
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t k = 0; k < pf->fn.n_netdevs; k++)
			if (!strcmp(pf->fn.netdevs[k].name, name)) {
				*ret_vf = false;
				return &pf->fn;
			}
		for (size_t j = 0; j < pf->n_vfs; j++)
			for (size_t k = 0; k < pf->vfs[j].fn.n_netdevs; k++)
				if (&pf->vfs[j].fn != self &&
				    !strcmp(pf->vfs[j].fn.netdevs[k].name, name)) {
					*ret_vf = true;
					return &pf->vfs[j].fn;
				}
	}
	return NULL;
}

/* The VF's name under the naming policy (naming.h), the one `vf rename
 * --all` gives it, when it is free; else "". */
static void stable_name(const struct node *n, const struct pf *pf, const struct vf *vf,
			char buf[16])
{
	struct err e;
	bool is_vf;
	if (naming_vf_name(NULL, pf, vf, buf, &e) < 0 || name_holder(n, buf, &vf->fn, &is_vf))
		buf[0] = '\0';
}

static void rename_remedy(struct finding *f, const struct node *n, const struct pf *pf,
			  const struct vf *vf)
{
	char name[16], step[96];
	struct err e = {{0}};
	bool is_vf = false;
	const struct fn *holder = NULL;
	if (naming_vf_name(NULL, pf, vf, name, &e) == 0)
		holder = name_holder(n, name, &vf->fn, &is_vf);
	if (!e.msg[0] && !holder) {
		finding_remedy_ibvf(f,
				    "give the VF its predictable name (the naming policy, as 'ibvf "
				    "vf rename --all' names every kernel-named VF in one plan); "
				    "'ibvf persist' then pins it with a .link file",
				    (const char *const[]){"vf", "rename", vf->fn.bdf, name, NULL});
		return;
	}
	if (holder && is_vf) {
		/* Another VF has its name: one plan moves both. */
		finding_remedy_ibvf(f,
				    "rename every VF to its predictable name in one plan (this "
				    "VF's name is another VF's now); 'ibvf persist' then pins them",
				    (const char *const[]){"vf", "rename", "--all", NULL});
		return;
	}
	snprintf(step, sizeof(step), "ibvf vf rename %s <a name of 1-15 characters>", vf->fn.bdf);
	finding_remedy_manual(f,
			      holder ? "give the VF a name of its own (its predictable name is "
				       "taken by a PF), then pin it"
				     : "give the VF a name of its own (the naming policy gives it "
				       "none), then pin it",
			      (const char *const[]){step, "ibvf persist", NULL});
}

/* What the file udev applies at boot does with the VF: the evidence line. */
static void boot_evidence(struct finding *f, const struct node *n, const struct boot_name *b)
{
	if (!b->file) {
		finding_evidence(f, "/etc/systemd/network",
				 "no .link file of the %zu on the node matches it: the kernel's "
				 "name (ib<N>/eth<N>, by probe order) stays",
				 n->n_link_files);
	} else if (b->source == BOOT_NAME_NONE) {
		finding_evidence(f, b->file->path,
				 "applied first (udev applies only the first matching file): "
				 "%s%s%sgives it no name, so the kernel's stays",
				 b->file->name_policy ? "NamePolicy=" : "",
				 b->file->name_policy ? b->file->name_policy : "",
				 b->file->name_policy ? " " : "");
	} else if (b->source == BOOT_NAME_POLICY) {
		finding_evidence(f, b->file->path, "applied first: NamePolicy=%s gives %s",
				 b->policy, b->name);
	} else {
		finding_evidence(f, b->file->path, "applied first: Name=%s", b->name);
	}
	if (b->shadowed)
		finding_evidence(f, b->shadowed->path,
				 "%s%s is not applied: an earlier file matches the VF (%s)",
				 b->shadowed->name ? "Name=" : "NamePolicy=",
				 b->shadowed->name ? b->shadowed->name : b->shadowed->name_policy,
				 b->file ? b->file->path : "");
}

/* The file that keeps ibvf's own .link file from applying: one that is not
 * ibvf's, matched first. */
static bool defeated_by_other(const struct boot_name *b)
{
	const char *base = b->file ? strrchr(b->file->path, '/') : NULL;
	return base && strncmp(base + 1, PERSIST_LINK_PREFIX, strlen(PERSIST_LINK_PREFIX));
}

CHECK_FN(check_name_unstable)
{
	(void)o;
	const struct check_def *def = check_find("name-unstable");
	struct boot_links links;
	if (boot_links_make(n, NULL, 0, &links) < 0)
		return;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			const struct netdev *nd = vf->fn.n_netdevs ? &vf->fn.netdevs[0] : NULL;
			struct boot_name b;
			if (!nd || !nd->name || boot_vf_name(n, &links, pf, vf, &b) < 0)
				continue;
			/* The name it will get at the next boot is the one it has. */
			if (b.name[0] && !strcmp(b.name, nd->name))
				continue;
			bool kernel = persist_kernel_name(nd->name);
			struct finding *f;
			if (kernel)
				f = check_add(out, def, SUBJECT_VF, vf->fn.bdf,
					      "VF %s (%s VF %u) has the kernel name %s, which %s",
					      vf->fn.bdf, check_pf_label(pf), vf->index, nd->name,
					      b.name[0] ? "the next boot replaces"
							: "no .link file pins");
			else if (b.name[0])
				f = check_add(
					out, def, SUBJECT_VF, vf->fn.bdf,
					"VF %s (%s VF %u) is %s now and comes back as %s at the "
					"next boot",
					vf->fn.bdf, check_pf_label(pf), vf->index, nd->name,
					b.name);
			else
				f = check_add(
					out, def, SUBJECT_VF, vf->fn.bdf,
					"VF %s (%s VF %u) is %s now and comes back with a kernel "
					"name (ib<N>) at the next boot",
					vf->fn.bdf, check_pf_label(pf), vf->index, nd->name);
			if (!f)
				break;
			char where[128];
			check_fn_path(where, sizeof(where), vf->fn.bdf, "net/");
			finding_evidence(f, where, "%s", nd->name);
			boot_evidence(f, n, &b);
			if (defeated_by_other(&b) && (b.shadowed || !kernel)) {
				char step[320];
				snprintf(
					step, sizeof(step),
					"narrow or remove the [Match] of %s: udev applies only the "
					"first matching .link file, and this one comes before "
					"ibvf's",
					b.file->path);
				finding_remedy_manual(
					f,
					"let the VF's own .link file apply (an earlier "
					"file wins), then check again",
					(const char *const[]){step, "ibvf persist", NULL});
			} else if (kernel) {
				rename_remedy(f, n, pf, vf);
			} else {
				finding_remedy_ibvf(
					f,
					"pin the name it has with a .link file (persist "
					"writes one per named VF)",
					(const char *const[]){"persist", NULL});
			}
		}
	}
	boot_links_free(&links);
}

/* The remedy of a VF renamed from old to new (its name now). */
static void changed_remedy(struct finding *f, const struct node *n, const struct vf *vf,
			   const char *bdf, const char *old, const char *new)
{
	if (vf && persist_kernel_name(new) && !persist_kernel_name(old) && strlen(old) < 16 &&
	    !name_in_use(n, old))
		finding_remedy_ibvf(f, "give the VF its name back; 'ibvf persist' keeps it",
				    (const char *const[]){"vf", "rename", bdf, old, NULL});
	else if (f->severity > CHECK_INFO)
		finding_remedy_manual(f, "pin the names so they stop changing",
				      (const char *const[]){"ibvf persist (a .link file per named "
							    "VF, matched by PCI path)",
							    NULL});
}

/* Whether the console saw rename r itself: its own finding stands for it. */
static bool seen_live(const struct checks_opts *o, const struct check_rename *r)
{
	for (size_t i = 0; !r->rdma && i < o->n_renames; i++)
		if (!strcmp(o->renames[i].bdf, r->bdf) &&
		    !strcmp(o->renames[i].old_name, r->old_name) &&
		    !strcmp(o->renames[i].new_name, r->new_name))
			return true;
	return false;
}

/* One finding per function for the renames the history recorded of it
 * (from index i on, sorted by function then time) that the console did not
 * see itself: each one's time as evidence, the newest FINDING_EVIDENCE_MAX
 * when more. Returns the index past the function's renames. */
static size_t changed_recorded(struct findings *out, const struct node *n,
			       const struct checks_opts *o, size_t i)
{
	const struct check_past *p = &o->past;
	const struct check_def *def = check_find("name-changed");
	const char *bdf = p->renames[i].bdf;
	size_t end = i, n_kept = 0, n_shown = 0;
	const struct check_rename *first_net = NULL, *last_net = NULL, *last = NULL;
	for (; end < p->n_renames && !strcmp(p->renames[end].bdf, bdf); end++) {
		const struct check_rename *r = &p->renames[end];
		if (seen_live(o, r))
			continue;
		last = r;
		n_kept++;
		if (!r->rdma) {
			first_net = first_net ? first_net : r;
			last_net = r;
		}
	}
	const struct pf *pf = NULL;
	const struct vf *vf = NULL;
	if (!n_kept || !node_find_fn(n, bdf, &pf, &vf))
		return end;
	char at[CHECK_TIME_MAX], since[CHECK_TIME_MAX];
	check_time_format(last->t_us, at);
	check_time_format(p->since_us, since);
	struct finding *f;
	if (n_kept == 1)
		f = check_add(out, def, vf ? SUBJECT_VF : SUBJECT_PF, bdf,
			      "%s %s%s was renamed %s -> %s at %s", vf ? "VF" : "PF", bdf,
			      last->rdma ? "'s RDMA device" : "", last->old_name, last->new_name,
			      at);
	else
		f = check_add(out, def, vf ? SUBJECT_VF : SUBJECT_PF, bdf,
			      "%s %s was renamed %zu times%s%s, last %s -> %s at %s",
			      vf ? "VF" : "PF", bdf, n_kept, p->since_us ? " since " : "",
			      p->since_us ? since : "", last->old_name, last->new_name, at);
	if (!f)
		return end;
	bool in_pod = vf && vf->pod && !vf->pod->stale;
	for (size_t k = i; k < end; k++)
		in_pod |= p->renames[k].pod[0] != '\0';
	/* A pod's CNI finds its VF by name: a change there breaks it. */
	if (in_pod)
		f->severity = CHECK_WARNING;
	for (size_t k = i; k < end; k++) {
		const struct check_rename *r = &p->renames[k];
		/* The newest FINDING_EVIDENCE_MAX of those kept. */
		if (seen_live(o, r) || n_kept - n_shown++ > FINDING_EVIDENCE_MAX)
			continue;
		check_time_format(r->t_us, at);
		finding_evidence(f, p->where, "at %s: %s%s -> %s%s%s%s%s%s", at,
				 r->rdma ? "RDMA device " : "", r->old_name, r->new_name,
				 r->pod[0] ? " (pod " : "", r->pod, r->pod[0] ? ")" : "",
				 r->cause[0] ? ", after " : "", r->cause);
	}
	if (last_net) {
		const char *now =
			vf && vf->fn.n_netdevs ? vf->fn.netdevs[0].name : last_net->new_name;
		changed_remedy(f, n, vf, bdf, first_net->old_name, now);
	} else {
		changed_remedy(f, n, NULL, bdf, "", ""); /* RDMA names only: pin, or nothing */
	}
	return end;
}

CHECK_FN(check_name_changed)
{
	const struct check_def *def = check_find("name-changed");
	for (size_t i = 0; i < o->past.n_renames;)
		i = changed_recorded(out, n, o, i);
	for (size_t i = 0; i < o->n_renames; i++) {
		const struct name_change *c = &o->renames[i];
		const struct pf *pf = NULL;
		const struct vf *vf = NULL;
		if (!node_find_fn(n, c->bdf, &pf, &vf))
			continue;
		struct finding *f = check_add(out, def, vf ? SUBJECT_VF : SUBJECT_PF, c->bdf,
					      "%s %s was renamed %s -> %s while ibvf ran",
					      vf ? "VF" : "PF", c->bdf, c->old_name, c->new_name);
		if (!f)
			return;
		/* A pod's CNI finds its VF by name: a change there breaks it. */
		if (vf && vf->pod && !vf->pod->stale)
			f->severity = CHECK_WARNING;
		char where[128];
		check_fn_path(where, sizeof(where), c->bdf, "net/");
		finding_evidence(f, where, "%s (was %s)", c->new_name, c->old_name);
		changed_remedy(f, n, vf, c->bdf, c->old_name, c->new_name);
	}
}

/* The netdev (and its function) named name on the host, or NULL. */
static const struct fn *netdev_holder(const struct node *n, const char *name,
				      const struct pf **ret_pf, const struct vf **ret_vf)
{
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		*ret_pf = pf;
		*ret_vf = NULL;
		for (size_t k = 0; k < pf->fn.n_netdevs; k++)
			if (!strcmp(pf->fn.netdevs[k].name, name))
				return &pf->fn;
		for (size_t j = 0; j < pf->n_vfs; j++)
			for (size_t k = 0; k < pf->vfs[j].fn.n_netdevs; k++)
				if (!strcmp(pf->vfs[j].fn.netdevs[k].name, name)) {
					*ret_vf = &pf->vfs[j];
					return &pf->vfs[j].fn;
				}
	}
	return NULL;
}

static void binding_where(char *buf, size_t size, const struct pod_binding *b)
{
	if ((b->sources & POD_SRC_IB_SRIOV) && b->container_id && b->ifname)
		snprintf(buf, size, "/var/lib/cni/ib-sriov/%s-%s", b->container_id, b->ifname);
	else
		snprintf(buf, size, "pod binding of %s/%s", b->ns ? b->ns : "?",
			 b->name ? b->name : "?");
}

static void collision_one(struct findings *out, const struct node *n, const struct pf *pf,
			  const struct vf *vf)
{
	const struct pod_binding *b = vf->pod;
	const struct pf *opf;
	const struct vf *ovf;
	const struct fn *other = netdev_holder(n, b->host_ifname, &opf, &ovf);
	if (!other || other == &vf->fn)
		return;
	struct finding *f = check_add(
		out, check_find("name-collision"), SUBJECT_VF, vf->fn.bdf,
		"VF %s (%s VF %u, in pod %s/%s) had host name %s, now %s's: the CNI cannot "
		"rename it back",
		vf->fn.bdf, check_pf_label(pf), vf->index, b->ns ? b->ns : "?",
		b->name ? b->name : "?", b->host_ifname, other->bdf);
	if (!f)
		return;
	/* The function on the name: its own unstable name is the cause. */
	snprintf(f->topic, sizeof(f->topic), "%s", other->bdf);
	char where[256];
	binding_where(where, sizeof(where), b);
	finding_evidence(f, where, "HostIFNames %s", b->host_ifname);
	snprintf(where, sizeof(where), "/sys/class/net/%s/device", b->host_ifname);
	finding_evidence(f, where, "-> %s", other->bdf);
	char name[16] = "";
	if (ovf)
		stable_name(n, opf, ovf, name);
	if (*name) {
		finding_remedy_ibvf(f, "move the other netdev off the name before the pod goes",
				    (const char *const[]){"vf", "rename", other->bdf, name, NULL});
		return;
	}
	char step[96];
	snprintf(step, sizeof(step), "ibvf vf rename %s <another name>", other->bdf);
	finding_remedy_manual(f, "move the other netdev off the name before the pod goes",
			      (const char *const[]){step, NULL});
}

CHECK_FN(check_name_collision)
{
	(void)o;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			/* In the pod's netns: no netdev of its own on the host. */
			if (vf->pod && !vf->pod->stale && vf->pod->host_ifname &&
			    *vf->pod->host_ifname && !vf->fn.n_netdevs)
				collision_one(out, n, &n->pfs[i], vf);
		}
}
