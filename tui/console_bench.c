// SPDX-License-Identifier: MIT
/* `ibvf console bench N` (hidden): what scripts/bench/console measures. */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "console_int.h"

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
	double med[3];
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < runs; i++) {
			double t0 = console_now();
			if (pass == 0) {
				clearok(curscr, TRUE);
				console_redraw(c);
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
	       "  diff+rows alone (no discovery)%9.3f ms\n",
	       c->tree.n, runs, med[0] * 1e3, med[1] * 1e3, med[2] * 1e3);
	return 0;
}
