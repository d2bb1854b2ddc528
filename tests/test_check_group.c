// SPDX-License-Identifier: MIT
/* Causes, consequences and problems (core/checks/group.c): every pair of the
 * causal table folds a consequence under its cause, and only when the cause
 * is there; findings of one check group by PF, or across the node when one
 * command fixes them all; the seeded node reads as at most 15 problems on an
 * 80x24 screen, every seeded fault among them; `ibvf list` shows every port
 * of a dual-port HCA. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksutil.h"
#include "core/checks/report.h"
#include "core/sys/sys.h"
#include "testutil.h"
#include "tui/render/check_text.h"
#include "tui/render/tree.h"

/* ---- findings made by hand: each pair of the table ---- */

static struct finding *add(struct findings *fs, const char *id, enum finding_subject kind,
			   const char *subject, const char *pf)
{
	struct finding *f = check_add(fs, check_find(id), kind, subject, "%s on %s", id,
				      subject ? subject : "the node");
	ck_assert_ptr_nonnull(f);
	snprintf(f->pf, sizeof(f->pf), "%s", pf ? pf : "");
	snprintf(f->pf_label, sizeof(f->pf_label), "%s", pf ? pf : "");
	return f;
}

static void link_group(struct findings *fs)
{
	findings_link(fs);
	ck_assert_int_eq(findings_group(fs), 0);
}

static const struct finding *find(const struct findings *fs, const char *id, const char *subject)
{
	struct finding_ref r = {.id = id};
	snprintf(r.subject, sizeof(r.subject), "%s", subject ? subject : "");
	const struct finding *f = findings_find(fs, &r);
	ck_assert_msg(f, "no %s on %s", id, subject ? subject : "the node");
	return f;
}

/* f follows from the finding id on subject, and is folded under its problem. */
static void assert_caused(const struct findings *fs, const struct finding *f, const char *id,
			  const char *subject)
{
	ck_assert_msg(f->cause.id, "%s on %s has no cause", f->id, f->subject);
	ck_assert_str_eq(f->cause.id, id);
	ck_assert_str_eq(f->cause.subject, subject ? subject : "");
	const struct finding *c = find(fs, id, subject);
	ck_assert_uint_eq(f->group, c->group);
	const struct problem *p = &fs->problems[c->group - 1];
	bool in = false;
	for (size_t k = 0; k < p->n_consequences; k++)
		in |= &fs->v[p->consequences[k]] == f;
	ck_assert_msg(in, "%s on %s is not among its problem's consequences", f->id, f->subject);
}

/* f is a problem of its own (or of its group): no cause among fs. */
static void assert_own(const struct findings *fs, const struct finding *f)
{
	ck_assert_ptr_null(findings_find(fs, &f->cause));
	const struct problem *p = &fs->problems[f->group - 1];
	bool member = false;
	for (size_t k = 0; k < p->n_members; k++)
		member |= &fs->v[p->members[k]] == f;
	ck_assert_msg(member, "%s on %s is not a member of its problem", f->id, f->subject);
}

START_TEST(guid_zero_explains_the_port_down_of_its_vf_only)
{
	struct findings fs = {0};
	add(&fs, "guid-zero", SUBJECT_VF, "0000:18:00.1", "0000:18:00.0");
	add(&fs, "port-down", SUBJECT_VF, "0000:18:00.1", "0000:18:00.0");
	add(&fs, "port-down", SUBJECT_VF, "0000:18:00.3", "0000:18:00.0"); /* GUID non-zero */
	link_group(&fs);
	assert_caused(&fs, find(&fs, "port-down", "0000:18:00.1"), "guid-zero", "0000:18:00.1");
	assert_own(&fs, find(&fs, "port-down", "0000:18:00.3"));
	ck_assert_uint_eq(fs.n_problems, 2);
	findings_fini(&fs);
}
END_TEST

START_TEST(driver_mismatch_explains_failed_probes_and_unbound_vfs)
{
	struct findings fs = {0};
	add(&fs, "driver-kernel-mismatch", SUBJECT_NODE, NULL, NULL);
	add(&fs, "probe-failed", SUBJECT_VF, "0000:18:00.2", "0000:18:00.0");
	add(&fs, "vf-unbound", SUBJECT_VF, "0000:4f:00.3", "0000:4f:00.0");
	link_group(&fs);
	assert_caused(&fs, find(&fs, "probe-failed", "0000:18:00.2"), "driver-kernel-mismatch",
		      NULL);
	assert_caused(&fs, find(&fs, "vf-unbound", "0000:4f:00.3"), "driver-kernel-mismatch", NULL);
	ck_assert_uint_eq(fs.n_problems, 1);
	ck_assert_uint_eq(fs.problems[0].n_consequences, 2);
	findings_fini(&fs);
	/* Without the mismatch, a failed probe is a problem of its own. */
	fs = (struct findings){0};
	add(&fs, "probe-failed", SUBJECT_VF, "0000:18:00.2", "0000:18:00.0");
	link_group(&fs);
	assert_own(&fs, find(&fs, "probe-failed", "0000:18:00.2"));
	findings_fini(&fs);
}
END_TEST

START_TEST(pf_port_down_explains_its_vfs_ports_not_another_pfs)
{
	struct findings fs = {0};
	add(&fs, "port-down", SUBJECT_PF, "0000:18:00.0", "0000:18:00.0");
	add(&fs, "port-down", SUBJECT_VF, "0000:18:00.1", "0000:18:00.0");
	add(&fs, "port-down", SUBJECT_VF, "0000:4f:00.1", "0000:4f:00.0");
	link_group(&fs);
	assert_caused(&fs, find(&fs, "port-down", "0000:18:00.1"), "port-down", "0000:18:00.0");
	assert_own(&fs, find(&fs, "port-down", "0000:18:00.0"));
	assert_own(&fs, find(&fs, "port-down", "0000:4f:00.1"));
	findings_fini(&fs);
}
END_TEST

START_TEST(ethernet_fallback_explains_what_it_breaks_on_its_pf)
{
	struct findings fs = {0};
	add(&fs, "ethernet-fallback", SUBJECT_PF, "0000:9a:00.0", "0000:9a:00.0");
	add(&fs, "port-down", SUBJECT_VF, "0000:9a:00.1", "0000:9a:00.0");
	add(&fs, "rate-degraded", SUBJECT_PF, "0000:9a:00.0", "0000:9a:00.0");
	struct finding *dp = add(&fs, "dp-link-type", SUBJECT_NODE, NULL, NULL);
	snprintf(dp->topic, sizeof(dp->topic), "0000:9a:00.0"); /* its Ethernet VFs' PF */
	struct finding *other = add(&fs, "dp-link-type", SUBJECT_NODE, NULL, NULL);
	snprintf(other->topic, sizeof(other->topic), "0000:29:00.0");
	add(&fs, "port-down", SUBJECT_VF, "0000:c0:00.1", "0000:c0:00.0");
	link_group(&fs);
	assert_caused(&fs, find(&fs, "port-down", "0000:9a:00.1"), "ethernet-fallback",
		      "0000:9a:00.0");
	assert_caused(&fs, find(&fs, "rate-degraded", "0000:9a:00.0"), "ethernet-fallback",
		      "0000:9a:00.0");
	ck_assert_str_eq(fs.v[3].cause.id, "ethernet-fallback");
	ck_assert_ptr_null(fs.v[4].cause.id); /* another PF's Ethernet VFs */
	assert_own(&fs, find(&fs, "port-down", "0000:c0:00.1"));
	findings_fini(&fs);
}
END_TEST

START_TEST(stale_checkpoint_explains_the_device_plugins_count_of_its_resource)
{
	struct findings fs = {0};
	struct finding *st = add(&fs, "pod-stale", SUBJECT_VF, "0000:18:00.3", "0000:18:00.0");
	snprintf(st->topic, sizeof(st->topic), "nvidia.com/ibvf");
	struct finding *a =
		add(&fs, "dp-not-allocatable", SUBJECT_VF, "0000:18:00.4", "0000:18:00.0");
	snprintf(a->topic, sizeof(a->topic), "nvidia.com/ibvf");
	struct finding *b =
		add(&fs, "dp-not-allocatable", SUBJECT_VF, "0000:4f:00.4", "0000:4f:00.0");
	snprintf(b->topic, sizeof(b->topic), "nvidia.com/other");
	link_group(&fs);
	assert_caused(&fs, find(&fs, "dp-not-allocatable", "0000:18:00.4"), "pod-stale",
		      "0000:18:00.3");
	assert_own(&fs, find(&fs, "dp-not-allocatable", "0000:4f:00.4"));
	findings_fini(&fs);
}
END_TEST

START_TEST(boot_unit_explains_the_layout_it_would_create)
{
	struct findings fs = {0};
	add(&fs, "boot-unit", SUBJECT_NODE, NULL, NULL);
	add(&fs, "sriov-layout", SUBJECT_PF, "0000:c0:00.0", "0000:c0:00.0");
	link_group(&fs);
	assert_caused(&fs, find(&fs, "sriov-layout", "0000:c0:00.0"), "boot-unit", NULL);
	findings_fini(&fs);
}
END_TEST

START_TEST(unstable_name_explains_the_collision_on_it)
{
	struct findings fs = {0};
	add(&fs, "name-unstable", SUBJECT_VF, "0000:5e:00.7", "0000:5e:00.0");
	add(&fs, "name-unstable", SUBJECT_VF, "0000:5e:00.2", "0000:5e:00.0");
	/* The pod VF's host name is 5e:00.7's now; another's is 5e:00.3's,
	 * whose name is stable: no cause present. */
	struct finding *c = add(&fs, "name-collision", SUBJECT_VF, "0000:5e:00.6", "0000:5e:00.0");
	snprintf(c->topic, sizeof(c->topic), "0000:5e:00.7");
	struct finding *d = add(&fs, "name-collision", SUBJECT_VF, "0000:18:00.6", "0000:18:00.0");
	snprintf(d->topic, sizeof(d->topic), "0000:5e:00.3");
	link_group(&fs);
	assert_caused(&fs, find(&fs, "name-collision", "0000:5e:00.6"), "name-unstable",
		      "0000:5e:00.7");
	assert_own(&fs, find(&fs, "name-collision", "0000:18:00.6"));
	findings_fini(&fs);
}
END_TEST

/* Every row of the table names checks that exist. */
START_TEST(causal_table_names_real_checks)
{
	for (size_t i = 0; i < check_causes_table_len; i++) {
		ck_assert_ptr_nonnull(check_find(check_causes_table[i].cause));
		ck_assert_ptr_nonnull(check_find(check_causes_table[i].effect));
	}
	for (size_t i = 0; i < check_batches_table_len; i++)
		ck_assert_ptr_nonnull(check_find(check_batches_table[i].id));
}
END_TEST

static bool keep_port_down(const struct finding *f, void *ctx)
{
	(void)ctx;
	return !strcmp(f->id, "port-down");
}

/* A consequence whose cause a filter leaves out stands alone. */
START_TEST(consequence_without_its_cause_is_its_own_problem)
{
	struct findings fs = {0};
	add(&fs, "guid-zero", SUBJECT_VF, "0000:18:00.1", "0000:18:00.0");
	add(&fs, "port-down", SUBJECT_VF, "0000:18:00.1", "0000:18:00.0");
	link_group(&fs);
	ck_assert_uint_eq(fs.n_problems, 1);
	ck_assert_int_eq(findings_select(&fs, keep_port_down, NULL), 0);
	ck_assert_uint_eq(fs.n, 1);
	ck_assert_uint_eq(fs.n_problems, 1);
	ck_assert_uint_eq(fs.problems[0].n_consequences, 0);
	ck_assert_str_eq(fs.problems[0].check, "port-down");
	ck_assert_str_eq(fs.v[0].cause.id, "guid-zero"); /* the link is kept */
	findings_fini(&fs);
}
END_TEST

static void remedy(struct finding *f, const char *const *argv)
{
	finding_remedy_ibvf(f, "fix it", argv);
}

START_TEST(one_check_groups_by_pf_or_by_its_one_command)
{
	struct findings fs = {0};
	const char *pfs[] = {"0000:18:00.0", "0000:4f:00.0"};
	char bdf[16], node[32];
	for (int p = 0; p < 2; p++)
		for (int v = 1; v <= 3; v++) {
			snprintf(bdf, sizeof(bdf), "%.10s.%d", pfs[p], v);
			snprintf(node, sizeof(node), "0203:00%c%c:0000:000%d", pfs[p][5], pfs[p][6],
				 v);
			remedy(add(&fs, "guid-zero", SUBJECT_VF, bdf, pfs[p]),
			       (const char *const[]){"vf", "guid", bdf, "--node", node, NULL});
			/* no batch form: one problem a PF, "for each" */
			finding_remedy_manual(add(&fs, "pod-netns-gone", SUBJECT_VF, bdf, pfs[p]),
					      "clean up", (const char *const[]){bdf, NULL});
			/* one node-wide command: one problem for the node */
			remedy(add(&fs, "name-unstable", SUBJECT_VF, bdf, pfs[p]),
			       (const char *const[]){"persist", NULL});
		}
	link_group(&fs);
	ck_assert_uint_eq(fs.n_problems, 1 + 2 + 1);
	for (size_t i = 0; i < fs.n_problems; i++) {
		const struct problem *p = &fs.problems[i];
		if (!strcmp(p->check, "guid-zero")) {
			ck_assert_uint_eq(p->n_members, 6);
			ck_assert_str_eq(p->title,
					 "zero GUID on 6 VFs of 0000:18:00.0, 0000:4f:00.0: "
					 "18:00.1, 18:00.2 … 4f:00.3");
			ck_assert_uint_eq(p->remedy.n_steps, 3);
			ck_assert_str_eq(p->remedy.steps[2], "--assign-all");
			ck_assert(!p->for_each);
		} else if (!strcmp(p->check, "pod-netns-gone")) {
			ck_assert_uint_eq(p->n_members, 3);
			ck_assert(p->for_each);
		} else {
			ck_assert_str_eq(p->check, "name-unstable");
			ck_assert_uint_eq(p->n_members, 6);
			ck_assert_str_eq(p->remedy.steps[0], "persist");
			ck_assert(!p->for_each);
		}
	}
	findings_fini(&fs);
}
END_TEST

/* ---- the seeded node ---- */

static struct node *n;
static struct findings seeded;

static void setup(void)
{
	n = cu_node();
	cu_checks(n, NULL, &seeded);
}

static void teardown(void)
{
	findings_fini(&seeded);
	cu_node_free(n);
}

START_TEST(seeded_zero_guids_fold_their_ports_a_polling_port_stays)
{
	const struct finding *pd = find(&seeded, "port-down", "0000:18:00.1");
	assert_caused(&seeded, pd, "guid-zero", "0000:18:00.1");
	assert_caused(&seeded, find(&seeded, "port-down", "0000:4f:01.0"), "guid-zero",
		      "0000:4f:01.0");
	/* DOWN (Polling) with a GUID of its own: nothing explains it */
	assert_own(&seeded, find(&seeded, "port-down", "0000:40:00.6"));
	assert_caused(&seeded, find(&seeded, "probe-failed", "0000:18:00.2"),
		      "driver-kernel-mismatch", NULL);
	const struct problem *p = &seeded.problems[pd->group - 1];
	ck_assert_str_eq(p->check, "guid-zero");
	ck_assert_uint_eq(p->n_members, 15);
	ck_assert_uint_eq(p->n_consequences, 15);
	ck_assert_str_eq(p->remedy.steps[2], "--assign-all");
}
END_TEST

/* Each seeded fault's check: a problem, or named on its cause's line. */
static const char *const seeded_faults[] = {
	"guid-zero",
	"port-down",
	"ethernet-fallback",
	"firmware-old",
	"driver-kernel-mismatch",
	"name-unstable",
	"pod-stale",
	"pod-affinity",
	"guid-duplicate",
	"rate-degraded",
	"boot-unit",
	"pod-netns-gone",
	"cni-cache-broken",
	"dp-selector-empty",
};

START_TEST(seeded_node_reads_in_one_screen)
{
	ck_assert_uint_le(seeded.n_problems, 15);
	for (size_t i = 0; i < sizeof(seeded_faults) / sizeof(*seeded_faults); i++) {
		bool seen = false;
		for (size_t k = 0; k < seeded.n_problems && !seen; k++)
			seen = !strcmp(seeded.problems[k].check, seeded_faults[i]);
		ck_assert_msg(seen, "seeded %s is no problem", seeded_faults[i]);
	}
	/* As `ibvf check` prints it on 80 columns: every line fits, and the
	 * problems and the summary fit 24 rows with the command line. */
	struct json_object *o = checks_report_json(&seeded, n);
	ck_assert_ptr_nonnull(o);
	struct text t = {0};
	check_text_problems(&t, o, 80);
	ck_assert_uint_le(t.n, 23);
	for (size_t i = 0; i < t.n; i++) {
		size_t cols = 0;
		for (const char *s = t.lines[i].s; *s; s++)
			cols += ((unsigned char)*s & 0xc0) != 0x80;
		ck_assert_msg(cols <= 80, "line %zu is %zu columns: %s", i, cols, t.lines[i].s);
	}
	char want[64];
	snprintf(want, sizeof(want), "%zu problems (%zu findings):", seeded.n_problems, seeded.n);
	ck_assert_msg(strstr(t.lines[t.n - 1].s, want), "%s", t.lines[t.n - 1].s);
	ck_assert_ptr_nonnull(
		text_find(&t, "explains 15 port-down · fix: ibvf vf guid --assign-all"));
	ck_assert_ptr_nonnull(text_find(&t, "explains probe-failed on 18:00.2"));
	ck_assert_ptr_nonnull(
		text_find(&t, "explains name-collision on 5e:00.6 · fix: ibvf vf rename --all"));
	text_clear(&t);
	json_object_put(o);
}
END_TEST

START_TEST(seeded_json_links_every_finding)
{
	struct json_object *o = checks_report_json(&seeded, n), *fa, *pa;
	ck_assert(json_object_object_get_ex(o, "findings", &fa));
	ck_assert(json_object_object_get_ex(o, "problems", &pa));
	ck_assert_uint_eq(json_object_array_length(fa), seeded.n);
	ck_assert_uint_eq(json_object_array_length(pa), seeded.n_problems);
	size_t listed = 0;
	for (size_t k = 0; k < json_object_array_length(pa); k++) {
		struct json_object *p = json_object_array_get_idx(pa, k), *idx, *id;
		ck_assert(json_object_object_get_ex(p, "findings", &idx));
		ck_assert(json_object_object_get_ex(p, "id", &id));
		for (size_t i = 0; i < json_object_array_length(idx); i++) {
			size_t fi =
				(size_t)json_object_get_int64(json_object_array_get_idx(idx, i));
			struct json_object *g;
			ck_assert_uint_lt(fi, seeded.n);
			ck_assert(json_object_object_get_ex(json_object_array_get_idx(fa, fi),
							    "group", &g));
			ck_assert_int_eq(json_object_get_int64(g), json_object_get_int64(id));
			listed++;
		}
	}
	ck_assert_uint_eq(listed, seeded.n); /* each finding in one problem */
	const struct finding *pd = find(&seeded, "port-down", "0000:18:00.1");
	struct json_object *j = json_object_array_get_idx(fa, (size_t)(pd - seeded.v)), *cb, *x;
	ck_assert(json_object_object_get_ex(j, "caused_by", &cb));
	ck_assert(json_object_object_get_ex(cb, "check", &x));
	ck_assert_str_eq(json_object_get_string(x), "guid-zero");
	ck_assert(json_object_object_get_ex(cb, "subject", &x));
	ck_assert_str_eq(json_object_get_string(x), "0000:18:00.1");
	json_object_put(o);
}
END_TEST

START_TEST(healthy_node_has_no_findings_and_no_problems)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL}), *out, *err;
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "check", "--json", NULL), 0);
	struct json_object *o = json_tokener_parse(out), *fa, *pa;
	ck_assert(json_object_object_get_ex(o, "findings", &fa));
	ck_assert(json_object_object_get_ex(o, "problems", &pa));
	ck_assert_uint_eq(json_object_array_length(fa), 0);
	ck_assert_uint_eq(json_object_array_length(pa), 0);
	json_object_put(o);
	free(out);
	free(err);
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "check", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "no findings"));
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* A dual-port HCA: `list` shows port 2 under the PF, as `list --json` has it. */
START_TEST(list_shows_every_port_of_a_dual_port_hca)
{
	char *dir = tu_mkfixture(
		     (const char *const[]){"--healthy", "--pfs", "1", "--vfs", "2", NULL}),
	     *out, *err, cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/sys/class/infiniband/mlx5_0/ports' && cp -a 1 2 && "
		 "echo '1: DOWN' >2/state && echo '3: Disabled' >2/phys_state",
		 dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "list", "--json", NULL), 0);
	struct json_object *o = json_tokener_parse(out), *pfs, *rd, *ports;
	ck_assert(json_object_object_get_ex(o, "pfs", &pfs));
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(pfs, 0), "rdma", &rd));
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(rd, 0), "ports", &ports));
	ck_assert_uint_eq(json_object_array_length(ports), 2);
	json_object_put(o);
	free(out);
	free(err);
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "list", NULL), 0);
	const char *pf = strstr(out, "\n0000:18:00.0 "), *p2 = strstr(out, "\n  port 2 "),
		   *vf0 = strstr(out, "\n├─ vf0 0000:18:00.1");
	ck_assert_msg(pf && p2 && vf0, "%s", out);
	ck_assert(pf < p2 && p2 < vf0); /* under its PF, before the VFs */
	const char *end = strchr(p2 + 1, '\n');
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)(end - p2 - 1), p2 + 1);
	ck_assert_msg(strstr(line, " DOWN ") && strstr(line, " Disabled ") &&
			      strstr(line, "InfiniBand") && strstr(line, "a088:c203:0018:0000"),
		      "%s", line);
	ck_assert_msg(line[strlen(line) - 1] != ' ', "trailing blanks: '%s'", line);
	free(out);
	free(err);
	/* The console's tree: a row for port 2 under the PF, before its VFs. */
	struct sys *sys;
	struct node *nd = NULL;
	struct err e = {{0}};
	ck_assert_int_eq(sys_open_sim(dir, NULL, &sys, &e), 0);
	ck_assert_msg(node_discover(sys, &nd, &e) == 0, "%s", e.msg);
	struct tree t = {0};
	ck_assert_int_eq(tree_build(&(struct tree_input){.node = nd}, &t), 0);
	ck_assert_uint_ge(t.n, 4);
	ck_assert_int_eq(t.rows[0].kind, ROW_PF);
	ck_assert_int_eq(t.rows[1].kind, ROW_PORT);
	ck_assert_str_eq(t.rows[1].bdf, "0000:18:00.0");
	const struct port *port2 = tree_row_port(&t.rows[1]);
	ck_assert_ptr_nonnull(port2);
	ck_assert_uint_eq(port2->num, 2);
	ck_assert_str_eq(port2->state_name, "DOWN");
	ck_assert_int_eq(t.rows[2].kind, ROW_VF);
	ck_assert_int_eq(tree_find(&t, "0000:18:00.0"), 0);
	tree_free(&t);
	node_free(nd);
	sys_close(sys);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	cu_fixture(NULL);
	Suite *s = suite_create("check_group");
	TCase *tc = tcase_create("pairs");
	tcase_add_test(tc, guid_zero_explains_the_port_down_of_its_vf_only);
	tcase_add_test(tc, driver_mismatch_explains_failed_probes_and_unbound_vfs);
	tcase_add_test(tc, pf_port_down_explains_its_vfs_ports_not_another_pfs);
	tcase_add_test(tc, ethernet_fallback_explains_what_it_breaks_on_its_pf);
	tcase_add_test(tc, stale_checkpoint_explains_the_device_plugins_count_of_its_resource);
	tcase_add_test(tc, boot_unit_explains_the_layout_it_would_create);
	tcase_add_test(tc, unstable_name_explains_the_collision_on_it);
	tcase_add_test(tc, causal_table_names_real_checks);
	tcase_add_test(tc, consequence_without_its_cause_is_its_own_problem);
	tcase_add_test(tc, one_check_groups_by_pf_or_by_its_one_command);
	suite_add_tcase(s, tc);
	tc = tcase_create("seeded");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, seeded_zero_guids_fold_their_ports_a_polling_port_stays);
	tcase_add_test(tc, seeded_node_reads_in_one_screen);
	tcase_add_test(tc, seeded_json_links_every_finding);
	suite_add_tcase(s, tc);
	tc = tcase_create("cli");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, healthy_node_has_no_findings_and_no_problems);
	tcase_add_test(tc, list_shows_every_port_of_a_dual_port_hca);
	suite_add_tcase(s, tc);
	int rc = tu_run_suite(s);
	cu_fixture_done();
	return rc;
}
