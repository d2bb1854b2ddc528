// SPDX-License-Identifier: MIT
#include "theme.h"
#include "userdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <unistd.h>

#ifndef IBVF_THEMES_SRCDIR
#define IBVF_THEMES_SRCDIR ""
#endif
#ifndef IBVF_BUILD_ROOT
#define IBVF_BUILD_ROOT ""
#endif
#ifndef IBVF_THEMES_DATADIR
#define IBVF_THEMES_DATADIR "/usr/local/share/ibvf/themes"
#endif

static const char *const role_names[TR_N] = {
	[TR_NORMAL] = "normal",
	[TR_HEADER] = "header",
	[TR_HEADER_VALUE] = "header_value",
	[TR_VIEW_ACTIVE] = "view_active",
	[TR_VIEW_INACTIVE] = "view_inactive",
	[TR_VIEW_ABSENT] = "view_absent",
	[TR_COLUMN_HEADER] = "column_header",
	[TR_PF] = "pf",
	[TR_VF] = "vf",
	[TR_PORT_ACTIVE] = "port_active",
	[TR_PORT_INIT] = "port_init",
	[TR_PORT_DOWN] = "port_down",
	[TR_ETHERNET] = "ethernet",
	[TR_GUID_ZERO] = "guid_zero",
	[TR_CHANGED] = "changed",
	[TR_SELECTION] = "selection",
	[TR_GONE] = "gone",
	[TR_WARNING] = "warning",
	[TR_ERROR] = "error",
	[TR_DETAILS_TITLE] = "details_title",
	[TR_DETAILS_LABEL] = "details_label",
	[TR_FKEY] = "fkey",
	[TR_FKEY_LABEL] = "fkey_label",
	[TR_STATUS] = "status",
	[TR_PROMPT] = "prompt",
	[TR_HELP] = "help",
	[TR_BENCH_PASS] = "bench_pass",
	[TR_BENCH_FAIL] = "bench_fail",
	[TR_CHECK_CRITICAL] = "check_critical",
	[TR_CHECK_WARNING] = "check_warning",
	[TR_CHECK_INFO] = "check_info",
};

/* Keep in step with themes/default.theme (test_theme checks it). */
static const char *const default_specs[TR_N] = {
	[TR_NORMAL] = "default",
	[TR_HEADER] = "250 on 236",
	[TR_HEADER_VALUE] = "231 on 236 bold",
	[TR_VIEW_ACTIVE] = "black on 38 bold",
	[TR_VIEW_INACTIVE] = "250 on 236",
	[TR_VIEW_ABSENT] = "243 on 236 dim",
	[TR_COLUMN_HEADER] = "black on 71",
	[TR_PF] = "231 bold",
	[TR_VF] = "default",
	[TR_PORT_ACTIVE] = "76",
	[TR_PORT_INIT] = "178",
	[TR_PORT_DOWN] = "196 bold",
	[TR_ETHERNET] = "170 bold",
	[TR_GUID_ZERO] = "203 bold",
	[TR_CHANGED] = "black on 220 bold",
	[TR_SELECTION] = "black on 38",
	[TR_GONE] = "244 dim",
	[TR_WARNING] = "214",
	[TR_ERROR] = "196 bold",
	[TR_DETAILS_TITLE] = "231 on 238 bold",
	[TR_DETAILS_LABEL] = "110",
	[TR_FKEY] = "231 on 235 bold",
	[TR_FKEY_LABEL] = "black on 38",
	[TR_STATUS] = "250",
	[TR_PROMPT] = "220 bold",
	[TR_HELP] = "231 on 24",
	[TR_BENCH_PASS] = "black on 76 bold",
	[TR_BENCH_FAIL] = "231 on 160 bold",
	[TR_CHECK_CRITICAL] = "196 bold",
	[TR_CHECK_WARNING] = "214 bold",
	[TR_CHECK_INFO] = "110",
};

const char *theme_role_name(enum theme_role r)
{
	return r < TR_N ? role_names[r] : "?";
}

static const char *const color_names[16] = {
	"black",      "red",	       "green",	      "yellow",	     "blue",	    "magenta",
	"cyan",	      "white",	       "brightblack", "brightred",   "brightgreen", "brightyellow",
	"brightblue", "brightmagenta", "brightcyan",  "brightwhite",
};

static int color_parse(const char *w, short *ret)
{
	if (!strcasecmp(w, "default")) {
		*ret = THEME_DEFAULT_COLOR;
		return 0;
	}
	if (!strcasecmp(w, "gray") || !strcasecmp(w, "grey")) {
		*ret = 8;
		return 0;
	}
	for (short i = 0; i < 16; i++)
		if (!strcasecmp(w, color_names[i])) {
			*ret = i;
			return 0;
		}
	char *end;
	long v = strtol(w, &end, 10);
	if (end == w || *end || v < 0 || v > 255)
		return -EINVAL;
	*ret = (short)v;
	return 0;
}

static int attr_parse(const char *w, unsigned int *attrs)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} names[] = {
		{"bold", THEME_BOLD},		{"dim", THEME_DIM},
		{"underline", THEME_UNDERLINE}, {"reverse", THEME_REVERSE},
		{"italic", THEME_ITALIC},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(w, names[i].name)) {
			*attrs |= names[i].bit;
			return 0;
		}
	return strcasecmp(w, "none") ? -EINVAL : 0;
}

int theme_parse_style(const char *spec, struct theme_style *ret)
{
	struct theme_style s = {THEME_DEFAULT_COLOR, THEME_DEFAULT_COLOR, 0};
	char buf[128];
	if (!spec || strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	/* Words in order: [FG] [on BG] [ATTR...]; a leading attribute is fine. */
	enum {
		WANT_FG,
		WANT_ON,
		WANT_BG,
		WANT_ATTR
	} want = WANT_FG;
	char *save = NULL;
	int words = 0;
	for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		words++;
		if (want == WANT_BG) {
			if (color_parse(w, &s.bg) < 0)
				return -EINVAL;
			want = WANT_ATTR;
		} else if (want != WANT_ATTR && !strcasecmp(w, "on")) {
			want = WANT_BG;
		} else if (want == WANT_FG && color_parse(w, &s.fg) == 0) {
			want = WANT_ON;
		} else if (attr_parse(w, &s.attrs) < 0) {
			return -EINVAL;
		} else if (want == WANT_FG) {
			want = WANT_ON;
		}
	}
	if (!words || want == WANT_BG)
		return -EINVAL;
	*ret = s;
	return 0;
}

void theme_default(struct theme *ret)
{
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->name, sizeof(ret->name), "default");
	for (int i = 0; i < TR_N; i++)
		theme_parse_style(default_specs[i], &ret->role[i]);
}

struct load_ctx {
	struct theme t;
	char *err;
	size_t err_size;
};

static int on_ini(void *user, const char *section, const char *key, const char *value)
{
	struct load_ctx *c = user;
	if (!strcmp(section, "theme")) {
		if (!strcmp(key, "name"))
			snprintf(c->t.name, sizeof(c->t.name), "%s", value);
		return 1;
	}
	if (strcmp(section, "colors"))
		return 1; /* unknown sections, like unknown keys, are for later */
	for (int i = 0; i < TR_N; i++) {
		if (strcmp(key, role_names[i]))
			continue;
		if (theme_parse_style(value, &c->t.role[i]) < 0) {
			snprintf(c->err, c->err_size, "'%s = %s' is not a colour", key, value);
			return 0;
		}
		return 1;
	}
	return 1;
}

int theme_load_file(const char *path, struct theme *ret, char *err, size_t err_size)
{
	struct load_ctx c = {.err = err, .err_size = err_size};
	theme_default(&c.t);
	err[0] = '\0';
	/* Non-blocking and a regular file only: a FIFO named as a theme would
	 * hang the console before it draws. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st = {0};
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		snprintf(err, err_size, "cannot open theme '%s': not a regular file", path);
		return -EINVAL;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		int r = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, err_size, "cannot open theme '%s': %s", path, strerror(-r));
		return r;
	}
	/* The name defaults to the file's base name without .theme. */
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(c.t.name, sizeof(c.t.name), "%.*s", (int)strcspn(base, "."), base);
	int line = ini_parse_file(f, on_ini, &c);
	fclose(f);
	if (line != 0) {
		char why[160];
		snprintf(why, sizeof(why), "%s", err[0] ? err : "not an INI line");
		snprintf(err, err_size, "theme '%s' line %d: %s", path, line, why);
		return -EINVAL;
	}
	*ret = c.t;
	return 0;
}

static int user_dir(char *buf, size_t size)
{
	char base[448];
	int r = userdir_base("XDG_CONFIG_HOME", ".config", base, sizeof(base));
	if (r < 0)
		return r;
	int n = snprintf(buf, size, "%s/ibvf/themes", base);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The source tree's themes are for a binary in its build tree (the tests,
 * scripts/run): an installed ibvf, run as root, does not read a directory
 * named at build time that may be anyone's by now (a build in /var/tmp). */
static bool in_build_tree(void)
{
	char self[512];
	size_t len = strlen(IBVF_BUILD_ROOT);
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !len)
		return false;
	self[n] = '\0';
	return !strncmp(self, IBVF_BUILD_ROOT, len) && self[len] == '/';
}

/* The search path, most specific first; returns how many. */
static size_t theme_dirs(char dirs[3][512])
{
	size_t n = 0;
	if (user_dir(dirs[n], sizeof(dirs[n])) == 0)
		n++;
	if (IBVF_THEMES_SRCDIR[0] && in_build_tree())
		snprintf(dirs[n++], sizeof(dirs[0]), "%s", IBVF_THEMES_SRCDIR);
	snprintf(dirs[n++], sizeof(dirs[0]), "%s", IBVF_THEMES_DATADIR);
	return n;
}

static bool is_path(const char *name)
{
	size_t n = strlen(name);
	return strchr(name, '/') || (n > 6 && !strcmp(name + n - 6, ".theme"));
}

int theme_find(const char *name, char *ret_path, size_t size)
{
	if (is_path(name)) {
		if (access(name, R_OK) < 0)
			return -errno;
		snprintf(ret_path, size, "%s", name);
		return 0;
	}
	char dirs[3][512];
	size_t n = theme_dirs(dirs);
	for (size_t i = 0; i < n; i++) {
		char p[700];
		snprintf(p, sizeof(p), "%s/%s.theme", dirs[i], name);
		if (access(p, R_OK) == 0) {
			snprintf(ret_path, size, "%s", p);
			return 0;
		}
	}
	return -ENOENT;
}

int theme_load(const char *name, struct theme *ret, char *warn, size_t warn_size)
{
	char path[700], err[400];
	warn[0] = '\0';
	int r = theme_find(name, path, sizeof(path));
	if (r < 0) {
		theme_default(ret);
		snprintf(warn, warn_size, "no theme '%s': using the default theme", name);
		return r;
	}
	r = theme_load_file(path, ret, err, sizeof(err));
	if (r < 0) {
		theme_default(ret);
		snprintf(warn, warn_size, "%s; using the default theme", err);
	}
	return r;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

size_t theme_list(char (*names)[64], size_t max)
{
	char dirs[3][512];
	size_t nd = theme_dirs(dirs), n = 0;
	for (size_t i = 0; i < nd; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d)
			continue;
		for (struct dirent *de; (de = readdir(d)) && n < max;) {
			size_t len = strlen(de->d_name);
			if (len <= 6 || len - 6 >= 64 || strcmp(de->d_name + len - 6, ".theme"))
				continue;
			char nm[64];
			snprintf(nm, sizeof(nm), "%.*s", (int)(len - 6), de->d_name);
			bool dup = false;
			for (size_t j = 0; j < n && !dup; j++)
				dup = !strcmp(names[j], nm);
			if (!dup)
				memcpy(names[n++], nm, sizeof(nm));
		}
		closedir(d);
	}
	qsort(names, n, sizeof(names[0]), name_cmp);
	return n;
}

/* The nearest of the 8 basic colours: a channel counts when it is close to
 * the brightest one; dark colours are black. */
static short color_to8(short c)
{
	if (c < 8)
		return c;
	if (c < 16)
		return (short)(c - 8);
	if (c >= 232) /* the grey ramp */
		return c < 240 ? 0 : 7;
	int v = c - 16, r = v / 36, g = (v / 6) % 6, b = v % 6;
	int hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
	if (hi < 2)
		return 0;
	int thr = hi - 1 > 2 ? hi - 1 : 2;
	return (short)((r >= thr ? 1 : 0) | (g >= thr ? 2 : 0) | (b >= thr ? 4 : 0));
}

short theme_color_fit(short c, int ncolors)
{
	if (c < 0 || c < ncolors)
		return c;
	if (ncolors < 8)
		return THEME_DEFAULT_COLOR;
	return color_to8(c);
}
