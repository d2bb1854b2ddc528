// SPDX-License-Identifier: MIT
/* The RDMA driver errors of the kernel log (docs/kernel.md): /dev/kmsg, or a
 * captured copy under the root, kept when a line names an RDMA driver and a
 * failure ("mlx5_core: Unknown symbol strlcpy"). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "refresh.h"

#define KMSG_MAX	(1u << 20)
#define KMSG_ERRORS_MAX 64

static bool is_rdma_error(const char *msg)
{
	static const char *const drivers[] = {"mlx5", "mlx4", "ib_", "rdma", "infiniband", "rxe"};
	static const char *const words[] = {"Unknown symbol", "failed", "error", "disagrees"};
	bool drv = false, word = false;
	for (size_t i = 0; i < sizeof(drivers) / sizeof(*drivers); i++)
		drv |= strstr(msg, drivers[i]) != NULL;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		word |= strstr(msg, words[i]) != NULL;
	return drv && word;
}

void discover_kmsg(struct discover *d)
{
	char *buf;
	size_t len;
	if (sys_read_kmsg(d->s, KMSG_MAX, &buf, &len) < 0)
		return;
	struct node *n = d->n;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (*line == ' ')
			continue; /* continuation lines (SUBSYSTEM=, DEVICE=) */
		char *msg = strchr(line, ';');
		msg = msg ? msg + 1 : line;
		if (!is_rdma_error(msg) || n->n_kmsg_errors >= KMSG_ERRORS_MAX)
			continue;
		char **v = realloc(n->kmsg_errors, (n->n_kmsg_errors + 1) * sizeof(*v));
		if (!v)
			break;
		n->kmsg_errors = v;
		if ((v[n->n_kmsg_errors] = strdup(msg)))
			n->n_kmsg_errors++;
	}
	free(buf);
}
