// SPDX-License-Identifier: MIT
/* simwrite DIR PATH VALUE...: writes each VALUE in turn to PATH on the
 * simulated node in DIR through the kernel boundary, as another process
 * changing the node under a running console would.
 * simwrite DIR --rename IFNAME NEWNAME: renames a netdev the same way. */
#include <stdio.h>
#include <string.h>

#include "core/sys/sys.h"

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
	if (!strcmp(argv[2], "--rename")) {
		if (argc != 5 || sys_link_rename(s, argv[3], argv[4], &e) < 0) {
			fprintf(stderr, "simwrite: %s\n",
				argc != 5 ? "--rename IFNAME NEWNAME" : e.msg);
			rc = 1;
		}
		sys_close(s);
		return rc;
	}
	for (int i = 3; i < argc && !rc; i++)
		if (sys_write(s, argv[2], argv[i], &e) < 0) {
			fprintf(stderr, "simwrite: %s\n", e.msg);
			rc = 1;
		}
	sys_close(s);
	return rc;
}
