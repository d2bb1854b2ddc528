// SPDX-License-Identifier: MIT
/* Small helpers the checks share: a function's port, where a file is on a
 * running node, kernel-log stamps and the probe failures they record. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "checks_int.h"

bool check_fn_ib(const struct fn *fn)
{
	const struct port *p = fn_port(fn);
	if (p)
		return port_is_ib(p);
	for (size_t i = 0; i < fn->n_netdevs; i++)
		if (netdev_is_ib(&fn->netdevs[i]))
			return true;
	return false;
}

const char *check_pf_label(const struct pf *pf)
{
	const struct rdma *r = fn_rdma(&pf->fn);
	return r && r->name ? r->name : pf->fn.bdf;
}

void check_port_path(char *buf, size_t size, const char *ibdev, const struct port *p,
		     const char *file)
{
	snprintf(buf, size, "/sys/class/infiniband/%s/ports/%u/%s", ibdev, p->num, file);
}

void check_kmsg_where(char *buf, size_t size, const struct kmsg_line *l)
{
	if (!l->ts_usec.known || l->ts_usec.v < 0) {
		snprintf(buf, size, "kernel log");
		return;
	}
	long long us = (long long)l->ts_usec.v;
	snprintf(buf, size, "kernel log [%5lld.%06lld]", us / 1000000, us % 1000000);
}

/* dddd:bb:dd.f, lower-case hex as the kernel writes it. */
static bool is_bdf(const char *s)
{
	static const char form[] = "xxxx:xx:xx.x";
	for (size_t i = 0; i < sizeof(form) - 1; i++) {
		unsigned char c = (unsigned char)s[i];
		if (form[i] == 'x' ? !isxdigit(c) || isupper(c) : c != (unsigned char)form[i])
			return false;
	}
	return !isxdigit((unsigned char)s[sizeof(form) - 1]);
}

const char *check_find_bdf(const char *s, char bdf[16])
{
	for (const char *p = s; *p; p++)
		if ((p == s || !isxdigit((unsigned char)p[-1])) && is_bdf(p)) {
			snprintf(bdf, 16, "%.12s", p);
			return p;
		}
	return NULL;
}

/* The driver core's words for a failed probe: "mlx5_core: probe of
 * 0000:18:00.2 failed with error -2" (Linux before 6.10), "mlx5_core
 * 0000:18:00.2: probe with driver mlx5_core failed with error -2" (6.10 on),
 * and mlx5's own "mlx5_core 0000:18:00.2: probe_one:...: mlx5_init_one failed
 * with error code -110". */
static bool names_probe_failure(const char *msg, const char *bdf)
{
	char at[16];
	const char *p = check_find_bdf(msg, at);
	if (!p || strcmp(at, bdf) != 0)
		return false;
	if (strstr(msg, "probe of ") && strstr(p, " failed with error "))
		return true;
	if (strstr(p, ": probe with driver ") && strstr(p, " failed with error "))
		return true;
	return strstr(p, "init_one failed with error") != NULL;
}

const struct kmsg_line *check_probe_failure(const struct node *n, const char *bdf)
{
	/* The latest record: a function probed again reports its last try. */
	for (size_t i = n->n_kmsg; i-- > 0;)
		if (n->kmsg[i].msg && names_probe_failure(n->kmsg[i].msg, bdf))
			return &n->kmsg[i];
	return NULL;
}

void check_time_format(int64_t t_us, char buf[static CHECK_TIME_MAX])
{
	time_t t = (time_t)(t_us / 1000000);
	struct tm tm;
	if (t_us <= 0 || !gmtime_r(&t, &tm) ||
	    !strftime(buf, CHECK_TIME_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, CHECK_TIME_MAX, "?");
}
