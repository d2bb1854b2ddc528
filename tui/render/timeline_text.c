// SPDX-License-Identifier: MIT
#include "timeline_text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/history/event.h"

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : "";
}

static int64_t jint(struct json_object *o, const char *k, int64_t dflt)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_int)
		       ? json_object_get_int64(v)
		       : dflt;
}

int64_t timeline_time_us(struct json_object *ev)
{
	return hist_time_parse(jstr(ev, "time"));
}

void timeline_time_format(int64_t t_us, int flags, char *buf, size_t size)
{
	time_t sec = (time_t)(t_us / 1000000);
	struct tm tm;
	char day[40];
	if (flags & TIMELINE_UTC)
		gmtime_r(&sec, &tm);
	else
		localtime_r(&sec, &tm);
	strftime(day, sizeof(day), flags & TIMELINE_NO_DATE ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S",
		 &tm);
	snprintf(buf, size, "%s.%03d", day, (int)((t_us % 1000000) / 1000));
}

void timeline_describe(struct json_object *ev, char *buf, size_t size)
{
	const char *kind = jstr(ev, "kind"), *old = jstr(ev, "old"), *new = jstr(ev, "new"),
		   *pod = jstr(ev, "pod"), *text = jstr(ev, "text"), *ref = jstr(ev, "ref"),
		   *name = jstr(ev, "name");
	if (!strcmp(kind, "boot"))
		snprintf(buf, size, "boot %.8s: %s", new, text);
	else if (!strcmp(kind, "start"))
		snprintf(buf, size, "%s", text);
	else if (!strcmp(kind, "vf-count"))
		snprintf(buf, size, "sriov_numvfs %s -> %s", old[0] ? old : "?",
			 new[0] ? new : "?");
	else if (!strcmp(kind, "fn-added"))
		snprintf(buf, size, "function appeared%s%s", name[0] ? " as " : "", name);
	else if (!strcmp(kind, "fn-removed"))
		snprintf(buf, size, "function gone%s%s", name[0] ? ", was " : "", name);
	else if (!strcmp(kind, "driver") && !old[0])
		snprintf(buf, size, "driver %s bound", new);
	else if (!strcmp(kind, "driver") && !new[0])
		snprintf(buf, size, "driver %s unbound", old);
	else if (!strcmp(kind, "driver"))
		snprintf(buf, size, "driver %s -> %s", old, new);
	else if (!strcmp(kind, "probe-failed"))
		snprintf(buf, size, "probe failed: %s", text);
	else if (!strcmp(kind, "rename"))
		snprintf(buf, size, "%s%s -> %s", !strcmp(ref, "rdma") ? "RDMA device " : "", old,
			 new);
	else if (!strcmp(kind, "netns") && pod[0] && !strncmp(new, pod, strlen(pod)))
		snprintf(buf, size, "%s moved into pod %s as %s", old, pod,
			 new + strlen(pod) + (new[strlen(pod)] == ':'));
	else if (!strcmp(kind, "netns"))
		snprintf(buf, size, "back from pod %s as %s", pod[0] ? pod : old, new);
	else if (!strcmp(kind, "netdev"))
		snprintf(buf, size, new[0] ? "netdev %s appeared" : "netdev %s gone",
			 new[0] ? new : old);
	else if (!strcmp(kind, "node-guid"))
		snprintf(buf, size, "node GUID %s -> %s", old[0] ? old : "?", new);
	else if (!strcmp(kind, "port-guid"))
		snprintf(buf, size, "port GUID %s -> %s", old[0] ? old : "?", new);
	else if (!strcmp(kind, "port-state"))
		snprintf(buf, size, "port %s -> %s", old[0] ? old : "?", new);
	else if (!strcmp(kind, "phys-state"))
		snprintf(buf, size, "physical state %s -> %s", old[0] ? old : "?", new);
	else if (!strcmp(kind, "rate"))
		snprintf(buf, size, "rate %s -> %s", old[0] ? old : "?", new);
	else if (!strcmp(kind, "link-layer"))
		snprintf(buf, size, "link layer %s -> %s", old[0] ? old : "?", new);
	else if (!strcmp(kind, "pod-bound"))
		snprintf(buf, size, "held by pod %s%s%s%s%.8s", new, name[0] ? " as " : "", name,
			 jstr(ev, "pod_uid")[0] ? ", uid " : "", jstr(ev, "pod_uid"));
	else if (!strcmp(kind, "pod-gone"))
		snprintf(buf, size, "pod %s let go", old);
	else if (!strcmp(kind, "kmsg"))
		snprintf(buf, size, "kernel: %s", text);
	else if (!strcmp(kind, "action"))
		snprintf(buf, size, "ibvf %s (%s)", text, ref);
	else if (!strcmp(kind, "finding-open"))
		snprintf(buf, size, "found %s: %s", ref, text);
	else if (!strcmp(kind, "finding-close"))
		snprintf(buf, size, "gone %s: %s", ref, text);
	else if (!strcmp(kind, "bench"))
		snprintf(buf, size, "bench %s", text);
	else
		snprintf(buf, size, "%s %s -> %s %s", kind, old, new, text);
	int64_t count = jint(ev, "count", 1);
	if (count > 1) {
		size_t len = strlen(buf);
		char last[40] = "";
		int64_t t = hist_time_parse(jstr(ev, "last_time"));
		if (t)
			timeline_time_format(t, TIMELINE_NO_DATE, last, sizeof(last));
		snprintf(buf + len, size - len, " (%lld times, the last at %s)", (long long)count,
			 last[0] ? last : "?");
	}
}

void timeline_text_header(struct text *out, int flags)
{
	text_add(out, TEXT_HEADING, "%-*s  %-12s  %-13s  %s", flags & TIMELINE_NO_DATE ? 12 : 23,
		 "TIME", "PCI", "KIND", "WHAT");
}

/* "0000:18:00.3" as the rows show it: the bus address, or the node. */
static const char *subject(struct json_object *ev)
{
	const char *pci = jstr(ev, "pci");
	return pci[0] ? pci : "node";
}

void timeline_text_event(struct text *out, struct json_object *ev, int flags)
{
	char t[48], what[768];
	int64_t t_us = timeline_time_us(ev);
	timeline_time_format(t_us, flags, t, sizeof(t));
	timeline_describe(ev, what, sizeof(what));
	const char *kind = jstr(ev, "kind");
	if (!strcmp(kind, "boot")) {
		text_add(out, TEXT_HEADING, "-- %s --", what);
		return;
	}
	enum text_role role = TEXT_NORMAL;
	if (!strcmp(kind, "probe-failed") || !strcmp(kind, "finding-open") ||
	    (!strcmp(kind, "port-state") && strcmp(jstr(ev, "new"), "ACTIVE")) ||
	    (!strcmp(kind, "kmsg") && !strcmp(jstr(ev, "ref"), "error")))
		role = TEXT_WARNING;
	else if (!strcmp(kind, "rename") || !strcmp(kind, "node-guid") ||
		 !strcmp(kind, "port-guid") || !strcmp(kind, "netns"))
		role = TEXT_CHANGED;
	else if (!strcmp(kind, "finding-close"))
		role = TEXT_OK;
	text_add(out, role, "%-*s  %-12s  %-13s  %s", flags & TIMELINE_NO_DATE ? 12 : 23, t,
		 subject(ev), kind, what);
	struct json_object *causes;
	if ((flags & TIMELINE_NO_CAUSES) || !json_object_object_get_ex(ev, "causes", &causes) ||
	    !json_object_is_type(causes, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(causes); i++) {
		struct json_object *c = json_object_array_get_idx(causes, i), *cev, *gap;
		if (!json_object_object_get_ex(c, "event", &cev) ||
		    !json_object_object_get_ex(c, "gap_s", &gap))
			continue;
		timeline_describe(cev, what, sizeof(what));
		const char *pod = jstr(cev, "pod");
		const char *ckind = jstr(cev, "kind");
		text_add(out, TEXT_NORMAL, "%*s<- %.2f s after %s %s: %s%s%s%s",
			 flags & TIMELINE_NO_DATE ? 14 : 25, "", json_object_get_double(gap),
			 subject(cev), ckind, what, pod[0] && !strstr(what, pod) ? " (pod " : "",
			 pod[0] && !strstr(what, pod) ? pod : "",
			 pod[0] && !strstr(what, pod) ? ")" : "");
	}
}
