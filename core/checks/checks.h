/* SPDX-License-Identifier: MIT */
/* Diagnosis: what is wrong on the node, each finding with its evidence, why it
 * matters and its remedy. Checks read the model (struct node) only: no check
 * touches the kernel or a file, so `ibvf check`, `list --json` and the console
 * show the same findings for the same snapshot.
 *
 *   struct findings fs = {0};
 *   checks_run(node, NULL, &fs);          // every check, in table order
 *   struct json_object *j = findings_to_json(&fs);
 *   findings_fini(&fs);
 *
 * A check is a row of checks_table (core/checks/checks.c): a stable id
 * ("guid-duplicate"), a title, why it matters, and a function that adds one
 * finding per affected function (its subject, a PF or VF by PCI address, or the
 * node). The remedy is either an ibvf command line (argv, run through the same
 * plan -> preview -> confirm -> apply path as `ibvf vf`) or manual steps ibvf
 * must not run itself (driver install, firmware, mlxconfig). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/model/node.h"

#define CHECKS_JSON_VERSION  2	   /* as JSON_DOC_VERSION (json.h): GUIDs in rdma's form */
#define FINDINGS_MAX	     65536 /* beyond, checks stop adding (n_dropped counts) */
#define FINDING_EVIDENCE_MAX 8
#define FINDING_STEPS_MAX    8

enum check_severity {
	CHECK_INFO = 0,
	CHECK_WARNING = 1,
	CHECK_CRITICAL = 2,
};

/* One fact behind a finding: the file (as its path on a running node) or the
 * kernel-log record, and the value read there. */
struct finding_evidence {
	char *where; /* "/sys/class/infiniband/mlx5_12/node_guid", "kernel log [12.345678]" */
	char *value; /* "0000:0000:0000:0000", the log line */
};

enum remedy_kind {
	REMEDY_NONE = 0, /* nothing to do but look (info) */
	REMEDY_IBVF,	 /* argv: an ibvf command line, without the program name */
	REMEDY_MANUAL,	 /* steps: what the operator runs; ibvf never does */
};

struct finding_remedy {
	enum remedy_kind kind;
	char *summary;			/* one line: "give the VF a GUID of its own" */
	char *steps[FINDING_STEPS_MAX]; /* REMEDY_IBVF: argv; REMEDY_MANUAL: one step each */
	size_t n_steps;
};

enum finding_subject {
	SUBJECT_NODE,
	SUBJECT_PF,
	SUBJECT_VF,
};

/* How far a finding reaches beyond its subject: what `ibvf check DEV` shows
 * for DEV besides DEV's own findings (report.h, finding_reaches()). */
enum check_reach {
	REACH_SUBJECT = 0, /* its subject only (a node finding naming no function of the node) */
	REACH_BELOW,	   /* also below it: a node finding every PF and VF, a PF finding its VFs */
};

/* The finding that explains another (check_causes_table): its check's id
 * (NULL: none) and subject ("" for the node). */
struct finding_ref {
	const char *id;
	char subject[16];
};

struct finding {
	const char *id; /* the check's id: points into checks_table */
	enum check_severity severity;
	enum finding_subject kind;
	char subject[16];	/* PCI address of the PF or VF; "" for the node */
	enum check_reach reach; /* the check's; a finding may differ */
	char *title;		/* one line naming the subject and the fault */
	const char *why;	/* the check's one sentence, or a finding's own */
	struct finding_evidence evidence[FINDING_EVIDENCE_MAX];
	size_t n_evidence;
	struct finding_remedy remedy;
	/* For the links between findings (core/checks/group.c): */
	char topic[128];	  /* what it concerns besides its subject, as its check says:
				   * a device plugin resource, a PF; "" none */
	char pf[16];		  /* the subject's PF ("" for the node) */
	char pf_label[64];	  /* that PF's RDMA device, else its address */
	struct finding_ref cause; /* the finding that explains it, if any */
	size_t group;		  /* the problem it is shown under (1, 2, ...; 0 none) */
};

/* A problem: what an operator reads first. One finding, or the findings of
 * one check on many functions of one PF (or across the node when one
 * command fixes them all), with the findings they explain folded in. */
struct problem {
	size_t id;		      /* 1, 2, ...: the findings' group */
	const char *check;	      /* the check's id */
	enum check_severity severity; /* the worst of its findings and consequences */
	char *title;	 /* "zero GUID on 7 VFs of mlx5_0: 18:00.1, 18:00.3 … 18:01.0" */
	size_t *members; /* indices into findings->v: the group, in order */
	size_t n_members;
	size_t *consequences; /* indices of the findings they explain */
	size_t n_consequences;
	struct finding_remedy remedy; /* one for the group (a batch form, else the first's) */
	bool for_each;		      /* the remedy is the first member's: run it for each */
};

struct findings {
	struct finding *v;
	size_t n, alloc;
	size_t n_dropped;	  /* beyond FINDINGS_MAX */
	struct problem *problems; /* findings_group(): severity first, then findings' order */
	size_t n_problems;
};

/* Which check's finding explains which (check_causes_table, core/checks/checks.c):
 * how the cause's subject relates to the consequence's. */
enum cause_scope {
	CAUSE_SAME,	     /* the same function */
	CAUSE_NODE,	     /* the cause is the node's: any consequence */
	CAUSE_PF,	     /* the cause is on a PF: the PF itself or its VFs */
	CAUSE_PF_TOPIC,	     /* the cause is on a PF the consequence's topic names */
	CAUSE_TOPIC,	     /* both have the same topic (a device plugin resource) */
	CAUSE_SUBJECT_TOPIC, /* the cause's subject is the function the consequence's topic names */
};

struct check_cause {
	const char *cause, *effect; /* check ids */
	enum cause_scope scope;
};

extern const struct check_cause check_causes_table[];
extern const size_t check_causes_table_len;

/* One command that fixes every finding of a check at once (the batch form
 * of the findings' own remedy: `vf guid --assign-all`, `vf rename --all`).
 * A finding is in the batch when its remedy's argv starts with prefix. */
struct check_batch {
	const char *id;
	const char *prefix[3]; /* {"vf", "guid", NULL} */
	const char *summary;
	const char *argv[4];
};

extern const struct check_batch check_batches_table[];
extern const size_t check_batches_table_len;

/* A name seen to change while ibvf ran (the console records them). */
struct name_change {
	char bdf[16];
	char old_name[16], new_name[16];
};

/* The node's past as the checks read it: plain facts the recorded history
 * (core/history/facts.h) gives, each with its wall-clock time (microseconds
 * since the epoch). The checks never read the store themselves. */
#define CHECK_PAST_NAME_MAX    64 /* a netdev (15) or RDMA device name (64) */
#define CHECK_PAST_VALUE_MAX   96 /* a GUID, the states a port went through */
#define CHECK_PAST_TEXT_MAX    256
#define CHECK_FLAP_TRANSITIONS 4 /* port-flapping: this many state changes in the window */

/* A netdev or RDMA device renamed. */
struct check_rename {
	char bdf[16];
	char old_name[CHECK_PAST_NAME_MAX], new_name[CHECK_PAST_NAME_MAX];
	bool rdma;			 /* the RDMA device's name, not the netdev's */
	int64_t t_us;			 /* when it was seen */
	char pod[CHECK_PAST_TEXT_MAX];	 /* the pod the VF was bound to then, "" none */
	char cause[CHECK_PAST_TEXT_MAX]; /* the event before it that may explain it, "" none */
};

/* A function's port state changes in the window. */
struct check_port_changes {
	char bdf[16], pf[16];
	int64_t count;			   /* transitions, coalesced rows counted whole */
	bool coalesced;			   /* the store folded a rapid run into one row */
	int64_t first_us, last_us;	   /* the first and the last change */
	char states[CHECK_PAST_VALUE_MAX]; /* "ACTIVE DOWN INIT": the states seen, in order */
};

/* A VF's node or port GUID that became zero in a boot's difference. */
struct check_guid_lost {
	char bdf[16], pf[16];
	bool port;			     /* the port GUID; else the node GUID */
	char old_guid[CHECK_PAST_VALUE_MAX]; /* the non-zero GUID it had */
	int64_t t_us;			     /* when the difference was recorded */
	int64_t boot_us;		     /* the boot's time */
	char boot_id[40];
	char boot_text[CHECK_PAST_TEXT_MAX]; /* "kernel ..., driver ..., firmware ..." */
};

struct check_past {
	bool read;	  /* facts were read from a store (else all empty) */
	char where[64];	  /* the store as its path on a running node: the evidence's where */
	int64_t since_us; /* the window's start (0: everything the store holds) */
	struct check_rename *renames;
	size_t n_renames;
	struct check_port_changes *ports;
	size_t n_ports;
	struct check_guid_lost *guids_lost;
	size_t n_guids_lost;
};

struct checks_opts {
	const struct name_change *renames; /* may be NULL */
	size_t n_renames;
	struct check_past past; /* zero: no recorded history */
};

/* A row of the check table. */
struct check_def {
	const char *id;
	enum check_severity severity; /* the usual one; a finding may differ */
	const char *title;	      /* "zero GUID" */
	const char *why;	      /* one sentence */
	void (*run)(struct findings *out, const struct node *n, const struct checks_opts *o);
	enum check_reach reach; /* the usual one; a finding may differ */
};

extern const struct check_def checks_table[];
extern const size_t checks_table_len;

/* Runs every check over n (opts may be NULL) into out, which must be zeroed
 * or findings_fini()'d. Findings are sorted by severity (critical first),
 * then subject, then table order; each finding's cause is set
 * (check_causes_table) and the problems made (findings_group()). Returns 0
 * or -ENOMEM. */
int checks_run(const struct node *n, const struct checks_opts *opts, struct findings *out);
void findings_fini(struct findings *f);
/* Sets each finding's cause from the causal table: the first finding of a
 * cause check on a subject its scope relates (fs sorted by checks_run()). */
void findings_link(struct findings *fs);
/* (Re)makes fs->problems and each finding's group from the findings now in
 * fs: a finding whose cause is among them is folded under that cause's
 * problem; one whose cause is not is a problem of its own. 0 or -ENOMEM
 * (then no problems). */
int findings_group(struct findings *fs);
/* The finding of this id and subject in fs, or NULL. */
const struct finding *findings_find(const struct findings *fs, const struct finding_ref *ref);
/* Frees what one finding holds (findings_fini() does it for each). */
void finding_fini(struct finding *f);

/* The check's table row for this id, or NULL. */
const struct check_def *check_find(const char *id);
/* "info", "warning", "critical"; parse returns -EINVAL for anything else. */
const char *check_severity_name(enum check_severity s);
int check_severity_parse(const char *s, enum check_severity *ret);
/* The highest severity among fs (CHECK_INFO when none): the exit status of
 * `ibvf check` is 0 for none or info, 1 warning, 2 critical. */
enum check_severity findings_max_severity(const struct findings *fs);

/* {"version":2,"findings":[{id, severity, subject, subject_kind, title, why,
 * evidence:[{where,value}], remedy:{kind, summary, argv|steps},
 * caused_by:{check, subject}|null, group}], "problems":[{id, check, severity,
 * title, subjects, consequences, findings:[index...], remedy}],
 * "counts":{"critical":N,"warning":N,"info":N}, "dropped":N}. NULL on ENOMEM. */
struct json_object *findings_to_json(const struct findings *fs);
struct json_object *finding_to_json(const struct finding *f);

/* For the checks (core/checks_*.c): adds a finding of def's id (with its
 * severity, reach and why) on subject bdf (NULL: the node), the title from fmt.
 * Returns the finding to fill in, or NULL (out of memory, or FINDINGS_MAX). */
struct finding *check_add(struct findings *out, const struct check_def *def,
			  enum finding_subject kind, const char *bdf, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Appends evidence (ignored beyond FINDING_EVIDENCE_MAX or on ENOMEM). */
void finding_evidence(struct finding *f, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Sets the remedy: ibvf's argv (NULL-terminated) or a manual step list
 * (NULL-terminated); summary is one line. */
void finding_remedy_ibvf(struct finding *f, const char *summary, const char *const *argv);
void finding_remedy_manual(struct finding *f, const char *summary, const char *const *steps);

/* The firmware below which SR-IOV is not stable for a PF's PCI device id
 * ("28.43.1014" for a ConnectX-7, 0x1021), or NULL when ibvf knows none;
 * *ret_model (may be NULL) gets the model's name. */
const char *check_fw_minimum(int64_t pci_device, const char **ret_model);
/* Compares firmware versions field by field, numerically ("28.39.1002" <
 * "28.43.1014"): *ret is -1, 0 or 1. Returns 0, or -EINVAL when either does
 * not parse. */
int check_fw_compare(const char *a, const char *b, int *ret);
