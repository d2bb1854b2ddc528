// SPDX-License-Identifier: MIT
/* Device plugin configs parsed as the plugins themselves read them
 * (devplugin.h): Go's encoding/json, which matches keys without regard to
 * case, fails the whole file on a value of the wrong type, and leaves a
 * missing list empty (no filter). Where the SR-IOV plugin only skips one
 * resource (selectors it cannot unmarshal), the resource carries the error;
 * where a plugin refuses to start, the config does. */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devplugin.h"

#define DP_JSON_DEPTH 16

struct parse {
	struct dp_config *c;
	bool nomem;
};

__attribute__((format(printf, 3, 4))) static void set_error(struct parse *p, char **where,
							    const char *fmt, ...)
{
	if (*where)
		return; /* the first reason is the one the plugin gives */
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(where, fmt, ap) < 0) {
		*where = NULL;
		p->nomem = true;
	}
	va_end(ap);
}

/* A key as Go finds it: the exact spelling first, else any case. */
static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v;
	if (json_object_object_get_ex(o, key, &v))
		return v;
	json_object_object_foreach(o, k, val) {
		if (!strcasecmp(k, key))
			return val;
	}
	return NULL;
}

static bool jabsent(struct json_object *o, const char *key, struct json_object **ret)
{
	*ret = jget(o, key);
	return !*ret || json_object_is_type(*ret, json_type_null);
}

static char *dup_value(struct parse *p, const char *s)
{
	char *d = strdup(s);
	if (!d)
		p->nomem = true;
	return d;
}

/* A string field: absent or null is NULL; another type is the file's error. */
static int get_string(struct parse *p, struct json_object *o, const char *key, const char *ctx,
		      char **ret)
{
	struct json_object *v;
	if (jabsent(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		set_error(p, &p->c->error, "%s.%s is not a string", ctx, key);
		return -EINVAL;
	}
	if (json_object_get_string_len(v) > DP_VALUE_LEN) {
		set_error(p, &p->c->error, "%s.%s is longer than %d bytes", ctx, key, DP_VALUE_LEN);
		return -EINVAL;
	}
	*ret = dup_value(p, json_object_get_string(v));
	return 0;
}

/* A list of strings; what is wrong goes to *err (the file's or the resource's). */
static int get_list(struct parse *p, struct json_object *o, const char *key, const char *ctx,
		    struct dp_list *ret, char **err)
{
	struct json_object *v;
	if (jabsent(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_array)) {
		set_error(p, err, "%s.%s is not a list of strings", ctx, key);
		return -EINVAL;
	}
	size_t n = json_object_array_length(v);
	if (n > DP_VALUES_MAX) {
		set_error(p, err, "%s.%s holds %zu entries: more than ibvf reads (%d)", ctx, key, n,
			  DP_VALUES_MAX);
		return -E2BIG;
	}
	if (n && !(ret->v = calloc(n, sizeof(*ret->v)))) {
		p->nomem = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		if (!json_object_is_type(e, json_type_string)) {
			set_error(p, err, "%s.%s[%zu] is not a string", ctx, key, i);
			return -EINVAL;
		}
		if (json_object_get_string_len(e) > DP_VALUE_LEN) {
			set_error(p, err, "%s.%s[%zu] is longer than %d bytes", ctx, key, i,
				  DP_VALUE_LEN);
			return -E2BIG;
		}
		if (!(ret->v[ret->n] = dup_value(p, json_object_get_string(e))))
			return -ENOMEM;
		ret->n++;
	}
	return 0;
}

static int get_bool(struct parse *p, struct json_object *o, const char *key, const char *ctx,
		    bool *ret, char **err)
{
	struct json_object *v;
	if (jabsent(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean)) {
		set_error(p, err, "%s.%s is not true or false", ctx, key);
		return -EINVAL;
	}
	*ret = json_object_get_boolean(v);
	return 0;
}

/* A Go int: a JSON number without fraction or exponent. */
static int get_int(struct parse *p, struct json_object *o, const char *key, const char *ctx,
		   int *ret)
{
	struct json_object *v;
	if (jabsent(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int)) {
		set_error(p, &p->c->error, "%s.%s is not an integer", ctx, key);
		return -EINVAL;
	}
	int64_t x = json_object_get_int64(v);
	*ret = x > 1000000000 ? 1000000000 : x < -1000000000 ? -1000000000 : (int)x;
	return 0;
}

static const char *const sriov_keys[DP_FIELDS] = {
	[DP_VENDORS] = "vendors",      [DP_DEVICES] = "devices",
	[DP_DRIVERS] = "drivers",      [DP_PCI_ADDRESSES] = "pciAddresses",
	[DP_PF_NAMES] = "pfNames",     [DP_ROOT_DEVICES] = "rootDevices",
	[DP_LINK_TYPES] = "linkTypes", [DP_IF_NAMES] = NULL,
};
static const char *const rdma_keys[DP_FIELDS] = {
	[DP_VENDORS] = "vendors",  [DP_DEVICES] = "deviceIDs",	  [DP_DRIVERS] = "drivers",
	[DP_IF_NAMES] = "ifNames", [DP_LINK_TYPES] = "linkTypes",
};

const char *devplugin_field_key(enum dp_plugin p, enum dp_field f)
{
	if ((unsigned int)f >= DP_FIELDS)
		return NULL;
	return p == DP_RDMA_SHARED ? rdma_keys[f] : sriov_keys[f];
}

/* Selectors of the SR-IOV plugin that depend on what sysfs does not show. */
static void sriov_unjudged(struct parse *p, struct json_object *o, struct dp_selector *s)
{
	static const char *const lists[] = {"acpiIndexes", "ddpProfiles", "pKeys", "auxTypes"};
	struct json_object *v;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]) && !s->unjudged; i++)
		if (!jabsent(o, lists[i], &v) && json_object_is_type(v, json_type_array) &&
		    json_object_array_length(v))
			s->unjudged = dup_value(p, lists[i]);
	if (!s->unjudged && !jabsent(o, "vdpaType", &v) && json_object_get_string_len(v))
		s->unjudged = dup_value(p, "vdpaType");
}

static void sriov_selector(struct parse *p, struct json_object *o, const char *ctx,
			   struct dp_resource *r, struct dp_selector *s)
{
	if (!json_object_is_type(o, json_type_object)) {
		set_error(p, &r->error, "%s is not an object", ctx);
		return;
	}
	for (int f = 0; f < DP_FIELDS; f++)
		if (sriov_keys[f] && get_list(p, o, sriov_keys[f], ctx, &s->f[f], &r->error) < 0)
			return;
	if (get_bool(p, o, "isRdma", ctx, &s->is_rdma, &r->error) < 0 ||
	    get_bool(p, o, "needVhostNet", ctx, &s->need_vhost_net, &r->error) < 0)
		return;
	sriov_unjudged(p, o, s);
}

/* selectors: one object, or (newer plugins) a list of them. */
static void sriov_selectors(struct parse *p, struct json_object *o, const char *ctx,
			    struct dp_resource *r)
{
	struct json_object *v;
	char sctx[96];
	if (jabsent(o, "selectors", &v)) {
		set_error(p, &r->error, "%s has no selectors", ctx);
		return;
	}
	bool arr = json_object_is_type(v, json_type_array);
	size_t n = arr ? json_object_array_length(v) : 1;
	if (arr && n == 0) {
		set_error(p, &r->error, "%s.selectors is an empty list", ctx);
		return;
	}
	if (n > DP_SELECTORS_MAX) {
		set_error(p, &r->error, "%s.selectors holds %zu objects: more than ibvf reads (%d)",
			  ctx, n, DP_SELECTORS_MAX);
		return;
	}
	if (!(r->sel = calloc(n, sizeof(*r->sel)))) {
		p->nomem = true;
		return;
	}
	r->sel_array = arr;
	r->n_sel = n;
	for (size_t i = 0; i < n && !r->error; i++) {
		snprintf(sctx, sizeof(sctx), arr ? "%s.selectors[%zu]" : "%s.selectors", ctx, i);
		sriov_selector(p, arr ? json_object_array_get_idx(v, i) : v, sctx, r, &r->sel[i]);
	}
}

static bool name_ok(const char *s, bool dash)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && !(dash && *s == '-'))
			return false;
	return true;
}

/* Each plugin refuses to start on a resource name outside its pattern or
 * one it already has. */
static void check_names(struct parse *p, bool dash)
{
	struct dp_config *c = p->c;
	for (size_t i = 0; i < c->n_res && !c->error; i++) {
		const struct dp_resource *r = &c->res[i];
		if (!name_ok(r->name ? r->name : "", dash)) {
			set_error(p, &c->error, "resource name \"%s\" contains invalid characters",
				  r->name ? r->name : "");
			break;
		}
		for (size_t j = 0; j < i; j++) {
			const struct dp_resource *q = &c->res[j];
			if (!strcmp(q->name ? q->name : "", r->name) &&
			    !strcmp(q->prefix ? q->prefix : "", r->prefix ? r->prefix : ""))
				set_error(p, &c->error, "resource name \"%s\" already exists",
					  r->name);
		}
	}
}

/* Room for the list's resources (at most DP_RESOURCES_MAX): how many to
 * read, 0 on ENOMEM. */
static size_t alloc_resources(struct parse *p, struct json_object *list)
{
	size_t n = json_object_array_length(list);
	if (n > DP_RESOURCES_MAX)
		n = DP_RESOURCES_MAX;
	if (n && !(p->c->res = calloc(n, sizeof(*p->c->res)))) {
		p->nomem = true;
		return 0;
	}
	return n;
}

/* The list's i-th entry as the config's next resource, ctx its name
 * ("resourceList[2]"); NULL, with the config's error, when it is no object. */
static struct dp_resource *next_resource(struct parse *p, struct json_object *list, size_t i,
					 const char *key, char ctx[48], struct json_object **ret)
{
	struct dp_config *c = p->c;
	*ret = json_object_array_get_idx(list, i);
	snprintf(ctx, 48, "%s[%zu]", key, i);
	if (!json_object_is_type(*ret, json_type_object)) {
		set_error(p, &c->error, "%s is not an object", ctx);
		return NULL;
	}
	return &c->res[c->n_res++];
}

static void parse_sriov(struct parse *p, struct json_object *list)
{
	struct dp_config *c = p->c;
	c->plugin = DP_SRIOV;
	if (!json_object_is_type(list, json_type_array)) {
		if (!json_object_is_type(list, json_type_null))
			set_error(p, &c->error, "resourceList is not a list");
		return;
	}
	size_t n = alloc_resources(p, list);
	for (size_t i = 0; i < n && !c->error && !p->nomem; i++) {
		struct json_object *o;
		char ctx[48];
		struct dp_resource *r = next_resource(p, list, i, "resourceList", ctx, &o);
		if (!r)
			break;
		r->plugin = DP_SRIOV;
		r->rdma_hca_max = -1;
		if (get_string(p, o, "resourceName", ctx, &r->name) < 0 ||
		    get_string(p, o, "resourcePrefix", ctx, &r->prefix) < 0 ||
		    get_string(p, o, "deviceType", ctx, &r->device_type) < 0)
			break;
		if (!r->name)
			r->name = dup_value(p, "");
		if (r->prefix && !*r->prefix) {
			free(r->prefix);
			r->prefix = NULL;
		}
		if (!r->device_type || !*r->device_type) {
			free(r->device_type);
			r->device_type = dup_value(p, "netDevice");
		} else if (strcmp(r->device_type, "netDevice") &&
			   strcmp(r->device_type, "accelerator") &&
			   strcmp(r->device_type, "auxNetDevice")) {
			set_error(p, &c->error, "unsupported deviceType: \"%s\"", r->device_type);
			break;
		}
		sriov_selectors(p, o, ctx, r);
	}
	check_names(p, true);
}

static void parse_rdma_one(struct parse *p, struct json_object *o, const char *ctx,
			   struct dp_resource *r)
{
	struct dp_config *c = p->c;
	struct dp_selector *s = r->sel;
	struct json_object *v;
	struct dp_list devices = {0};
	if (get_string(p, o, "resourceName", ctx, &r->name) < 0 ||
	    get_string(p, o, "resourcePrefix", ctx, &r->prefix) < 0 ||
	    get_int(p, o, "rdmaHcaMax", ctx, &r->rdma_hca_max) < 0 ||
	    get_list(p, o, "devices", ctx, &devices, &c->error) < 0)
		goto out;
	if (!r->name)
		r->name = dup_value(p, "");
	if (r->prefix && !*r->prefix) {
		free(r->prefix);
		r->prefix = NULL;
	}
	if (r->rdma_hca_max < 0) {
		set_error(p, &c->error, "Invalid value for rdmaHcaMax < 0: %d", r->rdma_hca_max);
		goto out;
	}
	if (!jabsent(o, "selectors", &v)) {
		char sctx[64];
		snprintf(sctx, sizeof(sctx), "%s.selectors", ctx);
		if (!json_object_is_type(v, json_type_object)) {
			set_error(p, &c->error, "%s is not an object", sctx);
			goto out;
		}
		for (int f = 0; f < DP_FIELDS; f++)
			if (rdma_keys[f] && get_list(p, v, rdma_keys[f], sctx, &s->f[f], &c->error))
				goto out;
	}
	bool empty = true;
	for (int f = 0; f < DP_FIELDS; f++)
		empty &= s->f[f].n == 0;
	if (empty && !devices.n)
		set_error(p, &c->error, "%s: neither \"selectors\" nor \"devices\"", ctx);
	else if (!empty && devices.n)
		set_error(p, &c->error, "%s: both \"selectors\" and \"devices\"", ctx);
	else if (empty) { /* the older form: netdev names */
		s->f[DP_IF_NAMES] = devices;
		devices = (struct dp_list){0};
	}
out:
	for (size_t i = 0; i < devices.n; i++)
		free(devices.v[i]);
	free(devices.v);
}

static void parse_rdma(struct parse *p, struct json_object *top, struct json_object *list)
{
	struct dp_config *c = p->c;
	c->plugin = DP_RDMA_SHARED;
	int interval = 0;
	if (get_int(p, top, "periodicUpdateInterval", "", &interval) < 0)
		return;
	if (interval < 0) {
		set_error(p, &c->error, "invalid \"periodicUpdateInterval\" configuration \"%d\"",
			  interval);
		return;
	}
	if (!json_object_is_type(list, json_type_array)) {
		set_error(p, &c->error, "configList is not a list");
		return;
	}
	size_t n = json_object_array_length(list);
	if (n == 0) {
		set_error(p, &c->error, "no resources configuration found");
		return;
	}
	n = alloc_resources(p, list);
	for (size_t i = 0; i < n && !c->error && !p->nomem; i++) {
		struct json_object *o;
		char ctx[48];
		struct dp_resource *r = next_resource(p, list, i, "configList", ctx, &o);
		if (!r)
			break;
		r->plugin = DP_RDMA_SHARED;
		r->rdma_hca_max = 0;
		if (!(r->sel = calloc(1, sizeof(*r->sel)))) {
			p->nomem = true;
			break;
		}
		r->n_sel = 1;
		parse_rdma_one(p, o, ctx, r);
	}
	check_names(p, false);
}

static unsigned long fnv1a(const char *s, size_t len)
{
	unsigned long h = 2166136261ul;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619ul;
	return h;
}

/* Text that is no JSON object, or a JSON object of neither plugin, is no
 * config; broken JSON that names either plugin's list is a broken config. */
static int parse_top(struct parse *p, const char *text, size_t len)
{
	struct dp_config *c = p->c;
	struct json_tokener *tok = json_tokener_new_ex(DP_JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT); /* as Go: no trailing commas */
	struct json_object *o = len ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (o && end < len && isspace((unsigned char)text[end]))
		end++;
	if (!o || je != json_tokener_success || end < len) {
		json_object_put(o);
		if (memmem(text, len, "\"resourceList\"", 14))
			c->plugin = DP_SRIOV;
		else if (memmem(text, len, "\"configList\"", 12))
			c->plugin = DP_RDMA_SHARED;
		else
			return -ENOMSG;
		if (!len || je == json_tokener_continue)
			set_error(p, &c->error, "not JSON: the file ends in the middle");
		else if (je != json_tokener_success)
			set_error(p, &c->error, "not JSON: %s at byte %zu",
				  json_tokener_error_desc(je), end);
		else
			set_error(p, &c->error, "not JSON: data after the end at byte %zu", end);
		return 0;
	}
	struct json_object *rl = NULL, *cl = NULL;
	int r = 0;
	if (!json_object_is_type(o, json_type_object))
		r = -ENOMSG;
	else if ((rl = jget(o, "resourceList")))
		parse_sriov(p, rl);
	else if ((cl = jget(o, "configList")))
		parse_rdma(p, o, cl);
	else
		r = -ENOMSG;
	json_object_put(o);
	return r;
}

int devplugin_parse(const char *text, size_t len, const char *path, struct dp_config *ret)
{
	struct dp_config c = {0};
	struct parse p = {.c = &c};
	if (!(c.path = strdup(path ? path : "")))
		return -ENOMEM;
	c.hash = fnv1a(text, len);
	int r = parse_top(&p, text, len);
	if (r == 0 && p.nomem)
		r = -ENOMEM;
	if (r < 0) {
		dp_config_fini(&c);
		return r;
	}
	*ret = c;
	return 0;
}
