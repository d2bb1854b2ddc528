// SPDX-License-Identifier: MIT
/* Applying a plan: privilege first, then a fresh look at the node (the plan
 * must still be the same), the steps in order until one fails, a re-read of
 * the node to verify each change, and the journal entry. */
#include "actions.h"
#include "planners.h"

#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include "core/checks/checks_int.h"
#include "core/base/guid.h"
#include "journal.h"
#include "core/snapshot/kmsg.h"
#include "lock.h"
#include "core/base/safefile.h"

static bool cap_effective(int cap)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

int action_check_privilege(const struct plan *p, struct err *e)
{
	bool sysfs = false, netlink = false, files = false;
	for (size_t i = 0; i < p->n_steps; i++)
		switch (p->steps[i].kind) {
		case STEP_WRITE:
		case STEP_BIND:
		case STEP_UNBIND:
			sysfs = true;
			break;
		case STEP_FILE_WRITE:
		case STEP_FILE_REMOVE:
		case STEP_SYMLINK:
			files = true;
			break;
		case STEP_WAIT_VFS:
		case STEP_WAIT_NETDEV:
			break;
		default:
			netlink = true;
		}
	if (netlink && !cap_effective(CAP_NET_ADMIN))
		return err_setx(e, EPERM,
				"'%s' needs CAP_NET_ADMIN to change links: run it as root "
				"(nothing was changed)",
				p->action);
	if (files && geteuid() != 0 && !cap_effective(CAP_DAC_OVERRIDE))
		return err_setx(e, EPERM,
				"'%s' needs root to write its files: run it as root (nothing was "
				"changed)",
				p->action);
	if (sysfs && geteuid() != 0 && !cap_effective(CAP_DAC_OVERRIDE))
		return err_setx(e, EPERM,
				"'%s' needs root to write to sysfs: run it as root (nothing was "
				"changed)",
				p->action);
	return 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The first entry of a function's net/ (or infiniband/) directory. */
static int fn_child(struct sys *s, const char *bdf, const char *sub, char *buf, size_t size)
{
	char path[128], **names;
	size_t n;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, sub);
	int r = sys_list(s, path, &names, &n);
	if (r < 0)
		return r;
	r = n ? 0 : -ENOENT;
	if (n)
		snprintf(buf, size, "%s", names[0]);
	sys_list_free(names, n);
	return r;
}

#define KMSG_READ_MAX (1u << 20) /* bytes of kernel log read for a probe failure */

/* The kernel log as a plan's waits read it: the newest record's time when
 * the plan's steps began (records after it are the plan's), and the records
 * of one poll, read at most once per poll and only when a VF lacks its
 * devices. */
struct wait_log {
	bool usable; /* the log was readable and stamped when the wait began */
	unsigned long long since;
	struct node *n; /* this poll's records */
};

static struct node *log_read(struct sys *s)
{
	char *text = NULL;
	size_t len;
	struct node *n = NULL;
	if (sys_read_kmsg(s, KMSG_READ_MAX, &text, &len) < 0)
		return NULL;
	if ((n = calloc(1, sizeof(*n))) && kmsg_parse(n, text, len) < 0) {
		node_free(n);
		n = NULL;
	}
	free(text);
	return n;
}

static void log_begin(struct sys *s, struct wait_log *l)
{
	struct node *n = log_read(s);
	*l = (struct wait_log){0};
	for (size_t i = 0; n && i < n->n_kmsg; i++)
		if (n->kmsg[i].ts_usec.known) {
			l->usable = true;
			if ((unsigned long long)n->kmsg[i].ts_usec.v > l->since)
				l->since = (unsigned long long)n->kmsg[i].ts_usec.v;
		}
	l->usable |= n && n->n_kmsg == 0;
	node_free(n);
}

/* A function with no driver whose probe failed during this wait, as the
 * kernel log says: no wait brings its devices (the driver gave up on it). */
static bool probe_failed(struct sys *s, struct wait_log *l, const char *bdf)
{
	char path[160];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	if (!l->usable || sys_exists(s, path) == 0)
		return false;
	if (!l->n && !(l->n = log_read(s)))
		return false;
	const struct kmsg_line *k = check_probe_failure(l->n, bdf);
	return k && k->ts_usec.known && (unsigned long long)k->ts_usec.v > l->since;
}

/* One poll of a wait: 0 when done, else what is still missing in why. A
 * VF whose probe failed is not waited for: it is named in skipped. */
static int wait_poll(struct sys *s, const struct step *st, struct wait_log *log, char *why,
		     size_t size, char *skipped, size_t skipped_size)
{
	char path[160], buf[64];
	if (st->kind == STEP_WAIT_VFS && st->count == 0) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/virtfn0", st->bdf);
		if (sys_exists(s, path) == 0) {
			snprintf(why, size, "%s still has VFs", st->bdf);
			return -EAGAIN;
		}
		return 0;
	}
	unsigned int n = st->kind == STEP_WAIT_VFS ? st->count : 1;
	for (unsigned int i = 0; i < n; i++) {
		char bdf[64];
		if (st->kind == STEP_WAIT_VFS) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/virtfn%u", st->bdf,
				 i);
			if (sys_readlink_name(s, path, bdf, sizeof(bdf)) <= 0) {
				snprintf(why, size, "VF %u of %s does not exist", i, st->bdf);
				return -EAGAIN;
			}
		} else {
			snprintf(bdf, sizeof(bdf), "%s", st->bdf);
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
			if (sys_exists(s, path) < 0) {
				snprintf(why, size, "%s is gone from the node", bdf);
				return -ENODEV;
			}
		}
		if (st->kind == STEP_WAIT_VFS && (st->want_netdev || st->want_ibdev) &&
		    fn_child(s, bdf, "net", buf, sizeof(buf)) < 0 &&
		    fn_child(s, bdf, "infiniband", buf, sizeof(buf)) < 0 &&
		    probe_failed(s, log, bdf)) {
			size_t l = strlen(skipped);
			snprintf(skipped + l, skipped_size - l, "%s%s", l ? ", " : "", bdf);
			continue;
		}
		if (st->want_netdev && fn_child(s, bdf, "net", buf, sizeof(buf)) < 0) {
			snprintf(why, size, "%s has no netdev", bdf);
			return -EAGAIN;
		}
		if (st->want_ibdev && fn_child(s, bdf, "infiniband", buf, sizeof(buf)) < 0) {
			snprintf(why, size, "%s has no RDMA device", bdf);
			return -EAGAIN;
		}
	}
	return 0;
}

static bool cancelled(const atomic_bool *cancel)
{
	return cancel && atomic_load(cancel);
}

static int run_wait(struct sys *s, struct step *st, struct wait_log *log, const atomic_bool *cancel,
		    struct err *e)
{
	char why[160] = "";
	long long deadline = now_ms() + (long long)(st->timeout_s ? st->timeout_s : 30) * 1000;
	for (;;) {
		char skipped[96] = "";
		int r = wait_poll(s, st, log, why, sizeof(why), skipped, sizeof(skipped));
		node_free(log->n);
		log->n = NULL;
		if (r == 0) {
			if (*skipped)
				snprintf(st->detail, sizeof(st->detail),
					 "failed to probe (kernel log), not waited for: %s",
					 skipped);
			return 0;
		}
		if (r != -EAGAIN)
			return err_setx(e, -r, "%s", why);
		if (cancelled(cancel))
			return err_setx(e, ECANCELED, "cancelled while waiting: %s", why);
		if (now_ms() >= deadline)
			return err_setx(e, ETIMEDOUT, "%s after %u s", why, st->timeout_s);
		sleep_ms(50);
	}
}

static bool link_is_up(struct sys *s, const char *ifname)
{
	char path[64 + SYS_IFNAMSIZ], buf[32];
	plan_fmt(path, sizeof(path), "/sys/class/net/%s/flags", ifname);
	return sys_read_attr(s, path, buf, sizeof(buf)) > 0 && (strtoul(buf, NULL, 0) & IFF_UP);
}

/* After a rebind: the function's netdev gets its old name back. */
static int run_rename_fn(struct sys *s, struct step *st, struct err *e)
{
	char cur[64];
	int r = fn_child(s, st->bdf, "net", cur, sizeof(cur));
	if (r < 0)
		return err_set(e, -r, "%s has no netdev to rename", st->bdf);
	if (!strcmp(cur, st->newname)) {
		snprintf(st->detail, sizeof(st->detail), "already '%s'", cur);
		return 0;
	}
	bool cycle = st->down_up && link_is_up(s, cur);
	if (cycle && (r = sys_link_set_up(s, cur, false, e)) < 0)
		return r;
	r = sys_link_rename(s, cur, st->newname, e);
	if (r < 0 && fn_child(s, st->bdf, "net", cur, sizeof(cur)) == 0 &&
	    !strcmp(cur, st->newname))
		r = 0; /* udev's .link file got there first */
	if (r < 0)
		return r;
	if (cycle && (r = sys_link_set_up(s, st->newname, true, e)) < 0)
		return r;
	snprintf(st->detail, sizeof(st->detail), "'%s' -> '%s'%s", cur, st->newname,
		 cycle ? " (down, rename, up)" : "");
	return 0;
}

static int run_step(struct sys *s, struct step *st, struct wait_log *log, const atomic_bool *cancel,
		    struct err *e)
{
	switch (st->kind) {
	case STEP_WRITE:
	case STEP_BIND:
	case STEP_UNBIND:
		return sys_write(s, st->path, st->value, e);
	case STEP_LINK_DOWN:
	case STEP_LINK_UP:
		return sys_link_set_up(s, st->ifname, st->kind == STEP_LINK_UP, e);
	case STEP_RENAME:
		return sys_link_rename(s, st->ifname, st->newname, e);
	case STEP_RENAME_FN:
		return run_rename_fn(s, st, e);
	case STEP_VF_GUID:
		return sys_vf_set_guid(s, st->ifname, st->vf, st->guid_kind, st->guid, e);
	case STEP_VF_STATE:
		return sys_vf_set_link_state(s, st->ifname, st->vf, st->state, e);
	case STEP_WAIT_VFS:
	case STEP_WAIT_NETDEV:
		return run_wait(s, st, log, cancel, e);
	case STEP_FILE_WRITE:
		return safefile_write(st->file, st->content, 0644, e);
	case STEP_FILE_REMOVE:
		return safefile_remove(st->file, e);
	case STEP_SYMLINK:
		return safefile_symlink(st->file, st->content, e);
	}
	return err_setx(e, EINVAL, "unknown step kind %d", (int)st->kind);
}

/* The plan made again on the node as it is now must have the same steps;
 * 1 when it has none (the node already is as asked). */
static int recheck(struct sys *s, const struct plan *p, const struct action_req *req, struct err *e)
{
	struct node *n;
	struct plan *again;
	int r = node_discover(s, &n, e);
	if (r < 0)
		return r;
	r = action_plan(s, n, req, &again, e);
	node_free(n);
	if (r < 0)
		return r;
	/* Another ibvf did it while this one waited for the lock. */
	bool nothing = again->n_steps == 0;
	bool same = again->n_steps == p->n_steps;
	for (size_t i = 0; same && i < p->n_steps; i++)
		same = !strcmp(again->steps[i].cmd, p->steps[i].cmd) &&
		       !strcmp(again->steps[i].content ?: "", p->steps[i].content ?: "");
	plan_free(again);
	if (nothing)
		return 1;
	if (!same)
		return err_setx(e, ESTALE,
				"the node changed since this plan was made: look at the new plan "
				"(nothing was changed)");
	return 0;
}

static void progress(const struct action_hooks *h, enum action_phase phase, size_t step)
{
	if (h && h->progress)
		h->progress(h->arg, phase, step);
}

static void lock_waiting(void *arg, pid_t holder)
{
	progress(arg, ACTION_PHASE_WAIT_LOCK, (size_t)holder);
}

/* Step i's status into the journal as it ends (the plan's started record
 * is there when journal_id is set); a failure is the final entry's to say. */
static void journal_record_step(struct sys *s, struct plan *p, size_t i)
{
	struct err e = {{0}};
	/* After one failure no more tries: each may wait for the lock. */
	if (p->journal_id && !p->journal_error[0] && journal_step(s, p, i, &e) < 0)
		plan_fmt(p->journal_error, sizeof(p->journal_error), "%s", e.msg);
}

/* Whether `journal undo` can revert the entry the plan just wrote. */
static bool undoable(struct sys *s, const struct plan *p)
{
	struct json_object *entries;
	struct action_req req;
	struct err e;
	if (!p->journal_id || journal_read(s, &entries, NULL, &e) < 0)
		return false;
	bool yes = journal_undo_req(entries, p->journal_id, &req, &e) == 0;
	json_object_put(entries);
	return yes;
}

/* The steps in order until one fails or the operator cancels. Returns the
 * failing step's error, or 0. */
static int run_steps(struct sys *s, struct plan *p, const struct action_hooks *h)
{
	const atomic_bool *cancel = h ? h->cancel : NULL;
	/* The kernel log before the first step: a probe that fails after it
	 * (the numvfs write probes the new VFs) ends a wait for that VF. */
	struct wait_log log = {0};
	for (size_t i = 0; i < p->n_steps; i++)
		if (p->steps[i].kind == STEP_WAIT_VFS && p->steps[i].count) {
			log_begin(s, &log);
			break;
		}
	for (size_t i = 0; i < p->n_steps; i++) {
		struct step *st = &p->steps[i];
		struct err se = {{0}};
		bool defer = plan_vf_unbound(p, i);
		if (!defer && cancelled(cancel)) {
			p->result = PLAN_CANCELLED;
			plan_fmt(p->error, sizeof(p->error),
				 "stopped before step %zu of %zu (%s): the steps before it ran",
				 i + 1, p->n_steps, st->cmd);
			return -ECANCELED;
		}
		progress(h, ACTION_PHASE_STEP, i);
		int r = run_step(s, st, &log, defer ? NULL : cancel, &se);
		if (r == -ECANCELED && cancelled(cancel)) {
			st->status = STEP_CANCELLED;
			journal_record_step(s, p, i);
			snprintf(st->error, sizeof(st->error), "%s", se.msg);
			p->result = PLAN_CANCELLED;
			plan_fmt(p->error, sizeof(p->error),
				 "stopped in step %zu of %zu (%s): the steps before it ran", i + 1,
				 p->n_steps, st->cmd);
			return r;
		}
		if (r < 0) {
			st->status = STEP_FAILED;
			snprintf(st->error, sizeof(st->error), "%s", se.msg);
			p->failed_step = (int)i;
			journal_record_step(s, p, i);
			p->result = PLAN_FAILED;
			plan_fmt(p->error, sizeof(p->error), "step %zu of %zu failed (%s): %s",
				 i + 1, p->n_steps, st->cmd, se.msg);
			return r;
		}
		st->status = STEP_OK;
		journal_record_step(s, p, i);
	}
	return 0;
}

int action_apply(struct sys *s, struct plan *p, const struct action_req *req,
		 struct node **ret_after, struct err *e)
{
	return action_apply_hooked(s, p, req, NULL, ret_after, e);
}

int action_apply_hooked(struct sys *s, struct plan *p, const struct action_req *req,
			const struct action_hooks *h, struct node **ret_after, struct err *e)
{
	struct node *after = NULL;
	int r;

	if (!p->n_steps) {
		p->result = PLAN_NOTHING;
		return 0;
	}
	progress(h, ACTION_PHASE_CHECK, 0);
	int lock = -1;
	if ((r = action_check_privilege(p, e)) < 0 ||
	    (r = node_lock_take(s, h && h->no_wait, h ? h->cancel : NULL, lock_waiting, (void *)h,
				&lock, e)) < 0 ||
	    (r = recheck(s, p, req, e)) < 0) {
		node_lock_release(lock);
		p->result = PLAN_REFUSED;
		snprintf(p->error, sizeof(p->error), "%s", e->msg);
		return r;
	}
	if (r == 1) {
		node_lock_release(lock);
		p->result = PLAN_NOTHING;
		return 0;
	}
	/* No step without its journal entry: an action nothing records cannot
	 * be undone, nor told apart from someone else's change. */
	struct err je = {{0}};
	if ((r = journal_begin(s, p, &je)) < 0) {
		node_lock_release(lock);
		p->result = PLAN_REFUSED;
		plan_fmt(p->error, sizeof(p->error), "%s: nothing was changed", je.msg);
		return err_setx(e, -r, "%s", p->error);
	}
	r = run_steps(s, p, h);
	progress(h, ACTION_PHASE_VERIFY, 0);
	struct err de = {{0}};
	if (node_discover(s, &after, &de) == 0) {
		for (size_t i = 0; i < p->n_changes; i++)
			action_verify_change(s, after, &p->changes[i]);
	}
	if (p->result != PLAN_FAILED && p->result != PLAN_CANCELLED) {
		p->result = PLAN_OK;
		for (size_t i = 0; i < p->n_changes && p->result == PLAN_OK; i++)
			if (!p->changes[i].verified) {
				p->result = PLAN_VERIFY_FAILED;
				plan_fmt(p->error, sizeof(p->error),
					 "every step ran, but the node disagrees: %s",
					 after ? p->changes[i].verify : de.msg);
			}
	}
	if (p->result == PLAN_FAILED || p->result == PLAN_CANCELLED)
		plan_restore(p);
	progress(h, ACTION_PHASE_JOURNAL, 0);
	if (journal_append(s, p, &je) < 0 && !p->journal_error[0])
		plan_fmt(p->journal_error, sizeof(p->journal_error), "%s", je.msg);
	if (p->result == PLAN_FAILED || p->result == PLAN_CANCELLED)
		p->undoable = undoable(s, p);
	node_lock_release(lock);
	if (ret_after)
		*ret_after = after;
	else
		node_free(after);
	if (p->result == PLAN_OK)
		return 0;
	err_setx(e, r < 0 ? -r : EIO, "%s", p->error);
	return p->result == PLAN_FAILED || p->result == PLAN_CANCELLED ? r : -EIO;
}
