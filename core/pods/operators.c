// SPDX-License-Identifier: MIT
/* The operators that configure a PF's SR-IOV, from their files and pods on the
 * node (operators.h says where each fact comes from in their sources). */
#include "operators.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/sys/sys.h"
#include "pods_impl.h"

#define POD_LOGS       "/var/log/pods"
#define DIR_MAX	       4096 /* entries read per directory */
#define SYSTEMD_MAX    64   /* interfaces taken from the systemd-mode config */
#define YAML_LINE_MAX  1024 /* a longer line of it is not the operator's */
#define NOTE_VALUE_MAX 120

struct ctx {
	struct sys *s;
	struct node *n;
	int err;
};

static void note(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **v = realloc(c->n->notes, (c->n->n_notes + 1) * sizeof(*v));
	char *d = v ? strdup(buf) : NULL;
	if (v)
		c->n->notes = v;
	if (!d) {
		c->err = -ENOMEM;
		return;
	}
	v[c->n->n_notes++] = d;
}

/* A name fit for a YAML line and a terminal: Kubernetes names, netdevs. */
static bool plain_word(const char *s)
{
	size_t l = strlen(s);
	if (!l || l > 253)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

const char *operators_name(enum op_name op)
{
	return op == OP_NETWORK_OPERATOR ? "the NVIDIA Network Operator's SR-IOV Network Operator"
					 : "the SR-IOV Network Operator";
}

const struct op_claim *operators_claim(const struct node *n, const char *bdf)
{
	for (size_t i = 0; i < n->n_op_claims; i++)
		if (!strcmp(n->op_claims[i].bdf, bdf))
			return &n->op_claims[i];
	return NULL;
}

const struct op_claim *operators_conflict(const struct node *n, const char *bdf,
					  enum action_kind kind)
{
	const struct op_claim *c = operators_claim(n, bdf);
	if (!c)
		return NULL;
	switch (kind) {
	case ACTION_CREATE:
		return c->numvfs ? c : NULL;
	case ACTION_GUID:
	case ACTION_ASSIGN_ALL:
		return c->guids ? c : NULL;
	case ACTION_PERSIST:
		return c->numvfs || c->guids ? c : NULL;
	default:
		return NULL;
	}
}

const char *operators_sets(const struct op_claim *c)
{
	return c->numvfs && c->guids ? "VF count and GUIDs" : c->numvfs ? "VF count" : "GUIDs";
}

void operators_evidence(const struct op_claim *c, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < c->n_evidence && at < size; i++) {
		int k = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", c->evidence[i]);
		if (k < 0)
			break;
		at += (size_t)k;
	}
}

/* The claim on the PF at bdf, made on first use; NULL when bdf is no PF of
 * the node (then nothing of it is recorded) or out of memory (c->err). */
static struct op_claim *claim(struct ctx *c, const char *bdf, enum op_name op)
{
	struct node *n = c->n;
	bool pf = false;
	for (size_t i = 0; i < n->n_pfs && !pf; i++)
		pf = !strcmp(n->pfs[i].fn.bdf, bdf);
	if (!pf)
		return NULL;
	for (size_t i = 0; i < n->n_op_claims; i++)
		if (!strcmp(n->op_claims[i].bdf, bdf))
			return &n->op_claims[i];
	struct op_claim *k = node_arr_grow(&n->op_claims, &n->n_op_claims, sizeof(*k));
	if (!k) {
		c->err = -ENOMEM;
		return NULL;
	}
	snprintf(k->bdf, sizeof(k->bdf), "%s", bdf);
	k->op = op;
	k->want_numvfs = -1;
	return k;
}

static void evidence(struct op_claim *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void evidence(struct op_claim *k, const char *fmt, ...)
{
	char buf[sizeof(k->evidence[0])];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < k->n_evidence; i++)
		if (!strcmp(k->evidence[i], buf))
			return;
	if (k->n_evidence < OP_EVIDENCE_MAX)
		memcpy(k->evidence[k->n_evidence++], buf, sizeof(buf));
}

/* What one interface of the operator's config says, onto its PF's claim. */
static void merge(struct op_claim *k, const struct op_claim *from)
{
	k->guids = true; /* the daemon sets an IB VF's GUIDs in every mode */
	k->externally_managed = k->externally_managed || from->externally_managed;
	k->numvfs = !k->externally_managed;
	if (from->want_numvfs >= 0)
		k->want_numvfs = from->want_numvfs;
	if (from->pf_name[0] && plain_word(from->pf_name))
		snprintf(k->pf_name, sizeof(k->pf_name), "%s", from->pf_name);
}

/* One JSON document filling buf (whitespace may follow), or NULL. */
static struct json_object *parse_json(const char *buf, size_t len)
{
	if (!len || len > OPERATORS_FILE_MAX)
		return NULL;
	struct json_tokener *tok = json_tokener_new_ex(16);
	if (!tok)
		return NULL;
	struct json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
	size_t end = json_tokener_get_parse_end(tok);
	bool ok = o && json_tokener_get_error(tok) == json_tokener_success;
	json_tokener_free(tok);
	while (ok && end < len && isspace((unsigned char)buf[end]))
		end++;
	if (!ok || end < len) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* --- /etc/sriov-operator/pci/<pciAddress>: JSON --- */

int operators_parse_applied(const char *buf, size_t len, struct op_claim *ret, char *why,
			    size_t why_size)
{
	struct json_object *o = parse_json(buf, len), *v;
	if (!o || !json_object_is_type(o, json_type_object)) {
		snprintf(why, why_size, "%s",
			 len > OPERATORS_FILE_MAX ? "larger than the operator writes"
			 : !o			  ? "not one JSON document"
						  : "not a JSON object");
		json_object_put(o);
		return -EINVAL;
	}
	struct op_claim k = {.want_numvfs = -1};
	if (json_object_object_get_ex(o, "pciAddress", &v) &&
	    json_object_is_type(v, json_type_string))
		node_bdf_normalize(json_object_get_string(v), false, k.bdf);
	if (json_object_object_get_ex(o, "numVfs", &v) && json_object_is_type(v, json_type_int)) {
		int64_t nv = json_object_get_int64(v);
		k.want_numvfs = nv >= 0 && nv <= 65535 ? (int)nv : -1;
	}
	if (json_object_object_get_ex(o, "name", &v) && json_object_is_type(v, json_type_string) &&
	    strlen(json_object_get_string(v)) < sizeof(k.pf_name))
		snprintf(k.pf_name, sizeof(k.pf_name), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "externallyManaged", &v) &&
	    json_object_is_type(v, json_type_boolean))
		k.externally_managed = json_object_get_boolean(v);
	json_object_put(o);
	*ret = k;
	return 1;
}

/* One of the operator's files into *buf (bounded by OPERATORS_FILE_MAX):
 * true when read; false when absent (said nothing), unreadable (a note) or
 * out of memory (c->err). */
static bool read_op_file(struct ctx *c, const char *path, char **buf, size_t *len)
{
	int r = sys_read_file(c->s, path, OPERATORS_FILE_MAX, buf, len);
	if (r >= 0)
		return true;
	if (r == -ENOMEM)
		c->err = r;
	else if (r != -ENOENT && r != -ENOTDIR)
		note(c, "cannot read '%s': %s%s", path, strerror(-r),
		     r == -EFBIG ? " (larger than the operator writes)" : "");
	return false;
}

static void read_applied(struct ctx *c, enum op_name op)
{
	char **names;
	size_t nn;
	if (sys_list(c->s, OPERATORS_PF_DIR, &names, &nn) < 0)
		return;
	for (size_t i = 0; i < nn && i < DIR_MAX && !c->err; i++) {
		char bdf[16], path[256], why[128];
		if (!node_bdf_normalize(names[i], false, bdf) || strcmp(bdf, names[i]))
			continue; /* the daemon names them by the PF's full address */
		snprintf(path, sizeof(path), "%s/%s", OPERATORS_PF_DIR, bdf);
		struct op_claim *k = claim(c, bdf, op);
		if (!k)
			continue;
		evidence(k, "%s", path);
		k->guids = true;
		k->numvfs = !k->externally_managed;
		char *buf;
		size_t len;
		int r = sys_read_file(c->s, path, OPERATORS_FILE_MAX, &buf, &len);
		if (r == -ENOMEM) {
			c->err = r;
			break;
		}
		if (r < 0) {
			note(c, "cannot read '%s': %s%s", path, strerror(-r),
			     r == -EFBIG ? " (larger than the operator writes)" : "");
			continue;
		}
		struct op_claim got;
		r = operators_parse_applied(buf, len, &got, why, sizeof(why));
		free(buf);
		if (r == -ENOMEM) {
			c->err = r;
			break;
		}
		if (r < 0) {
			note(c, "cannot read '%s': %s", path, why);
			continue;
		}
		if (got.bdf[0] && strcmp(got.bdf, bdf))
			note(c, "'%s' names PF %s, not its own", path, got.bdf);
		merge(k, &got);
	}
	sys_list_free(names, nn);
}

/* --- sriov-interface-config.yaml: the subset yaml.v3 writes for the spec --- */

/* The key and value of a "key: value" line (value "" for "key:"), quotes
 * and a trailing comment taken off; false when the line is no mapping. */
static bool yaml_pair(char *line, char **ret_key, char **ret_value)
{
	char *colon = strstr(line, ": ");
	if (!colon) {
		size_t l = strlen(line);
		if (!l || line[l - 1] != ':')
			return false;
		colon = line + l - 1;
	}
	*colon = '\0';
	char *v = colon[1] ? colon + 2 : colon + 1;
	while (*v == ' ')
		v++;
	if (*v == '"' || *v == '\'') {
		char *end = strchr(v + 1, *v);
		if (end)
			*end = '\0';
		v++;
	} else {
		char *hash = strstr(v, " #");
		if (hash)
			*hash = '\0';
		for (size_t l = strlen(v); l && v[l - 1] == ' '; l--)
			v[l - 1] = '\0';
	}
	*ret_key = line;
	*ret_value = v;
	return *line && !strchr(line, ' ');
}

int operators_parse_systemd(const char *buf, size_t len, struct op_claim *ret, size_t max,
			    char *why, size_t why_size)
{
	char line[YAML_LINE_MAX + 1];
	size_t n = 0, lineno = 0;
	int item_col = -1; /* the key column of the interface being read */
	bool in_interfaces = false, open = false;
	int ifaces_col = -1;
	if (len > OPERATORS_FILE_MAX) {
		snprintf(why, why_size, "larger than %u bytes", OPERATORS_FILE_MAX);
		return -EINVAL;
	}
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (buf + at)) : len - at;
		lineno++;
		if (l > YAML_LINE_MAX || memchr(buf + at, '\0', l)) {
			snprintf(why, why_size, "line %zu is not the operator's YAML", lineno);
			return -EINVAL;
		}
		memcpy(line, buf + at, l);
		line[l] = '\0';
		at += l + (nl ? 1 : 0);
		if (l && line[l - 1] == '\r')
			line[--l] = '\0';
		int col = 0;
		while (line[col] == ' ')
			col++;
		char *p = line + col;
		if (!*p || *p == '#')
			continue;
		bool dash = p[0] == '-' && (p[1] == ' ' || !p[1]);
		if (dash) {
			p += 1;
			while (*p == ' ')
				p++;
		}
		int kcol = (int)(p - line);
		char *key, *value;
		if (!yaml_pair(p, &key, &value))
			continue; /* a list's scalar, a block scalar's text */
		if (!dash && col <= ifaces_col)
			in_interfaces = false;
		if (!strcasecmp(key, "interfaces") && !dash) {
			in_interfaces = true;
			ifaces_col = col;
			item_col = -1;
			continue;
		}
		if (!in_interfaces)
			continue;
		if (dash && (item_col < 0 || kcol <= item_col)) {
			if (n >= max) {
				snprintf(why, why_size, "more than %zu interfaces", max);
				return -EINVAL;
			}
			ret[n++] = (struct op_claim){.want_numvfs = -1};
			item_col = kcol;
			open = true;
		}
		if (!open || kcol != item_col)
			continue; /* a vfGroup's keys, deeper */
		struct op_claim *k = &ret[n - 1];
		if (!strcasecmp(key, "pciaddress"))
			node_bdf_normalize(value, false, k->bdf);
		else if (!strcasecmp(key, "numvfs"))
			k->want_numvfs = *value && strspn(value, "0123456789") == strlen(value) &&
							 strlen(value) <= 5
						 ? atoi(value)
						 : -1;
		else if (!strcasecmp(key, "name") && strlen(value) < sizeof(k->pf_name))
			snprintf(k->pf_name, sizeof(k->pf_name), "%s", value);
		else if (!strcasecmp(key, "externallymanaged"))
			k->externally_managed = !strcmp(value, "true");
	}
	return (int)n;
}

static void read_systemd(struct ctx *c, enum op_name op)
{
	char *buf, why[128];
	size_t len;
	if (!read_op_file(c, OPERATORS_SYSTEMD, &buf, &len))
		return;
	struct op_claim *got = calloc(SYSTEMD_MAX, sizeof(*got));
	if (!got) {
		free(buf);
		c->err = -ENOMEM;
		return;
	}
	int r = operators_parse_systemd(buf, len, got, SYSTEMD_MAX, why, sizeof(why));
	free(buf);
	if (r < 0)
		note(c, "cannot read '%s': %s", OPERATORS_SYSTEMD, why);
	for (int i = 0; i < r && !c->err; i++) {
		struct op_claim *k = got[i].bdf[0] ? claim(c, got[i].bdf, op) : NULL;
		if (!k)
			continue;
		evidence(k, "%s", OPERATORS_SYSTEMD);
		merge(k, &got[i]);
	}
	free(got);
}

/* --- /etc/sriov-operator/infiniband/guids: the GUID pool --- */

static void read_ib_guids(struct ctx *c, enum op_name op)
{
	char *buf;
	size_t len;
	if (!read_op_file(c, OPERATORS_IB_GUIDS, &buf, &len))
		return;
	struct json_object *a = parse_json(buf, len);
	free(buf);
	if (!a || !json_object_is_type(a, json_type_array)) {
		note(c, "cannot read '%s': not a JSON array", OPERATORS_IB_GUIDS);
		json_object_put(a);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(a) && i < DIR_MAX && !c->err; i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *v;
		char bdf[16] = "";
		uint64_t g;
		if (json_object_object_get_ex(e, "pciAddress", &v) &&
		    json_object_is_type(v, json_type_string))
			node_bdf_normalize(json_object_get_string(v), false, bdf);
		else if (json_object_object_get_ex(e, "pfGuid", &v) &&
			 json_object_is_type(v, json_type_string) &&
			 guid_parse(json_object_get_string(v), &g) == 0)
			for (size_t p = 0; p < c->n->n_pfs && !bdf[0]; p++) {
				const struct fn *fn = &c->n->pfs[p].fn;
				if (fn->n_rdmas && fn->rdmas[0].node_guid.known &&
				    fn->rdmas[0].node_guid.v == g)
					snprintf(bdf, sizeof(bdf), "%s", fn->bdf);
			}
		struct op_claim *k = bdf[0] ? claim(c, bdf, op) : NULL;
		if (!k)
			continue;
		k->guids = true;
		evidence(k, "%s", OPERATORS_IB_GUIDS);
	}
	json_object_put(a);
}

/* --- the operators' pods --- */

enum pod_role {
	ROLE_NONE,
	ROLE_DAEMON,
	ROLE_PLUGIN
};

/* The namespaces the operators deploy into (their manifests and Helm
 * charts' defaults; kube-system for a plugin deployed alone): a pod of
 * that name anywhere else is a tenant's, and claims nothing. */
static bool operator_namespace(const char *ns)
{
	static const char *const known[] = {
		"sriov-network-operator",
		"openshift-sriov-network-operator",
		"nvidia-network-operator",
		"network-operator",
		"kube-system",
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(ns, known[i]))
			return true;
	return false;
}

static enum pod_role role_of(const char *name)
{
	if (!strncmp(name, OPERATORS_DAEMON, strlen(OPERATORS_DAEMON)))
		return ROLE_DAEMON;
	if (!strncmp(name, "rdma-shared-dp-ds", 17) || !strncmp(name, "sriov-device-plugin-", 20))
		return ROLE_PLUGIN;
	return ROLE_NONE;
}

static void add_pod(struct ctx *c, const char *ns, const char *name, char *daemon,
		    size_t daemon_size)
{
	char label[300];
	enum pod_role role = role_of(name);
	if (role == ROLE_NONE || !plain_word(ns) || !plain_word(name) || !operator_namespace(ns))
		return;
	snprintf(label, sizeof(label), "%s/%s", ns, name);
	for (size_t i = 0; i < c->n->n_op_pods; i++)
		if (!strcmp(c->n->op_pods[i], label))
			return;
	if (role == ROLE_DAEMON && !daemon[0])
		snprintf(daemon, daemon_size, "%s", label);
	if (c->n->n_op_pods >= OPERATORS_PODS_MAX)
		return;
	char **v = realloc(c->n->op_pods, (c->n->n_op_pods + 1) * sizeof(*v));
	char *d = v ? strdup(label) : NULL;
	if (v)
		c->n->op_pods = v;
	if (!d) {
		c->err = -ENOMEM;
		return;
	}
	v[c->n->n_op_pods++] = d;
}

/* The operators' pods on the node; the config daemon's "ns/name" in daemon. */
static void read_pods(struct ctx *c, char *daemon, size_t daemon_size)
{
	const struct podres *api = &c->n->podres;
	for (size_t i = 0; i < api->n_pods && !c->err; i++)
		if (api->pods[i].ns && api->pods[i].name)
			add_pod(c, api->pods[i].ns, api->pods[i].name, daemon, daemon_size);
	char **names;
	size_t nn;
	if (sys_list(c->s, POD_LOGS, &names, &nn) < 0)
		return;
	for (size_t i = 0; i < nn && i < DIR_MAX && !c->err; i++) {
		char *a = names[i];
		const char *uid;
		size_t ns_len, name_len;
		if (!pods_podlog_split(a, &ns_len, &name_len, &uid))
			continue;
		a[ns_len] = a[ns_len + 1 + name_len] = '\0';
		add_pod(c, a, a + ns_len + 1, daemon, daemon_size);
	}
	sys_list_free(names, nn);
}

int operators_attach(struct sys *s, struct node *n)
{
	struct ctx c = {.s = s, .n = n};
	char daemon[300] = "";
	read_pods(&c, daemon, sizeof(daemon));
	enum op_name op = !strncmp(daemon, "nvidia-network-operator/", 24) ? OP_NETWORK_OPERATOR
									   : OP_SRIOV_OPERATOR;
	if (!c.err)
		read_applied(&c, op);
	if (!c.err)
		read_systemd(&c, op);
	if (!c.err)
		read_ib_guids(&c, op);
	/* The daemon touches only the PFs its node state names (the files
	 * above say which it applied): its pod is evidence beside them. A
	 * daemon with no PF of its own yet is in n->op_pods only. */
	for (size_t i = 0; daemon[0] && i < n->n_op_claims; i++)
		evidence(&n->op_claims[i], "pod %s", daemon);
	return c.err;
}

/* --- the operator-side remedy --- */

void operators_policy_yaml(const struct node *n, const struct pf *pf, const struct op_claim *c,
			   bool oneline, char *buf, size_t size)
{
	const char *pfname = c && c->pf_name[0] ? c->pf_name
			     : pf->fn.n_netdevs ? pf->fn.netdevs[0].name
						: "";
	if (!plain_word(pfname))
		pfname = "";
	const char *host = n->hostname && plain_word(n->hostname) ? n->hostname : NULL;
	const char *ns = "sriov-network-operator";
	char nsown[254] = "";
	for (size_t i = 0; c && i < c->n_evidence; i++)
		if (!strncmp(c->evidence[i], "pod ", 4)) {
			const char *sl = strchr(c->evidence[i] + 4, '/');
			size_t l = sl ? (size_t)(sl - (c->evidence[i] + 4)) : 0;
			if (l && l < sizeof(nsown)) {
				memcpy(nsown, c->evidence[i] + 4, l);
				nsown[l] = '\0';
				ns = nsown;
			}
		}
	if (c && c->op == OP_NETWORK_OPERATOR && !nsown[0])
		ns = "nvidia-network-operator";
	long long numvfs = pf->numvfs.known && pf->numvfs.v ? (long long)pf->numvfs.v
			   : c && c->want_numvfs >= 0	    ? (long long)c->want_numvfs
			   : pf->totalvfs.known		    ? (long long)pf->totalvfs.v
							    : 8;
	char pfnames[64] = "", ident[64];
	snprintf(ident, sizeof(ident), "ibvf-%s", pfname[0] ? pfname : pf->fn.bdf);
	for (char *p = ident; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-')
			*p = '-';
		else
			*p = (char)tolower((unsigned char)*p);
	if (oneline) {
		if (pfname[0])
			snprintf(pfnames, sizeof(pfnames), ", pfNames: [\"%s\"]", pfname);
		snprintf(buf, size,
			 "SriovNetworkNodePolicy spec: {%s%s%snicSelector: {rootDevices: "
			 "[\"%s\"]%s}, "
			 "numVfs: %lld, deviceType: netdevice, isRdma: true, linkType: ib, "
			 "resourceName: ibvf}",
			 host ? "nodeSelector: {kubernetes.io/hostname: \"" : "", host ? host : "",
			 host ? "\"}, " : "", pf->fn.bdf, pfnames, numvfs);
		return;
	}
	if (pfname[0])
		snprintf(pfnames, sizeof(pfnames), "    pfNames: [\"%s\"]\n", pfname);
	char hostline[320] = "";
	if (host)
		snprintf(hostline, sizeof(hostline),
			 "  nodeSelector:\n    kubernetes.io/hostname: \"%s\"\n", host);
	snprintf(buf, size,
		 "apiVersion: sriovnetwork.openshift.io/v1\n"
		 "kind: SriovNetworkNodePolicy\n"
		 "metadata:\n"
		 "  name: %s\n"
		 "  namespace: %s\n"
		 "spec:\n"
		 "%s"
		 "  resourceName: ibvf\n"
		 "  nicSelector:\n"
		 "    rootDevices: [\"%s\"]\n"
		 "%s"
		 "  numVfs: %lld\n"
		 "  deviceType: netdevice\n"
		 "  isRdma: true\n"
		 "  linkType: ib\n",
		 ident, ns, hostline, pf->fn.bdf, pfnames, numvfs);
}
