// SPDX-License-Identifier: MIT
/* The PCIe distance classes (core/model/topo.h) and the node's GPUs
 * (core/snapshot/gpu.c): topo_class() on paths; a sysfs tree built as the
 * kernel lays it out (switches, root ports, root complexes on two sockets, a
 * PF and its VF, unknown NUMA nodes) read by discovery through --root; the
 * driver's information file (the real format, missing, garbage, very long
 * lines); MIG devices placed from CDI specs and the legacy IDs; and the
 * simulated DGX H200, whose GPU x HCA matrix is the DGX's `nvidia-smi topo -m`. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model/node.h"
#include "core/model/topo.h"
#include "core/snapshot/gpu.h"
#include "core/sys/sys.h"
#include "testutil.h"

#define DEV "/sys/devices/"

START_TEST(classes_from_paths)
{
	const char *hca = DEV "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0";
	const char *vf = DEV "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.1";
	const char *gpu = DEV "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:1b:00.0";
	const char *deep = DEV "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:02.0/0000:1c:00.0/"
			       "0000:1d:00.0/0000:1e:00.0";
	const char *other_rp = DEV "pci0000:15/0000:15:02.0/0000:20:00.0/0000:21:00.0/0000:22:00.0";
	const char *other_rc = DEV "pci0000:3d/0000:3d:01.0/0000:43:00.0";
	ck_assert_int_eq(topo_class(hca, 0, hca, 0), TOPO_SELF);
	ck_assert_int_eq(topo_class(hca, 0, gpu, 0), TOPO_PIX);
	ck_assert_int_eq(topo_class(gpu, 0, hca, 0), TOPO_PIX);
	ck_assert_int_eq(topo_class(hca, 0, vf, 0), TOPO_PIX);
	ck_assert_int_eq(topo_class(hca, 0, deep, 0), TOPO_PXB);
	ck_assert_int_eq(topo_class(hca, 0, other_rp, 0), TOPO_PHB);
	ck_assert_int_eq(topo_class(hca, 0, other_rc, 0), TOPO_NODE);
	ck_assert_int_eq(topo_class(hca, 0, other_rc, 1), TOPO_SYS);
	ck_assert_int_eq(topo_class(hca, -1, other_rc, -1), TOPO_NODE);
	ck_assert_int_eq(topo_class(hca, -1, other_rc, 0), TOPO_SYS);
	/* Two functions of one card right under a root port. */
	ck_assert_int_eq(topo_class(DEV "pci0000:28/0000:28:01.0/0000:29:00.0", 0,
				    DEV "pci0000:28/0000:28:01.0/0000:29:00.1", 0),
			 TOPO_PIX);
	/* Trailing or doubled slashes are the same components. */
	ck_assert_int_eq(topo_class(DEV "pci0000:28//0000:28:01.0/0000:29:00.0/", 0,
				    DEV "pci0000:28/0000:28:01.0/0000:29:00.0", 0),
			 TOPO_SELF);
	ck_assert_int_eq(topo_class(NULL, 0, hca, 0), TOPO_UNKNOWN);
	ck_assert_int_eq(topo_class(hca, 0, NULL, 0), TOPO_UNKNOWN);
	ck_assert_int_eq(topo_class("/sys/devices/virtual/net/lo", 0, hca, 0), TOPO_UNKNOWN);
	ck_assert_int_eq(topo_class(DEV "pci0000:15", 0, hca, 0), TOPO_UNKNOWN);
	ck_assert_int_eq(topo_class("", 0, "", 0), TOPO_UNKNOWN);
	ck_assert_str_eq(topo_class_name(TOPO_PIX), "PIX");
	ck_assert_str_eq(topo_class_name(TOPO_SELF), "X");
	ck_assert_int_eq(topo_class_parse("SYS"), TOPO_SYS);
}
END_TEST

/* A PCI function at path (under sys/devices) with its bus link. */
static void fn(const char *root, const char *path, const char *vendor, const char *cls,
	       const char *numa)
{
	char rel[512], target[512];
	const char *bdf = strrchr(path, '/') + 1;
	snprintf(rel, sizeof(rel), "sys/devices/%s/vendor", path);
	tu_put(root, rel, vendor);
	snprintf(rel, sizeof(rel), "sys/devices/%s/class", path);
	tu_put(root, rel, cls);
	snprintf(rel, sizeof(rel), "sys/devices/%s/device", path);
	tu_put(root, rel, "0x2335\n");
	if (numa) {
		snprintf(rel, sizeof(rel), "sys/devices/%s/numa_node", path);
		tu_put(root, rel, numa);
	}
	snprintf(rel, sizeof(rel), "%s/sys/bus/pci/devices", root);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/sys/bus/pci/devices/%s", root, bdf);
	snprintf(target, sizeof(target), "../../../devices/%s", path);
	ck_assert_msg(symlink(target, rel) == 0, "symlink %s", rel);
}

static void link_in(const char *root, const char *rel, const char *target)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_msg(symlink(target, path) == 0, "symlink %s", path);
}

#define NV  "0x10de\n"
#define MLX "0x15b3\n"
#define S0  "pci0000:15/0000:15:01.0/0000:16:00.0/"

static const char info_real[] = "Model: \t\t NVIDIA H200\n"
				"IRQ:   \t\t 417\n"
				"GPU UUID: \t GPU-2f1a3a0c-6b7e-4c1d-9a2b-3c4d5e6f7a80\n"
				"Video BIOS: \t 96.00.a5.00.01\n"
				"Bus Type: \t PCIe\n"
				"DMA Size: \t 52 bits\n"
				"DMA Mask: \t 0xfffffffffffff\n"
				"Bus Location: \t 0000:1b:00.0\n"
				"Device Minor: \t 0\n"
				"GPU Firmware: \t 550.127.08\n"
				"GPU Excluded:\t No\n";

static const char cdi[] =
	"{\"cdiVersion\":\"0.5.0\",\"kind\":\"nvidia.com/gpu\",\"devices\":["
	"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/nvidia0\"}]}},"
	"{\"name\":\"MIG-4f1c2a3b-5d6e-5f70-8a9b-0c1d2e3f4a5b\",\"containerEdits\":"
	"{\"deviceNodes\":[{\"path\":\"/dev/nvidia0\"},"
	"{\"path\":\"/dev/nvidia-caps/nvidia-cap21\"}]}},"
	"{\"name\":\"0:1\",\"annotations\":{\"nvidia.com/mig-uuid\":"
	"\"MIG-9a8b7c6d-5e4f-5a3b-8c2d-1e0f9a8b7c6d\"},\"containerEdits\":"
	"{\"deviceNodes\":[{\"path\":\"/dev/nvidia0\"}]}},"
	"{\"name\":\"MIG-11111111-2222-5333-8444-555555555555\",\"containerEdits\":"
	"{\"deviceNodes\":[{\"path\":\"/dev/nvidia7\"}]}}]}";

/* Socket 0: root complex 15 with HCA 18 (a PF and its VF) and GPU 1b on one
 * switch, GPU 1e two switches down, GPU 22 behind another root port, GPU 32
 * and HCA 33 on one root port (one behind a switch), the GPU's audio
 * function 1b:00.1; root complex 3d with GPU 43; socket 1: root complex 97
 * with GPU 9d; GPUs a1 and b1 without NUMA nodes. */
static char *make_tree(void)
{
	char tmpl[] = "/tmp/ibvf-topo-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *root = strdup(tmpl);
	tu_put(root, "sys/bus/pci/drivers/nvidia/bind", "");
	fn(root, S0 "0000:17:00.0/0000:18:00.0", MLX, "0x020700\n", "0\n");
	tu_put(root, "sys/devices/" S0 "0000:17:00.0/0000:18:00.0/sriov_totalvfs", "1\n");
	tu_put(root, "sys/devices/" S0 "0000:17:00.0/0000:18:00.0/sriov_numvfs", "1\n");
	fn(root, S0 "0000:17:00.0/0000:18:00.1", MLX, "0x020700\n", "0\n");
	link_in(root, "sys/devices/" S0 "0000:17:00.0/0000:18:00.0/virtfn0", "../0000:18:00.1");
	link_in(root, "sys/devices/" S0 "0000:17:00.0/0000:18:00.1/physfn", "../0000:18:00.0");
	fn(root, S0 "0000:17:01.0/0000:1b:00.0", NV, "0x030200\n", "0\n");
	fn(root, S0 "0000:17:01.0/0000:1b:00.1", NV, "0x040300\n", "0\n");
	fn(root, S0 "0000:17:02.0/0000:1c:00.0/0000:1d:00.0/0000:1e:00.0", NV, "0x030000\n", "0\n");
	fn(root, "pci0000:15/0000:15:02.0/0000:20:00.0/0000:21:00.0/0000:22:00.0", NV, "0x030200\n",
	   "0\n");
	fn(root, "pci0000:15/0000:15:03.0/0000:30:00.0/0000:31:00.0/0000:32:00.0", NV, "0x030200\n",
	   "0\n");
	fn(root, "pci0000:15/0000:15:03.0/0000:33:00.0", MLX, "0x020700\n", "0\n");
	tu_put(root, "sys/devices/pci0000:15/0000:15:03.0/0000:33:00.0/sriov_totalvfs", "0\n");
	fn(root, "pci0000:3d/0000:3d:01.0/0000:43:00.0", NV, "0x030200\n", "0\n");
	fn(root, "pci0000:97/0000:97:01.0/0000:9d:00.0", NV, "0x030200\n", "1\n");
	fn(root, "pci0000:a0/0000:a0:01.0/0000:a1:00.0", NV, "0x030200\n", "-1\n");
	fn(root, "pci0000:b0/0000:b0:01.0/0000:b1:00.0", NV, "0x030200\n", NULL);
	link_in(root, "sys/devices/" S0 "0000:17:01.0/0000:1b:00.0/driver",
		"../../../../../../bus/pci/drivers/nvidia");

	tu_put(root, "proc/driver/nvidia/gpus/0000:1b:00.0/information", info_real);
	tu_put(root, "proc/driver/nvidia/gpus/0000:1e:00.0/information",
	       "\x01\x02 garbage\n:::\nModel:\nGPU UUID: \t not-a-uuid\nDevice Minor: \t x9\n");
	char *big = malloc(5000);
	memset(big, 'A', 4999);
	big[4999] = '\0';
	memcpy(big, "Model: ", 7);
	char *lines = NULL;
	ck_assert_int_ge(
		asprintf(&lines, "%s\nGPU UUID: \t GPU-%s\nDevice Minor: \t 3\n", big, big + 7), 0);
	tu_put(root, "proc/driver/nvidia/gpus/0000:43:00.0/information", lines);
	free(lines);
	free(big);
	char *huge = calloc(1, 20001);
	memset(huge, '\n', 20000);
	memcpy(huge, "Model: \t\t NVIDIA H200\n", 22);
	tu_put(root, "proc/driver/nvidia/gpus/0000:a1:00.0/information", huge);
	free(huge);
	tu_put(root, "etc/cdi/nvidia.json", cdi);
	tu_put(root, "var/run/cdi/broken.json", "{\"devices\": [ {\"name\": ");
	tu_put(root, "var/run/cdi/other.yaml", "cdiVersion: 0.5.0\n");
	return root;
}

static struct node *discover(const char *root)
{
	struct sys *s;
	struct err e = {""};
	ck_assert_msg(sys_open_linux(root, &s, &e) == 0, "%s", e.msg);
	struct node *n;
	ck_assert_msg(node_discover(s, &n, &e) == 0, "%s", e.msg);
	sys_close(s);
	return n;
}

static const struct gpu *gpu_at(const struct node *n, const char *bdf)
{
	const struct gpu *g = gpu_find_id(n->gpus, n->n_gpus, bdf);
	ck_assert_msg(g, "no GPU %s", bdf);
	return g;
}

static enum topo_class to_hca(const struct node *n, const struct gpu *g, const struct fn *f)
{
	return topo_class(g->devpath, g->numa, f->devpath, f->numa.known ? f->numa.v : -1);
}

static bool noted(const struct node *n, const char *part)
{
	for (size_t i = 0; i < n->n_notes; i++)
		if (strstr(n->notes[i], part))
			return true;
	return false;
}

START_TEST(discovery_reads_the_tree)
{
	char *root = make_tree();
	struct node *n = discover(root);
	ck_assert_uint_eq(n->n_pfs, 2);
	const struct pf *hca = &n->pfs[0], *lone = &n->pfs[1];
	ck_assert_str_eq(hca->fn.bdf, "0000:18:00.0");
	/* The node's path, not the host's: the root is not in it. */
	ck_assert_str_eq(hca->fn.devpath, DEV S0 "0000:17:00.0/0000:18:00.0");
	ck_assert(hca->fn.numa.known && hca->fn.numa.v == 0);
	ck_assert_uint_eq(hca->n_vfs, 1);
	ck_assert_str_eq(hca->vfs[0].fn.devpath, DEV S0 "0000:17:00.0/0000:18:00.1");
	ck_assert_int_eq(topo_class(hca->fn.devpath, 0, hca->vfs[0].fn.devpath, 0), TOPO_PIX);

	/* The audio function is no GPU; sorted by BDF. */
	ck_assert_uint_eq(n->n_gpus, 8);
	ck_assert_str_eq(n->gpus[0].bdf, "0000:1b:00.0");
	ck_assert_str_eq(n->gpus[7].bdf, "0000:b1:00.0");
	const struct gpu *g = gpu_at(n, "0000:1b:00.0");
	ck_assert_str_eq(g->model, "NVIDIA H200");
	ck_assert_str_eq(g->uuid, "GPU-2f1a3a0c-6b7e-4c1d-9a2b-3c4d5e6f7a80");
	ck_assert_int_eq(g->minor, 0);
	ck_assert_str_eq(g->driver, "nvidia");
	ck_assert_int_eq(g->numa, 0);
	ck_assert_int_eq(to_hca(n, g, &hca->fn), TOPO_PIX);
	ck_assert_int_eq(to_hca(n, g, &hca->vfs[0].fn), TOPO_PIX);
	ck_assert_int_eq(to_hca(n, gpu_at(n, "0000:1e:00.0"), &hca->fn), TOPO_PXB);
	ck_assert_int_eq(to_hca(n, gpu_at(n, "0000:22:00.0"), &hca->fn), TOPO_PHB);
	ck_assert_int_eq(to_hca(n, gpu_at(n, "0000:32:00.0"), &lone->fn), TOPO_PHB);
	ck_assert_int_eq(to_hca(n, gpu_at(n, "0000:43:00.0"), &hca->fn), TOPO_NODE);
	ck_assert_int_eq(to_hca(n, gpu_at(n, "0000:9d:00.0"), &hca->fn), TOPO_SYS);
	/* numa_node -1, and none at all: both unknown, one node. */
	const struct gpu *a1 = gpu_at(n, "0000:a1:00.0"), *b1 = gpu_at(n, "0000:b1:00.0");
	ck_assert_int_eq(a1->numa, -1);
	ck_assert_int_eq(b1->numa, -1);
	ck_assert_int_eq(topo_class(a1->devpath, a1->numa, b1->devpath, b1->numa), TOPO_NODE);
	ck_assert_int_eq(to_hca(n, a1, &hca->fn), TOPO_SYS);
	ck_assert_ptr_null(a1->model); /* its information file is past the bound */
	ck_assert(noted(n, "0000:a1:00.0/information' is larger than"));
	ck_assert_int_eq(a1->minor, -1);

	/* Garbage: nothing taken, a note. Very long lines: skipped, the rest read. */
	const struct gpu *junk = gpu_at(n, "0000:1e:00.0");
	ck_assert_ptr_null(junk->model);
	ck_assert_ptr_null(junk->uuid);
	ck_assert_int_eq(junk->minor, -1);
	ck_assert(noted(n, "/proc/driver/nvidia/gpus/0000:1e:00.0/information"));
	const struct gpu *longl = gpu_at(n, "0000:43:00.0");
	ck_assert_ptr_null(longl->model);
	ck_assert_ptr_null(longl->uuid);
	ck_assert_int_eq(longl->minor, 3);

	/* MIG devices from the CDI spec: by name and by annotation, on minor 0;
	 * one on a minor no GPU has stays unplaced; the broken spec is noted. */
	ck_assert_uint_eq(g->n_migs, 2);
	ck_assert_ptr_eq(
		gpu_find_id(n->gpus, n->n_gpus, "MIG-4f1c2a3b-5d6e-5f70-8a9b-0c1d2e3f4a5b"), g);
	ck_assert_ptr_eq(
		gpu_find_id(n->gpus, n->n_gpus, "MIG-9a8b7c6d-5e4f-5a3b-8c2d-1e0f9a8b7c6d"), g);
	ck_assert_ptr_eq(
		gpu_find_id(n->gpus, n->n_gpus, "MIG-11111111-2222-5333-8444-555555555555"),
		(const struct gpu *)NULL);
	ck_assert(noted(n, "broken.json"));
	ck_assert(!noted(n, "other.yaml"));
	node_free(n);
	tu_rmtree(root);
}
END_TEST

START_TEST(device_ids_name_gpus)
{
	struct gpu g[2] = {
		{.bdf = "0000:1b:00.0", .uuid = "GPU-2f1a3a0c-6b7e-4c1d-9a2b-3c4d5e6f7a80"},
		{.bdf = "0000:43:00.0", .uuid = "GPU-aaaaaaaa-6b7e-4c1d-9a2b-3c4d5e6f7a80"},
	};
	char *migs[] = {"MIG-4f1c2a3b-5d6e-5f70-8a9b-0c1d2e3f4a5b"};
	g[1].migs = migs;
	g[1].n_migs = 1;
	ck_assert_ptr_eq(gpu_find_id(g, 2, "GPU-2f1a3a0c-6b7e-4c1d-9a2b-3c4d5e6f7a80"), &g[0]);
	ck_assert_ptr_eq(gpu_find_id(g, 2, "GPU-2F1A3A0C-6B7E-4C1D-9A2B-3C4D5E6F7A80"), &g[0]);
	ck_assert_ptr_eq(gpu_find_id(g, 2, "MIG-4f1c2a3b-5d6e-5f70-8a9b-0c1d2e3f4a5b"), &g[1]);
	ck_assert_ptr_eq(gpu_find_id(g, 2, "MIG-GPU-aaaaaaaa-6b7e-4c1d-9a2b-3c4d5e6f7a80/1/0"),
			 &g[1]);
	ck_assert_ptr_null(gpu_find_id(g, 2, "MIG-GPU-aaaaaaaa/1/0"));
	ck_assert_ptr_null(gpu_find_id(g, 2, "MIG-00000000-5d6e-5f70-8a9b-0c1d2e3f4a5b"));
	ck_assert_ptr_eq(gpu_find_id(g, 2, "0000:43:00.0"), &g[1]);
	ck_assert_ptr_eq(gpu_find_id(g, 2, "00000000:1B:00.0"), &g[0]);
	ck_assert_ptr_eq(gpu_find_id(g, 2, "1b:00.0"), &g[0]);
	ck_assert_ptr_null(gpu_find_id(g, 2, "1b:00.0x"));
	ck_assert_ptr_null(gpu_find_id(g, 2, "GPU-"));
	ck_assert_ptr_null(gpu_find_id(g, 2, ""));
	ck_assert_ptr_null(gpu_find_id(g, 2, NULL));
	ck_assert_ptr_null(gpu_find_id(NULL, 0, "0000:43:00.0"));
}
END_TEST

START_TEST(information_file_parsed)
{
	struct gpu g = {.minor = -1};
	ck_assert_int_eq(gpu_info_parse(info_real, &g), 3);
	ck_assert_str_eq(g.model, "NVIDIA H200");
	ck_assert_str_eq(g.uuid, "GPU-2f1a3a0c-6b7e-4c1d-9a2b-3c4d5e6f7a80");
	ck_assert_int_eq(g.minor, 0);
	gpu_fini(&g);
	/* No newline at the end, CRLF, spaces only. */
	g = (struct gpu){.minor = -1};
	ck_assert_int_eq(gpu_info_parse("Device Minor:  12\r\nModel:NVIDIA H100 80GB HBM3", &g), 2);
	ck_assert_int_eq(g.minor, 12);
	ck_assert_str_eq(g.model, "NVIDIA H100 80GB HBM3");
	gpu_fini(&g);
	g = (struct gpu){.minor = -1};
	ck_assert_int_eq(gpu_info_parse("", &g), 0);
	ck_assert_int_eq(
		gpu_info_parse("\n\n:\n: x\nDevice Minor: -1\nDevice Minor: 99999999\n", &g), 0);
	ck_assert_int_eq(g.minor, -1);
	gpu_fini(&g);
}
END_TEST

START_TEST(cdi_specs_place_migs)
{
	struct gpu g[1] = {{.bdf = "0000:1b:00.0", .minor = 0}};
	ck_assert_int_eq(gpu_cdi_place(g, 1, cdi, strlen(cdi)), 2);
	ck_assert_int_eq(gpu_cdi_place(g, 1, cdi, strlen(cdi)), 0); /* placed once */
	ck_assert_uint_eq(g[0].n_migs, 2);
	ck_assert_int_eq(gpu_cdi_place(g, 1, "[]", 2), -EINVAL);
	ck_assert_int_eq(gpu_cdi_place(g, 1, "{\"devices\": 3}", 14), -EINVAL);
	ck_assert_int_eq(gpu_cdi_place(g, 1, "nope", 4), -EINVAL);
	const char *odd = "{\"devices\":[3,{\"name\":\"MIG-12345678-1234-5234-8234-123456789abc\","
			  "\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/nvidia0\"},"
			  "{\"path\":\"/dev/nvidia1\"}]}},{\"name\":7},"
			  "{\"name\":\"MIG-GPU-x/1/0\",\"containerEdits\":{\"deviceNodes\":"
			  "[{\"path\":\"/dev/nvidia0\"}]}}]}";
	ck_assert_int_eq(gpu_cdi_place(g, 1, odd, strlen(odd)), 0);
	gpu_fini(&g[0]);
}
END_TEST

/* The DGX H200's compute HCAs in GPU order (GPU i beside HCA i). */
static const char *const dgx_hca[8] = {"0000:18:00.0", "0000:40:00.0", "0000:4f:00.0",
				       "0000:5e:00.0", "0000:9a:00.0", "0000:c0:00.0",
				       "0000:ce:00.0", "0000:dc:00.0"};

START_TEST(dgx_h200_matrix)
{
	char *dir = tu_mkfixture(_i ? (const char *const[]){"--healthy", NULL} : NULL);
	struct sys *s;
	struct err e = {""};
	ck_assert_msg(sys_open_sim(dir, NULL, &s, &e) == 0, "%s", e.msg);
	struct node *n;
	ck_assert_msg(node_discover(s, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n->n_gpus, 8);
	char want[8][8][8], got[8][8][8];
	for (int i = 0; i < 8; i++) {
		const struct gpu *g = &n->gpus[i];
		ck_assert_str_eq(g->model, "NVIDIA H200");
		ck_assert_int_eq(g->minor, i);
		ck_assert_int_eq(strncmp(g->uuid, "GPU-", 4), 0);
		ck_assert_int_eq(g->numa, i / 4);
		for (int h = 0; h < 8; h++) {
			const struct pf *pf = NULL;
			for (size_t k = 0; k < n->n_pfs; k++)
				if (!strcmp(n->pfs[k].fn.bdf, dgx_hca[h]))
					pf = &n->pfs[k];
			ck_assert_ptr_nonnull(pf);
			snprintf(want[i][h], 8, "%s",
				 h == i		  ? "PIX"
				 : h / 4 == i / 4 ? "NODE"
						  : "SYS");
			snprintf(got[i][h], 8, "%s", topo_class_name(to_hca(n, g, &pf->fn)));
			/* And the VFs as their PF. */
			for (size_t v = 0; v < pf->n_vfs; v++)
				ck_assert_str_eq(topo_class_name(to_hca(n, g, &pf->vfs[v].fn)),
						 got[i][h]);
		}
	}
	for (int i = 0; i < 8; i++)
		for (int h = 0; h < 8; h++)
			ck_assert_msg(!strcmp(want[i][h], got[i][h]),
				      "GPU%d mlx5 of %s: %s, not %s", i, dgx_hca[h], got[i][h],
				      want[i][h]);
	/* GPUs among themselves: NODE on a socket, SYS across. */
	ck_assert_int_eq(topo_class(n->gpus[0].devpath, 0, n->gpus[3].devpath, 0), TOPO_NODE);
	ck_assert_int_eq(topo_class(n->gpus[0].devpath, 0, n->gpus[4].devpath, 1), TOPO_SYS);
	/* No CDI spec on the simulated node: a MIG UUID names no GPU, the
	 * legacy form names its parent. */
	char legacy[128];
	snprintf(legacy, sizeof(legacy), "MIG-%s/1/0", n->gpus[2].uuid);
	ck_assert_ptr_eq(gpu_find_id(n->gpus, n->n_gpus, legacy), &n->gpus[2]);
	ck_assert_ptr_null(
		gpu_find_id(n->gpus, n->n_gpus, "MIG-4f1c2a3b-5d6e-5f70-8a9b-0c1d2e3f4a5b"));
	/* A refresh keeps them. */
	struct node *r;
	ck_assert_msg(node_refresh(s, n, NULL, 0, &r, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(r->n_gpus, 8);
	ck_assert_str_eq(r->gpus[5].uuid, n->gpus[5].uuid);
	ck_assert_str_eq(r->pfs[0].fn.devpath, n->pfs[0].fn.devpath);
	node_free(r);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topo");
	TCase *tc = tcase_create("topo");
	tcase_add_test(tc, classes_from_paths);
	tcase_add_test(tc, discovery_reads_the_tree);
	tcase_add_test(tc, device_ids_name_gpus);
	tcase_add_test(tc, information_file_parsed);
	tcase_add_test(tc, cdi_specs_place_migs);
	tcase_add_loop_test(tc, dgx_h200_matrix, 0, 2);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
