// SPDX-License-Identifier: MIT
/* `ibvf console bench N` and `bench-refresh N` (hidden): what
 * scripts/bench/console measures. */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/base/cli.h"
#include "console_int.h"
#include "core/sys/sys.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* `ibvf console --bench N`: medians of a full redraw at 160x48 (output to
 * /dev/null) and of a rebuild+diff of the node. */
int console_bench(struct console *c, int runs)
{
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	double *t = calloc((size_t)runs, sizeof(*t));
	if (!out || !in || !t) {
		cli_error("cannot set up the benchmark: %s", strerror(errno));
		return 1;
	}
	SCREEN *scr = newterm("xterm-256color", out, in);
	if (!scr) {
		cli_error("cannot open the terminal 'xterm-256color'");
		return 1;
	}
	set_term(scr);
	resize_term(48, 160);
	console_curses_setup(c);
	double med[4];
	for (int pass = 0; pass < 4; pass++) {
		for (int i = 0; i < runs; i++) {
			double t0 = console_now();
			if (pass == 0) {
				clearok(curscr, TRUE);
				console_redraw(c);
			} else if (pass == 3) {
				console_checks_run(c);
			} else {
				console_rebuild(c);
			}
			t[i] = console_now() - t0;
			if (pass == 2) /* the console's own part: diff, rows */
				t[i] -= c->discover_cost;
		}
		qsort(t, (size_t)runs, sizeof(*t), cmp_double);
		med[pass] = t[runs / 2];
	}
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
	free(t);
	printf("rows %zu, median of %d runs\n"
	       "  full redraw 160x48            %9.3f ms  (goal < 5)\n"
	       "  rebuild+diff (with discovery) %9.3f ms  (goal < 20)\n"
	       "  diff+rows alone (no discovery)%9.3f ms\n"
	       "  checks, once a snapshot       %9.3f ms  (%zu findings)\n",
	       c->tree.n, runs, med[0] * 1e3, med[1] * 1e3, med[2] * 1e3, med[3] * 1e3,
	       c->checks.fs.n);
	return 0;
}

/* One change of the bench: renames a VF's netdev and back, sets a VF's
 * port GUID (its PF's admin state), or unbinds and binds a VF. */
static int bench_change(struct console *c, int kind, int run, struct err *e)
{
	const struct vf *vf = NULL;
	const struct pf *pf = NULL;
	for (size_t i = 0; c->node && !vf && i < c->node->n_pfs; i++)
		for (size_t j = 0; !vf && j < c->node->pfs[i].n_vfs; j++)
			if (c->node->pfs[i].vfs[j].fn.n_netdevs && c->node->pfs[i].fn.n_netdevs) {
				pf = &c->node->pfs[i];
				vf = &pf->vfs[j];
			}
	if (!vf)
		return err_setx(e, ENODEV, "no VF with a netdev to change");
	if (kind == 0) {
		char name[SYS_IFNAMSIZ];
		snprintf(name, sizeof(name), "ibbench%d", run % 2);
		return sys_link_rename(c->sys, vf->fn.netdevs[0].name, name, e);
	}
	if (kind == 1)
		return sys_vf_set_guid(c->sys, pf->fn.netdevs[0].name, vf->index, SYS_GUID_PORT,
				       0x1000 + (uint64_t)run, e);
	int r = sys_write(c->sys, "/sys/bus/pci/drivers/mlx5_core/unbind", vf->fn.bdf, e);
	return r < 0 ? r : sys_write(c->sys, "/sys/bus/pci/drivers/mlx5_core/bind", vf->fn.bdf, e);
}

/* What a rebuild reads: paths of files, netlink lookups. */
struct bench_reads {
	size_t files, links;
};

static void bench_count(void *arg, const char *path)
{
	struct bench_reads *r = arg;
	if (!strncmp(path, "netlink:", 8))
		r->links++;
	else
		r->files++;
}

/* `ibvf --sim=DIR console bench-refresh N` (hidden): the median of N
 * rebuild+diff after a change the events announce, for each kind of change,
 * and what the last one read. */
int console_bench_refresh(struct console *c, int runs)
{
	static const char *const kinds[] = {"netdev rename", "VF port GUID set", "VF unbind+bind"};
	if (!sys_is_sim(c->sys)) {
		cli_error("bench-refresh changes the node: it runs on a simulated one only");
		return EXIT_USAGE;
	}
	struct console_pending pend = {0};
	double *t = calloc((size_t)runs, sizeof(*t));
	if (!t) {
		cli_error("cannot set up the benchmark: %s", strerror(ENOMEM));
		return 1;
	}
	console_pending_read(c, &pend); /* what happened before */
	pend.n = 0;
	pend.lost = false;
	int rc = 0;
	printf("rows %zu, median of %d runs\n", c->tree.n, runs);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds) && !rc; k++) {
		size_t events = 0;
		struct bench_reads reads = {0};
		for (int i = 0; i < runs && !rc; i++) {
			struct err e = {{0}};
			if (bench_change(c, (int)k, i, &e) < 0) {
				cli_error("%s", e.msg);
				rc = 1;
				break;
			}
			console_pending_read(c, &pend);
			events = pend.n;
			reads = (struct bench_reads){0};
			sys_set_trace(c->sys, bench_count, &reads);
			double t0 = console_now();
			if (console_update(c, &pend) < 0)
				rc = 1;
			t[i] = console_now() - t0;
			sys_set_trace(c->sys, NULL, NULL);
		}
		qsort(t, (size_t)runs, sizeof(*t), cmp_double);
		if (!rc)
			printf("  rebuild+diff after %-16s %9.3f ms  (%zu events, %zu files and "
			       "%zu links read, goal < 20)\n",
			       kinds[k], t[runs / 2] * 1e3, events, reads.files, reads.links);
	}
	free(t);
	free(pend.v);
	return rc;
}
