/* SPDX-License-Identifier: MIT */
/* Entry fields of the action dialog: each kind filters keystrokes (a
 * keystroke that could never be part of a valid value is refused, with the
 * reason) and judges the text as it stands, as it is typed. No drawing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum field_kind {
	FIELD_IFNAME,
	FIELD_GUID,
	FIELD_NUMBER,
	FIELD_LINK_STATE, /* a choice: auto, enable, disable (Left/Right, a/e/d) */
};

struct field {
	enum field_kind kind;
	char label[16];
	char text[64];
	bool overflow;	  /* the initial text did not fit in text: refused, never cut */
	bool optional;	  /* empty means "leave it" */
	bool kernel_ok;	  /* IFNAME: a kernel form (ibN, ethN) is allowed (forced) */
	long long max;	  /* NUMBER: the largest value, -1 when any */
	char max_why[32]; /* where max comes from ("sriov_totalvfs") */
};

/* Fills a field; of text only what could have been typed is kept, except
 * for a name, which is kept as given for field_check() to judge (a name is
 * never changed behind the operator's back). */
void field_init(struct field *f, enum field_kind kind, const char *label, const char *text,
		bool optional);
/* Whether the printable key k may be typed next; else the reason in why. */
bool field_accepts(const struct field *f, int k, char *why, size_t size);
/* An editing key (printable, Backspace, Ctrl-U): 1 the text changed, 0 not
 * an editing key, -1 refused (the reason in why). */
int field_key(struct field *f, int k, char *why, size_t size);
/* The live verdict: true and "valid" (or "unchanged"), or false and the
 * reason the text is not (yet) a value. */
bool field_check(const struct field *f, char *buf, size_t size);
