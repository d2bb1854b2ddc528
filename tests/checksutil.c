// SPDX-License-Identifier: MIT
#include "checksutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sys/sys.h"
#include "testutil.h"

static char *fixture;

/* Runs before the tests, where ck_assert cannot report: fails loudly. */
void cu_fixture(const char *const *args)
{
	char tmpl[] = "/tmp/ibvf-fixture-XXXXXX";
	const char *bin = getenv("IBVF_BIN");
	if (!bin || !mkdtemp(tmpl) || !(fixture = strdup(tmpl))) {
		fprintf(stderr, "cannot make a fixture directory (IBVF_BIN set?)\n");
		exit(EXIT_FAILURE);
	}
	const char *argv[16] = {"ibvf", "mkfixture", fixture};
	for (size_t i = 0, k = 3; args && args[i] && k < 15; i++)
		argv[k++] = args[i];
	pid_t pid = fork();
	if (pid == 0) {
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "ibvf mkfixture %s failed\n", fixture);
		exit(EXIT_FAILURE);
	}
}

void cu_fixture_done(void)
{
	tu_rmtree(fixture);
	fixture = NULL;
}

struct node *cu_node(void)
{
	struct sys *s;
	struct err e = {{0}};
	ck_assert_msg(sys_open_sim(fixture, NULL, &s, &e) == 0, "open: %s", e.msg);
	struct node *n;
	ck_assert_msg(node_discover(s, &n, &e) == 0, "discover: %s", e.msg);
	sys_close(s);
	return n;
}

void cu_node_free(struct node *n)
{
	/* Until node_free() frees the broken-file list itself: nothing twice. */
	for (size_t i = 0; i < n->n_cni_broken; i++) {
		free(n->cni_broken[i].path);
		free(n->cni_broken[i].why);
	}
	free(n->cni_broken);
	n->cni_broken = NULL;
	n->n_cni_broken = 0;
	node_free(n);
}

void cu_checks(const struct node *n, const struct checks_opts *o, struct findings *fs)
{
	ck_assert_int_eq(checks_run(n, o, fs), 0);
}

static bool matches(const struct finding *f, const char *id, const char *subject)
{
	return (!id || strcmp(f->id, id) == 0) && (!subject || strcmp(f->subject, subject) == 0);
}

size_t cu_count(const struct findings *fs, const char *id, const char *subject)
{
	size_t c = 0;
	for (size_t i = 0; i < fs->n; i++)
		c += matches(&fs->v[i], id, subject);
	return c;
}

const struct finding *cu_first(const struct findings *fs, const char *id, const char *subject)
{
	for (size_t i = 0; i < fs->n; i++)
		if (matches(&fs->v[i], id, subject))
			return &fs->v[i];
	return NULL;
}

size_t cu_on(const struct findings *fs, const char *subject)
{
	return cu_count(fs, NULL, subject);
}

bool cu_evidence(const struct finding *f, const char *where, const char *value)
{
	for (size_t i = 0; f && i < f->n_evidence; i++)
		if ((!where || strstr(f->evidence[i].where, where)) &&
		    (!value || strstr(f->evidence[i].value, value)))
			return true;
	return false;
}

bool cu_step(const struct finding *f, const char *s)
{
	for (size_t i = 0; f && i < f->remedy.n_steps; i++)
		if (strstr(f->remedy.steps[i], s))
			return true;
	return false;
}

void cu_str(char **field, const char *value)
{
	free(*field);
	*field = value ? strdup(value) : NULL;
	ck_assert(!value || *field);
}

struct pf *cu_pf(struct node *n, const char *bdf)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		if (strcmp(n->pfs[i].fn.bdf, bdf) == 0)
			return &n->pfs[i];
	ck_abort_msg("no PF %s", bdf);
	return NULL;
}

struct vf *cu_vf(struct node *n, const char *bdf)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			if (strcmp(n->pfs[i].vfs[j].fn.bdf, bdf) == 0)
				return &n->pfs[i].vfs[j];
	ck_abort_msg("no VF %s", bdf);
	return NULL;
}

struct port *cu_port(struct fn *fn)
{
	ck_assert_uint_ge(fn->n_rdmas, 1);
	ck_assert_uint_ge(fn->rdmas[0].n_ports, 1);
	return &fn->rdmas[0].ports[0];
}

void cu_port_state(struct port *p, int state, int phys)
{
	static const char *const states[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};
	static const char *const phys_states[] = {
		"Unknown", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp"};
	p->state = (struct kval){true, state};
	p->phys_state = (struct kval){true, phys};
	cu_str(&p->state_name, states[state]);
	cu_str(&p->phys_state_name, phys_states[phys]);
}

void cu_kmsg(struct node *n, long long usec, const char *msg)
{
	struct kmsg_line *v = realloc(n->kmsg, (n->n_kmsg + 1) * sizeof(*v));
	ck_assert_ptr_nonnull(v);
	n->kmsg = v;
	v[n->n_kmsg++] = (struct kmsg_line){
		.ts_usec = {usec >= 0, usec}, .prio = 3, .msg = strdup(msg), .error = true};
}
