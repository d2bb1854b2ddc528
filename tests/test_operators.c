// SPDX-License-Identifier: MIT
/* Coexistence with the SR-IOV Network Operator (core/pods/operators.h,
 * docs/coexistence.md), on the seeded simulated node through the real binary:
 * each kind of evidence found (the applied PF config, the systemd-mode
 * config, the GUID pool, the config daemon's pod); vf create, vf guid,
 * persist (and its --dry-run) and check --fix refused on a managed PF with one
 * line and the SriovNetworkNodePolicy, nothing changed; --force goes
 * through; an unmanaged PF is unaffected; bad and oversized operator files
 * are notes, not crashes; and the parsers bounded against mangled input. */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pods/operators.h"
#include "testutil.h"

#define PF   "0000:18:00.0"
#define PF2  "0000:29:00.0"
#define VF1  "0000:18:00.1"
#define PATH "etc/sriov-operator/pci/" PF

/* What the daemon writes: json.Marshal of api/v1 Interface, compact, no newline. */
static const char applied[] =
	"{\"pciAddress\":\"0000:18:00.0\",\"numVfs\":8,\"name\":\"ibp24s0\",\"linkType\":\"IB\","
	"\"vfGroups\":[{\"resourceName\":\"ibvf\",\"deviceType\":\"netdevice\",\"vfRange\":\"0-7\","
	"\"policyName\":\"ibvf-ib\",\"isRdma\":true}]}";

/* gopkg.in/yaml.v3's Marshal of types.SriovConfig: 4-space indent, the Go
 * field names in lower case (the API structs have json tags only). */
static const char systemd_yaml[] = "spec:\n"
				   "    interfaces:\n"
				   "        - pciaddress: 0000:18:00.0\n"
				   "          numvfs: 8\n"
				   "          mtu: 0\n"
				   "          name: ibp24s0\n"
				   "          linktype: IB\n"
				   "          eswitchmode: \"\"\n"
				   "          vfgroups:\n"
				   "            - resourcename: ibvf\n"
				   "              devicetype: netdevice\n"
				   "              vfrange: 0-7\n"
				   "              numvfs: 99\n"
				   "              isrdma: true\n"
				   "          externallymanaged: false\n"
				   "        - pciaddress: 0000:29:00.0\n"
				   "          numvfs: 4\n"
				   "          name: ibp41s0\n"
				   "          linktype: IB\n"
				   "          externallymanaged: true\n"
				   "    bridges: {}\n"
				   "    system: {}\n"
				   "unsupportedNics: false\n"
				   "platformType: 0\n"
				   "manageSoftwareBridges: false\n"
				   "ovsdbSocketPath: \"\"\n";

static char *node;

static void setup(void)
{
	node = tu_mkfixture(NULL);
}

static void teardown(void)
{
	tu_rmtree(node);
}

static struct json_object *list_json(void)
{
	char *out, *err;
	int rc = tu_sim_run(node, &out, &err, "list", "--json", NULL);
	ck_assert_msg(rc == 0, "list --json: exit %d, stderr %.1500s", rc, err);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o != NULL, "not JSON: %.1500s", out);
	free(out);
	free(err);
	return o;
}

/* The "operator" object of the PF at bdf in o (NULL when null). */
static struct json_object *pf_operator(struct json_object *o, const char *bdf)
{
	struct json_object *pfs, *v;
	ck_assert(json_object_object_get_ex(o, "pfs", &pfs));
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i);
		json_object_object_get_ex(pf, "bdf", &v);
		if (strcmp(json_object_get_string(v), bdf))
			continue;
		ck_assert_msg(json_object_object_get_ex(pf, "operator", &v), "%s: no operator key",
			      bdf);
		return v;
	}
	ck_abort_msg("no PF %s", bdf);
	return NULL;
}

static const char *jstr(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

/* The file's content in the simulated node (static buffer; "" when absent). */
static const char *rd(const char *rel)
{
	static char buf[4096];
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", node, rel);
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

#define NUMVFS(bdf) rd("sys/bus/pci/devices/" bdf "/sriov_numvfs")

START_TEST(detects_applied_pf_config)
{
	tu_put(node, PATH, applied);
	struct json_object *o = list_json(), *op = pf_operator(o, PF);
	ck_assert_msg(op != NULL, "PF %s not managed: %.1500s", PF, jstr(o));
	const char *s = jstr(op);
	ck_assert_msg(strstr(s, "\"sets\":[\"numvfs\",\"guids\"]") && strstr(s, "\"numvfs\":8") &&
			      strstr(s, "\"\\/etc\\/sriov-operator\\/pci\\/0000:18:00.0\"") &&
			      strstr(s, "\"name\":\"sriov-network-operator\""),
		      "operator: %.1500s", s);
	ck_assert_msg(pf_operator(o, PF2) == NULL, "unmanaged PF claimed: %.1500s",
		      jstr(pf_operator(o, PF2)));
	json_object_put(o);
}
END_TEST

START_TEST(detects_systemd_mode_config)
{
	tu_put(node, "etc/sriov-operator/sriov-interface-config.yaml", systemd_yaml);
	struct json_object *o = list_json();
	const char *a = jstr(pf_operator(o, PF));
	ck_assert_msg(strstr(a, "\"numvfs\":8") && strstr(a, "\"sets\":[\"numvfs\",\"guids\"]") &&
			      strstr(a, "sriov-interface-config.yaml"),
		      "PF 18:00.0: %.1500s", a);
	/* externallyManaged: the VF count is the node's, the GUIDs still the daemon's */
	const char *b = jstr(pf_operator(o, PF2));
	ck_assert_msg(strstr(b, "\"sets\":[\"guids\"]") &&
			      strstr(b, "\"externally_managed\":true") && strstr(b, "\"numvfs\":4"),
		      "PF 29:00.0: %.1500s", b);
	json_object_put(o);
}
END_TEST

START_TEST(detects_ib_guid_pool)
{
	tu_put(node, "etc/sriov-operator/infiniband/guids",
	       "[{\"pciAddress\":\"0000:18:00.0\",\"guidsRange\":{\"start\":\"00:00:00:00:00:00:01:"
	       "00\","
	       "\"end\":\"00:00:00:00:00:00:01:ff\"}}]\n");
	struct json_object *o = list_json();
	const char *a = jstr(pf_operator(o, PF));
	ck_assert_msg(strstr(a, "\"sets\":[\"guids\"]") && strstr(a, "infiniband\\/guids"),
		      "%.1500s", a);
	json_object_put(o);
	/* GUIDs only: the VF count stays ibvf's, the GUIDs are refused */
	char *out, *err;
	int rc = tu_sim_run(node, &out, &err, "vf", "create", PF, "4", "--dry-run", NULL);
	ck_assert_msg(rc == 0, "vf create: exit %d: %.1500s", rc, err);
	free(out);
	free(err);
	rc = tu_sim_run(node, &out, &err, "vf", "guid", VF1, "--node", "02:00:00:00:00:00:00:01",
			"--dry-run", NULL);
	ck_assert_msg(rc != 0 && strstr(err, "sets the GUIDs of PF " PF), "vf guid: %d %.1500s", rc,
		      err);
	free(out);
	free(err);
}
END_TEST

/* A tenant's pod named like the config daemon, outside the operators'
 * namespaces, is not theirs: no finding, no pod, no name in a remedy. */
START_TEST(a_tenant_pod_named_like_the_daemon_claims_nothing)
{
	tu_put(node,
	       "var/log/pods/tenant-a_sriov-network-config-daemon-evil1_"
	       "0f1e2d3c-4b5a-4678-9a0b-1c2d3e4f5a6c/sriov-network-config-daemon/0.log",
	       "");
	tu_put(node, PATH, applied);
	struct json_object *o = list_json(), *pods;
	ck_assert(json_object_object_get_ex(o, "operator_pods", &pods));
	ck_assert_msg(!strstr(jstr(pods), "tenant-a"), "operator_pods: %.1500s", jstr(pods));
	const char *a = jstr(pf_operator(o, PF));
	ck_assert_msg(!strstr(a, "tenant-a"), "%.1500s", a);
	json_object_put(o);
}
END_TEST

START_TEST(detects_config_daemon_pod)
{
	tu_put(node,
	       "var/log/pods/nvidia-network-operator_sriov-network-config-daemon-x7k2p_"
	       "0f1e2d3c-4b5a-4678-9a0b-1c2d3e4f5a6b/sriov-network-config-daemon/0.log",
	       "");
	struct json_object *o = list_json(), *pods;
	ck_assert(json_object_object_get_ex(o, "operator_pods", &pods));
	ck_assert_msg(
		strstr(jstr(pods), "nvidia-network-operator\\/sriov-network-config-daemon-x7k2p"),
		"operator_pods: %.1500s", jstr(pods));
	ck_assert_msg(pf_operator(o, PF) == NULL, "a pod alone claims no PF");
	json_object_put(o);
	char *out, *err;
	tu_sim_run(node, &out, &err, "check", "--json", NULL);
	ck_assert_msg(strstr(out, "\"operator-managed\"") &&
			      strstr(out, "config daemon runs here and configures no PF yet"),
		      "check: %.1500s", out);
	free(out);
	free(err);
	/* with its applied config, the pod is evidence and the name its namespace's */
	tu_put(node, PATH, applied);
	o = list_json();
	const char *a = jstr(pf_operator(o, PF));
	ck_assert_msg(strstr(a, "nvidia-network-operator") && strstr(a, "pod nvidia"), "%.1500s",
		      a);
	json_object_put(o);
}
END_TEST

/* A refusal: non-zero, the first line of stderr is the one reason, then the
 * policy for the PF. */
static void assert_refused(int rc, const char *err, const char *what)
{
	ck_assert_msg(rc != 0, "%s: not refused", what);
	const char *nl = strchr(err, '\n');
	ck_assert_msg(!strncmp(err, "ibvf: cannot ", 13) && nl &&
			      memmem(err, (size_t)(nl - err), "SR-IOV Network Operator", 23) &&
			      memmem(err, (size_t)(nl - err), "--force", 7),
		      "%s: first line: %.1500s", what, err);
	ck_assert_msg(strstr(nl, "kind: SriovNetworkNodePolicy") &&
			      strstr(nl, "rootDevices: [\"" PF "\"]") &&
			      strstr(nl, "pfNames: [\"ibp24s0\"]") && strstr(nl, "numVfs: 8") &&
			      strstr(nl, "deviceType: netdevice") && strstr(nl, "isRdma: true") &&
			      strstr(nl, "linkType: ib"),
		      "%s: remedy: %.1500s", what, nl);
}

START_TEST(refuses_on_managed_pf)
{
	tu_put(node, ".sim/faults", "operator:" PF "\n");
	char before[64], *out, *err;
	snprintf(before, sizeof(before), "%s", NUMVFS(PF));
	static char unit[4096];
	snprintf(unit, sizeof(unit), "%s", rd("etc/systemd/system/ibvf-sriov.service"));
	const char *const cmds[][8] = {
		{"vf", "create", PF, "4", "--dry-run", NULL},
		{"vf", "create", PF, "4", "--yes", NULL},
		{"vf", "destroy", PF, "--yes", NULL},
		{"vf", "guid", VF1, "--node", "02:00:00:00:00:00:00:01", "--yes", NULL},
		{"persist", "--dry-run", NULL},
		{"persist", "--yes", NULL},
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *argv[10] = {tu_sim_arg(node)};
		for (size_t k = 0; cmds[i][k]; k++)
			argv[k + 1] = (char *)cmds[i][k];
		int rc = tu_run((const char *const *)argv, &out, &err);
		assert_refused(rc, err, cmds[i][1]);
		free(argv[0]);
		free(out);
		free(err);
	}
	ck_assert_str_eq(NUMVFS(PF), before);
	ck_assert_msg(!strcmp(rd("etc/systemd/system/ibvf-sriov.service"), unit),
		      "persist changed the unit: %.1500s",
		      rd("etc/systemd/system/ibvf-sriov.service"));
	/* check --fix: the VF GUID fixes leave the managed PF's VFs alone */
	int rc = tu_sim_run(node, &out, &err, "check", "--fix", "guid-zero", "--yes", NULL);
	ck_assert_msg(strstr(out, "sets its GUIDs") || strstr(err, "sets its GUIDs") ||
			      strstr(err, "SR-IOV Network Operator"),
		      "check --fix (exit %d): %.1500s / %.1500s", rc, out, err);
	free(out);
	free(err);
	ck_assert_str_eq(NUMVFS(PF), before);
	struct json_object *o = list_json(), *pfs, *vfs, *g;
	json_object_object_get_ex(o, "pfs", &pfs);
	json_object_object_get_ex(json_object_array_get_idx(pfs, 0), "vfs", &vfs);
	json_object_object_get_ex(json_object_array_get_idx(vfs, 0), "node_guid", &g);
	ck_assert_msg(!g || !strcmp(json_object_get_string(g), "0000:0000:0000:0000"),
		      "VF 0 of the managed PF got a GUID: %.1500s", jstr(g));
	json_object_put(o);
}
END_TEST

START_TEST(forced_goes_through)
{
	tu_put(node, ".sim/faults", "operator:" PF "\n");
	char *out, *err;
	int rc = tu_sim_run(node, &out, &err, "vf", "create", PF, "4", "--yes", "--force", NULL);
	ck_assert_msg(rc == 0, "forced vf create: exit %d: %.1500s", rc, err);
	ck_assert_msg(strstr(out, "forced: the SR-IOV Network Operator sets the VF count"),
		      "no forced note: %.1500s", out);
	free(out);
	free(err);
	ck_assert_str_eq(NUMVFS(PF), "4\n");
}
END_TEST

START_TEST(unmanaged_pf_unaffected)
{
	tu_put(node, ".sim/faults", "operator:" PF "\n");
	char *out, *err;
	int rc = tu_sim_run(node, &out, &err, "vf", "create", PF2, "4", "--yes", NULL);
	ck_assert_msg(rc == 0, "vf create on %s: exit %d: %.1500s", PF2, rc, err);
	ck_assert_msg(!strstr(err, "Operator") && !strstr(out, "Operator"), "%.1500s", out);
	free(out);
	free(err);
	ck_assert_str_eq(NUMVFS(PF2), "4\n");
}
END_TEST

START_TEST(bad_files_are_notes)
{
	/* oversized, not JSON, a YAML line longer than the operator writes, junk pool */
	size_t big = OPERATORS_FILE_MAX + 100;
	char *b = malloc(big + 1);
	memset(b, ' ', big);
	b[0] = '{';
	b[big] = '\0';
	tu_put(node, PATH, b);
	tu_put(node, "etc/sriov-operator/pci/0000:29:00.0", "{\"pciAddress\": [1,2");
	memset(b, 'x', 5000);
	strcpy(b + 5000, ": y\n");
	tu_put(node, "etc/sriov-operator/sriov-interface-config.yaml", b);
	free(b);
	tu_put(node, "etc/sriov-operator/infiniband/guids", "{\"not\":\"an array\"}");
	tu_put(node, "etc/sriov-operator/pci/not-a-bdf", applied);
	struct json_object *o = list_json(), *notes;
	json_object_object_get_ex(o, "notes", &notes);
	const char *n = jstr(notes);
	ck_assert_msg(
		strstr(n, "pci\\/0000:18:00.0': File too large") &&
			strstr(n, "pci\\/0000:29:00.0': not one JSON document") &&
			strstr(n, "sriov-interface-config.yaml': line 1 is not the operator's") &&
			strstr(n, "guids': not a JSON array"),
		"notes: %.1500s", n);
	/* the files' presence still claims their PFs */
	ck_assert(pf_operator(o, PF) != NULL);
	ck_assert(pf_operator(o, PF2) != NULL);
	json_object_put(o);
}
END_TEST

/* Mangled copies of the real files (bytes flipped, cut short) and random
 * bytes: the parsers return a count or -EINVAL, never more than max, and
 * ASan sees no read outside the buffers. */
START_TEST(parsers_bounded)
{
	struct op_claim got[4];
	char why[64];
	unsigned int seed = 27;
	const char *srcs[] = {applied, systemd_yaml};
	for (int round = 0; round < 4000; round++) {
		const char *src = srcs[round % 2];
		size_t len = strlen(src);
		char *buf = malloc(len);
		memcpy(buf, src, len);
		size_t cut = (size_t)rand_r(&seed) % (len + 1);
		for (int k = 0; k < 1 + round % 8; k++)
			buf[(size_t)rand_r(&seed) % len] = (char)(rand_r(&seed) & 0xff);
		if (round % 3 == 0)
			for (size_t k = 0; k < len; k++)
				buf[k] = (char)(rand_r(&seed) & 0xff);
		int r = operators_parse_systemd(buf, cut, got, 4, why, sizeof(why));
		ck_assert_msg(r == -EINVAL || (r >= 0 && r <= 4), "systemd: %d", r);
		r = operators_parse_applied(buf, cut, got, why, sizeof(why));
		ck_assert_msg(r == -EINVAL || r == 1, "applied: %d", r);
		for (int k = 0; r == 1 && k < 1; k++)
			ck_assert(strlen(got[0].bdf) < sizeof(got[0].bdf) &&
				  strlen(got[0].pf_name) < sizeof(got[0].pf_name));
		free(buf);
	}
	/* the real files parse to what they say */
	ck_assert_int_eq(operators_parse_systemd(systemd_yaml, strlen(systemd_yaml), got, 4, why,
						 sizeof(why)),
			 2);
	ck_assert_str_eq(got[0].bdf, PF);
	ck_assert_int_eq(got[0].want_numvfs, 8);
	ck_assert_str_eq(got[1].pf_name, "ibp41s0");
	ck_assert(got[1].externally_managed && !got[0].externally_managed);
	ck_assert_int_eq(operators_parse_applied(applied, strlen(applied), got, why, sizeof(why)),
			 1);
	ck_assert_str_eq(got[0].bdf, PF);
	ck_assert_str_eq(got[0].pf_name, "ibp24s0");
	/* more interfaces than room: refused, not overrun */
	ck_assert_int_eq(operators_parse_systemd(systemd_yaml, strlen(systemd_yaml), got, 1, why,
						 sizeof(why)),
			 -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("operators");
	TCase *t = tcase_create("node");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, detects_applied_pf_config);
	tcase_add_test(t, detects_systemd_mode_config);
	tcase_add_test(t, detects_ib_guid_pool);
	tcase_add_test(t, detects_config_daemon_pod);
	tcase_add_test(t, a_tenant_pod_named_like_the_daemon_claims_nothing);
	tcase_add_test(t, refuses_on_managed_pf);
	tcase_add_test(t, forced_goes_through);
	tcase_add_test(t, unmanaged_pf_unaffected);
	tcase_add_test(t, bad_files_are_notes);
	suite_add_tcase(s, t);
	TCase *p = tcase_create("parsers");
	tcase_add_test(p, parsers_bounded);
	suite_add_tcase(s, p);
	return tu_run_suite(s);
}
