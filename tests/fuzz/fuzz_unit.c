// SPDX-License-Identifier: MIT
/* Unit and .link file generation (core/persist/persist.c) against any names a node
 * (or a planted --root tree) can show: the input is NUL-separated fields, the
 * hostname, a PF's PCI address and driver, two VFs' PCI addresses, the first
 * VF's netdev name and the second's name on the host before it moved into a
 * pod. persist_build() writes the files; the oracle reads them back with
 * ibvf's own systemd readers (unit_exec_split(), linkfile_parse()):
 *   - every line of a file is blank, a comment, a section ibvf writes or a
 *     key ibvf writes: no name can add a line;
 *   - a .link file matches exactly Path=pci-<its VF's address> and sets
 *     Name= to the VF's name: no name can widen the match or add a key;
 *   - every ExecStart= splits as systemd would split it, into the command
 *     ibvf meant: the program, then the words of its request, a PCI address
 *     being one word equal to the node's, a driver never an option. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/persist/linkfile.h"
#include "core/model/node.h"
#include "core/persist/persist.h"
#include "core/persist/unit.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define IBVF	 "/usr/sbin/ibvf"
#define MODPROBE "/usr/sbin/modprobe"
#define UDEVADM	 "/usr/bin/udevadm"

static const char *const unit_keys[] = {
	"Description",	   "Documentation",   "DefaultDependencies", "After",
	"Wants",	   "Before",	      "Conflicts",	     "Type",
	"RemainAfterExit", "TimeoutStartSec", "ExecStart",	     "WantedBy",
};
static const char *const unit_sections[] = {"[Unit]", "[Service]", "[Install]"};
static const char *const link_keys[] = {"Path", "Name"};
static const char *const link_sections[] = {"[Match]", "[Link]"};

static bool in(const char *s, size_t len, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(set[i]) == len && !strncmp(s, set[i], len))
			return true;
	return false;
}

#define IN(s, len, set) in(s, len, set, sizeof(set) / sizeof(set[0]))

/* Every line: blank, comment, a known section or a known key. */
static void check_lines(const struct persist_file *f, const char *const *keys, size_t n_keys,
			const char *const *sections, size_t n_sections)
{
	const char *s = f->content;
	while (*s) {
		size_t len = strcspn(s, "\n");
		const char *eq = memchr(s, '=', len);
		bool ok = !len || s[0] == '#' || s[0] == ';' || in(s, len, sections, n_sections) ||
			  (eq && in(s, (size_t)(eq - s), keys, n_keys));
		if (!ok)
			fuzz_fail("%s: a line ibvf does not write: '%.*s'", f->name, (int)len, s);
		s += len + (s[len] == '\n');
	}
	if (f->content[0] && f->content[strlen(f->content) - 1] != '\n')
		fuzz_fail("%s does not end with a newline", f->name);
}

static const struct vf *vf_of_link(const struct node *n, const struct persist_file *f)
{
	for (size_t j = 0; j < n->pfs[0].n_vfs; j++) {
		char want[64];
		snprintf(want, sizeof(want), PERSIST_LINK_PREFIX "%s.link",
			 n->pfs[0].vfs[j].fn.bdf);
		for (char *c = want; *c; c++)
			if (*c == ':')
				*c = '-';
		if (!strcmp(want, f->name))
			return &n->pfs[0].vfs[j];
	}
	fuzz_fail("a .link file '%s' for no VF", f->name);
}

static void check_link(const struct node *n, const struct persist_file *f)
{
	const struct vf *vf = vf_of_link(n, f);
	const char *name = vf->fn.n_netdevs ? vf->fn.netdevs[0].name : vf->pod->host_ifname;
	char path[64];
	struct link_file lf;
	check_lines(f, link_keys, 2, link_sections, 2);
	if (linkfile_parse(f->name, f->content, &lf) < 0)
		abort();
	snprintf(path, sizeof(path), "pci-%s", vf->fn.bdf);
	if (lf.n_match_path != 1 || strcmp(lf.match_path[0], path))
		fuzz_fail("%s matches %zu paths, the first '%s', not '%s'", f->name,
			  lf.n_match_path, lf.n_match_path ? lf.match_path[0] : "", path);
	if (!lf.name || strcmp(lf.name, name))
		fuzz_fail("%s sets Name=%s, not '%s'", f->name, lf.name ? lf.name : "(none)", name);
	if (lf.n_match_original_name || lf.n_match_mac || lf.n_match_driver ||
	    lf.n_match_permanent_mac || lf.match_other || lf.name_policy)
		fuzz_fail("%s has more keys than Path= and Name=", f->name);
	linkfile_fini(&lf);
}

static void want_arg(const struct unit_exec *x, size_t i, const char *want, const char *line)
{
	if (i >= x->argc || strcmp(x->argv[i], want))
		fuzz_fail("'%s' splits with word %zu '%s', not '%s'", line, i,
			  i < x->argc ? x->argv[i] : "(none)", want);
}

static void check_unit(const struct node *n, const struct persist *p, const struct persist_file *f)
{
	check_lines(f, unit_keys, sizeof(unit_keys) / sizeof(unit_keys[0]), unit_sections,
		    sizeof(unit_sections) / sizeof(unit_sections[0]));
	size_t cmd = 0;
	for (const char *s = f->content; *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] != 0)) {
		size_t len = strcspn(s, "\n");
		if (strncmp(s, "ExecStart=", 10))
			continue;
		char *line = fuzz_strndup((const uint8_t *)s, len);
		struct unit_exec x;
		struct err e;
		if (unit_exec_split(PERSIST_UNIT, line + 10, &x, &e) < 0)
			fuzz_fail("'%s' does not split: %s", line, e.msg);
		if (!strcmp(x.argv[0], UDEVADM)) {
			want_arg(&x, 1, "settle", line);
			if (x.argc != 3)
				fuzz_fail("'%s': %zu words", line, x.argc);
		} else if (!strcmp(x.argv[0], MODPROBE)) {
			want_arg(&x, 1, "-a", line);
			for (size_t i = 2; i < x.argc; i++)
				if (!n->pfs[0].fn.driver ||
				    strcmp(x.argv[i], n->pfs[0].fn.driver) || x.argv[i][0] == '-')
					fuzz_fail("'%s' loads '%s'", line, x.argv[i]);
		} else if (!strcmp(x.argv[0], IBVF)) {
			if (cmd >= p->n_cmds)
				fuzz_fail("'%s': more ibvf lines than commands", line);
			want_arg(&x, 1, "vf", line);
			want_arg(&x, 3, p->cmds[cmd].req.target, line);
			if (strcmp(p->cmds[cmd].line, line))
				fuzz_fail("command %zu is '%s', the unit has '%s'", cmd,
					  p->cmds[cmd].line, line);
			cmd++;
		} else {
			fuzz_fail("'%s' runs '%s'", line, x.argv[0]);
		}
		unit_exec_fini(&x);
		free(line);
	}
	if (cmd != p->n_cmds)
		fuzz_fail("%zu commands, %zu ibvf lines", p->n_cmds, cmd);
	for (size_t i = 0; i < p->n_cmds; i++) {
		const char *t = p->cmds[i].req.target;
		bool known = !strcmp(t, n->pfs[0].fn.bdf);
		for (size_t j = 0; j < n->pfs[0].n_vfs; j++)
			known |= !strcmp(t, n->pfs[0].vfs[j].fn.bdf);
		if (!known)
			fuzz_fail("command %zu targets '%s', no function of the node", i, t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *host = fuzz_field(&data, &size), *pf_bdf = fuzz_field(&data, &size),
	     *driver = fuzz_field(&data, &size), *vf0_bdf = fuzz_field(&data, &size),
	     *vf0_name = fuzz_field(&data, &size), *vf1_bdf = fuzz_field(&data, &size),
	     *vf1_name = fuzz_field(&data, &size);
	if (!strcmp(vf0_bdf, vf1_bdf) || !strcmp(vf0_bdf, pf_bdf) || !strcmp(vf1_bdf, pf_bdf))
		goto out; /* the kernel gives each function its own address */
	struct port port = {.num = 1, .link_layer = "InfiniBand"};
	struct rdma pf_rdma = {.name = "mlx5_0", .ports = &port, .n_ports = 1};
	struct rdma vf_rdma = {.name = "mlx5_9", .ports = &port, .n_ports = 1};
	struct netdev nd = {.name = vf0_name};
	struct pod_binding pod = {.host_ifname = vf1_name, .sources = POD_SRC_MULTUS};
	struct kguid g0 = {true, 0x0011223344556677ull}, g1 = {true, 0x0011223344556678ull};
	struct vf vfs[2] = {
		{.index = 0,
		 .fn = {.driver = "mlx5_core",
			.netdevs = &nd,
			.n_netdevs = 1,
			.rdmas = &vf_rdma,
			.n_rdmas = 1},
		 .node_guid = g0,
		 .port_guid = g1},
		{.index = 1,
		 .fn = {.driver = "mlx5_core", .rdmas = &vf_rdma, .n_rdmas = 1},
		 .node_guid = g1,
		 .port_guid = g0,
		 .pod = &pod},
	};
	struct pf pf = {.fn = {.driver = *driver ? driver : NULL, .rdmas = &pf_rdma, .n_rdmas = 1},
			.sriov = true,
			.vfs = vfs,
			.n_vfs = 2};
	snprintf(pf.fn.bdf, sizeof(pf.fn.bdf), "%s", pf_bdf);
	snprintf(vfs[0].fn.bdf, sizeof(vfs[0].fn.bdf), "%s", vf0_bdf);
	snprintf(vfs[1].fn.bdf, sizeof(vfs[1].fn.bdf), "%s", vf1_bdf);
	struct node n = {.hostname = *host ? host : NULL, .pfs = &pf, .n_pfs = 1};
	struct persist_opts o = {.ibvf = IBVF, .modprobe = MODPROBE, .udevadm = UDEVADM};
	struct persist *p;
	struct err e;
	if (persist_build(&n, &o, &p, &e) == 0) {
		for (size_t i = 0; i < p->n_files; i++) {
			const struct persist_file *f = &p->files[i];
			if (!strcmp(f->name, PERSIST_UNIT))
				check_unit(&n, p, f);
			else
				check_link(&n, f);
		}
		persist_free(p);
	}
out:
	free(host), free(pf_bdf), free(driver), free(vf0_bdf), free(vf0_name), free(vf1_bdf),
		free(vf1_name);
	return 0;
}
