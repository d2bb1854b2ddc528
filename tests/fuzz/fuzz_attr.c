// SPDX-License-Identifier: MIT
/* The parsers of single kernel values (core/model/attr.c, core/base/guid.c, the BDF and
 * interface-name rules) against any text a sysfs file or a planted tree can
 * hold, read both as a string and through the kernel boundary's attribute
 * read (sys_read_attr: bounded, whitespace stripped). Oracles: a GUID or BDF
 * that parses prints back to itself; an accepted interface name is one the
 * kernel takes and a unit or terminal can carry (1-15 printable bytes, no
 * '/', ':', '%' or space); a parsed rate is not negative. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/attr.h"
#include "core/base/guid.h"
#include "core/persist/naming.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sys *sys;

static void guid_roundtrip(const char *s)
{
	uint64_t g, back;
	char buf[GUID_STRLEN];
	if (guid_parse(s, &g) < 0)
		return;
	guid_format_sysfs(g, buf);
	if (guid_parse(buf, &back) < 0 || back != g)
		fuzz_fail("GUID '%s' prints as '%s', which does not read back", s, buf);
	guid_format_colon(g, buf);
	if (guid_parse(buf, &back) < 0 || back != g)
		fuzz_fail("GUID '%s' prints as '%s', which does not read back", s, buf);
	guid_unassignable(g);
}

static void bdf_roundtrip(const char *s)
{
	char out[16], again[16];
	for (int short_ok = 0; short_ok < 2; short_ok++) {
		if (!node_bdf_normalize(s, short_ok, out))
			continue;
		if (strlen(out) != 12 || !node_bdf_normalize(out, false, again) ||
		    strcmp(out, again))
			fuzz_fail("BDF '%s' normalizes to '%s', which is not canonical", s, out);
	}
}

static void name_rule(const char *s)
{
	struct err e;
	for (int kernel_ok = 0; kernel_ok < 2; kernel_ok++) {
		if (naming_check(s, kernel_ok, &e) < 0)
			continue;
		size_t len = strlen(s);
		if (len < 1 || len > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
			fuzz_fail("interface name of %zu bytes accepted", len);
		for (const char *c = s; *c; c++)
			if (!isgraph((unsigned char)*c) || strchr("/:%", *c))
				fuzz_fail("interface name with byte 0x%02x accepted",
					  (unsigned char)*c);
	}
}

static void values(const char *s)
{
	struct kval k = attr_parse_int(s);
	(void)k;
	k = attr_parse_rate_mbps(s);
	if (k.known && k.v < 0)
		fuzz_fail("rate '%s' reads as %lld Mb/s", s, (long long)k.v);
	uint64_t prefix, g;
	guid_from_gid(s, &prefix, &g);
	guid_from_ipoib_addr(s, &g);
	guid_roundtrip(s);
	bdf_roundtrip(s);
	name_rule(s);
}

/* The same bytes as a sysfs file under a scratch root. */
static void read_back(const uint8_t *data, size_t size)
{
	if (!sys) {
		struct err e;
		if (sys_open_linux(fuzz_root(), &sys, &e) < 0)
			fuzz_fail("%s", e.msg);
	}
	fuzz_write(fuzz_root(), "/a/v", data, size);
	char *name = NULL;
	struct kval k = attr_read_state(sys, "/a", "v", &name);
	if (!k.known && name)
		fuzz_fail("a state name without a state");
	free(name);
	attr_read_int(sys, "/a", "v");
	attr_read_guid(sys, "/a", "v");
	char *str = attr_read_str(sys, "/a", "v");
	if (str && strlen(str) >= ATTR_MAX)
		fuzz_fail("attribute of %zu bytes read, the bound is %d", strlen(str), ATTR_MAX);
	if (str)
		values(str);
	free(str);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size);
	values(s);
	free(s);
	read_back(data, size);
	return 0;
}
