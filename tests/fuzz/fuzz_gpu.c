// SPDX-License-Identifier: MIT
/* The GPU parsers (core/snapshot/gpu.c) and the PCIe classes
 * (core/model/topo.c). Input: NUL-separated fields: the text of a driver
 * information file, a CDI spec, two device paths and a device ID. Oracles:
 * what the information file gives is bounded and printable, a UUID is
 * "GPU-" and hex; a MIG placed is a "MIG-" UUID, once; topo_class is
 * symmetric, SELF only for one path, and a known class only for paths that
 * have a root complex; gpu_find_id returns a GPU of the array. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/model/topo.h"
#include "core/snapshot/gpu.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *what, const char *s)
{
	if (!s)
		return;
	size_t len = strlen(s);
	if (!len || len >= 128)
		fuzz_fail("%s of %zu bytes taken", what, len);
	for (const char *c = s; *c; c++)
		if (!isprint((unsigned char)*c))
			fuzz_fail("%s with byte 0x%02x taken", what, (unsigned char)*c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *info = fuzz_field(&data, &size), *cdi = fuzz_field(&data, &size);
	char *a = fuzz_field(&data, &size), *b = fuzz_field(&data, &size);
	char *id = fuzz_field(&data, &size);
	struct gpu g[2] = {{.bdf = "0000:1b:00.0", .numa = 0, .minor = -1},
			   {.bdf = "0000:43:00.0", .numa = 1, .minor = 1}};
	gpu_info_parse(info, &g[0]);
	check_str("model", g[0].model);
	check_str("UUID", g[0].uuid);
	if (g[0].uuid && strncmp(g[0].uuid, "GPU-", 4))
		fuzz_fail("UUID '%s' taken", g[0].uuid);
	if (g[0].minor < -1 || g[0].minor > 999999)
		fuzz_fail("minor %lld taken", (long long)g[0].minor);

	int r = gpu_cdi_place(g, 2, cdi, strlen(cdi));
	size_t placed = g[0].n_migs + g[1].n_migs;
	if (r >= 0 && (size_t)r != placed)
		fuzz_fail("%d MIG devices placed, %zu kept", r, placed);
	for (int i = 0; i < 2; i++)
		for (size_t j = 0; j < g[i].n_migs; j++) {
			check_str("MIG UUID", g[i].migs[j]);
			if (strncmp(g[i].migs[j], "MIG-", 4) ||
			    !strncmp(g[i].migs[j], "MIG-GPU-", 8))
				fuzz_fail("MIG UUID '%s' placed", g[i].migs[j]);
			for (size_t k = 0; k < j; k++)
				if (!strcasecmp(g[i].migs[j], g[i].migs[k]))
					fuzz_fail("MIG UUID '%s' placed twice", g[i].migs[j]);
		}

	enum topo_class ab = topo_class(a, 0, b, 1), ba = topo_class(b, 1, a, 0);
	if (ab != ba)
		fuzz_fail("'%s' to '%s' is %s, back %s", a, b, topo_class_name(ab),
			  topo_class_name(ba));
	if (ab == TOPO_SELF && topo_class(a, 0, a, 0) != TOPO_SELF)
		fuzz_fail("'%s' is SELF to another path but not to itself", a);
	if (ab != TOPO_UNKNOWN && (!strstr(a, "/pci") || !strstr(b, "/pci")))
		fuzz_fail("'%s' to '%s' is %s without a root complex", a, b, topo_class_name(ab));
	if (topo_class_parse(topo_class_name(ab)) != (int)ab)
		fuzz_fail("class %d does not read back", (int)ab);

	const struct gpu *f = gpu_find_id(g, 2, id);
	if (f && f != &g[0] && f != &g[1])
		fuzz_fail("gpu_find_id('%s') is no GPU of the array", id);
	gpu_fini(&g[0]);
	gpu_fini(&g[1]);
	free(info);
	free(cdi);
	free(a);
	free(b);
	free(id);
	return 0;
}
