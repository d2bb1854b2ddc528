// SPDX-License-Identifier: MIT
/* Entry fields: keystroke filters and live validation, with the same checks
 * the actions make (naming_check, guid_parse). */
#include "field.h"

#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions/actions.h"
#include "core/base/guid.h"
#include "core/persist/naming.h"
#include "core/model/names.h"

bool field_accepts(const struct field *f, int k, char *why, size_t size)
{
	size_t len = strlen(f->text);
	switch (f->kind) {
	case FIELD_IFNAME:
		if (k <= ' ' || k >= 127 || k == '/' || k == ':') {
			snprintf(why, size, "'%c' cannot be in an interface name",
				 k < ' ' ? '?' : k);
			return false;
		}
		/* A '%', or more than 15 bytes: the verdict says why the name is refused. */
		if (len >= sizeof(f->text) - 1) {
			snprintf(why, size, "an interface name has at most %d characters",
				 SYS_IFNAMSIZ - 1);
			return false;
		}
		return true;
	case FIELD_GUID:
		if (!isxdigit(k) && k != ':' && k != 'x' && k != 'X') {
			snprintf(why, size, "'%c' refused: a GUID is hex digits with ':' or 0x",
				 k < ' ' ? '?' : k);
			return false;
		}
		if (len >= GUID_STRLEN - 1) {
			snprintf(why, size, "a GUID has at most %d characters", GUID_STRLEN - 1);
			return false;
		}
		return true;
	case FIELD_LINK_STATE:
		if (k != 'a' && k != 'e' && k != 'd') {
			snprintf(why, size, "'%c' refused: Left/Right choose, or a, e, d",
				 k < ' ' ? '?' : k);
			return false;
		}
		return true;
	case FIELD_NUMBER:
		if (!isdigit(k)) {
			snprintf(why, size, "'%c' refused: the VF count is a number",
				 k < ' ' ? '?' : k);
			return false;
		}
		if (len >= 5) {
			snprintf(why, size, "at most 5 digits");
			return false;
		}
		return true;
	}
	return false;
}

bool field_check(const struct field *f, char *buf, size_t size)
{
	struct err e = {{0}};
	uint64_t g;
	if (!f->text[0] && f->optional) {
		snprintf(buf, size, "unchanged");
		return true;
	}
	if (!f->text[0]) {
		snprintf(buf, size, "empty");
		return false;
	}
	switch (f->kind) {
	case FIELD_IFNAME:
		if (f->overflow) {
			snprintf(buf, size, "more than %zu bytes: a name has 1 to %d",
				 sizeof(f->text) - 1, SYS_IFNAMSIZ - 1);
			return false;
		}
		if (naming_check(f->text, f->kernel_ok, &e) < 0) {
			plan_fmt(buf, size, "%s", e.msg);
			return false;
		}
		break;
	case FIELD_GUID: {
		if (guid_parse(f->text, &g) == 0) {
			const char *why = guid_unassignable(g); /* the plan's own rule */
			if (!why)
				break;
			snprintf(buf, size, "%s", why);
			return false;
		}
		const char *t = f->text;
		if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
			t += 2;
		int digits = 0;
		for (; *t; t++)
			digits += isxdigit((unsigned char)*t) != 0;
		if (digits < 16)
			snprintf(buf, size, "incomplete: %d of 16 hex digits", digits);
		else
			snprintf(buf, size, "not a GUID form (00:11:..:77, 0011:..:6677, 0x..)");
		return false;
	}
	case FIELD_LINK_STATE:
		if (vf_link_state_from_string(f->text) < 0) {
			snprintf(buf, size, "auto, enable or disable");
			return false;
		}
		snprintf(buf, size, "Left/Right: auto, enable, disable");
		return true;
	case FIELD_NUMBER: {
		long long v = atoll(f->text);
		if (f->max >= 0 && v > f->max) {
			snprintf(buf, size, "more than %lld (%s)", f->max, f->max_why);
			return false;
		}
		break;
	}
	}
	snprintf(buf, size, "valid");
	return true;
}

void field_init(struct field *f, enum field_kind kind, const char *label, const char *text,
		bool optional)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->optional = optional;
	f->max = -1;
	snprintf(f->label, sizeof(f->label), "%s", label);
	if (kind == FIELD_IFNAME) {
		f->overflow = strlen(text ? text : "") >= sizeof(f->text);
		memcpy(f->text, text ? text : "", strnlen(text ? text : "", sizeof(f->text) - 1));
		return;
	}
	if (kind == FIELD_LINK_STATE) {
		snprintf(f->text, sizeof(f->text), "%s",
			 vf_link_state_from_string(text) >= 0
				 ? text
				 : vf_link_state_to_string(VF_LINK_STATE_AUTO));
		return;
	}
	for (const char *p = text ? text : ""; *p; p++) {
		char why[128];
		size_t len = strlen(f->text);
		if (field_accepts(f, (unsigned char)*p, why, sizeof(why))) {
			f->text[len] = *p;
			f->text[len + 1] = '\0';
		}
	}
}

/* The link-state choice: Left/Right/Space step through the states, a, e, d
 * pick one. */
static int choice_key(struct field *f, int k, char *why, size_t size)
{
	int cur = vf_link_state_from_string(f->text);
	if (cur < 0)
		cur = VF_LINK_STATE_AUTO;
	if (k == KEY_RIGHT || k == ' ')
		cur = (cur + 1) % VF_LINK_STATE_MAX;
	else if (k == KEY_LEFT)
		cur = (cur + VF_LINK_STATE_MAX - 1) % VF_LINK_STATE_MAX;
	else if (k < ' ' || k >= 127)
		return 0;
	else if (!field_accepts(f, k, why, size))
		return -1;
	else
		cur = k == 'a'	 ? VF_LINK_STATE_AUTO
		      : k == 'e' ? VF_LINK_STATE_ENABLE
				 : VF_LINK_STATE_DISABLE;
	snprintf(f->text, sizeof(f->text), "%s", vf_link_state_to_string(cur));
	return 1;
}

int field_key(struct field *f, int k, char *why, size_t size)
{
	size_t len = strlen(f->text);
	if (f->kind == FIELD_LINK_STATE)
		return choice_key(f, k, why, size);
	if ((k == KEY_BACKSPACE || k == 127 || k == 8) && len) {
		f->text[len - 1] = '\0';
		f->overflow = false;
		return 1;
	}
	if (k == 21) { /* Ctrl-U */
		f->text[0] = '\0';
		f->overflow = false;
		return 1;
	}
	if (k < ' ' || k >= 127)
		return 0;
	if (!field_accepts(f, k, why, size))
		return -1;
	f->text[len] = (char)k;
	f->text[len + 1] = '\0';
	return 1;
}
