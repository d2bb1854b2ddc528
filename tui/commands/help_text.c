// SPDX-License-Identifier: MIT
/* What a printer of the command table prints, as a string, for the man
 * page's renderer. */
#include <stdlib.h>

#include "tui/base/cli.h"
#include "help_gen.h"

char *help_string(void (*print)(FILE *f, const struct cmd *cmd), const struct cmd *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	print(f, cmd);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
