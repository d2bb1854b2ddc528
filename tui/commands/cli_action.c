// SPDX-License-Identifier: MIT
/* What `vf` and `journal undo` share: their options, and running a request
 * the one way (read the node, make the plan, a refusal is one line and exit
 * 2, show it, ask, apply, show what happened). Text is rendered from the
 * plan's JSON, so the two outputs cannot drift apart. */
#include "tui/base/cli_action.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/snapshot/json.h"
#include "core/actions/lock.h"
#include "core/actions/refuse_operator.h"
#include "core/persist/naming.h"
#include "core/sys/sys.h"
#include "tui/render/plan_text.h"

static void print_plan(const struct cli *c, const struct plan *p)
{
	struct json_object *o = plan_to_json(p);
	if (c->json) {
		json_object_object_add(o, "version", json_object_new_int(JSON_DOC_VERSION));
		plan_json_guids(o);
		cli_print_json(o);
	} else
		text_render_print(stdout, o, plan_text);
	json_object_put(o);
}

/* Asks on the terminal; only "y" or "yes" goes on. The plan is flushed
 * first: with stdout a file or pipe (`>log 2>&1`, `| tee`) it is buffered,
 * and the question on stderr would come before the plan's end. */
static bool confirm(const struct plan *p)
{
	char line[32];
	fflush(stdout);
	fprintf(stderr, "Apply these %zu steps%s? [y/N] ", p->n_steps,
		p->destructive ? " (VF traffic is interrupted)" : "");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	line[strcspn(line, "\n")] = '\0';
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes");
}

/* SIGINT/SIGTERM while a plan applies: the apply's cancel flag. The only
 * state a signal handler may touch, hence static. */
static atomic_bool stop;
static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
	atomic_store(&stop, true);
}

static void catch_signals(bool on, struct sigaction old[2])
{
	static const int sigs[2] = {SIGINT, SIGTERM};
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 2; i++)
		sigaction(sigs[i], on ? &sa : &old[i], on ? &old[i] : NULL);
}

static void on_progress(void *arg, enum action_phase phase, size_t step)
{
	char path[PATH_MAX];
	if (phase != ACTION_PHASE_WAIT_LOCK)
		return;
	node_lock_path(arg, path);
	cli_error("waiting for another ibvf (pid %zu) holding '%s' (Ctrl-C stops; nothing was "
		  "changed yet)",
		  step, path);
}

/* Where a stopped plan stopped, and what to do about what it left. */
static void say_stopped(const struct plan *p)
{
	size_t done = 0;
	for (size_t i = 0; i < p->n_steps; i++)
		if (p->steps[i].status != STEP_PENDING)
			done = i + 1;
	if (stop_sig && p->result == PLAN_CANCELLED)
		cli_error("interrupted by %s after step %zu of %zu: the steps after it did not run",
			  stop_sig == SIGINT ? "SIGINT" : "SIGTERM", done, p->n_steps);
	else
		cli_error("%s", p->error);
	struct json_object *o = plan_to_json(p);
	struct text t = {0};
	plan_text_hints(&t, o);
	for (size_t i = 0; i < t.n; i++)
		cli_error("%s", t.lines[i].s);
	text_clear(&t);
	json_object_put(o);
}

/* After a refusal for an operator: its way, to stderr (docs/coexistence.md). */
static void print_operator_remedy(const struct node *n, const struct action_req *req)
{
	char yaml[8192];
	action_operator_remedy(n, req, yaml, sizeof(yaml));
	if (!yaml[0])
		return;
	fputs("the operator's way (kubectl apply -f - with these lines):\n", stderr);
	for (char *line = yaml, *nl; *line; line = nl + 1) {
		char esc[1024];
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		text_escape_into(esc, sizeof(esc), line);
		fprintf(stderr, "%s\n", esc);
		if (!nl)
			break;
	}
}

int cli_action_run(const struct cli *c, const struct act_opts *o, const struct action_req *req)
{
	struct sys *s;
	struct node *n = NULL;
	struct plan *p = NULL;
	struct err e = {{0}};
	char summary[4 * sizeof(p->summary)]; /* escaped: names from the node */
	int r, rc = 1;

	if (cli_open(c, &s) < 0)
		return 1;
	if ((r = node_discover(s, &n, &e)) < 0) {
		cli_error("%s", e.msg);
		goto out;
	}
	if ((r = action_plan(s, n, req, &p, &e)) < 0) {
		cli_error("%s", e.msg);
		if (r == -EBUSY && strstr(e.msg, ACTION_OPERATOR_REFUSED))
			print_operator_remedy(n, req);
		rc = r == -ENOMEM || r == -EIO ? 1 : EXIT_USAGE;
		goto out;
	}
	text_escape_into(summary, sizeof(summary), p->summary);
	if (!p->n_steps || o->dry_run) {
		if (!p->n_steps && !c->json)
			printf("nothing to do: %s\n", summary);
		else
			print_plan(c, p);
		rc = 0;
		goto out;
	}
	if (!o->yes) {
		if (!isatty(STDIN_FILENO)) {
			cli_error(
				"refusing to change the node without confirmation: standard input "
				"is not a terminal (pass --yes, or --dry-run to see the plan)");
			rc = EXIT_USAGE;
			goto out;
		}
		if (!c->json)
			print_plan(c, p);
		if (!confirm(p)) {
			fprintf(stderr, "nothing was changed\n");
			rc = 1;
			goto out;
		}
	}
	struct sigaction old[2];
	struct action_hooks h = {
		.progress = on_progress, .arg = s, .cancel = &stop, .no_wait = o->no_wait};
	atomic_store(&stop, false);
	stop_sig = 0;
	catch_signals(true, old);
	r = action_apply_hooked(s, p, req, &h, NULL, &e);
	catch_signals(false, old);
	if (p->result == PLAN_NOTHING) {
		text_escape_into(summary, sizeof(summary), p->summary);
		if (c->json)
			print_plan(c, p);
		else
			printf("nothing to do: the node already is as asked (another ibvf "
			       "changed it while this one waited): %s\n",
			       summary);
		rc = 0;
		goto out;
	}
	if (p->result != PLAN_REFUSED)
		print_plan(c, p);
	if (p->journal_error[0])
		cli_error("the journal was not written: %s", p->journal_error);
	if (r < 0 && (p->result == PLAN_FAILED || p->result == PLAN_CANCELLED)) {
		say_stopped(p);
		rc = 1;
	} else if (r < 0) {
		cli_error("%s", p->error[0] ? p->error : e.msg);
		/* Refused for the lock: the node is fine, the timing is not. */
		rc = p->result == PLAN_REFUSED && r != -EWOULDBLOCK && r != -ECANCELED ? EXIT_USAGE
										       : 1;
	} else {
		rc = 0;
	}
out:
	plan_free(p);
	node_free(n);
	sys_close(s);
	return rc;
}

/* One option's value into p: 0 or -EINVAL, said. */
static int act_set(struct act_args *p, int id, const char *arg)
{
	char *end;
	switch (id) {
	case ACT_O_DRY_RUN:
		p->o.dry_run = true;
		break;
	case ACT_O_YES:
		p->o.yes = true;
		break;
	case ACT_O_FORCE:
		p->req.force = true;
		break;
	case ACT_O_NODE:
		p->node = arg;
		break;
	case ACT_O_PORT:
		p->port = arg;
		break;
	case ACT_O_ASSIGN_ALL:
		p->all = true;
		break;
	case ACT_O_PREFIX:
		if (naming_parse_prefix(arg, &p->req.prefix) < 0) {
			cli_error("invalid --prefix '%s': give 5 bytes, as 00:11:22:33:44 or "
				  "0x0011223344",
				  arg);
			return -EINVAL;
		}
		p->req.has_prefix = true;
		break;
	case ACT_O_TIMEOUT:
		p->req.timeout_s = (unsigned int)strtoul(arg, &end, 10);
		if (*end || !*arg || p->req.timeout_s == 0 || p->req.timeout_s > 3600) {
			cli_error("invalid --timeout '%s': seconds, 1 to 3600", arg);
			return -EINVAL;
		}
		break;
	case ACT_O_OUTPUT:
		p->output = arg;
		break;
	case ACT_O_IBVF:
		p->ibvf = arg;
		break;
	case ACT_O_VERIFY:
		p->verify = true;
		break;
	case ACT_O_ACTION:
		p->action = arg;
		break;
	case ACT_O_ALL:
		p->rename_all = true;
		break;
	case ACT_O_NO_WAIT:
		p->o.no_wait = true;
		break;
	case ACT_O_SCHEME: {
		struct err e;
		if (naming_scheme_check(arg, &e) < 0) {
			cli_error("%s", e.msg);
			return -EINVAL;
		}
		snprintf(p->req.scheme, sizeof(p->req.scheme), "%s", arg);
		break;
	}
	}
	return 0;
}

int cli_action_parse(int argc, char **argv, struct act_args *ret)
{
	struct act_args p = {0};
	struct opts o;
	const char *v;
	int id;
	if (opts_parse(cmd_find(argv[0]), argc, argv, &o) < 0)
		return -EINVAL;
	while ((id = opts_next(&o, &v)))
		if (act_set(&p, id, v) < 0)
			return -EINVAL;
	p.args = o.pos;
	p.n_args = o.n_pos;
	*ret = p;
	return 0;
}

int cli_want_args(const struct act_args *p, int n, const char *usage)
{
	if (p->n_args == n)
		return 0;
	if (p->n_args < n)
		cli_error("missing arguments (usage: ibvf %s)", usage);
	else
		cli_error("too many arguments: '%s' (usage: ibvf %s)", p->args[n], usage);
	return -EINVAL;
}
