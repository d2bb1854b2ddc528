/* SPDX-License-Identifier: MIT */
/* One recorded change of the node (docs/history.md): what changed (a kind
 * from one string table), on which function (its PCI address: identity,
 * never a name), when (wall-clock microseconds), in which boot, from what
 * to what, and the pod, journal entry or check it concerns. The recorder
 * (recorder.h) makes them, the store (store.h) keeps them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

enum hist_kind {
	HK_BOOT,	  /* a boot: boot id, kernel, driver, firmware */
	HK_START,	  /* the recorder started; the changes since its last state follow */
	HK_VF_COUNT,	  /* a PF's sriov_numvfs */
	HK_FN_ADDED,	  /* a PCI function appeared */
	HK_FN_REMOVED,	  /* a PCI function went */
	HK_DRIVER,	  /* bound ("" -> driver) or unbound (driver -> "") */
	HK_PROBE_FAILED,  /* the kernel log says a probe failed */
	HK_RENAME,	  /* the host netdev's name: old -> new */
	HK_NETNS,	  /* the netdev moved into a pod's netns (old: host name) or out */
	HK_NETDEV,	  /* a host netdev appeared or went, no pod involved */
	HK_NODE_GUID,	  /* node GUID in effect */
	HK_PORT_GUID,	  /* port GUID in effect */
	HK_PORT_STATE,	  /* ACTIVE, DOWN, ... */
	HK_PHYS_STATE,	  /* LinkUp, Disabled, Polling, ... */
	HK_RATE,	  /* "400 Gb/sec (4X NDR)" */
	HK_LINK_LAYER,	  /* InfiniBand, Ethernet */
	HK_POD_BOUND,	  /* a pod binding appeared */
	HK_POD_GONE,	  /* a pod binding went */
	HK_KMSG,	  /* a kernel-log record of an RDMA driver */
	HK_ACTION,	  /* an ibvf action (the journal's id in ref) */
	HK_FINDING_OPEN,  /* a check's finding appeared (check id in ref) */
	HK_FINDING_CLOSE, /* ... and went */
	HK_BENCH,	  /* a bench validation result */
	HK__N,
};

const char *hist_kind_to_string(enum hist_kind k);
/* -1 when s names no kind. */
int hist_kind_from_string(const char *s);
/* Whether an event of kind k is an effect worth a cause: a rename, a GUID
 * change, a port going down, a netdev or function that went. */
bool hist_kind_wants_cause(enum hist_kind k);

#define HIST_BOOT_MAX  40  /* a boot id: 36 characters of a UUID */
#define HIST_NAME_MAX  64  /* a netdev (15) or RDMA device name (64) */
#define HIST_VALUE_MAX 96  /* a value as shown: a GUID, a rate, a name */
#define HIST_POD_MAX   320 /* "namespace/name": 63 + 1 + 253 */
#define HIST_UID_MAX   40
#define HIST_REF_MAX   64
#define HIST_TEXT_MAX  256 /* one line: a kernel-log message, a finding's title */

struct hist_event {
	int64_t id;	   /* the store's row id; 0 before it is stored */
	int64_t t_us;	   /* wall clock, microseconds since the epoch */
	int64_t t_last_us; /* the last of a coalesced run (== t_us otherwise) */
	int64_t count;	   /* 1; more when a flapping change was coalesced */
	int64_t group;	   /* events recorded as one difference (a boot's) share it; 0 none */
	enum hist_kind kind;
	char boot[HIST_BOOT_MAX];
	char bdf[16]; /* the function; "" for the node */
	char pf[16];  /* its PF (the function itself for a PF) */
	char name[HIST_NAME_MAX];
	char old[HIST_VALUE_MAX], new[HIST_VALUE_MAX];
	char pod[HIST_POD_MAX]; /* namespace/name */
	char pod_uid[HIST_UID_MAX];
	char ref[HIST_REF_MAX]; /* journal id, check id, test name */
	char text[HIST_TEXT_MAX];
};

/* Copies s into a field of ev, cut at a UTF-8 boundary to fit. */
void hist_set(char *field, size_t size, const char *s);
#define HIST_SET(field, s) hist_set((field), sizeof(field), (s))

/* The event as a JSON object (docs/json.md "timeline"); times in RFC 3339
 * with microseconds, UTC. */
struct json_object *hist_event_to_json(const struct hist_event *ev);
/* "2026-12-04T03:12:07.412000Z" (buf of at least 32). */
void hist_time_format(int64_t t_us, char *buf, size_t size);
/* "2026-12-04T03:12:07Z", with or without a fraction, as UTC: the inverse
 * of hist_time_format() (the journal's and bench history's times too);
 * 0 when s is none. */
int64_t hist_time_parse(const char *s);
/* "rename,guid,port": kinds and groups (guid, port, pod, finding,
 * function) into a bit mask (1u << kind); -EINVAL for a word that is
 * neither. */
int hist_kinds_parse(const char *s, uint32_t *ret);
