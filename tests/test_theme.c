// SPDX-License-Identifier: MIT
/* Theme files: the shipped ones load, unknown keys are ignored, missing keys
 * keep the default, a malformed file is refused with one line, and colours
 * map sensibly onto 8-colour terminals. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tui/base/theme.h"

static char *themes_dir(void)
{
	char *d;
	const char *src = getenv("IBVF_SRCDIR");
	ck_assert_ptr_nonnull(src);
	ck_assert_int_gt(asprintf(&d, "%s/themes", src), 0);
	return d;
}

static char *tmp_theme(const char *content)
{
	char *p = strdup("/tmp/ibvf-theme-XXXXXX.theme");
	int fd = mkstemps(p, 6);
	ck_assert_int_ge(fd, 0);
	close(fd);
	tu_write(p, content);
	return p;
}

static bool style_eq(struct theme_style a, struct theme_style b)
{
	return a.fg == b.fg && a.bg == b.bg && a.attrs == b.attrs;
}

START_TEST(default_file_says_what_the_builtin_default_says)
{
	char *d = themes_dir(), path[512], err[256];
	snprintf(path, sizeof(path), "%s/default.theme", d);
	struct theme file, builtin;
	ck_assert_int_eq(theme_load_file(path, &file, err, sizeof(err)), 0);
	theme_default(&builtin);
	for (int i = 0; i < TR_N; i++)
		ck_assert_msg(style_eq(file.role[i], builtin.role[i]), "role '%s' differs",
			      theme_role_name(i));
	free(d);
}
END_TEST

START_TEST(every_shipped_theme_loads_and_names_every_role)
{
	const char *names[] = {"default", "light", "mono", "high-contrast"};
	char *d = themes_dir();
	for (size_t i = 0; i < 4; i++) {
		char path[512], err[256], line[256];
		snprintf(path, sizeof(path), "%s/%s.theme", d, names[i]);
		struct theme t;
		ck_assert_msg(theme_load_file(path, &t, err, sizeof(err)) == 0, "%s", err);
		ck_assert_str_eq(t.name, names[i]);
		/* Each role is spelled out, so a theme never depends on another's. */
		FILE *f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		int seen = 0;
		while (fgets(line, sizeof(line), f))
			for (int r = 0; r < TR_N; r++) {
				size_t n = strlen(theme_role_name(r));
				if (!strncmp(line, theme_role_name(r), n) &&
				    (line[n] == ' ' || line[n] == '='))
					seen++;
			}
		fclose(f);
		ck_assert_int_eq(seen, TR_N);
	}
	/* The mono theme uses no colour at all. */
	char path[512], err[256];
	snprintf(path, sizeof(path), "%s/mono.theme", d);
	struct theme m;
	ck_assert_int_eq(theme_load_file(path, &m, err, sizeof(err)), 0);
	for (int r = 0; r < TR_N; r++)
		ck_assert(m.role[r].fg == THEME_DEFAULT_COLOR &&
			  m.role[r].bg == THEME_DEFAULT_COLOR);
	ck_assert(m.role[TR_SELECTION].attrs & THEME_REVERSE);
	free(d);
}
END_TEST

START_TEST(unknown_keys_ignored_missing_keys_default)
{
	char *p = tmp_theme("[theme]\nname = mine\nfuture = 1\n[colors]\nport_down = red on "
			    "white underline\nno_such_role = blue\n[later]\nx = y\n");
	struct theme t, d;
	char err[256];
	ck_assert_int_eq(theme_load_file(p, &t, err, sizeof(err)), 0);
	theme_default(&d);
	ck_assert_str_eq(t.name, "mine");
	ck_assert_int_eq(t.role[TR_PORT_DOWN].fg, 1);
	ck_assert_int_eq(t.role[TR_PORT_DOWN].bg, 7);
	ck_assert_uint_eq(t.role[TR_PORT_DOWN].attrs, THEME_UNDERLINE);
	ck_assert(style_eq(t.role[TR_SELECTION], d.role[TR_SELECTION]));
	unlink(p);
	free(p);
}
END_TEST

START_TEST(malformed_file_is_one_line_and_the_default)
{
	const char *bad[] = {
		"[colors\nport_down = red\n",	    /* broken section */
		"[colors]\nport_down red\n",	    /* no '=' */
		"[colors]\nport_down = purplish\n", /* not a colour */
		"[colors]\nselection = red on\n",   /* no background */
		"[colors]\nchanged = 300\n",	    /* out of range */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *p = tmp_theme(bad[i]), warn[512];
		struct theme t, d;
		ck_assert_int_lt(theme_load(p, &t, warn, sizeof(warn)), 0);
		theme_default(&d);
		ck_assert_msg(!memcmp(&t, &d, sizeof(t)), "not the default after '%s'", bad[i]);
		ck_assert_msg(warn[0] && !strchr(warn, '\n'), "warning '%s'", warn);
		ck_assert_ptr_nonnull(strstr(warn, "line"));
		unlink(p);
		free(p);
	}
	char warn[512];
	struct theme t;
	ck_assert_int_lt(theme_load("no-such-theme", &t, warn, sizeof(warn)), 0);
	ck_assert_ptr_nonnull(strstr(warn, "no theme 'no-such-theme'"));
}
END_TEST

START_TEST(styles_parse_in_every_form)
{
	struct theme_style s;
	ck_assert_int_eq(theme_parse_style("green", &s), 0);
	ck_assert(s.fg == 2 && s.bg == -1 && s.attrs == 0);
	ck_assert_int_eq(theme_parse_style("231 on 24 bold underline", &s), 0);
	ck_assert(s.fg == 231 && s.bg == 24 && s.attrs == (THEME_BOLD | THEME_UNDERLINE));
	ck_assert_int_eq(theme_parse_style("bold", &s), 0);
	ck_assert(s.fg == -1 && s.attrs == THEME_BOLD);
	ck_assert_int_eq(theme_parse_style("brightred on default reverse", &s), 0);
	ck_assert(s.fg == 9 && s.bg == -1 && s.attrs == THEME_REVERSE);
	ck_assert_int_eq(theme_parse_style("", &s), -22);
	ck_assert_int_eq(theme_parse_style("red blue", &s), -22);
}
END_TEST

START_TEST(eight_colour_terminals_get_the_nearest_basic_colour)
{
	ck_assert_int_eq(theme_color_fit(196, 8), 1); /* red */
	ck_assert_int_eq(theme_color_fit(76, 8), 2);  /* green */
	ck_assert_int_eq(theme_color_fit(220, 8), 3); /* yellow */
	ck_assert_int_eq(theme_color_fit(24, 8), 4);  /* dark blue */
	ck_assert_int_eq(theme_color_fit(170, 8), 5); /* magenta */
	ck_assert_int_eq(theme_color_fit(38, 8), 6);  /* cyan */
	ck_assert_int_eq(theme_color_fit(231, 8), 7); /* white */
	ck_assert_int_eq(theme_color_fit(236, 8), 0); /* dark grey */
	ck_assert_int_eq(theme_color_fit(250, 8), 7); /* light grey */
	ck_assert_int_eq(theme_color_fit(9, 8), 1);   /* bright red */
	ck_assert_int_eq(theme_color_fit(9, 16), 9);
	ck_assert_int_eq(theme_color_fit(200, 256), 200);
	ck_assert_int_eq(theme_color_fit(-1, 8), -1);
	for (short c = 0; c < 256; c++) {
		short f = theme_color_fit(c, 8);
		ck_assert(f >= 0 && f < 8);
	}
}
END_TEST

START_TEST(user_themes_come_first_and_are_listed)
{
	char dir[] = "/tmp/ibvf-xdg-XXXXXX", path[600];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ibvf", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/ibvf/themes", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/ibvf/themes/mine.theme", dir);
	tu_write(path, "[colors]\nchanged = blue\n");
	setenv("XDG_CONFIG_HOME", dir, 1);
	char found[700], warn[256];
	ck_assert_int_eq(theme_find("mine", found, sizeof(found)), 0);
	ck_assert_str_eq(found, path);
	struct theme t;
	ck_assert_int_eq(theme_load("mine", &t, warn, sizeof(warn)), 0);
	ck_assert_int_eq(t.role[TR_CHANGED].fg, 4);
	char names[32][64];
	size_t n = theme_list(names, 32);
	int got = 0;
	for (size_t i = 0; i < n; i++)
		got += !strcmp(names[i], "mine") || !strcmp(names[i], "high-contrast");
	ck_assert_int_eq(got, 2);
	unsetenv("XDG_CONFIG_HOME");
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("theme");
	TCase *tc = tcase_create("theme");
	tcase_add_test(tc, default_file_says_what_the_builtin_default_says);
	tcase_add_test(tc, every_shipped_theme_loads_and_names_every_role);
	tcase_add_test(tc, unknown_keys_ignored_missing_keys_default);
	tcase_add_test(tc, malformed_file_is_one_line_and_the_default);
	tcase_add_test(tc, styles_parse_in_every_form);
	tcase_add_test(tc, eight_colour_terminals_get_the_nearest_basic_colour);
	tcase_add_test(tc, user_themes_come_first_and_are_listed);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
