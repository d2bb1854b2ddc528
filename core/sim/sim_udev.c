// SPDX-License-Identifier: MIT
/* The simulated udevd's net_setup_link: when a netdev appears, udev takes
 * the first .link file in systemd's order (core/persist/linkfile.c) whose [Match]
 * matches it, tries its NamePolicy= in order, then its Name=, and renames the
 * netdev; a netdev no file matches keeps the kernel's name. Only what names
 * a simulated function is modelled: of the policies, "path" gives
 * ID_NET_NAME_PATH; "kernel" and "keep" keep nothing for a freshly probed
 * VF (ibN/ethN are enumerated names, not predictable or user-given ones);
 * the simulated PCI layout has no slots, firmware indexes, hwdb entries or
 * permanent MACs, so "slot", "onboard", "database" and "mac" give nothing.
 * A rename udev cannot make (the name is taken) leaves the kernel's name, as
 * udev's "Failed to rename network interface" does. */
#include "core/sim/sim_tree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/persist/linkfile.h"
#include "core/sys/sys_impl.h"

static bool pci_fn_is_pf(const char *root, unsigned int dom, unsigned int bus, unsigned int slot,
			 unsigned int fn)
{
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%04x:%02x:%02x.%x", dom, bus, slot, fn);
	if (!sim_exists(root, rel))
		return false;
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%04x:%02x:%02x.%x/physfn", dom, bus, slot,
		fn);
	return !sim_exists(root, rel);
}

int sim_udev_path_name(const char *root, const char *bdf, char buf[static 16])
{
	char pf[16], rel[PATH_MAX], cls[32] = "";
	unsigned int vf = 0, dom, bus, slot, func;
	bool is_vf = sim_kernel_vf_of(root, bdf, pf, &vf) == 0;
	const char *pf_bdf = is_vf ? pf : bdf;
	if (sscanf(pf_bdf, "%x:%x:%x.%x", &dom, &bus, &slot, &func) != 4)
		return -EINVAL;
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", pf_bdf);
	sim_get(root, rel, cls, sizeof(cls));
	bool eth = !strcmp(cls, "0x020000");
	bool multi = false;
	for (unsigned int f = 0; f < 8 && !multi; f++)
		multi = f != func && pci_fn_is_pf(root, dom, bus, slot, f);
	char fpart[8] = "", tail[16] = "";
	if (multi)
		sim_fmt(fpart, sizeof(fpart), "f%u", func);
	if (is_vf)
		sim_fmt(tail, sizeof(tail), "v%u", vf);
	else if (eth)
		sim_fmt(tail, sizeof(tail), "np%u", func); /* phys_port_name p<port> */
	return sim_fmt(buf, 16, "%sp%us%u%s%s", eth ? "en" : "ib", bus, slot, fpart, tail);
}

/* The name a policy word gives the new netdev; false when it gives none. */
static bool policy_name(const char *root, const char *bdf, const char *word, size_t len,
			char out[static 16])
{
	return len == 4 && !strncmp(word, "path", 4) && sim_udev_path_name(root, bdf, out) == 0;
}

/* The name udev gives: the policies in order, then Name=; "" for none. */
static void udev_name(const char *root, const char *bdf, const struct link_file *lf,
		      char out[static 16])
{
	out[0] = '\0';
	for (const char *p = lf->name_policy; p && *p;) {
		p += strspn(p, " \t");
		size_t len = strcspn(p, " \t");
		if (len && policy_name(root, bdf, p, len, out))
			return;
		p += len;
	}
	if (lf->name && sim_ifname_valid(lf->name))
		sim_fmt(out, 16, "%s", lf->name);
}

int sim_udev_link_name(const char *root, const char *bdf, const char *ifname,
		       char ret_name[static 16], struct err *e)
{
	static const struct sys_ops files_only = {0}; /* reads only: the generic ones */
	struct sys s = {0};
	struct link_file *lfs = NULL;
	size_t n = 0;
	int r = sys_base_init(&s, &files_only, root, true, e);
	if (r < 0)
		return r;
	r = linkfile_read_all(&s, &lfs, &n);
	sys_base_fini(&s);
	if (r < 0)
		return err_set(e, -r, "cannot read the .link files under '%s'", root);

	char rel[PATH_MAX], addr[128] = "", driver[] = "mlx5_core", want[16] = "";
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s/address", ifname);
	sim_get(root, rel, addr, sizeof(addr));
	struct netdev nd = {.name = (char *)ifname, .address = addr};
	struct fn fn = {.driver = driver, .netdevs = &nd, .n_netdevs = 1};
	sim_fmt(fn.bdf, sizeof(fn.bdf), "%s", bdf);
	for (size_t i = 0; i < n; i++)
		if (linkfile_matches(&lfs[i], &fn, ifname)) {
			udev_name(root, bdf, &lfs[i], want);
			break; /* udev applies the first matching file only */
		}
	linkfile_free_all(lfs, n);
	sim_fmt(ret_name, 16, "%s", want);
	return 0;
}

int sim_udev_net_add(const char *root, const char *bdf, const char *ifname, bool path_default,
		     char *ret_name, struct err *e)
{
	char want[16];
	int r = sim_udev_link_name(root, bdf, ifname, want, e);
	if (r < 0)
		return r;
	if (!*want && path_default)
		sim_udev_path_name(root, bdf, want);

	const char *now = ifname;
	if (*want && strcmp(want, ifname)) {
		struct err ignored;
		r = sim_netdev_rename(root, ifname, want, &ignored);
		if (r == 0)
			now = want;
		else if (r != -EEXIST)
			return err_set(e, -r, "udev cannot rename '%s' to '%s'", ifname, want);
	}
	if (ret_name)
		sim_fmt(ret_name, 16, "%s", now);
	return 0;
}
