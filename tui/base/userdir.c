// SPDX-License-Identifier: MIT
/* A user's own directories, not a sudo user's (userdir.h). */
#include "userdir.h"

#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether dir exists and belongs to another user than root. */
static bool not_roots(const char *dir)
{
	struct stat st;
	return dir && *dir && stat(dir, &st) == 0 && st.st_uid != 0;
}

int userdir_base(const char *xdg_var, const char *home_sub, char *buf, size_t size)
{
	const char *sudo = getenv("SUDO_USER"), *xdg = getenv(xdg_var), *home = getenv("HOME");
	int n;
	/* Root takes root's own home under sudo, and wherever the environment
	 * names a directory of another user (su without -, doas, pkexec). */
	if (geteuid() == 0 &&
	    ((sudo && *sudo) || not_roots(xdg) || (!(xdg && *xdg) && not_roots(home)))) {
		struct passwd *pw = getpwuid(0);
		if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
			return -ENOENT;
		n = snprintf(buf, size, "%s/%s", pw->pw_dir, home_sub);
	} else if (xdg && *xdg) {
		n = snprintf(buf, size, "%s", xdg);
	} else if (home && *home) {
		n = snprintf(buf, size, "%s/%s", home, home_sub);
	} else {
		return -ENOENT;
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
