// SPDX-License-Identifier: MIT
/* The "placement" member of a benchmark result's JSON (report.h). */
#include "report.h"

#include "bench/cpulist.h"
#include "bench/place.h"

#define MAX_WARNINGS 8

static struct json_object *node_or_null(int v)
{
	return v >= 0 ? json_object_new_int(v) : NULL;
}

static struct json_object *cpus_or_null(bool known, const cpu_set_t *s)
{
	char list[CPULIST_MAX_LEN / 16];
	if (!known)
		return NULL;
	cpulist_format(s, list, sizeof(list));
	return json_object_new_string(list);
}

/* "peer": what the exchange carried; CPUs and the thread's node only when
 * the peer ran in this process (pair, loopback). */
static struct json_object *peer_json(const struct bench_result *r)
{
	const struct exchange_port *pp = &r->peer_port;
	const struct bench_placement *q = &r->peer_placement;
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "numa_node", node_or_null(pp->numa_node));
	json_object_object_add(o, "buffer_node", node_or_null(pp->buf_node));
	json_object_object_add(o, "cpu",
			       pp->cpu != EXCHANGE_NO_CPU ? json_object_new_int(pp->cpu) : NULL);
	json_object_object_add(o, "cpu_node", q->known ? node_or_null(q->cpu_node) : NULL);
	json_object_object_add(o, "pinned", q->known ? json_object_new_boolean(q->pinned) : NULL);
	json_object_object_add(o, "cpus", cpus_or_null(q->known && q->pinned, &q->cpus));
	return o;
}

void bench_placement_to_json(struct json_object *o, const struct bench_result *r)
{
	const struct bench_placement *s = &r->placement;
	if (!s->known) {
		json_object_object_add(o, "placement", NULL);
		return;
	}
	struct json_object *p = json_object_new_object();
	json_object_object_add(p, "numa_node", node_or_null(s->hca_node));
	json_object_object_add(p, "local_cpus", cpus_or_null(s->local_known, &s->local_cpus));
	json_object_object_add(p, "pinned", json_object_new_boolean(s->pinned));
	json_object_object_add(p, "cpus_from",
			       json_object_new_string(!s->pinned     ? "none"
						      : s->cpu_given ? "--cpu"
								     : "local_cpulist"));
	json_object_object_add(p, "cpus", cpus_or_null(s->pinned, &s->cpus));
	json_object_object_add(p, "cpu", node_or_null(s->cpu));
	json_object_object_add(p, "cpu_node", node_or_null(s->cpu_node));
	json_object_object_add(p, "buffer_node", node_or_null(s->buf_node));
	json_object_object_add(p, "buffer_bound_node", node_or_null(s->mem_node));
	json_object_object_add(p, "note", s->note[0] ? json_object_new_string(s->note) : NULL);
	json_object_object_add(p, "peer", peer_json(r));
	char w[MAX_WARNINGS][BENCH_PLACE_NOTE];
	size_t n = place_warnings(r, w, MAX_WARNINGS);
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(w[i]));
	json_object_object_add(p, "warnings", a);
	json_object_object_add(o, "placement", p);
}
