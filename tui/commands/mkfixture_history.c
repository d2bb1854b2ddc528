// SPDX-License-Identifier: MIT
/* `ibvf mkfixture DIR --history`: the seeded node with two days of recorded
 * history in DIR/var/lib/ibvf/history.db (docs/fixture.md). The history is
 * not written by hand: the simulation is driven through what happened (a
 * pod starting and the kernel renaming its PF's other VFs, a port going
 * down and back, a reboot, the VFs made again and the pods back, another
 * pod) and the recorder (core/history/recorder.h) observes the node after
 * each step, stamped with the step's time in the past. Each boot's btime is
 * its step's time, so the kernel log's records land where they happened;
 * the journal entries of the ibvf commands a step runs get its time too. */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/actions/journal.h"
#include "core/checks/checks.h"
#include "core/history/recorder.h"
#include "core/model/names.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/sim/sim_boot.h"
#include "core/sim/sim_tree.h"
#include "core/sys/sys.h"
#include "tui/base/cli.h"
#include "tui/base/text.h"

#define MIN_US	(60ll * 1000000)
#define HOUR_US (60 * MIN_US)

struct history {
	struct cli sim;
	const char *dir;
	struct sys *s;
	struct hist_recorder *rec;
};

/* What the recorder sees at t_us: a fresh discovery and the checks. */
static int observe(struct history *h, int64_t t_us, const char *what)
{
	struct node *n = NULL;
	struct findings fs = {0};
	struct err e = {{0}};
	size_t events = 0;
	if (node_discover(h->s, &n, &e) < 0) {
		cli_error("mkfixture --history: %s", e.msg);
		return -1;
	}
	int r = checks_run(n, NULL, &fs);
	if (r < 0)
		cli_error("mkfixture --history: the checks failed: %s", strerror(-r));
	else if ((r = hist_recorder_observe(h->rec, n, &fs, t_us, &events, &e)) < 0)
		cli_error("mkfixture --history: %s", e.msg);
	findings_fini(&fs);
	node_free(n);
	if (r < 0)
		return -1;
	char when[32];
	hist_time_format(t_us, when, sizeof(when));
	printf("history: %s: %s (%zu event%s recorded)\n", when, what, events,
	       events == 1 ? "" : "s");
	return 0;
}

static off_t journal_size(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s%s", dir, JOURNAL_PATH);
	return stat(path, &st) == 0 ? st.st_size : 0;
}

/* The journal entries written since it was from bytes long get the time
 * of the step that ran them (the ibvf commands ran now, not then). */
static int journal_restamp(const char *dir, off_t from, int64_t t_us)
{
	char path[PATH_MAX], when[32];
	snprintf(path, sizeof(path), "%s%s", dir, JOURNAL_PATH);
	time_t t = (time_t)(t_us / 1000000);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char *buf = malloc(JOURNAL_MAX + 1);
	size_t len = buf ? fread(buf, 1, JOURNAL_MAX + 1, f) : 0;
	fclose(f);
	if (!buf || len > JOURNAL_MAX || (size_t)from > len) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	FILE *o = fopen(path, "w");
	if (!o) {
		free(buf);
		return -1;
	}
	fwrite(buf, 1, (size_t)from, o);
	for (char *line = buf + from, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		struct json_object *j = json_tokener_parse(line);
		if (j && json_object_is_type(j, json_type_object)) {
			json_object_object_add(j, "time", json_object_new_string(when));
			fprintf(o, "%s\n",
				json_object_to_json_string_ext(
					j,
					JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		} else if (*line) {
			fprintf(o, "%s\n", line);
		}
		json_object_put(j);
	}
	free(buf);
	return fclose(o) == 0 ? 0 : -1;
}

/* "ibN"/"ethN": a name the kernel gave. */
static bool kernel_named(const struct vf *v)
{
	const char *nm = v->fn.n_netdevs ? v->fn.netdevs[0].name : NULL;
	if (!nm)
		return false;
	const char *d = !strncmp(nm, "ib", 2) ? nm + 2 : !strncmp(nm, "eth", 3) ? nm + 3 : NULL;
	return d && *d && strspn(d, "0123456789") == strlen(d);
}

/* A VF a pod may be given: a host netdev and no pod; one with a kernel name
 * on a PF with other kernel-named VFs first (the field report's case). */
static bool pick_pod_vf(struct history *h, char bdf[static 16])
{
	struct node *n = NULL;
	struct err e = {{0}};
	bdf[0] = '\0';
	if (node_discover(h->s, &n, &e) < 0)
		return false;
	for (int pass = 0; pass < 2 && !bdf[0]; pass++)
		for (size_t i = 0; i < n->n_pfs && !bdf[0]; i++) {
			const struct pf *pf = &n->pfs[i];
			size_t named = 0;
			for (size_t k = 0; k < pf->n_vfs; k++)
				named += kernel_named(&pf->vfs[k]);
			for (size_t k = 0; k < pf->n_vfs && !bdf[0]; k++) {
				const struct vf *v = &pf->vfs[k];
				if (!v->fn.n_netdevs || pods_holder(v) ||
				    (pass == 0 && !(kernel_named(v) && named > 1)))
					continue;
				snprintf(bdf, 16, "%s", v->fn.bdf);
			}
		}
	node_free(n);
	return bdf[0];
}

/* A VF whose port is ACTIVE, no pod's, from the last PF on. */
static bool pick_port_vf(struct history *h, char bdf[static 16])
{
	struct node *n = NULL;
	struct err e = {{0}};
	bdf[0] = '\0';
	if (node_discover(h->s, &n, &e) < 0)
		return false;
	for (size_t i = n->n_pfs; i-- > 0 && !bdf[0];)
		for (size_t k = n->pfs[i].n_vfs; k-- > 0 && !bdf[0];) {
			const struct vf *v = &n->pfs[i].vfs[k];
			const struct port *p = fn_port(&v->fn);
			if (p && p->state.known && p->state.v == PORT_STATE_ACTIVE &&
			    v->fn.n_netdevs && !pods_holder(v))
				snprintf(bdf, 16, "%s", v->fn.bdf);
		}
	node_free(n);
	return bdf[0];
}

static int pod_start(struct history *h, int64_t t_us, const char *pod)
{
	char bdf[16], what[400];
	if (!pick_pod_vf(h, bdf)) {
		printf("history: no VF to give pod %s: it is left out\n", pod);
		return 0;
	}
	off_t j = journal_size(h->dir);
	if (podstart_run(&h->sim, pod, bdf, NULL, NULL) != 0)
		return -1;
	journal_restamp(h->dir, j, t_us);
	snprintf(what, sizeof(what), "pod %s started with VF %s", pod, bdf);
	return observe(h, t_us, what);
}

static int port_flap(struct history *h, int64_t t_us, int64_t down_for)
{
	char bdf[16], what[128];
	struct err e = {{0}};
	if (!pick_port_vf(h, bdf)) {
		printf("history: no ACTIVE port to take down: left out\n");
		return 0;
	}
	if (sim_port_set(h->s, bdf, false, &e) < 0) {
		cli_error("mkfixture --history: %s", e.msg);
		return -1;
	}
	snprintf(what, sizeof(what), "the port of VF %s went down (1: DOWN, 2: Polling)", bdf);
	if (observe(h, t_us, what) < 0)
		return -1;
	if (sim_port_set(h->s, bdf, true, &e) < 0) {
		cli_error("mkfixture --history: %s", e.msg);
		return -1;
	}
	snprintf(what, sizeof(what), "the port of VF %s came back (4: ACTIVE)", bdf);
	return observe(h, t_us + down_for, what);
}

struct vf_count {
	char bdf[16];
	size_t n;
};

/* The reboot as `debug reboot` does it; then, for each PF the boot unit
 * did not give its VFs back, the admin's `ibvf vf create PF N` and the
 * kubelet's pods back, a quarter of an hour later. */
static int reboot(struct history *h, int64_t t_us, uint64_t seed)
{
	struct vf_count counts[SIM_PFS_MAX + 8];
	size_t n_counts = 0;
	struct node *n = NULL;
	struct err e = {{0}};
	if (node_discover(h->s, &n, &e) < 0) {
		cli_error("mkfixture --history: %s", e.msg);
		return -1;
	}
	for (size_t i = 0; i < n->n_pfs && n_counts < sizeof(counts) / sizeof(counts[0]); i++)
		if (n->pfs[i].n_vfs) {
			snprintf(counts[n_counts].bdf, 16, "%s", n->pfs[i].fn.bdf);
			counts[n_counts++].n = n->pfs[i].n_vfs;
		}
	node_free(n);
	off_t j = journal_size(h->dir);
	reboot_run(&h->sim, seed, t_us); /* a failing unit is history too */
	journal_restamp(h->dir, j, t_us);
	if (observe(h, t_us, "the node rebooted") < 0)
		return -1;

	int64_t later = t_us + 15 * MIN_US;
	size_t made = 0;
	j = journal_size(h->dir);
	for (size_t i = 0; i < n_counts; i++) {
		char path[PATH_MAX], cur[16] = "", num[16], why[512];
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_numvfs", counts[i].bdf);
		if (sys_read_attr(h->s, path, cur, sizeof(cur)) > 0 && strcmp(cur, "0"))
			continue;
		snprintf(num, sizeof(num), "%zu", counts[i].n);
		char *args[] = {"vf", "create", counts[i].bdf, num, "--yes", NULL};
		int st = reboot_exec_ibvf(h->dir, args, 5, why, sizeof(why));
		printf("history: ibvf vf create %s %s --yes: %s%s%s\n", counts[i].bdf, num,
		       st == 0 ? "ok" : "failed", st == 0 ? "" : ": ", st == 0 ? "" : why);
		made++;
	}
	if (!made)
		return 0;
	journal_restamp(h->dir, j, later);
	struct sim_boot_log log = {.n = 0};
	if (sim_boot_kubelet(h->s, &log, &e) < 0) {
		cli_error("mkfixture --history: %s", e.msg);
		return -1;
	}
	for (size_t i = 0; i < log.n; i++) {
		char esc[512];
		text_escape_into(esc, sizeof(esc), log.notes[i]);
		printf("kubelet: %s\n", esc);
	}
	return observe(h, later, "the VFs made again by hand, the pods back");
}

int mkfixture_history(const char *dir, int64_t start_us, uint64_t seed)
{
	struct history h = {.sim = {.sim = true, .sim_dir = dir}, .dir = dir};
	struct hist_recorder_opts ro = {.hold_lock = false};
	struct err e = {{0}};
	int rc = 1;
	if (cli_open(&h.sim, &h.s) < 0)
		return 1;
	if (hist_recorder_open(h.s, &ro, &h.rec, &e) < 0) {
		cli_error("mkfixture --history: %s", e.msg);
		goto out;
	}
	/* Two days: the first record; a pod that renames its PF's kernel-named
	 * VFs; a port down for 25 minutes; a reboot with its aftermath; a
	 * second pod on the new boot. */
	if (observe(&h, start_us, "the first record of the node") < 0 ||
	    pod_start(&h, start_us + 4 * HOUR_US, "ml-training/trainer-2") < 0 ||
	    port_flap(&h, start_us + 18 * HOUR_US, 25 * MIN_US) < 0 ||
	    reboot(&h, start_us + 28 * HOUR_US, seed) < 0 ||
	    pod_start(&h, start_us + 42 * HOUR_US, "inference/llm-serve-1") < 0)
		goto out;
	rc = 0;
out:
	hist_recorder_close(h.rec);
	sys_close(h.s);
	return rc;
}
