// SPDX-License-Identifier: MIT
#include "event.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const kind_table[HK__N] = {
	[HK_BOOT] = "boot",
	[HK_START] = "start",
	[HK_VF_COUNT] = "vf-count",
	[HK_FN_ADDED] = "fn-added",
	[HK_FN_REMOVED] = "fn-removed",
	[HK_DRIVER] = "driver",
	[HK_PROBE_FAILED] = "probe-failed",
	[HK_RENAME] = "rename",
	[HK_NETNS] = "netns",
	[HK_NETDEV] = "netdev",
	[HK_NODE_GUID] = "node-guid",
	[HK_PORT_GUID] = "port-guid",
	[HK_PORT_STATE] = "port-state",
	[HK_PHYS_STATE] = "phys-state",
	[HK_RATE] = "rate",
	[HK_LINK_LAYER] = "link-layer",
	[HK_POD_BOUND] = "pod-bound",
	[HK_POD_GONE] = "pod-gone",
	[HK_KMSG] = "kmsg",
	[HK_ACTION] = "action",
	[HK_FINDING_OPEN] = "finding-open",
	[HK_FINDING_CLOSE] = "finding-close",
	[HK_BENCH] = "bench",
};

const char *hist_kind_to_string(enum hist_kind k)
{
	return (unsigned int)k < HK__N ? kind_table[k] : NULL;
}

int hist_kind_from_string(const char *s)
{
	for (int k = 0; s && k < HK__N; k++)
		if (!strcmp(kind_table[k], s))
			return k;
	return -1;
}

bool hist_kind_wants_cause(enum hist_kind k)
{
	switch (k) {
	case HK_RENAME:
	case HK_NODE_GUID:
	case HK_PORT_GUID:
	case HK_PORT_STATE:
	case HK_PHYS_STATE:
	case HK_NETDEV:
	case HK_FN_REMOVED:
	case HK_LINK_LAYER:
	case HK_PROBE_FAILED:
		return true;
	default:
		return false;
	}
}

void hist_set(char *field, size_t size, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n >= size) {
		n = size - 1;
		/* Not inside a UTF-8 sequence: back off continuation bytes. */
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	if (n)
		memcpy(field, s, n);
	field[n] = '\0';
}

void hist_time_format(int64_t t_us, char *buf, size_t size)
{
	time_t sec = (time_t)(t_us / 1000000);
	long usec = (long)(t_us % 1000000);
	if (usec < 0) {
		usec += 1000000;
		sec--;
	}
	struct tm tm;
	char day[32];
	gmtime_r(&sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%06ldZ", day, usec);
}

int64_t hist_time_parse(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *p = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	if (!p)
		return 0;
	int64_t us = (int64_t)timegm(&tm) * 1000000;
	if (*p == '.') {
		int64_t scale = 100000;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			us += (*p - '0') * scale;
	}
	return us;
}

static void add_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v[0] ? json_object_new_string(v) : NULL);
}

struct json_object *hist_event_to_json(const struct hist_event *ev)
{
	struct json_object *o = json_object_new_object();
	char t[40];
	json_object_object_add(o, "id", json_object_new_int64(ev->id));
	hist_time_format(ev->t_us, t, sizeof(t));
	json_object_object_add(o, "time", json_object_new_string(t));
	if (ev->count > 1) {
		hist_time_format(ev->t_last_us, t, sizeof(t));
		json_object_object_add(o, "last_time", json_object_new_string(t));
	}
	json_object_object_add(o, "count", json_object_new_int64(ev->count));
	json_object_object_add(o, "group", ev->group ? json_object_new_int64(ev->group) : NULL);
	json_object_object_add(o, "kind", json_object_new_string(hist_kind_to_string(ev->kind)));
	add_str(o, "boot_id", ev->boot);
	add_str(o, "pci", ev->bdf);
	add_str(o, "pf", ev->pf);
	add_str(o, "name", ev->name);
	add_str(o, "old", ev->old);
	add_str(o, "new", ev->new);
	add_str(o, "pod", ev->pod);
	add_str(o, "pod_uid", ev->pod_uid);
	add_str(o, "ref", ev->ref);
	add_str(o, "text", ev->text);
	return o;
}

static const struct {
	const char *name;
	uint32_t kinds;
} kind_groups[] = {
	{"guid", 1u << HK_NODE_GUID | 1u << HK_PORT_GUID},
	{"port", 1u << HK_PORT_STATE | 1u << HK_PHYS_STATE | 1u << HK_RATE | 1u << HK_LINK_LAYER},
	{"pod", 1u << HK_POD_BOUND | 1u << HK_POD_GONE | 1u << HK_NETNS},
	{"finding", 1u << HK_FINDING_OPEN | 1u << HK_FINDING_CLOSE},
	{"function", 1u << HK_FN_ADDED | 1u << HK_FN_REMOVED | 1u << HK_VF_COUNT | 1u << HK_DRIVER |
			     1u << HK_PROBE_FAILED},
};

int hist_kinds_parse(const char *s, uint32_t *ret)
{
	uint32_t m = 0;
	const char *p = s;
	while (*p) {
		size_t len = strcspn(p, ",");
		char w[32];
		if (len == 0 || len >= sizeof(w))
			return -EINVAL;
		memcpy(w, p, len);
		w[len] = '\0';
		int k = hist_kind_from_string(w);
		size_t g = 0;
		if (k >= 0) {
			m |= 1u << k;
		} else {
			for (g = 0; g < sizeof(kind_groups) / sizeof(*kind_groups); g++)
				if (!strcmp(kind_groups[g].name, w))
					break;
			if (g == sizeof(kind_groups) / sizeof(*kind_groups))
				return -EINVAL;
			m |= kind_groups[g].kinds;
		}
		p += len + (p[len] == ',');
	}
	if (!m)
		return -EINVAL;
	*ret = m;
	return 0;
}
