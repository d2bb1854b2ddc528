// SPDX-License-Identifier: MIT
/* A user's own directories, not a sudo user's (userdir.h). */
#include "userdir.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int userdir_base(const char *xdg_var, const char *home_sub, char *buf, size_t size)
{
	const char *sudo = getenv("SUDO_USER"), *xdg = getenv(xdg_var), *home = getenv("HOME");
	int n;
	if (geteuid() == 0 && sudo && *sudo) {
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
