// SPDX-License-Identifier: MIT
/* The help text as a string, for the renderers that turn it into a man page
 * or a completion table. */
#include <stdlib.h>

#include "tui/base/cli.h"
#include "help_gen.h"

char *help_text(const struct cmd *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (cmd)
		cmd_print_help(f, cmd, -1);
	else
		cmd_print_overview(f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
