// SPDX-License-Identifier: MIT
/* Fault injection for the simulated kernel (sys_sim.c). The spec in force is
 * a list of items separated by commas, spaces or newlines, from
 * sys_sim_params.faults (param below) and from the file DIR/.sim/faults
 * (read at each call, so a test can arm a fault for another process):
 *
 *   write:SUFFIX=ERR   a write to a path ending in SUFFIX fails with ERR and
 *                      changes nothing ("write:sriov_numvfs=EIO",
 *                      "write:mlx5_core/bind=EBUSY")
 *   OP=ERR             the operation fails with ERR and changes nothing; OP is
 *                      rename, set_up, vf_guid, vf_link_state, link_dump or
 *                      link_get
 *   vanish:BDF         the PCI function disappears (hot-unplug: remove events,
 *                      no driver, no links) at the start of the next mutating
 *                      call while it exists; that call then proceeds
 *   podres=STATE       the kubelet's pod-resources API (sim_podres.c) is
 *                      absent (no socket), or times out (timeout), is down
 *                      (refused) or is a socket ibvf does not trust
 *                      (untrusted)
 *   hold:SUFFIX        a write to a path ending in SUFFIX waits, before it
 *                      takes the lock, while the file DIR/.sim/hold exists (at
 *                      most HOLD_MAX_MS): a slow kernel a test releases when
 *                      it has seen what it wanted ("hold:sriov_numvfs");
 *                      DIR/.sim/holding exists while a write waits
 *   operator:BDF       the SR-IOV Network Operator manages PF BDF: when ibvf
 *                      opens the node, its config daemon's pod is in
 *                      var/log/pods and the PF config it applied is in
 *                      etc/sriov-operator/pci/BDF, as the daemon writes them
 *                      (core/pods/operators.h); written once, left in place
 *
 * ERR is an errno name (EIO, EBUSY, EPERM, ENODEV, ...) or a number. */
#include "core/sim/sim_tree.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/model/names.h"
#include "core/model/node.h"
#include "core/sim/sim_boot.h"
#include "core/sim/sys_sim.h"
#include "core/sys/sys.h"

static const struct {
	const char *name;
	int num;
} errnames[] = {
	{"EPERM", EPERM},	    {"ENOENT", ENOENT}, {"EIO", EIO},
	{"ENXIO", ENXIO},	    {"EAGAIN", EAGAIN}, {"ENOMEM", ENOMEM},
	{"EACCES", EACCES},	    {"EBUSY", EBUSY},	{"EEXIST", EEXIST},
	{"ENODEV", ENODEV},	    {"EINVAL", EINVAL}, {"ENOSPC", ENOSPC},
	{"ERANGE", ERANGE},	    {"ENOSYS", ENOSYS}, {"ETIMEDOUT", ETIMEDOUT},
	{"EOPNOTSUPP", EOPNOTSUPP},
};

static int errno_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (!strcmp(s, errnames[i].name))
			return errnames[i].num;
	int n = atoi(s);
	return n > 0 ? n : EIO;
}

/* The fault spec now in force: the parameter's plus the file's. */
static void faults_load(const char *root, const char *param, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s,", param);
	if (n > 0 && (size_t)n < size)
		sim_get(root, ".sim/faults", buf + n, size - (size_t)n);
	for (char *c = buf; *c; c++)
		if (isspace((unsigned char)*c))
			*c = ',';
}

/* The errno an armed fault gives: kind "write" matches a path suffix,
 * other kinds match the operation's name. 0 when none is armed. */
int sim_fault_errno(const char *root, const char *param, const char *kind, const char *path)
{
	char spec[2048], *save = NULL;
	faults_load(root, param, spec, sizeof(spec));
	size_t kl = strlen(kind);
	for (char *t = strtok_r(spec, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(t, '=');
		if (!eq || strncmp(t, kind, kl))
			continue;
		*eq = '\0';
		if (path && t[kl] == ':') {
			size_t pl = strlen(path), sl = strlen(t + kl + 1);
			if (sl && pl >= sl && !strcmp(path + pl - sl, t + kl + 1))
				return errno_parse(eq + 1);
		} else if (!path && t[kl] == '\0') {
			return errno_parse(eq + 1);
		}
	}
	return 0;
}

int sim_fault_value(const char *root, const char *param, const char *kind, char *buf, size_t size)
{
	char spec[2048], *save = NULL;
	faults_load(root, param, spec, sizeof(spec));
	size_t kl = strlen(kind);
	for (char *t = strtok_r(spec, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!strncmp(t, kind, kl) && t[kl] == '=') {
			snprintf(buf, size, "%s", t + kl + 1);
			return 1;
		}
	return 0;
}

int sim_faults_vanish(const char *root, const char *param, struct err *e)
{
	char spec[2048], *save = NULL;
	faults_load(root, param, spec, sizeof(spec));
	int r = 0;
	for (char *t = strtok_r(spec, ",", &save); t && r == 0; t = strtok_r(NULL, ",", &save))
		if (!strncmp(t, "vanish:", 7))
			r = sim_kernel_vanish(root, t + 7, e);
	return r;
}

/* The daemon's pod (bindata/manifests/daemon/daemonset.yaml: DaemonSet
 * sriov-network-config-daemon, container of the same name). */
#define OP_NS	   "sriov-network-operator"
#define OP_POD	   "sriov-network-config-daemon-h7x2q"
#define OP_POD_UID "5b0d6e1c-2f3a-4c5d-9e8f-0a1b2c3d4e77"

/* What the daemon leaves for one PF: SaveLastPfAppliedStatus's
 * json.Marshal of the Interface (compact, no newline), and its pod. */
static int plant_operator(const char *root, const char *pf, struct err *e)
{
	char bdf[16], rel[256], name[64] = "", num[16] = "0";
	if (!node_bdf_normalize(pf, true, bdf))
		return err_setx(e, EINVAL, "fault 'operator:%s': not a PCI address", pf);
	sim_fmt(rel, sizeof(rel), "etc/sriov-operator/pci/%s", bdf);
	if (sim_exists(root, rel))
		return 0;
	char dev[64];
	sim_fmt(dev, sizeof(dev), "sys/bus/pci/devices/%s/sriov_numvfs", bdf);
	if (sim_get(root, dev, num, sizeof(num)) < 0)
		return err_setx(e, ENODEV, "fault 'operator:%s': no SR-IOV PF %s", pf, bdf);
	char abs[PATH_MAX];
	sim_fmt(abs, sizeof(abs), "%s/sys/bus/pci/devices/%s/net", root, bdf);
	DIR *d = opendir(abs);
	for (struct dirent *de; d && (de = readdir(d));)
		if (de->d_name[0] != '.' && !name[0])
			sim_fmt(name, sizeof(name), "%s", de->d_name);
	if (d)
		closedir(d);
	int r = sim_putf(root, e, rel,
			 "{\"pciAddress\":\"%s\",\"numVfs\":%s,%s%s%s\"linkType\":\"IB\","
			 "\"vfGroups\":[{\"resourceName\":\"ibvf\",\"deviceType\":\"netdevice\","
			 "\"vfRange\":\"0-%d\",\"policyName\":\"ibvf-ib\",\"isRdma\":true}]}",
			 bdf, num, name[0] ? "\"name\":\"" : "", name, name[0] ? "\"," : "",
			 atoi(num) > 0 ? atoi(num) - 1 : 0);
	if (r == 0 && (r = sim_fmt(rel, sizeof(rel),
				   "var/log/pods/%s_%s_%s/sriov-network-config-daemon/0.log", OP_NS,
				   OP_POD, OP_POD_UID)) == 0)
		r = sim_putf(root, e, rel, "%s", "");
	return r;
}

int sim_faults_operator(const char *root, const char *param, struct err *e)
{
	char spec[2048], *save = NULL;
	faults_load(root, param, spec, sizeof(spec));
	int r = 0;
	for (char *t = strtok_r(spec, ",", &save); t && r == 0; t = strtok_r(NULL, ",", &save))
		if (!strncmp(t, "operator:", 9))
			r = plant_operator(root, t + 9, e);
	return r;
}

#define HOLD_MAX_MS 120000

static bool hold_armed(const char *root)
{
	char p[4096];
	int n = snprintf(p, sizeof(p), "%s/.sim/hold", root);
	return n > 0 && (size_t)n < sizeof(p) && access(p, F_OK) == 0;
}

void sim_faults_hold(const char *root, const char *param, const char *path)
{
	char spec[2048], *save = NULL;
	if (!hold_armed(root))
		return; /* the common case: one access(), no spec to read */
	faults_load(root, param, spec, sizeof(spec));
	size_t pl = strlen(path);
	for (char *t = strtok_r(spec, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t sl = strlen(t);
		if (strncmp(t, "hold:", 5) || sl == 5 || pl < sl - 5 ||
		    strcmp(path + pl - (sl - 5), t + 5))
			continue;
		/* DIR/.sim/holding says a write waits (a test signals then). */
		char mark[4096];
		int n = snprintf(mark, sizeof(mark), "%s/.sim/holding", root);
		int fd = n > 0 && (size_t)n < sizeof(mark)
				 ? open(mark, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)
				 : -1;
		if (fd >= 0)
			close(fd);
		struct timespec ts = {0, 20 * 1000000L};
		for (int i = 0; i < HOLD_MAX_MS / 20 && hold_armed(root); i++)
			nanosleep(&ts, NULL);
		if (fd >= 0)
			unlink(mark);
		return;
	}
}

/* The first entry of the function's class directory ("infiniband", "net"). */
static int fn_child(struct sys *s, const char *bdf, const char *cls, char *buf, size_t size)
{
	char path[128], **names;
	size_t n;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, cls);
	if (sys_list(s, path, &names, &n) < 0)
		return -ENOENT;
	int r = n && strlen(names[0]) < size ? 0 : -ENOENT;
	if (r == 0)
		snprintf(buf, size, "%s", names[0]);
	sys_list_free(names, n);
	return r;
}

int sim_port_set(struct sys *s, const char *bdf, bool up, struct err *e)
{
	if (!sys_is_sim(s))
		return err_setx(e, EOPNOTSUPP, "only a simulated node's ports are set this way");
	const char *root = sys_root(s);
	char fn[PATH_MAX], rel[PATH_MAX], ib[64], net[16], flags[32] = "";
	if (sim_fn_rel(root, bdf, fn, sizeof(fn)) < 0)
		return err_setx(e, ENODEV, "no PCI function '%s'", bdf);
	int lock = sys_sim_lock((struct sim *)s, e);
	if (lock < 0)
		return lock;
	int r = fn_child(s, bdf, "infiniband", ib, sizeof(ib));
	if (r < 0) {
		r = err_setx(e, ENODEV, "'%s' has no RDMA device: it has no port", bdf);
		goto out;
	}
	int state = up ? PORT_STATE_ACTIVE : PORT_STATE_DOWN;
	int phys = up ? PORT_PHYS_LINK_UP : PORT_PHYS_POLLING;
	sim_fmt(rel, sizeof(rel), "%s/infiniband/%s/ports/1/state", fn, ib);
	r = sim_putf(root, e, rel, "%d: %s\n", state, port_state_to_string(state));
	sim_fmt(rel, sizeof(rel), "%s/infiniband/%s/ports/1/phys_state", fn, ib);
	if (r == 0)
		r = sim_putf(root, e, rel, "%d: %s\n", phys, port_phys_state_to_sysfs(phys));
	if (r == 0 && fn_child(s, bdf, "net", net, sizeof(net)) == 0) {
		/* The carrier follows the port; operstate is up only on an up link. */
		sim_fmt(rel, sizeof(rel), "%s/net/%s/flags", fn, net);
		sim_get(root, rel, flags, sizeof(flags));
		bool if_up = strtoul(flags, NULL, 16) & 0x1;
		sim_fmt(rel, sizeof(rel), "%s/net/%s/operstate", fn, net);
		r = sim_putf(root, e, rel, "%s\n", up && if_up ? "up" : "down");
		sim_fmt(rel, sizeof(rel), "%s/net/%s", fn, net);
		if (r == 0)
			r = sim_event_add(root, "change", "net", net, NULL, rel, e);
	} else if (r == 0) {
		sim_fmt(rel, sizeof(rel), "%s/infiniband/%s", fn, ib);
		r = sim_event_add(root, "change", "infiniband", ib, NULL, rel, e);
	}
out:
	sys_sim_unlock(lock);
	return r;
}
