// SPDX-License-Identifier: MIT
/* `ibvf watch` prints node changes as they happen; `ibvf debug` exercises the
 * kernel boundary's netlink paths directly. */
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/base/cli.h"
#include "core/base/guid.h"
#include "core/checks/checks.h"
#include "core/sys/sys.h"
#include "tui/base/recording.h"
#include "tui/base/text.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void print_event(const struct cli *c, const struct sys_event *ev)
{
	if (c->json) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "action", json_object_new_string(ev->action));
		json_object_object_add(o, "subsystem", json_object_new_string(ev->subsystem));
		json_object_object_add(o, "name", json_object_new_string(ev->name));
		json_object_object_add(o, "old_name",
				       ev->old_name[0] ? json_object_new_string(ev->old_name)
						       : NULL);
		json_object_object_add(o, "devpath", json_object_new_string(ev->devpath));
		cli_print_json_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		json_object_put(o);
	} else {
		/* A name is the kernel's bytes: ESC or C1 in it would reach the terminal. */
		char ts[16], name[4 * sizeof(ev->name)], old[4 * sizeof(ev->old_name)];
		time_t now = time(NULL);
		strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
		text_escape_into(name, sizeof(name), ev->name);
		text_escape_into(old, sizeof(old), ev->old_name);
		if (ev->old_name[0])
			printf("%s %-7s %-10s %s -> %s\n", ts, ev->action, ev->subsystem, old,
			       name);
		else
			printf("%s %-7s %-10s %s\n", ts, ev->action, ev->subsystem, name);
	}
	fflush(stdout);
}

/* The history `watch` records while no recorder runs (recording.h): the
 * node read again where the events point, its findings, recorded. */
struct watch_rec {
	struct hist_recorder *rec;
	struct node *node;
	struct sys_event *ev;
	size_t n_ev;
	bool lost;
};

static void watch_record(struct sys *s, struct watch_rec *w)
{
	struct node *n;
	struct err e = {{0}};
	int r = w->node && !w->lost ? node_refresh(s, w->node, w->ev, w->n_ev, &n, &e)
				    : node_discover(s, &n, &e);
	w->n_ev = 0;
	w->lost = false;
	if (r < 0)
		return;
	struct findings fs = {0};
	checks_run(n, NULL, &fs);
	if (recording_observe(w->rec, n, &fs, &e) < 0) {
		cli_error("watch: history not recorded: %s", e.msg);
		hist_recorder_close(w->rec);
		w->rec = NULL;
	}
	findings_fini(&fs);
	node_free(w->node);
	w->node = n;
}

int cmd_watch(const struct cli *c, int argc, char **argv)
{
	struct opts o;
	if (opts_parse(cmd_find("watch"), argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (o.n_pos)
		return cli_bad_arg("watch", o.pos[0]);
	struct sys *s;
	if (cli_open(c, &s) < 0)
		return 1;
	int fd = sys_event_fd(s);
	if (fd < 0) {
		cli_error("cannot watch for node changes: %s", strerror(-fd));
		sys_close(s);
		return 1;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct watch_rec w = {0};
	struct err re = {{0}};
	if ((w.rec = recording_open(s, &re)) &&
	    !(w.ev = calloc(NODE_REFRESH_EVENTS_MAX, sizeof(*w.ev)))) {
		hist_recorder_close(w.rec);
		w.rec = NULL;
	}
	if (w.rec)
		watch_record(s, &w);
	int rc = 0;
	while (!stop) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_error("cannot wait for node changes: %s", strerror(errno));
			rc = 1;
			break;
		}
		struct sys_event ev;
		bool any = false;
		while ((r = sys_event_read(s, &ev)) > 0) {
			print_event(c, &ev);
			if (w.n_ev < NODE_REFRESH_EVENTS_MAX && w.ev)
				w.ev[w.n_ev++] = ev;
			else
				w.lost = true;
			any = true;
		}
		if (any && w.rec)
			watch_record(s, &w);
		if (r < 0) {
			cli_error("cannot read a node change: %s", strerror(-r));
			rc = 1;
			break;
		}
	}
	node_free(w.node);
	free(w.ev);
	hist_recorder_close(w.rec);
	sys_close(s);
	return rc;
}
