// SPDX-License-Identifier: MIT
/* Theme files (tui/base/theme.c, read with inih) against any file a user's
 * $XDG_CONFIG_HOME can hold: the input is the file, handed to the real
 * loader through a memfd's /proc path, and each line is also a style spec.
 * Oracle: a theme that loads has a terminated name and every role's colours
 * in -1..255 with known attributes only; a refusal says why in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzzutil.h"
#include "tui/base/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ATTRS_KNOWN (THEME_BOLD | THEME_DIM | THEME_UNDERLINE | THEME_REVERSE | THEME_ITALIC)

static void check_style(const struct theme_style *s, const char *what)
{
	if (s->fg < -1 || s->fg > 255 || s->bg < -1 || s->bg > 255 || (s->attrs & ~ATTRS_KNOWN))
		fuzz_fail("%s: fg %d bg %d attrs %#x", what, s->fg, s->bg, s->attrs);
}

static char path[64];

static void load(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		int fd = memfd_create("fuzz.theme", MFD_CLOEXEC);
		if (fd < 0)
			fuzz_fail("memfd_create failed");
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	int fd = atoi(path + strlen("/proc/self/fd/"));
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		fuzz_fail("cannot write the memfd");
	struct theme t;
	char err[256];
	memset(err, 'x', sizeof(err));
	if (theme_load_file(path, &t, err, sizeof(err)) < 0) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0] || strchr(err, '\n'))
			fuzz_fail("a refused theme without a one-line reason");
		return;
	}
	if (!memchr(t.name, '\0', sizeof(t.name)))
		fuzz_fail("theme name not terminated");
	for (int i = 0; i < TR_N; i++)
		check_style(&t.role[i], theme_role_name(i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	load(data, size);
	char *s = fuzz_strndup(data, size), *save = NULL;
	for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct theme_style st;
		if (theme_parse_style(line, &st) == 0)
			check_style(&st, "style");
	}
	free(s);
	return 0;
}
