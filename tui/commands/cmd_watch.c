// SPDX-License-Identifier: MIT
/* `ibvf watch` prints node changes as they happen; `ibvf debug` exercises the
 * kernel boundary's netlink paths directly. */
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui/base/cli.h"
#include "core/base/guid.h"
#include "core/sys/sys.h"
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
		while ((r = sys_event_read(s, &ev)) > 0)
			print_event(c, &ev);
		if (r < 0) {
			cli_error("cannot read a node change: %s", strerror(-r));
			rc = 1;
			break;
		}
	}
	sys_close(s);
	return rc;
}
