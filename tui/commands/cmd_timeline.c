// SPDX-License-Identifier: MIT
/* `ibvf timeline`: the node's recorded history (core/history/store.h),
 * oldest first, as journalctl shows a log: filtered by time, device, pod
 * and kind, with the events that came just before each effect. */
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/history/facts.h"
#include "core/history/recorder.h"
#include "core/history/store.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"
#include "tui/base/cli.h"
#include "tui/render/timeline_text.h"
#include "tui/base/when.h"

enum {
	TL_O_SINCE = 1,
	TL_O_UNTIL,
	TL_O_KIND,
	TL_O_FOLLOW,
	TL_O_LIMIT,
	TL_O_UTC,
	TL_O_NO_CAUSES,
};

const struct opt timeline_options[] = {
	{OPT_ARG("since", 0, "WHEN", TL_O_SINCE,
		 "from WHEN: 'boot' (this boot), a duration back from now (90s, 30m, 6h, "
		 "2d), or a time (2026-12-04T03:00:00Z, '2026-12-04 03:00', 03:00 today; "
		 "local unless it ends in Z)")},
	{OPT_ARG("until", 0, "WHEN", TL_O_UNTIL, "up to WHEN (the same forms)")},
	{OPT_ARG("kind", 0, "KINDS", TL_O_KIND,
		 "only these kinds, comma-separated: boot, start, vf-count, fn-added, "
		 "fn-removed, driver, probe-failed, rename, netns, netdev, node-guid, "
		 "port-guid, port-state, phys-state, rate, link-layer, pod-bound, pod-gone, "
		 "kmsg, action, finding-open, finding-close, bench; or the groups guid, "
		 "port, pod, finding, function")},
	{OPT_BOOL("follow", 'f', TL_O_FOLLOW,
		  "then print new events as they are recorded, until interrupted")},
	{OPT_ARG("lines", 'n', "N", TL_O_LIMIT, "only the newest N events (1..1000000)")},
	{OPT_BOOL("utc", 0, TL_O_UTC, "times in UTC (default: local time)")},
	{OPT_BOOL("no-causes", 0, TL_O_NO_CAUSES,
		  "no cause lines under renames, GUID changes and ports going down")},
	{OPT_PARA("DEV is a PF or VF (PCI address, netdev, RDMA device, or a pod holding it; a "
		  "PF's VFs too), or a PCI address no longer on the node; POD "
		  "(namespace/name) its events and its VFs'.\n"
		  "Exit 2: bad option; 1: no history recorded, or it cannot be read.")},
	{OPT_TABLE_END},
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct show {
	struct hist_store *st;
	bool json, follow, causes;
	int flags;
	struct json_object *all; /* --json without --follow */
	int64_t last_id;
	struct err *e;
	int rc;
};

static int show_one(void *arg, const struct hist_event *ev)
{
	struct show *sh = arg;
	struct json_object *o = hist_store_event_json(sh->st, ev, sh->causes, sh->e);
	if (!o)
		return -EIO;
	if (ev->id > sh->last_id)
		sh->last_id = ev->id;
	if (sh->all) {
		json_object_array_add(sh->all, o);
		return 0;
	}
	if (sh->json) {
		cli_print_json_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	} else {
		struct text t = {0};
		timeline_text_event(&t, o, sh->flags);
		text_print(stdout, &t);
		text_clear(&t);
	}
	json_object_put(o);
	return 0;
}

/* The positional arguments into q: devices through the resolver (the node
 * discovered only when one needs it), PCI addresses of functions gone, pods. */
static int args_to_query(const struct cli *c, struct opts *o, struct hist_query *q)
{
	struct sys *s = NULL;
	struct node *n = NULL;
	int rc = 0;
	for (int i = 0; i < o->n_pos && rc == 0; i++) {
		const char *a = o->pos[i];
		char bdf[16];
		if (q->n_devs >= HIST_QUERY_DEVS_MAX || q->n_pods >= HIST_QUERY_DEVS_MAX) {
			cli_error("timeline: at most %d devices and pods", HIST_QUERY_DEVS_MAX);
			rc = EXIT_USAGE;
			break;
		}
		if (node_bdf_normalize(a, true, bdf)) {
			q->devs[q->n_devs++] = strdup(bdf);
			continue;
		}
		if (!n) {
			struct err e = {{0}};
			if (cli_open(c, &s) < 0 || node_discover(s, &n, &e) < 0) {
				if (e.msg[0])
					cli_error("%s", e.msg);
				rc = 1;
				break;
			}
		}
		struct node_ref ref;
		struct err e = {{0}};
		int r = node_resolve(n, a, &ref, &e);
		if (r == 0 && ref.fn) {
			q->devs[q->n_devs++] = strdup(ref.fn->bdf);
			if (ref.how == NODE_NAME_POD)
				q->pods[q->n_pods++] = strdup(a);
		} else if (r == -ENOTUNIQ || (r < 0 && strchr(a, '/'))) {
			q->pods[q->n_pods++] = strdup(a); /* a pod now or in the past */
		} else {
			cli_error("timeline: %s", r < 0 ? e.msg : "not a PCI function");
			rc = 1;
		}
	}
	node_free(n);
	sys_close(s);
	return rc;
}

static void query_free(struct hist_query *q)
{
	for (size_t i = 0; i < q->n_devs; i++)
		free((char *)q->devs[i]);
	for (size_t i = 0; i < q->n_pods; i++)
		free((char *)q->pods[i]);
}

int cmd_timeline(const struct cli *c, int argc, char **argv)
{
	struct opts o;
	if (opts_parse(cmd_find("timeline"), argc, argv, &o) < 0)
		return EXIT_USAGE;
	struct hist_query q = {0};
	const char *since = NULL, *until = NULL, *v;
	bool follow = false;
	int flags = 0, id;
	while ((id = opts_next(&o, &v)) > 0) {
		switch (id) {
		case TL_O_SINCE:
			since = v;
			break;
		case TL_O_UNTIL:
			until = v;
			break;
		case TL_O_KIND:
			if (hist_kinds_parse(v, &q.kinds) < 0) {
				cli_error("timeline: --kind '%s': no such kind (see 'ibvf help "
					  "timeline')",
					  v);
				return EXIT_USAGE;
			}
			break;
		case TL_O_FOLLOW:
			follow = true;
			break;
		case TL_O_LIMIT: {
			char *end;
			long long n = strtoll(v, &end, 10);
			if (*end || n < 1 || n > 1000000) {
				cli_error("timeline: --lines '%s': a count from 1 to 1000000", v);
				return EXIT_USAGE;
			}
			q.limit = (size_t)n;
			break;
		}
		case TL_O_UTC:
			flags |= TIMELINE_UTC;
			break;
		case TL_O_NO_CAUSES:
			flags |= TIMELINE_NO_CAUSES;
			break;
		}
	}
	int64_t now = hist_now_us();
	if ((since && strcmp(since, "boot") && when_parse("since", since, now, &q.since_us) < 0) ||
	    (until && when_parse("until", until, now, &q.until_us) < 0))
		return EXIT_USAGE;
	int rc = args_to_query(c, &o, &q);
	if (rc) {
		query_free(&q);
		return rc;
	}
	struct sys *s;
	if (cli_open(c, &s) < 0) {
		query_free(&q);
		return 1;
	}
	char path[PATH_MAX];
	hist_store_path(s, path);
	struct hist_store *st;
	struct err e = {{0}};
	int r = hist_store_open(path, false, &st, &e);
	if (r == -ENOENT) {
		cli_error("timeline: no history recorded on this node yet ('%s' does not exist): "
			  "'ibvf record' records it (ibvf-record.service)",
			  path);
	} else if (r < 0) {
		cli_error("timeline: %s", e.msg);
	}
	if (r < 0) {
		sys_close(s);
		query_free(&q);
		return 1;
	}
	if (since && !strcmp(since, "boot")) {
		char boot[HIST_BOOT_MAX];
		hist_boot_id(s, boot);
		int64_t t = 0;
		if (hist_facts_boot_start(st, boot, hist_boot_wall_us(s), &t, &e) == 0)
			q.since_us = t ? t : 1;
	}
	struct show sh = {.st = st,
			  .json = c->json,
			  .follow = follow,
			  .causes = !(flags & TIMELINE_NO_CAUSES),
			  .flags = flags,
			  .e = &e};
	if (c->json && !follow)
		sh.all = json_object_new_array();
	else if (!c->json) {
		struct text t = {0};
		timeline_text_header(&t, flags);
		text_print(stdout, &t);
		text_clear(&t);
	}
	r = hist_store_query(st, &q, show_one, &sh, &e);
	if (r == 0 && sh.all) {
		struct json_object *doc = json_object_new_object();
		json_object_object_add(doc, "version", json_object_new_int(1));
		json_object_object_add(doc, "store", json_object_new_string(path));
		json_object_object_add(doc, "events", sh.all);
		cli_print_json(doc);
		json_object_put(doc);
		sh.all = NULL;
	}
	fflush(stdout);
	if (r == 0 && follow) {
		struct sigaction sa = {.sa_handler = on_signal};
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		q.limit = 0;
		while (!stop && r == 0) {
			poll(NULL, 0, 250); /* a reader never blocks the writer: WAL */
			q.after_id = sh.last_id;
			r = hist_store_query(st, &q, show_one, &sh, &e);
			fflush(stdout);
		}
	}
	json_object_put(sh.all);
	if (r < 0)
		cli_error("timeline: %s", e.msg);
	hist_store_close(st);
	sys_close(s);
	query_free(&q);
	return r < 0 ? 1 : 0;
}
