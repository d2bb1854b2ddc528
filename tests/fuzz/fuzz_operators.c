// SPDX-License-Identifier: MIT
/* The SR-IOV Network Operator's files on the node (core/pods/operators.c),
 * against anything a writer of /etc/sriov-operator leaves: the first byte
 * picks the file (a PF's applied config, JSON; the systemd-mode interface
 * config, YAML's subset), the rest is its text. Oracle: a count within the
 * room given, each claim's strings terminated within their arrays, a
 * known VF count, and a reason on every refusal. */
#include <stdlib.h>
#include <string.h>

#include "core/pods/operators.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOM 8

static void claim_ok(const struct op_claim *c)
{
	if (strnlen(c->bdf, sizeof(c->bdf)) == sizeof(c->bdf) ||
	    strnlen(c->pf_name, sizeof(c->pf_name)) == sizeof(c->pf_name) || c->want_numvfs < -1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	bool systemd = data[0] & 1;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	struct op_claim got[ROOM];
	memset(got, 0xa5, sizeof(got));
	char why[128];
	why[0] = '\0';
	int r = systemd ? operators_parse_systemd(text, size - 1, got, ROOM, why, sizeof(why))
			: operators_parse_applied(text, size - 1, got, why, sizeof(why));
	if (r < 0) {
		if (!why[0] || strnlen(why, sizeof(why)) == sizeof(why))
			abort();
	} else {
		if (r > (systemd ? ROOM : 1))
			abort();
		for (int i = 0; i < r; i++)
			claim_ok(&got[i]);
	}
	free(text);
	return 0;
}
