// SPDX-License-Identifier: MIT
/* The simulated DGX H200's GPUs (docs/fixture.md): eight H200 SXM, each a
 * PCI function behind the PCIe switch of its compute HCA, bound to the
 * nvidia driver, with the driver's /proc/driver/nvidia/gpus/<bdf>/information
 * in its own format (the key, a colon, tabs and spaces, the value). */
#include "core/sim/sim_tree.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void sim_gpu_uuid(unsigned int index, char buf[static SIM_GPU_UUID_LEN])
{
	uint64_t a = splitmix64(0x6448323030ULL + index), b = splitmix64(a); /* "dH200" */
	/* Version 4 and variant bits, as the driver's UUIDs carry. */
	sim_fmt(buf, SIM_GPU_UUID_LEN, "GPU-%08" PRIx32 "-%04x-4%03x-%04x-%012" PRIx64,
		(uint32_t)(a >> 32), (unsigned int)(a >> 16) & 0xffff, (unsigned int)a & 0xfff,
		0x8000 | ((unsigned int)(b >> 48) & 0x3fff), (uint64_t)(b & 0xffffffffffffULL));
}

int sim_gpu_write(const char *root, const char *fn_rel, const struct sim_gpu_spec *g, struct err *e)
{
	char rel[PATH_MAX], uuid[SIM_GPU_UUID_LEN];
	int r = sim_mkdirs(root, fn_rel, e);
#define PUT(name, ...) SIM_PUT_IN(fn_rel, name, __VA_ARGS__)
	PUT("vendor", "0x%04x\n", SIM_GPU_VENDOR);
	PUT("device", "0x%04x\n", SIM_GPU_DEVICE);
	PUT("subsystem_vendor", "0x%04x\n", SIM_GPU_VENDOR);
	PUT("subsystem_device", "0x18be\n");
	PUT("class", "0x030200\n");
	PUT("numa_node", "%d\n", g->numa_node);
#undef PUT
	if (r < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s", g->bdf);
	if ((r = sim_symlink(root, rel, fn_rel, e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "%s/driver", fn_rel);
	if ((r = sim_symlink(root, rel, "sys/bus/pci/drivers/nvidia", e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/drivers/nvidia/%s", g->bdf);
	if ((r = sim_symlink(root, rel, fn_rel, e)) < 0)
		return r;
	sim_gpu_uuid(g->index, uuid);
	sim_fmt(rel, sizeof(rel), "proc/driver/nvidia/gpus/%s/information", g->bdf);
	return sim_putf(root, e, rel,
			"Model: \t\t %s\n"
			"IRQ:   \t\t %u\n"
			"GPU UUID: \t %s\n"
			"Video BIOS: \t 96.00.a5.00.01\n"
			"Bus Type: \t PCIe\n"
			"DMA Size: \t 52 bits\n"
			"DMA Mask: \t 0xfffffffffffff\n"
			"Bus Location: \t %s\n"
			"Device Minor: \t %u\n"
			"GPU Firmware: \t %s\n"
			"GPU Excluded:\t No\n",
			SIM_GPU_MODEL, 0x1a0 + g->index, uuid, g->bdf, g->index, SIM_GPU_DRIVER);
}
