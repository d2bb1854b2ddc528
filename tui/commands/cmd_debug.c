// SPDX-License-Identifier: MIT
/* `ibvf debug rename|vfinfo|reboot|pod-start`: low-level probes of the kernel
 * boundary, and the simulated node's reboot (cmd_reboot.c) and pod start
 * (cmd_podstart.c). */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "tui/base/cli.h"
#include "core/base/guid.h"
#include "core/sys/sys.h"

static struct json_object *opt_int(int64_t v)
{
	return v < 0 ? NULL : json_object_new_int64(v);
}

static struct json_object *opt_guid(bool known, uint64_t g)
{
	char buf[GUID_STRLEN];
	if (!known)
		return NULL;
	guid_format_sysfs(g, buf);
	return json_object_new_string(buf);
}

static int debug_vfinfo(struct sys *s, const char *pf)
{
	struct sys_link *links;
	size_t n;
	struct err e = {{0}};
	if (sys_link_dump(s, &links, &n, &e) < 0) {
		cli_error("%s", e.msg);
		return 1;
	}
	const struct sys_link *l = NULL;
	for (size_t i = 0; i < n && !l; i++)
		if (!strcmp(links[i].name, pf))
			l = &links[i];
	if (!l) {
		cli_error("no network interface '%s'", pf);
		sys_links_free(links, n);
		return 1;
	}
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < l->n_vfs; i++) {
		const struct sys_vf_info *v = &l->vfs[i];
		struct json_object *o = json_object_new_object();
		char mac[HWADDR_STRLEN];
		hwaddr_format(v->mac, mac);
		json_object_object_add(o, "vf", json_object_new_int64(v->vf));
		json_object_object_add(o, "mac", json_object_new_string(mac));
		json_object_object_add(o, "vlan", opt_int(v->vlan));
		json_object_object_add(o, "qos", opt_int(v->qos));
		json_object_object_add(o, "spoofchk", opt_int(v->spoofchk));
		json_object_object_add(o, "trust", opt_int(v->trust));
		json_object_object_add(o, "link_state", opt_int(v->link_state));
		json_object_object_add(o, "max_tx_rate", opt_int(v->max_tx_rate));
		json_object_object_add(o, "node_guid", opt_guid(v->node_guid_known, v->node_guid));
		json_object_object_add(o, "port_guid", opt_guid(v->port_guid_known, v->port_guid));
		json_object_array_add(a, o);
	}
	cli_print_json_ext(a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				      JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(a);
	sys_links_free(links, n);
	return 0;
}

enum {
	DEBUG_RENAME,
	DEBUG_VFINFO,
	DEBUG_REBOOT,
	DEBUG_POD_START
};

const struct opt_sub debug_subs[] = {
	[DEBUG_RENAME] = {"rename", "debug rename IFNAME NEWNAME", false},
	[DEBUG_VFINFO] = {"vfinfo", "debug vfinfo PF_IFNAME", false},
	[DEBUG_REBOOT] = {"reboot", "debug reboot [--seed N]", false},
	[DEBUG_POD_START] = {"pod-start",
			     "debug pod-start NAMESPACE/NAME VF [--ifname IF] [--uid UID]", false},
	{NULL, NULL, false},
};

enum {
	DEBUG_O_SEED = 1,
	DEBUG_O_IFNAME,
	DEBUG_O_UID,
};

const struct opt debug_options[] = {
	{OPT_ARG("seed", 0, "N", DEBUG_O_SEED,
		 "the VF probe order (else $IBVF_SIM_SEED, else random)"),
	 .subs = OPT_SUB(DEBUG_REBOOT)},
	{OPT_ARG("ifname", 0, "IF", DEBUG_O_IFNAME, "the VF's interface name in the pod (net1)"),
	 .subs = OPT_SUB(DEBUG_POD_START)},
	{OPT_ARG("uid", 0, "UID", DEBUG_O_UID, "the pod's UID (else a new one)"),
	 .subs = OPT_SUB(DEBUG_POD_START)},
	{OPT_TABLE_END},
};

/* `debug reboot [--seed N]`: the simulated node only. */
static int debug_reboot(const struct cli *c, struct opts *p)
{
	const char *seed_arg = NULL, *v;
	uint64_t seed;
	while (opts_next(p, &v) == DEBUG_O_SEED)
		seed_arg = v;
	if (p->n_pos > 1)
		return cli_bad_arg("debug reboot", p->pos[1]);
	if (!c->sim) {
		cli_error("debug reboot: only the simulated node reboots (--sim[=DIR]); %s",
			  c->root ? "a --root tree is a capture, with no kernel to boot"
				  : "reboot a real node with systemctl reboot");
		return EXIT_USAGE;
	}
	if (reboot_seed(seed_arg, &seed) < 0)
		return EXIT_USAGE;
	return reboot_run(c, seed, 0);
}

/* `debug pod-start NAMESPACE/NAME VF [--ifname IF] [--uid UID]`: the
 * simulated node only (cmd_podstart.c). */
static int debug_pod_start(const struct cli *c, struct opts *p)
{
	const char *ifname = NULL, *uid = NULL, *v;
	int id;
	while ((id = opts_next(p, &v)))
		*(id == DEBUG_O_IFNAME ? &ifname : &uid) = v;
	if (p->n_pos > 3)
		return cli_bad_arg("debug pod-start", p->pos[3]);
	if (p->n_pos < 3) {
		cli_error("usage: ibvf --sim debug pod-start NAMESPACE/NAME VF [--ifname IF] "
			  "[--uid UID]");
		return EXIT_USAGE;
	}
	if (!c->sim) {
		cli_error("debug pod-start: only the simulated node starts pods this way "
			  "(--sim[=DIR]); %s",
			  c->root ? "a --root tree is a capture, with no kubelet"
				  : "on a real node the kubelet starts them");
		return EXIT_USAGE;
	}
	return podstart_run(c, p->pos[1], p->pos[2], ifname, uid);
}

int cmd_debug(const struct cli *c, int argc, char **argv)
{
	struct opts p;
	if (opts_parse(cmd_find("debug"), argc, argv, &p) < 0)
		return EXIT_USAGE;
	if (p.sub == DEBUG_REBOOT)
		return debug_reboot(c, &p);
	if (p.sub == DEBUG_POD_START)
		return debug_pod_start(c, &p);
	bool rename = p.sub == DEBUG_RENAME && p.n_pos == 3;
	bool vfinfo = p.sub == DEBUG_VFINFO && p.n_pos == 2;
	if (!rename && !vfinfo) {
		cli_error("usage: ibvf debug rename IFNAME NEWNAME | ibvf debug vfinfo PF_IFNAME | "
			  "ibvf --sim debug reboot [--seed N] | ibvf --sim debug pod-start "
			  "NAMESPACE/NAME VF");
		return EXIT_USAGE;
	}
	struct sys *s;
	if (cli_open(c, &s) < 0)
		return 1;
	int rc;
	if (rename) {
		struct err e = {{0}};
		rc = sys_link_rename(s, p.pos[1], p.pos[2], &e) < 0 ? 1 : 0;
		if (rc)
			cli_error("%s", e.msg);
	} else {
		rc = debug_vfinfo(s, p.pos[1]);
	}
	sys_close(s);
	return rc;
}
