// SPDX-License-Identifier: MIT
/* Plans and their steps: construction, the shell equivalent of each step,
 * and what a stopped plan leaves (plan_json.c: the JSON form). */
#include "plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>

#include "core/base/escape.h"
#include "core/base/guid.h"
#include "core/model/names.h"

#define STEPS_MAX 4096

int plan_new(const char *action, const char *subject, struct plan **ret)
{
	struct plan *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(p->action, sizeof(p->action), "%s", action);
	snprintf(p->subject, sizeof(p->subject), "%s", subject ? subject : "");
	p->failed_step = -1;
	*ret = p;
	return 0;
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_steps; i++)
		free(p->steps[i].content);
	for (size_t i = 0; i < p->n_changes; i++) {
		free(p->changes[i].old_content);
		free(p->changes[i].new_content);
	}
	free(p->steps);
	free(p->changes);
	free(p);
}

struct step *plan_add_step(struct plan *p, enum step_kind kind)
{
	if (p->n_steps >= STEPS_MAX)
		return NULL;
	struct step *s = realloc(p->steps, (p->n_steps + 1) * sizeof(*s));
	if (!s)
		return NULL;
	p->steps = s;
	s = &p->steps[p->n_steps++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	return s;
}

struct change *plan_add_change(struct plan *p, enum change_kind kind)
{
	struct change *c = realloc(p->changes, (p->n_changes + 1) * sizeof(*c));
	if (!c)
		return NULL;
	p->changes = c;
	c = &p->changes[p->n_changes++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	return c;
}

void plan_note(struct plan *p, const char *fmt, ...)
{
	if (p->n_notes >= PLAN_NOTES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->n_notes++], sizeof(p->notes[0]), fmt, ap);
	va_end(ap);
}

int plan_fmt(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(dst, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

#define SET(field, ...) plan_fmt(field, sizeof(field), __VA_ARGS__)

/* The step's shell equivalent from fmt: %q is a word from the node or the
 * user, quoted for the shell (core/base/escape.h: 'a$(id)', $'\033'); %s is
 * ibvf's own text (syntax, fixed words), %u a number. Cut, ending in "...",
 * when it does not fit. */
static void cmd_set(struct step *s, const char *fmt, ...)
{
	char *buf = s->cmd, num[16];
	size_t size = sizeof(s->cmd), len = 0;
	bool ok = true;
	va_list ap;
	va_start(ap, fmt);
	buf[0] = '\0';
	for (const char *f = fmt; ok && *f; f++) {
		const char *lit = f;
		size_t n = 1;
		if (*f == '%' && *++f == 'q') {
			ok = escape_shell_word(buf, size, &len, va_arg(ap, const char *));
			continue;
		}
		if (lit != f) { /* %s or %u */
			if (*f == 'u')
				snprintf(num, sizeof(num), "%u", va_arg(ap, unsigned int));
			lit = *f == 'u' ? num : va_arg(ap, const char *);
			n = strlen(lit);
		}
		ok = len + n < size;
		if (ok) {
			memcpy(buf + len, lit, n);
			buf[len += n] = '\0';
		}
	}
	va_end(ap);
	if (!ok)
		memcpy(buf + (len + 4 < size ? len : size - 4), "...", 4);
}

int plan_write(struct plan *p, const char *path, const char *value, const char *desc)
{
	struct step *s = plan_add_step(p, STEP_WRITE);
	if (!s)
		return -ENOMEM;
	SET(s->path, "%s", path);
	SET(s->value, "%s", value);
	SET(s->desc, "%s", desc);
	cmd_set(s, "echo %q > %q", value, path);
	return 0;
}

static int bind_step(struct plan *p, enum step_kind kind, const char *driver, const char *bdf)
{
	const char *verb = kind == STEP_BIND ? "bind" : "unbind";
	struct step *s = plan_add_step(p, kind);
	if (!s)
		return -ENOMEM;
	SET(s->path, "/sys/bus/pci/drivers/%s/%s", driver, verb);
	SET(s->value, "%s", bdf);
	SET(s->bdf, "%s", bdf);
	SET(s->desc, "%s %s %s %s", verb, bdf, kind == STEP_BIND ? "to" : "from", driver);
	cmd_set(s, "echo %q > %q", bdf, s->path);
	return 0;
}

int plan_unbind(struct plan *p, const char *driver, const char *bdf)
{
	return bind_step(p, STEP_UNBIND, driver, bdf);
}

int plan_bind(struct plan *p, const char *driver, const char *bdf)
{
	return bind_step(p, STEP_BIND, driver, bdf);
}

int plan_link_up(struct plan *p, const char *ifname, bool up)
{
	struct step *s = plan_add_step(p, up ? STEP_LINK_UP : STEP_LINK_DOWN);
	if (!s)
		return -ENOMEM;
	SET(s->ifname, "%s", ifname);
	SET(s->desc, "set '%s' %s", ifname, up ? "up" : "down");
	cmd_set(s, "ip link set dev %q %s", ifname, up ? "up" : "down");
	return 0;
}

int plan_rename(struct plan *p, const char *ifname, const char *newname)
{
	struct step *s = plan_add_step(p, STEP_RENAME);
	if (!s)
		return -ENOMEM;
	SET(s->ifname, "%s", ifname);
	SET(s->newname, "%s", newname);
	SET(s->desc, "rename '%s' to '%s'", ifname, newname);
	cmd_set(s, "ip link set dev %q name %q", ifname, newname);
	return 0;
}

int plan_rename_fn(struct plan *p, const char *bdf, const char *newname, bool down_up)
{
	struct step *s = plan_add_step(p, STEP_RENAME_FN);
	if (!s)
		return -ENOMEM;
	SET(s->bdf, "%s", bdf);
	SET(s->newname, "%s", newname);
	s->down_up = down_up;
	SET(s->desc, "give %s's new netdev its name '%s' back%s", bdf, newname,
	    down_up ? " (down, rename, up)" : "");
	char dir[64];
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s/net", bdf);
	cmd_set(s, "ip link set dev \"$(ls %q)\" name %q", dir, newname);
	return 0;
}

int plan_vf_guid(struct plan *p, const char *pf_ifname, unsigned int vf, enum sys_guid_kind kind,
		 uint64_t guid)
{
	const char *what = kind == SYS_GUID_NODE ? "node" : "port";
	char g[GUID_STRLEN], colon[GUID_STRLEN];
	struct step *s = plan_add_step(p, STEP_VF_GUID);
	if (!s)
		return -ENOMEM;
	guid_format_sysfs(guid, g);
	guid_format_colon(guid, colon); /* the form ip link takes */
	SET(s->ifname, "%s", pf_ifname);
	s->vf = vf;
	s->guid_kind = kind;
	s->guid = guid;
	SET(s->desc, "set the %s GUID of VF %u of '%s' to %s (ip link takes the colon form)", what,
	    vf, pf_ifname, g);
	cmd_set(s, "ip link set dev %q vf %u %s_guid %s", pf_ifname, vf, what, colon);
	return 0;
}

int plan_vf_state(struct plan *p, const char *pf_ifname, unsigned int vf, int state)
{
	const char *name = vf_link_state_to_string(state);
	struct step *s = plan_add_step(p, STEP_VF_STATE);
	if (!s)
		return -ENOMEM;
	if (!name)
		return -EINVAL;
	SET(s->ifname, "%s", pf_ifname);
	s->vf = vf;
	s->state = state;
	SET(s->desc, "set the link state of VF %u of '%s' to %s", vf, pf_ifname, name);
	cmd_set(s, "ip link set dev %q vf %u state %s", pf_ifname, vf, name);
	return 0;
}

int plan_wait_vfs(struct plan *p, const char *pf_bdf, unsigned int count, bool want_netdev,
		  bool want_ibdev, unsigned int timeout_s)
{
	struct step *s = plan_add_step(p, STEP_WAIT_VFS);
	if (!s)
		return -ENOMEM;
	SET(s->bdf, "%s", pf_bdf);
	s->count = count;
	s->timeout_s = timeout_s;
	s->want_netdev = want_netdev;
	s->want_ibdev = want_ibdev;
	if (count == 0)
		SET(s->desc, "wait up to %u s until the VFs of %s are gone", timeout_s, pf_bdf);
	else
		SET(s->desc, "wait up to %u s for %u VFs of %s%s", timeout_s, count, pf_bdf,
		    want_ibdev	  ? " with their netdevs and RDMA devices"
		    : want_netdev ? " with their netdevs"
				  : "");
	SET(s->cmd, "udevadm settle --timeout=%u", timeout_s);
	return 0;
}

int plan_wait_netdev(struct plan *p, const char *bdf, bool want_ibdev, unsigned int timeout_s)
{
	struct step *s = plan_add_step(p, STEP_WAIT_NETDEV);
	if (!s)
		return -ENOMEM;
	SET(s->bdf, "%s", bdf);
	s->want_netdev = true;
	s->want_ibdev = want_ibdev;
	s->timeout_s = timeout_s;
	SET(s->desc, "wait up to %u s for %s's netdev%s", timeout_s, bdf,
	    want_ibdev ? " and RDMA device" : "");
	SET(s->cmd, "udevadm settle --timeout=%u", timeout_s);
	return 0;
}

static void file_state(char *buf, size_t size, const char *content)
{
	if (content)
		snprintf(buf, size, "%zu bytes", strlen(content));
	else
		snprintf(buf, size, "absent");
}

int plan_file(struct plan *p, const char *path, const char *old, const char *content)
{
	char *copy = content ? strdup(content) : NULL, *c_old = old ? strdup(old) : NULL,
	     *c_new = content ? strdup(content) : NULL;
	struct step *s = (!content || (copy && c_new)) && (!old || c_old)
				 ? plan_add_step(p, content ? STEP_FILE_WRITE : STEP_FILE_REMOVE)
				 : NULL;
	struct change *c = s ? plan_add_change(p, CHANGE_FILE) : NULL;
	if (!c) {
		if (s)
			p->n_steps--;
		free(copy);
		free(c_old);
		free(c_new);
		return -ENOMEM;
	}
	if (SET(s->file, "%s", path) < 0) {
		p->n_steps--;
		p->n_changes--;
		free(copy);
		free(c_old);
		free(c_new);
		return -ENAMETOOLONG;
	}
	s->content = copy;
	if (content) {
		size_t lines = 0;
		for (const char *q = content; *q; q++)
			lines += *q == '\n';
		SET(s->desc, "%s %s (%zu lines, mode 0644)", old ? "replace" : "write", path,
		    lines);
		cmd_set(s, "install -m 0644 /dev/stdin %q", path);
	} else {
		SET(s->desc, "remove %s", path);
		cmd_set(s, "rm -- %q", path);
	}
	SET(c->file, "%s", path);
	c->old_content = c_old;
	c->new_content = c_new;
	file_state(c->before, sizeof(c->before), old);
	file_state(c->after, sizeof(c->after), content);
	return 0;
}

int plan_symlink(struct plan *p, const char *path, const char *old, const char *target)
{
	char *copy = target ? strdup(target) : NULL, *c_old = old ? strdup(old) : NULL,
	     *c_new = target ? strdup(target) : NULL;
	struct step *s = (!target || (copy && c_new)) && (!old || c_old)
				 ? plan_add_step(p, target ? STEP_SYMLINK : STEP_FILE_REMOVE)
				 : NULL;
	struct change *c = s ? plan_add_change(p, CHANGE_SYMLINK) : NULL;
	if (!c || SET(s->file, "%s", path) < 0) {
		int r = c ? -ENAMETOOLONG : -ENOMEM;
		if (s)
			p->n_steps--;
		if (c)
			p->n_changes--;
		free(copy);
		free(c_old);
		free(c_new);
		return r;
	}
	s->content = copy;
	if (target) {
		SET(s->desc, "link %s -> %s", path, target);
		cmd_set(s, "ln -sfn %q %q", target, path);
	} else {
		SET(s->desc, "remove the link %s", path);
		cmd_set(s, "rm -- %q", path);
	}
	SET(c->file, "%s", path);
	c->old_content = c_old;
	c->new_content = c_new;
	snprintf(c->before, sizeof(c->before), "%s", old ? "link" : "absent");
	snprintf(c->after, sizeof(c->after), "%s", target ? "link" : "absent");
	return 0;
}

/* The index of the BIND that binds again what UNBIND step k unbound
 * (n_steps when none: unbound again later, or never bound). */
static size_t bind_of(const struct plan *p, size_t k)
{
	const struct step *u = &p->steps[k];
	for (size_t j = k + 1; j < p->n_steps; j++) {
		const struct step *b = &p->steps[j];
		if (b->kind == STEP_UNBIND && !strcmp(b->value, u->value))
			break; /* unbound again later: that one's bind decides */
		if (b->kind == STEP_BIND && !strcmp(b->value, u->value))
			return j;
	}
	return p->n_steps;
}

bool plan_vf_unbound(const struct plan *p, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (p->steps[k].kind == STEP_UNBIND && p->steps[k].status == STEP_OK) {
			size_t j = bind_of(p, k);
			if (j < p->n_steps && j >= i)
				return true;
		}
	return false;
}

void plan_restore(struct plan *p)
{
	size_t len = 0;
	p->restore[0] = '\0';
	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step *u = &p->steps[i];
		if (u->kind != STEP_UNBIND || u->status != STEP_OK)
			continue;
		size_t j = bind_of(p, i);
		const struct step *bind = j < p->n_steps ? &p->steps[j] : NULL;
		if (bind && bind->status == STEP_OK)
			continue;
		struct step b = {.kind = STEP_BIND};
		if (bind) {
			snprintf(b.cmd, sizeof(b.cmd), "%s", bind->cmd);
		} else {
			/* .../drivers/D/unbind -> .../drivers/D/bind, quoted as
			 * the plan's own lines are */
			snprintf(b.path, sizeof(b.path), "%s", u->path);
			char *slash = strrchr(b.path, '/');
			if (!slash)
				continue;
			snprintf(slash + 1, sizeof(b.path) - (size_t)(slash + 1 - b.path), "bind");
			cmd_set(&b, "echo %q > %q", u->value, b.path);
		}
		int n = snprintf(p->restore + len, sizeof(p->restore) - len, "%s%s",
				 len ? "\n" : "", b.cmd);
		if (n < 0 || (size_t)n >= sizeof(p->restore) - len) {
			p->restore[len] = '\0'; /* whole commands only */
			break;
		}
		len += (size_t)n;
	}
}

const char *plan_result_name(enum plan_result r)
{
	static const char *const names[] = {
		[PLAN_NOT_RUN] = "not-run",
		[PLAN_NOTHING] = "nothing-to-do",
		[PLAN_OK] = "ok",
		[PLAN_REFUSED] = "refused",
		[PLAN_FAILED] = "failed",
		[PLAN_VERIFY_FAILED] = "verify-failed",
		[PLAN_CANCELLED] = "cancelled",
	};
	return (size_t)r < sizeof(names) / sizeof(*names) ? names[r] : "?";
}

static const char *const change_names[] = {
	[CHANGE_NUMVFS] = "numvfs",	    [CHANGE_NAME] = "name",
	[CHANGE_NODE_GUID] = "node_guid",   [CHANGE_PORT_GUID] = "port_guid",
	[CHANGE_LINK_STATE] = "link_state", [CHANGE_FILE] = "file",
	[CHANGE_SYMLINK] = "symlink",
};

const char *change_kind_name(enum change_kind k)
{
	return (size_t)k < sizeof(change_names) / sizeof(*change_names) ? change_names[k] : "?";
}

int change_kind_parse(const char *s)
{
	for (size_t i = 0; s && i < sizeof(change_names) / sizeof(*change_names); i++)
		if (!strcmp(s, change_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *step_status_name(enum step_status s)
{
	return s == STEP_OK	     ? "ok"
	       : s == STEP_FAILED    ? "failed"
	       : s == STEP_CANCELLED ? "cancelled"
				     : "not-run";
}
