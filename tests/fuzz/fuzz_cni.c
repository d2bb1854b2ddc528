// SPDX-License-Identifier: MIT
/* The CNI plugins' caches (core/pods/cni.c) against any file a CNI plugin
 * (or whoever can write /var/lib/cni) leaves: the input is up to four files,
 * separated by NUL bytes, written where Multus, ib-sriov-cni, sriov-cni and
 * sriov-cni's PCI allocator keep them on a scratch node; pods_read() merges
 * them with the kubelet's view. Oracle: fuzzpods.h. */
#include <stdlib.h>
#include <string.h>

#include "fuzzpods.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {
	"/var/lib/cni/multus/results/ibnet-4f5e6d7c8b9a0f1e2d3c4b5a-net1",
	"/var/lib/cni/ib-sriov/4f5e6d7c8b9a0f1e2d3c4b5a-net1",
	"/var/lib/cni/sriov/4f5e6d7c8b9a0f1e2d3c4b5a-net2",
	"/var/lib/cni/sriov/pci/0000:18:00.4",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sys *s = fuzz_pods_sys();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!size && i) {
			fuzz_unlink(fuzz_root(), files[i]);
			continue;
		}
		const uint8_t *start = data;
		char *part = fuzz_field(&data, &size);
		fuzz_write(fuzz_root(), files[i], start, strlen(part));
		free(part);
	}
	fuzz_pods_check(s);
	return 0;
}
