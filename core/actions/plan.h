/* SPDX-License-Identifier: MIT */
/* A plan: what an action will do to the node, as an ordered list of steps.
 *
 * The same plan feeds the preview (--dry-run, the console's confirmation),
 * the apply (core/actions/apply.c) and the journal (core/actions/journal.c). Each step knows
 * the shell command that does the same thing, so an operator can read the
 * preview and reproduce it by hand. The plan also lists the changes it makes
 * (before -> after), which the apply verifies on the re-read node and the
 * journal keeps for undo. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/sys/sys.h"

enum step_kind {
	STEP_WRITE,	  /* a sysfs attribute (sriov_numvfs, MOFED sriov/<vf>/...) */
	STEP_UNBIND,	  /* a PCI function from its driver */
	STEP_BIND,	  /* a PCI function to a driver */
	STEP_LINK_DOWN,	  /* netlink: clear IFF_UP */
	STEP_LINK_UP,	  /* netlink: set IFF_UP */
	STEP_RENAME,	  /* netlink: IFLA_IFNAME */
	STEP_RENAME_FN,	  /* rename whatever netdev the function has now (after a rebind) */
	STEP_VF_GUID,	  /* netlink on the PF: IFLA_VF_IB_{NODE,PORT}_GUID */
	STEP_VF_STATE,	  /* netlink on the PF: IFLA_VF_LINK_STATE */
	STEP_WAIT_VFS,	  /* until the PF has `count` VFs, with their devices */
	STEP_WAIT_NETDEV, /* until the function has a netdev (and an ibdev) again */
	STEP_FILE_WRITE,  /* a file outside sysfs (persist): content, mode 0644 */
	STEP_FILE_REMOVE, /* a file outside sysfs (persist's stale .link files) */
	STEP_SYMLINK,	  /* a symbolic link (persist enabling its unit): file -> content */
};

enum step_status {
	STEP_PENDING,
	STEP_OK,
	STEP_FAILED,
	STEP_CANCELLED, /* a wait the operator stopped (waits change nothing) */
};

struct step {
	enum step_kind kind;
	char path[160];		   /* WRITE, BIND, UNBIND: the sysfs file */
	char value[64];		   /* WRITE, BIND, UNBIND: what is written */
	char ifname[SYS_IFNAMSIZ]; /* link steps: the netdev; VF steps: the PF's netdev */
	char newname[SYS_IFNAMSIZ];
	char bdf[16];		/* the function a wait or RENAME_FN is about; WAIT_VFS: the PF */
	unsigned int vf;	/* VF steps: the VF index */
	unsigned int count;	/* WAIT_VFS: how many VFs */
	unsigned int timeout_s; /* waits */
	enum sys_guid_kind guid_kind;
	uint64_t guid;
	int state;	  /* VF_STATE: IFLA_VF_LINK_STATE_* */
	bool want_netdev; /* waits: a netdev must appear */
	bool want_ibdev;  /* waits: an ibdev must appear too */
	bool down_up;	  /* RENAME_FN: the link goes down around the rename (kernel < 6.2) */
	char desc[160];	  /* what the step does, for people */
	char cmd[320];	  /* the equivalent shell command */
	char file[256];	  /* FILE_*: the absolute path (under the node's root) */
	char *content;	  /* FILE_WRITE: what is written (owned by the step) */
	/* Filled in by the apply. */
	enum step_status status;
	char detail[128]; /* what happened when it is not obvious ("'ib5' -> 'ibp24s0v3'") */
	char error[512];
};

enum change_kind {
	CHANGE_NUMVFS,
	CHANGE_NAME,
	CHANGE_NODE_GUID,
	CHANGE_PORT_GUID,
	CHANGE_LINK_STATE,
	CHANGE_FILE,	/* a file's content: before/after "absent" or "N bytes" */
	CHANGE_SYMLINK, /* a symbolic link: its target (old_content/new_content) */
};

/* One value the plan changes; identity by PCI address (and VF index). A
 * plain link (not a PCI function) has an empty bdf and its ifindex. */
struct change {
	enum change_kind kind;
	char bdf[16]; /* NUMVFS: the PF; else the VF */
	char pf[16];
	unsigned int vf;
	int ifindex;
	char before[64], after[64]; /* as the kernel writes them; "" when unknown */
	bool verified;
	char verify[160]; /* why verification failed */
	/* FILE: the path and both contents, NULL when the file is absent (owned
	 * by the change; the journal keeps them for undo). */
	char file[256];
	char *old_content, *new_content;
};

enum plan_result {
	PLAN_NOT_RUN,
	PLAN_NOTHING, /* nothing to do: the node already is as asked */
	PLAN_OK,
	PLAN_REFUSED,	    /* a precondition failed at apply time; nothing was done */
	PLAN_FAILED,	    /* a step failed; the steps before it were done */
	PLAN_VERIFY_FAILED, /* every step ran but the re-read node disagrees */
	PLAN_CANCELLED,	    /* the operator stopped it between steps; the steps before ran */
};

#define PLAN_NOTES_MAX 16

struct plan {
	char action[24];   /* "vf create", "vf rename", "vf guid", "vf state" */
	char subject[64];  /* the PF or VF (BDF), or a plain link's name */
	char summary[200]; /* one line: "rename VF 3 of 0000:18:00.0 'ib3' -> 'ibp24s0v3'" */
	bool destructive;  /* cuts VF traffic (numvfs, unbind): confirmation defaults to no */
	char notes[PLAN_NOTES_MAX][200];
	size_t n_notes;
	struct step *steps;
	size_t n_steps;
	struct change *changes;
	size_t n_changes;
	/* Filled in by the apply. */
	enum plan_result result;
	int failed_step; /* index, -1 when none failed */
	char error[512];
	long long journal_id; /* 0 when not journaled */
	char journal_error[256];
	long long undo_of; /* the journal entry this plan undoes, 0 if none */
	/* A plan that stopped part way: the commands (one a line) that bind
	 * again the functions its steps left without a driver, and whether
	 * `journal undo` reverts what ran. */
	char restore[512];
	bool undoable;
};

int plan_new(const char *action, const char *subject, struct plan **ret);
void plan_free(struct plan *p);

/* Appends a zeroed step / change and returns it (NULL on ENOMEM). */
struct step *plan_add_step(struct plan *p, enum step_kind kind);
struct change *plan_add_change(struct plan *p, enum change_kind kind);
void plan_note(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Step constructors: they fill desc and cmd (the shell equivalent). */
int plan_write(struct plan *p, const char *path, const char *value, const char *desc);
int plan_unbind(struct plan *p, const char *driver, const char *bdf);
int plan_bind(struct plan *p, const char *driver, const char *bdf);
int plan_link_up(struct plan *p, const char *ifname, bool up);
int plan_rename(struct plan *p, const char *ifname, const char *newname);
int plan_rename_fn(struct plan *p, const char *bdf, const char *newname, bool down_up);
int plan_vf_guid(struct plan *p, const char *pf_ifname, unsigned int vf, enum sys_guid_kind kind,
		 uint64_t guid);
int plan_vf_state(struct plan *p, const char *pf_ifname, unsigned int vf, int state);
int plan_wait_vfs(struct plan *p, const char *pf_bdf, unsigned int count, bool want_netdev,
		  bool want_ibdev, unsigned int timeout_s);
int plan_wait_netdev(struct plan *p, const char *bdf, bool want_ibdev, unsigned int timeout_s);
/* A file written (content NULL: removed) and its change, old its content
 * now (NULL: absent). Both are copied. */
int plan_file(struct plan *p, const char *path, const char *old, const char *content);
/* A step and change making path a link to target (NULL: removing the link
 * path, whose target is old). -ENOMEM, -ENAMETOOLONG. */
int plan_symlink(struct plan *p, const char *path, const char *old, const char *target);

/* snprintf that truncates on purpose (messages into fixed fields); returns
 * -ENAMETOOLONG when it did. */
int plan_fmt(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether a VF unbound by a step before i has its bind still to come (at i
 * or later): a stop waits for it (an unbound VF has no netdev, no RDMA
 * device), so a signal never leaves a VF without its driver. */
bool plan_vf_unbound(const struct plan *p, size_t i);
/* Fills p->restore from the steps' status: each function an UNBIND that
 * ran left without a driver (its BIND failed or did not run). */
void plan_restore(struct plan *p);

const char *plan_result_name(enum plan_result r);
const char *change_kind_name(enum change_kind k);
int change_kind_parse(const char *s);
const char *step_status_name(enum step_status s);

/* The plan as JSON: the one serialisation, shared by --json, the journal and
 * the text rendering. */
struct json_object *plan_to_json(const struct plan *p);
/* A plan's or journal entry's GUID changes (before, after) in JSON's one
 * GUID form (docs/json.md), for --json and the journal; plan_to_json keeps
 * the form the plan's commands and its text take (ip link's). Entries
 * journalled in the older form are shown alike. */
void plan_json_guids(struct json_object *entry);
