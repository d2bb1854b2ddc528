// SPDX-License-Identifier: MIT
/* NUMA placement of a benchmark thread and its buffer (place.h).
 *
 * mbind(2) and move_pages(2) are called directly rather than through
 * libnuma: three system calls do not need a library that parses sysfs on
 * load and prints its own warnings on stderr (numa_warn), which library
 * code here must never do, and ibvf gains no runtime dependency on the
 * nodes it is deployed to. */
#include "place.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench/cpulist.h"
#include "bench/exchange.h"
#include "bench/sysfile.h"

#define SAMPLE_PAGES 64

/* A device or netdev name that is safe in a path. */
static bool name_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	if (!n || n >= max || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || (unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

static int read_node(const char *path, int *ret, struct err *e)
{
	char buf[16], *end;
	int r = bench_read_line(path, buf, sizeof(buf), e);
	if (r < 0)
		return r;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < -1 || v > EXCHANGE_MAX_NODE ||
	    (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9')))
		return err_setx(e, EINVAL, "'%s' holds no NUMA node from -1 to %d", path,
				EXCHANGE_MAX_NODE);
	*ret = (int)v;
	return 0;
}

int place_read_hca(const char *sysfs, const char *ibdev, struct place_hca *ret, struct err *e)
{
	struct place_hca h = {.node = -1};
	char dir[512], path[600], parent[32];
	struct stat st;
	if (!name_ok(ibdev, 64))
		return err_setx(e, EINVAL, "'%.64s' is not an RDMA device name", ibdev);
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/device", sysfs, ibdev);
	if (stat(dir, &st) < 0) {
		/* rxe and siw have no device link: their netdev's function is theirs. */
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/parent", sysfs, ibdev);
		struct err ignored;
		if (bench_read_line(path, parent, sizeof(parent), &ignored) < 0 ||
		    !name_ok(parent, 16)) {
			*ret = h;
			return 0;
		}
		snprintf(dir, sizeof(dir), "%s/class/net/%s/device", sysfs, parent);
		if (stat(dir, &st) < 0) {
			*ret = h;
			return 0;
		}
	}
	h.pci = true;
	*ret = h; /* on an error, what was read before it */
	int r;
	snprintf(path, sizeof(path), "%s/numa_node", dir);
	if ((r = read_node(path, &h.node, e)) < 0 && r != -ENOENT)
		return r;
	*ret = h;
	snprintf(path, sizeof(path), "%s/local_cpulist", dir);
	r = cpulist_read(path, &h.local, e);
	if (r < 0 && r != -ENOENT)
		return r;
	h.local_known = r == 0;
	*ret = h;
	return 0;
}

static void note(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(char *buf, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n && n + 2 < BENCH_PLACE_NOTE)
		n += (size_t)snprintf(buf + n, BENCH_PLACE_NOTE - n, "; ");
	va_list ap;
	va_start(ap, fmt);
	if (n < BENCH_PLACE_NOTE)
		vsnprintf(buf + n, BENCH_PLACE_NOTE - n, fmt, ap);
	va_end(ap);
}

int place_decide(const char *ibdev, const struct place_hca *h, const cpu_set_t *usable,
		 const struct place_want *w, struct place_plan *ret, struct err *e)
{
	struct place_plan p = {.mem_node = -1};
	char list[96], ok[96];
	if (w->no_pin) {
		note(p.note, "--no-pin: the thread and its buffer are left to the scheduler");
		*ret = p;
		return 0;
	}
	cpu_set_t local;
	CPU_ZERO(&local);
	if (h->local_known)
		CPU_AND(&local, &h->local, usable);
	if (w->cpus_given) {
		CPU_AND(&p.cpus, &w->cpus, usable);
		if (!CPU_COUNT(&p.cpus)) {
			cpulist_format(&w->cpus, list, sizeof(list));
			cpulist_format(usable, ok, sizeof(ok));
			return err_setx(e, EINVAL,
					"--cpu %s: none of these CPUs may be used by this thread "
					"(online and allowed: %s)",
					list, ok);
		}
		p.pin = true;
		p.off_node = h->local_known && CPU_COUNT(&local) &&
			     cpulist_first_missing(&w->cpus, &h->local) >= 0;
	} else if (CPU_COUNT(&local)) {
		p.pin = true;
		p.cpus = local;
	} else if (h->local_known && CPU_COUNT(&h->local)) {
		cpulist_format(&h->local, list, sizeof(list));
		note(p.note,
		     "none of '%s''s local CPUs %s may be used here (offline, or outside this "
		     "process's cpuset): the thread is not pinned",
		     ibdev, list);
	} else if (h->local_known) {
		note(p.note, "'%s''s NUMA node %d has no CPUs: the thread is not pinned", ibdev,
		     h->node);
	} else {
		note(p.note, "'%s' has %s: the thread is not pinned", ibdev,
		     h->pci ? "no local_cpulist" : "no PCI function to place it by");
	}
	if (h->node >= 0)
		p.mem_node = h->node;
	else if (h->pci)
		note(p.note, "numa_node is -1 (the platform gives no NUMA information): the buffer "
			     "is not bound");
	else
		note(p.note, "the buffer is not bound");
	*ret = p;
	return 0;
}

void place_sample_cpu(struct bench_placement *p)
{
	unsigned int cpu, node;
	if (getcpu(&cpu, &node) == 0 && cpu < EXCHANGE_NO_CPU && node <= EXCHANGE_MAX_NODE) {
		p->cpu = (int)cpu;
		p->cpu_node = (int)node;
	} else {
		p->cpu = p->cpu_node = -1;
	}
}

/* --no-pin: nothing to pin or bind; the HCA is read for the report only,
 * and what cannot be read there (a CPU beyond CPU_SETSIZE) leaves it
 * unknown rather than stopping the run. */
static void begin_unpinned(const char *sysfs, const char *ibdev, struct bench_placement *p)
{
	struct place_hca h = {.node = -1};
	struct err ignored;
	place_read_hca(sysfs, ibdev, &h, &ignored);
	p->hca_node = h.node;
	p->local_known = h.local_known;
	p->local_cpus = h.local;
	note(p->note, "--no-pin: the thread and its buffer are left to the scheduler");
	place_sample_cpu(p);
}

int place_begin_at(const char *sysfs, const char *ibdev, const struct place_want *w,
		   struct bench_placement *p, cpu_set_t *saved, struct err *e)
{
	if (!ibdev)
		return err_setx(e, EINVAL, "no RDMA device to place the benchmark by");
	*p = (struct bench_placement){.known = true,
				      .hca_node = -1,
				      .cpu = -1,
				      .cpu_node = -1,
				      .mem_node = -1,
				      .buf_node = -1};
	if (w->no_pin) {
		begin_unpinned(sysfs, ibdev, p);
		return 0;
	}
	int r = pthread_getaffinity_np(pthread_self(), sizeof(*saved), saved);
	if (r)
		return err_setx(e, r,
				"cannot read the thread's CPU affinity: %s (more than %d CPUs?); "
				"--no-pin runs without placement",
				strerror(r), CPU_SETSIZE);
	struct place_hca h;
	struct place_plan plan;
	cpu_set_t online, usable;
	char path[512];
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysfs);
	if ((r = place_read_hca(sysfs, ibdev, &h, e)) < 0 ||
	    (r = cpulist_read(path, &online, e)) < 0) {
		/* A CPU beyond CPU_SETSIZE: real, but more than ibvf places. */
		if (r == -ERANGE) {
			char msg[sizeof(e->msg)];
			snprintf(msg, sizeof(msg), "%s", e->msg);
			err_setx(e, ERANGE, "%.300s; --no-pin runs without placement", msg);
		}
		return r;
	}
	CPU_AND(&usable, &online, saved);
	if ((r = place_decide(ibdev, &h, &usable, w, &plan, e)) < 0)
		return r;
	p->hca_node = h.node;
	p->local_known = h.local_known;
	p->local_cpus = h.local;
	p->cpu_given = w->cpus_given;
	p->off_node = plan.off_node;
	p->mem_node = plan.mem_node;
	memcpy(p->note, plan.note, sizeof(p->note));
	if (plan.pin) {
		if ((r = pthread_setaffinity_np(pthread_self(), sizeof(plan.cpus), &plan.cpus))) {
			char list[96];
			cpulist_format(&plan.cpus, list, sizeof(list));
			return err_set(e, r, "cannot pin the thread to CPUs %s", list);
		}
		p->pinned = true;
		p->cpus = plan.cpus;
	}
	place_sample_cpu(p);
	return 0;
}

int place_begin(const char *ibdev, const struct place_want *w, struct bench_placement *p,
		cpu_set_t *saved, struct err *e)
{
	return place_begin_at("/sys", ibdev, w, p, saved, e);
}

void place_end(const struct bench_placement *p, const cpu_set_t *saved)
{
	if (p->pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(*saved), saved);
}

int place_pages_node(const void *buf, size_t len, bool *mixed)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), npages = (len + pg - 1) / pg;
	size_t n = npages < SAMPLE_PAGES ? npages : SAMPLE_PAGES;
	void *pages[SAMPLE_PAGES];
	int status[SAMPLE_PAGES];
	*mixed = false;
	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++)
		pages[i] = (char *)buf + (npages * i / n) * pg;
	/* nodes == NULL: only report where each page is. */
	if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) < 0)
		return -1;
	int best = -1, best_count = 0;
	for (size_t i = 0; i < n; i++) {
		if (status[i] < 0)
			continue;
		int count = 0;
		for (size_t j = 0; j < n; j++)
			count += status[j] == status[i];
		if (best >= 0 && status[i] != best)
			*mixed = true;
		if (count > best_count)
			best = status[i], best_count = count;
	}
	return best <= EXCHANGE_MAX_NODE ? best : -1;
}

int place_buffer_alloc(size_t size, struct bench_placement *p, void **ret, size_t *ret_len,
		       struct err *e)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (size + pg - 1) / pg * pg;
	if (!len)
		len = pg;
	void *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return err_set(e, errno, "cannot allocate a %zu-byte buffer", size);
	if (p->mem_node >= 0) {
		enum {
			BITS = 8 * sizeof(unsigned long)
		};
		unsigned long mask[EXCHANGE_MAX_NODE / BITS + 1] = {0};
		mask[p->mem_node / BITS] |= 1ul << (p->mem_node % BITS);
		/* maxnode counts one bit more than the kernel reads (mbind(2)). */
		if (syscall(SYS_mbind, b, len, MPOL_PREFERRED, mask, (unsigned long)p->mem_node + 2,
			    0) < 0) {
			note(p->note,
			     "cannot bind the buffer to node %d (%s): first touch places it",
			     p->mem_node, strerror(errno));
			p->mem_node = -1;
		}
	}
	memset(b, 0, len); /* the first touch, by this (pinned) thread */
	p->buf_node = place_pages_node(b, len, &p->buf_mixed);
	*ret = b;
	*ret_len = len;
	return 0;
}

void place_buffer_free(void *buf, size_t len)
{
	if (buf)
		munmap(buf, len);
}

size_t place_warnings(const struct bench_result *r, char (*out)[BENCH_PLACE_NOTE], size_t max)
{
	const struct bench_placement *s = &r->placement, *q = &r->peer_placement;
	const struct exchange_port *pp = &r->peer_port;
	size_t n = 0;
	/* Cut by cpulist_format() between two numbers (",..."), never by a
	 * precision inside one: a list cut mid-number names another CPU. */
	char list[40], local[40];
#define WARN(...)                                                                                  \
	do {                                                                                       \
		if (n < max)                                                                       \
			snprintf(out[n++], BENCH_PLACE_NOTE, __VA_ARGS__);                         \
	} while (0)
	if (!s->known)
		return 0;
	if (s->off_node) {
		cpulist_format(&s->cpus, list, sizeof(list));
		cpulist_format(&s->local_cpus, local, sizeof(local));
		WARN("--cpu %s lies outside '%.32s''s local CPUs %s: allowed, but the HCA is "
		     "remote to the thread",
		     list, r->ibdev, local);
	}
	if (s->hca_node >= 0 && s->cpu_node >= 0 && s->cpu_node != s->hca_node)
		WARN("this side's thread ran on CPU %d of NUMA node %d, its HCA is on node %d",
		     s->cpu, s->cpu_node, s->hca_node);
	if (s->hca_node >= 0 && s->buf_node >= 0 && s->buf_node != s->hca_node)
		WARN("this side's buffer is on NUMA node %d, its HCA on node %d", s->buf_node,
		     s->hca_node);
	if (s->buf_mixed)
		WARN("this side's buffer is spread over more than one NUMA node");
	if (q->known && q->hca_node >= 0 && q->cpu_node >= 0 && q->cpu_node != q->hca_node)
		WARN("the peer's thread ran on CPU %d of NUMA node %d, its HCA is on node %d",
		     q->cpu, q->cpu_node, q->hca_node);
	if (pp->numa_node >= 0 && pp->buf_node >= 0 && pp->buf_node != pp->numa_node)
		WARN("the peer's buffer is on NUMA node %d, its HCA on node %d", pp->buf_node,
		     pp->numa_node);
#undef WARN
	return n;
}
