// SPDX-License-Identifier: MIT
/* simwrite DIR PATH VALUE...: writes each VALUE in turn to PATH on the
 * simulated node in DIR through the kernel boundary, as another process
 * changing the node under a running console would. */
#include <stdio.h>

#include "core/sys.h"

int main(int argc, char **argv)
{
	if (argc < 4) {
		fputs("usage: simwrite DIR PATH VALUE...\n", stderr);
		return 2;
	}
	struct sys *s;
	struct err e = {{0}};
	if (sys_open_sim(argv[1], NULL, &s, &e) < 0) {
		fprintf(stderr, "simwrite: %s\n", e.msg);
		return 1;
	}
	int rc = 0;
	for (int i = 3; i < argc && !rc; i++)
		if (sys_write(s, argv[2], argv[i], &e) < 0) {
			fprintf(stderr, "simwrite: %s\n", e.msg);
			rc = 1;
		}
	sys_close(s);
	return rc;
}
