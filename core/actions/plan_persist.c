// SPDX-License-Identifier: MIT
/* `ibvf persist` as a plan: the refusals (findings that would make the boot
 * unit wrong, an ibvf path that is not installed, a unit command that the
 * node would refuse), then a file step for each file whose content changes
 * and each stale .link file of ours; and the plan that undoes one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/actions/refuse_operator.h"
#include "core/checks/checks.h"
#include "journal.h"
#include "planners.h"
#include "core/persist/boot.h"
#include "core/persist/linkfile.h"
#include "core/persist/persist.h"
#include "core/base/safefile.h"

/* The findings after which the unit would recreate a broken layout, in the
 * order the error names them; each has an ibvf remedy (`check --fix ID`).
 * A VF that failed to probe (probe-failed) does not block: the driver, not
 * the unit, decides whether it probes at the next boot, and the unit sets
 * no GUID for it (persist's notes say so). */
static const char *const blocking[] = {
	"guid-zero", "guid-duplicate", "guid-invalid", "vf-unbound", "name-unstable",
};
#define N_BLOCKING (sizeof(blocking) / sizeof(*blocking))

/* A name-unstable finding persist itself fixes: a VF whose name is its own
 * (not the kernel's ibN/ethN) and which no .link file gives back yet; the
 * files persist writes are what it lacks. */
static bool pins_its_name(const struct node *n, const struct finding *f)
{
	const struct vf *vf = NULL;
	if (strcmp(f->id, "name-unstable") || !node_find_fn(n, f->subject, NULL, &vf) || !vf)
		return false;
	const char *name = vf_host_name(vf);
	return name && !persist_kernel_name(name);
}

int persist_refusals(const struct node *n, struct err *e)
{
	struct findings fs = {0};
	size_t count[N_BLOCKING] = {0}, total = 0;
	if (checks_run(n, NULL, &fs) < 0)
		return err_set(e, ENOMEM, "cannot run the checks");
	for (size_t i = 0; i < fs.n; i++)
		for (size_t k = 0; k < N_BLOCKING; k++)
			if (!strcmp(fs.v[i].id, blocking[k]) && !pins_its_name(n, &fs.v[i])) {
				count[k]++;
				total++;
			}
	findings_fini(&fs);
	if (!total)
		return 0;
	char list[400] = "";
	size_t len = 0;
	for (size_t k = 0; k < N_BLOCKING; k++)
		if (count[k] && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%s (%zu, fix: 'ibvf check --fix %s')",
						len ? ", " : "", blocking[k], count[k],
						blocking[k]);
	return err_setx(e, EINVAL,
			"cannot persist: the boot unit would recreate what these findings "
			"report: %s; nothing was written",
			list);
}

/* A build tree holds build.ninja or meson-private in one of the parents. */
static bool in_build_tree(const char *dir)
{
	char p[PATH_MAX], probe[PATH_MAX + 32];
	snprintf(p, sizeof(p), "%s", dir);
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/build.ninja", *p ? p : "");
		if (access(probe, F_OK) == 0)
			return true;
		snprintf(probe, sizeof(probe), "%s/meson-private", *p ? p : "");
		if (access(probe, F_OK) == 0)
			return true;
		char *slash = strrchr(p, '/');
		if (!slash || !*p)
			return false;
		*slash = '\0';
	}
}

/* A parent directory a non-root user can write (or owns). */
static const char *writable_parent(const char *dir, char buf[static PATH_MAX])
{
	snprintf(buf, PATH_MAX, "%s", dir);
	for (;;) {
		struct stat st;
		if (stat(*buf ? buf : "/", &st) == 0 &&
		    (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))))
			return *buf ? buf : "/";
		char *slash = strrchr(buf, '/');
		if (!slash || !*buf)
			return NULL;
		*slash = '\0';
	}
}

/* A program the unit may run as root: regular, executable, root's, and
 * not writable by its group or others. */
static int exec_ok(const struct stat *st, const char *what, const char *path, const char *where,
		   struct err *e)
{
	if (!S_ISREG(st->st_mode) || !(st->st_mode & S_IXUSR))
		return err_setx(e, EINVAL, "invalid %s '%s'%s: not an executable regular file",
				what, path, where);
	if (st->st_uid != 0)
		return err_setx(e, EPERM,
				"invalid %s '%s'%s: owned by uid %u, not root (the unit runs it "
				"as root at boot)",
				what, path, where, (unsigned int)st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return err_setx(e, EPERM,
				"invalid %s '%s'%s: writable by its group or others (mode %04o)",
				what, path, where, (unsigned int)(st->st_mode & 07777));
	return 0;
}

#define IBVF_PACKAGE_PATH "/usr/sbin/ibvf" /* where the Debian package installs it */

int persist_ibvf_path(struct sys *s, const char *path, char ret[static 256], struct err *e)
{
	char self[PATH_MAX], dir[PATH_MAX], buf[PATH_MAX];
	struct stat st;
	bool own = !path || !*path, tree = strcmp(sys_root(s), "/") != 0, package = false;
	if (own) {
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len <= 0)
			return err_set(e, errno, "cannot read '/proc/self/exe' (give --ibvf PATH)");
		self[len] = '\0';
		path = self;
		/* A node under --root or --sim runs its own ibvf, not this host's:
		 * this binary's path when the node has it there, else the
		 * package's. */
		if (tree && sys_stat(s, path, &st) < 0 &&
		    sys_stat(s, IBVF_PACKAGE_PATH, &st) == 0) {
			path = IBVF_PACKAGE_PATH;
			own = false;
			package = true;
		}
	}
	const char *what = own ? "this ibvf" : package ? "the node's ibvf" : "--ibvf";
	/* Before any message quotes it: the unit and the terminal get ASCII. */
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			return err_setx(e, EINVAL,
					"invalid %s path: byte %zu is a control character or not "
					"ASCII",
					what, (size_t)(c - path) + 1);
	if (path[0] != '/')
		return err_setx(e, EINVAL, "invalid --ibvf '%s': the unit needs an absolute path",
				path);
	if (strlen(path) >= 256 || strpbrk(path, " \t\n\\\"'$%;"))
		return err_setx(e, EINVAL,
				"invalid %s '%s': the unit takes a path under 256 bytes without "
				"spaces, quotes, '\\\\', '$', '%%' or ';'",
				what, path);
	if (own && !tree) { /* this binary: where it lies here */
		if (stat(path, &st) < 0)
			return err_set(e, errno, "invalid %s '%s'", what, path);
		int r = exec_ok(&st, what, path, "", e);
		if (r < 0)
			return r;
		snprintf(dir, sizeof(dir), "%s", path);
		*strrchr(dir, '/') = '\0';
		const char *w;
		if (in_build_tree(dir))
			return err_setx(e, EINVAL,
					"cannot put '%s' in the boot unit: it is in a build tree; "
					"install ibvf and run that, or give --ibvf PATH",
					path);
		if (!strncmp(path, "/tmp/", 5) || !strncmp(path, "/var/tmp/", 9))
			return err_setx(e, EINVAL,
					"cannot put '%s' in the boot unit: it is under a temporary "
					"directory; install ibvf, or give --ibvf PATH",
					path);
		if ((w = writable_parent(dir, buf)))
			return err_setx(e, EPERM,
					"cannot put '%s' in the boot unit: '%s' is writable by a "
					"non-root user; install ibvf, or give --ibvf PATH",
					path, w);
	}
	/* The unit runs it on the node at boot: it must be there (under the
	 * node's root for --root and --sim), as systemd would find it. */
	char where[PATH_MAX + 16] = "";
	if (tree)
		snprintf(where, sizeof(where), " (on the node under %s)", sys_root(s));
	int r = sys_stat(s, path, &st);
	if (r < 0)
		return err_set(e, -r, "invalid %s '%s'%s", what, path, where);
	if (!own || tree) {
		r = exec_ok(&st, what, path, where, e);
		if (r < 0)
			return r;
	}
	snprintf(ret, 256, "%s", path);
	return 0;
}

int persist_dry_check(struct sys *s, const struct node *n, const struct persist *ps, struct err *e)
{
	for (size_t i = 0; i < ps->n_cmds; i++) {
		struct plan *p = NULL;
		struct err pe = {{0}};
		int r = action_plan(s, n, &ps->cmds[i].req, &p, &pe);
		plan_free(p);
		if (r == -ENOMEM)
			return err_set(e, ENOMEM, "cannot check the unit's commands");
		if (r < 0)
			return err_setx(e, -r == EEXIST ? EEXIST : EINVAL,
					"cannot persist: the unit's line '%.200s' would be refused "
					"at boot: %.200s; nothing was written",
					ps->cmds[i].line, pe.msg);
	}
	return 0;
}

static int file_step(struct plan *p, const char *path, const char *content, size_t *changed,
		     struct err *e)
{
	char *old = NULL;
	int r = safefile_read(path, SAFEFILE_MAX, &old, e);
	if (r < 0)
		return r;
	if (!old || strcmp(old, content)) {
		r = plan_file(p, path, old, content);
		*changed += r == 0;
	}
	free(old);
	if (r == -ENAMETOOLONG)
		return err_setx(e, ENAMETOOLONG, "path too long: '%s'", path);
	return r;
}

static bool ours(const struct persist *ps, const char *name)
{
	for (size_t i = 0; i < ps->n_files; i++)
		if (!strcmp(ps->files[i].name, name))
			return true;
	return false;
}

/* Our .link files in dir for VFs the node has no more: removed, their
 * content kept in the plan (the journal) for undo. */
static int stale_steps(struct plan *p, const struct persist *ps, const char *dir, size_t *removed,
		       struct err *e)
{
	int fd, r = safefile_dir(dir, false, &fd, e);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return err_set(e, errno, "cannot list '%s'", dir);
	}
	char **names = NULL;
	size_t nn = 0;
	for (struct dirent *de; (de = readdir(d)) && r == 0 && nn < 4096;) {
		size_t len = strlen(de->d_name);
		if (strncmp(de->d_name, PERSIST_LINK_PREFIX, strlen(PERSIST_LINK_PREFIX)) ||
		    len < 6 || strcmp(de->d_name + len - 5, ".link") || ours(ps, de->d_name))
			continue;
		char **nv = realloc(names, (nn + 1) * sizeof(*nv));
		if (!nv || !(nv[nn] = strdup(de->d_name))) {
			names = nv ? nv : names;
			r = -ENOMEM;
			break;
		}
		names = nv;
		nn++;
	}
	closedir(d);
	/* readdir's order is the filesystem's: sort for a stable plan. */
	for (size_t i = 1; i < nn; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < nn && r == 0; i++) {
		char path[PATH_MAX], *old = NULL;
		struct err re = {{0}};
		plan_fmt(path, sizeof(path), "%s/%s", dir, names[i]);
		if (safefile_read(path, 64u << 10, &old, &re) < 0) {
			plan_note(p, "left alone: %.180s", re.msg);
			continue;
		}
		if (old && (r = plan_file(p, path, old, NULL)) == 0)
			(*removed)++;
		free(old);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return r == -ENOMEM ? err_set(e, ENOMEM, "cannot list '%s'", dir) : r;
}

static int cmp_link_path(const void *a, const void *b)
{
	const char *x = strrchr(((const struct link_file *)a)->path, '/'),
		   *y = strrchr(((const struct link_file *)b)->path, '/');
	return strcmp(x ? x : "", y ? y : "");
}

/* Whether persist writes a .link file for vf (its Path= is the VF's). */
static bool writes_link_for(const struct link_file *v, size_t n, const struct vf *vf)
{
	char path[32];
	snprintf(path, sizeof(path), "pci-%s", vf->fn.bdf);
	for (size_t i = 0; i < n; i++)
		if (v[i].n_match_path == 1 && !strcmp(v[i].match_path[0], path))
			return true;
	return false;
}

/* Whether the .link files persist writes will name each VF at the next
 * boot (core/persist/boot.h, with them in place): an earlier file that
 * matches a VF first defeats its file. Refused naming that file, or, with
 * force, a note. */
static int defeat_check(struct plan *p, const struct node *n, const struct persist *ps, bool force,
			struct err *e)
{
	struct link_file *mine = calloc(ps->n_files + 1, sizeof(*mine));
	size_t k = 0;
	int r = mine ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && i < ps->n_files; i++) {
		char path[320];
		if (strcmp(ps->files[i].subdir, "systemd/network"))
			continue;
		snprintf(path, sizeof(path), "/etc/%s/%s", ps->files[i].subdir, ps->files[i].name);
		if ((r = linkfile_parse(path, ps->files[i].content, &mine[k])) == 0)
			k++;
	}
	struct boot_links links = {0};
	if (r == 0) {
		qsort(mine, k, sizeof(*mine), cmp_link_path);
		r = boot_links_make(n, mine, k, &links);
	}
	size_t defeated = 0;
	char first[200] = "", by[256] = "";
	for (size_t i = 0; r == 0 && i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			struct boot_name b;
			const char *now = vf_host_name(vf);
			if (!now || !writes_link_for(mine, k, vf) ||
			    boot_vf_name(n, &links, &n->pfs[i], vf, &b) < 0 ||
			    (b.name[0] && !strcmp(b.name, now)))
				continue;
			if (!defeated++) {
				snprintf(first, sizeof(first), "%s (%s)", vf->fn.bdf, now);
				snprintf(by, sizeof(by), "%s", b.file ? b.file->path : "");
			}
		}
	boot_links_free(&links);
	for (size_t i = 0; i < k; i++)
		linkfile_fini(&mine[i]);
	free(mine);
	if (r < 0)
		return err_set(e, -r, "cannot check the .link files");
	if (!defeated)
		return 0;
	if (!force)
		return err_setx(
			e, EEXIST,
			"cannot persist: at the next boot %zu VF%s (%s first) would not get "
			"the name persist pins: '%s' matches %s first, and udev applies only "
			"the first matching .link file; narrow or remove it (or --force to "
			"write the files anyway); nothing was written",
			defeated, defeated == 1 ? "" : "s", first, by,
			defeated == 1 ? "it" : "them");
	plan_note(
		p,
		"forced: at the next boot %zu VF%s (%s first) will not get the name persist pins: "
		"'%s' matches first",
		defeated, defeated == 1 ? "" : "s", first, by);
	return 0;
}

/* The unit enabled as `systemctl enable` does from its [Install]
 * WantedBy=multi-user.target: a link in multi-user.target.wants/, unless
 * some .wants/ or .requires/ link starts it already. */
static int enable_step(struct plan *p, const struct node *n, const char *root, bool *ret,
		       struct err *e)
{
	char path[PATH_MAX], now[PATH_MAX];
	const char *target = "/etc/systemd/system/" PERSIST_UNIT;
	if (n->boot_unit.enabled_by)
		return 0;
	snprintf(path, sizeof(path), "%s/etc/systemd/system/multi-user.target.wants/%s", root,
		 PERSIST_UNIT);
	int r = safefile_readlink(path, now, sizeof(now), e);
	if (r == -EINVAL)
		return err_setx(e, EEXIST,
				"cannot enable %s: '%s' is there and is not a link; nothing was "
				"written",
				PERSIST_UNIT, path);
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == 0 && !strcmp(now, target))
		return 0;
	if ((r = plan_symlink(p, path, r == 0 ? now : NULL, target)) < 0)
		return r == -ENOMEM ? r : err_setx(e, -r, "path too long: '%s'", path);
	*ret = true;
	return 0;
}

int actions_plan_persist(struct sys *s, const struct node *n, const struct action_req *req,
			 struct plan *p, struct err *e)
{
	struct persist_opts po = {0};
	struct persist *ps = NULL;
	char ibvf[256], path[PATH_MAX], dir[PATH_MAX];
	const char *root = strcmp(sys_root(s), "/") ? sys_root(s) : "";
	size_t written = 0, removed = 0;
	bool enabled = false;
	int r;

	snprintf(p->subject, sizeof(p->subject), "%s", n->hostname ? n->hostname : "node");
	if ((r = persist_ibvf_path(s, req->path, ibvf, e)) < 0)
		return r;
	for (size_t i = 0; i < n->n_pfs; i++)
		if (action_persists_pf(&n->pfs[i]) &&
		    (r = action_refuse_operator(n, &n->pfs[i], ACTION_PERSIST, req->force,
						"persist (the boot unit would set them again)", p,
						e)) < 0)
			return r;
	if ((r = persist_refusals(n, e)) < 0)
		return r;
	po.ibvf = ibvf;
	if ((r = persist_build(n, &po, &ps, e)) < 0)
		return r;
	if (ps->n_unassigned) {
		r = err_setx(e, EINVAL,
			     "cannot persist: %zu VFs (%s first) have no valid GUIDs for the unit "
			     "to set; give them GUIDs first ('ibvf vf guid --assign-all'); nothing "
			     "was written",
			     ps->n_unassigned, ps->unassigned);
		goto out;
	}
	if ((r = persist_dry_check(s, n, ps, e)) < 0)
		goto out;
	if (!req->outdir[0] && (r = defeat_check(p, n, ps, req->force, e)) < 0)
		goto out;
	for (size_t i = 0; i < ps->n_files && r == 0; i++) {
		const struct persist_file *f = &ps->files[i];
		if (req->outdir[0])
			snprintf(path, sizeof(path), "%s/%s", req->outdir, f->name);
		else
			snprintf(path, sizeof(path), "%s/etc/%s/%s", root, f->subdir, f->name);
		r = file_step(p, path, f->content, &written, e);
	}
	snprintf(dir, sizeof(dir), "%s/etc/systemd/network", root);
	if (r == 0 && !req->outdir[0])
		r = stale_steps(p, ps, dir, &removed, e);
	if (r == 0 && !req->outdir[0])
		r = enable_step(p, n, root, &enabled, e);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < ps->n_notes; i++)
		plan_note(p, "%s", ps->notes[i]);
	snprintf(p->summary, sizeof(p->summary),
		 "the .link files of %zu VFs and %s: %zu to write, %zu stale to remove%s",
		 ps->n_files - 1, PERSIST_UNIT, written, removed,
		 enabled ? ", the unit to enable" : "");
	plan_note(p, "the unit runs %s", ibvf);
	if (p->n_steps && !req->outdir[0])
		plan_note(p,
			  "then: systemctl daemon-reload (systemd reads the files anew at boot "
			  "anyway); if the driver loads in the initramfs, update-initramfs -u so "
			  "the .link files apply there too");
out:
	persist_free(ps);
	return r;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : NULL;
}

static bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* Whether path lies inside root: a journal in a tree other than '/' (a
 * captured tree, a simulated node) is that tree's data, and so are the
 * paths in it. */
static bool inside(const char *root, const char *path)
{
	size_t n = strlen(root);
	return !strcmp(root, "/") || (!strncmp(path, root, n) && path[n] == '/');
}

/* A link the entry made (or changed): its old target back, or gone. */
static int link_undo(struct plan *p, const char *path, const char *was, const char *wrote,
		     long long id, struct err *e)
{
	char now[PATH_MAX];
	int r = safefile_readlink(path, now, sizeof(now), e);
	if (r < 0 && r != -ENOENT && r != -EINVAL)
		return r;
	const char *cur = r == 0 ? now : NULL;
	if (r == -EINVAL || !same(cur, wrote)) {
		if (r != -EINVAL && same(cur, was))
			return 0; /* as it was already */
		return err_setx(e, ESTALE,
				"cannot undo journal entry %lld: '%s' changed since; nothing was "
				"changed",
				id, path);
	}
	return plan_symlink(p, path, cur, was);
}

/* For each file the entry wrote or removed: its content back, or gone. */
static int undo_changes(struct plan *p, const char *root, struct json_object *changes, long long id,
			struct err *e)
{
	for (size_t i = 0; i < json_object_array_length(changes); i++) {
		struct json_object *c = json_object_array_get_idx(changes, i);
		const char *path = jstr(c, "path"), *was = jstr(c, "old_content"),
			   *wrote = jstr(c, "content");
		char *now = NULL;
		if (!strcmp(jstr(c, "kind") ?: "", "symlink") && path) {
			if (!inside(root, path))
				return err_setx(
					e, EPERM,
					"cannot undo journal entry %lld: '%s' is outside the "
					"tree '%s' the journal is in; nothing was changed",
					id, path, root);
			int r = link_undo(p, path, was, wrote, id, e);
			if (r < 0)
				return r;
			continue;
		}
		if (strcmp(jstr(c, "kind") ?: "", "file") || !path)
			return err_setx(
				e, EOPNOTSUPP,
				"cannot undo journal entry %lld: it changed more than files", id);
		if (!inside(root, path))
			return err_setx(e, EPERM,
					"cannot undo journal entry %lld: '%s' is outside the tree "
					"'%s' the journal is in; nothing was changed",
					id, path, root);
		int r = safefile_read(path, SAFEFILE_MAX, &now, e);
		if (r < 0)
			return r;
		/* Already as it was: a persist that failed part way never
		 * wrote it (the journal keeps every change of the plan). */
		if (same(now, was)) {
			free(now);
			continue;
		}
		if (!same(now, wrote)) {
			free(now);
			return err_setx(e, ESTALE,
					"cannot undo journal entry %lld: '%s' changed since; "
					"nothing was changed",
					id, path);
		}
		r = plan_file(p, path, now, was);
		free(now);
		if (r < 0)
			return r;
	}
	return 0;
}

int actions_plan_files_undo(struct sys *s, const struct node *n, const struct action_req *req,
			    struct plan *p, struct err *e)
{
	struct json_object *entries, *ent = NULL, *changes;
	int r = journal_read(s, &entries, NULL, e);
	if (r < 0)
		return r;
	snprintf(p->subject, sizeof(p->subject), "%s", n->hostname ? n->hostname : "node");
	if ((r = journal_find(entries, req->undo_of, &ent, e)) < 0)
		;
	else if (!json_object_object_get_ex(ent, "changes", &changes) || !changes)
		r = err_setx(e, ENOENT, "no journal entry %lld with files", req->undo_of);
	else
		r = undo_changes(p, sys_root(s), changes, req->undo_of, e);
	if (r == 0)
		snprintf(p->summary, sizeof(p->summary),
			 "restore the %zu files journal entry %lld wrote or removed", p->n_changes,
			 req->undo_of);
	json_object_put(entries);
	return r;
}
