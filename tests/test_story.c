// SPDX-License-Identifier: MIT
/* The field report's whole story on the seeded simulated node, with the real
 * binary: `ibvf check --fix all --yes` alone leaves only findings ibvf must
 * not fix itself (driver, firmware, cable, Ethernet fallback, device-plugin
 * config, pods) and the one plan a pod blocks; `persist --yes` writes the
 * .link files and the boot unit; `debug reboot` takes the node back to what
 * the kernel gives at boot (VFs gone, then created by the unit in a
 * shuffled probe order with kernel names and zero GUIDs, the failed probe
 * failing again, udev applying the .link files, the kubelet restarting the
 * pods); and `ibvf check` then finds the same names and GUIDs as before the
 * reboot and no finding that was not there before. */
#include <check.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static struct json_object *run_json(const char *dir, int want, const char *a0, const char *a1)
{
	char *out, *err;
	int rc = tu_sim_run(dir, &out, &err, a0, "--json", a1, NULL);
	ck_assert_msg(rc == want, "%s --json: exit %d (want %d): %s", a0, rc, want, err);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o, "%s --json is not JSON: %.200s", a0, out);
	free(out);
	free(err);
	return o;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

/* "BDF names node-GUID port-GUID" a line per VF: every VF's netdev names,
 * and the GUIDs of VFs on InfiniBand PFs (an Ethernet VF has no GUID ibvf
 * sets or keeps: the driver makes its RDMA device's from its MAC). */
static char *layout(const char *dir)
{
	struct json_object *o = run_json(dir, 0, "list", NULL), *pfs = jget(o, "pfs");
	size_t cap = 1 << 16, len = 0;
	char *buf = calloc(1, cap);
	ck_assert_ptr_nonnull(pfs);
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i), *vfs = jget(pf, "vfs");
		struct json_object *rdmas = jget(pf, "rdma"), *ports = NULL;
		if (rdmas && json_object_array_length(rdmas))
			ports = jget(json_object_array_get_idx(rdmas, 0), "ports");
		const char *ll = ports && json_object_array_length(ports)
					 ? jstr(json_object_array_get_idx(ports, 0), "link_layer")
					 : NULL;
		bool ib = ll && !strcmp(ll, "InfiniBand");
		for (size_t j = 0; vfs && j < json_object_array_length(vfs); j++) {
			struct json_object *vf = json_object_array_get_idx(vfs, j);
			struct json_object *nd = jget(vf, "netdevs");
			len += (size_t)snprintf(buf + len, cap - len, "%s", jstr(vf, "bdf"));
			for (size_t k = 0; nd && k < json_object_array_length(nd); k++)
				len += (size_t)snprintf(
					buf + len, cap - len, " %s",
					jstr(json_object_array_get_idx(nd, k), "ifname"));
			len += (size_t)snprintf(buf + len, cap - len, " %s %s\n",
						ib ? jstr(vf, "node_guid") : "-",
						ib ? jstr(vf, "port_guid") : "-");
			ck_assert_uint_lt(len, cap);
		}
	}
	json_object_put(o);
	return buf;
}

/* The findings as "id subject" lines, and whether each one's remedy is
 * something ibvf runs. */
static struct json_object *findings(const char *dir)
{
	char *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "check", "--json", NULL);
	ck_assert_msg(rc == 1 || rc == 2, "check --json: exit %d: %s", rc, err);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_ptr_nonnull(o);
	free(out);
	free(err);
	return o;
}

static bool has(struct json_object *report, const char *id, const char *subject)
{
	struct json_object *fs = jget(report, "findings");
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		const char *s = jstr(f, "subject");
		if (!strcmp(jstr(f, "id"), id) && !strcmp(s ? s : "", subject ? subject : ""))
			return true;
	}
	return false;
}

START_TEST(fix_all_persist_reboot_gives_the_same_node)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	/* 1. Everything ibvf can fix, in one command. */
	int rc = tu_sim_run(dir, &out, &err, "check", "--fix", "all", "--yes", NULL);
	/* Every plan runs: the layout is kept (persist, last), not re-created
	 * under a pod's VF. */
	ck_assert_msg(rc == 0, "check --fix all: exit %d: %s%s", rc, out, err);
	free(out);
	free(err);
	struct json_object *before = findings(dir), *fs = jget(before, "findings");
	ck_assert_uint_ge(json_object_array_length(fs), 5);
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		const char *id = jstr(f, "id"), *kind = jstr(jget(f, "remedy"), "kind");
		/* Left: what ibvf must not do itself. */
		ck_assert_msg(strcmp(kind, "ibvf") != 0,
			      "%s on %s is still there though ibvf fixes it", id,
			      jstr(f, "subject") ? jstr(f, "subject") : "node");
		static const char *const fixed[] = {"guid-zero",     "guid-duplicate",
						    "name-unstable", "name-collision",
						    "boot-unit",     "sriov-layout"};
		for (size_t k = 0; k < 6; k++)
			ck_assert_msg(strcmp(id, fixed[k]) != 0, "%s left after --fix all", id);
	}
	/* The manual ones stay, with their evidence: driver, firmware, fallback. */
	ck_assert(has(before, "driver-kernel-mismatch", NULL));
	ck_assert(has(before, "firmware-old", "0000:ce:00.0"));
	ck_assert(has(before, "ethernet-fallback", "0000:9a:00.0"));
	ck_assert(has(before, "probe-failed", "0000:18:00.2"));
	char *names = layout(dir);

	/* 2. Persist, naming the binary under test (root's, not others'). */
	/* --fix all ended with it; again, it finds the files as it writes them. */
	rc = tu_sim_run(dir, &out, &err, "persist", "--ibvf", "/usr/sbin/ibvf", "--yes", NULL);
	ck_assert_msg(rc == 0, "persist: exit %d: %s%s", rc, out, err);
	free(out);
	free(err);

	/* 3. The reboot: the unit recreates the layout in another probe order. */
	rc = tu_sim_run(dir, &out, &err, "debug", "reboot", "--seed", "7", NULL);
	ck_assert_msg(rc == 0, "reboot: exit %d: %s%s", rc, out, err);
	ck_assert_ptr_nonnull(strstr(out, "shuffled order (seed 7)"));
	ck_assert_ptr_null(strstr(out, "failed"));
	free(out);
	free(err);

	/* 4. The same names and GUIDs, no new finding. */
	char *names2 = layout(dir);
	for (char *a = names, *b = names2; *a || *b;) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
		ck_assert_msg(la == lb && !strncmp(a, b, la), "before: %.*s\nafter:  %.*s",
			      (int)(la < 200 ? la : 200), a, (int)(lb < 200 ? lb : 200), b);
		a += la + (a[la] != '\0');
		b += lb + (b[lb] != '\0');
	}
	struct json_object *after = findings(dir);
	fs = jget(after, "findings");
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		ck_assert_msg(has(before, jstr(f, "id"), jstr(f, "subject")),
			      "new after the reboot: %s on %s", jstr(f, "id"), jstr(f, "subject"));
	}
	/* The failed probe failed again (the same driver): still reported. */
	ck_assert(has(after, "probe-failed", "0000:18:00.2"));
	json_object_put(before);
	json_object_put(after);
	free(names);
	free(names2);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("story");
	TCase *tc = tcase_create("seeded");
	/* A hang bound, not a speed figure: ~70 processes run one after another. */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, fix_all_persist_reboot_gives_the_same_node);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
