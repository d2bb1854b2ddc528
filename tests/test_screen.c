// SPDX-License-Identifier: MIT
/* The console's one screen writer: text fitted by display column (a
 * multi-byte or double-width character is never split), control bytes and
 * bytes that are not UTF-8 shown as \xNN, padded to its width. screen_fit()
 * is checked on its bytes; screen_put() on a curses screen that is never
 * refreshed (newterm on /dev/null), read back cell by cell. And the one
 * rule for a port state's colour, which the tree and the details share. */
#include <check.h>
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/model/node.h"
#include "tui/console/screen.h"
#include "testutil.h"
#include "core/model/names.h"

/* screen_fit(s, w) into a roomy buffer: its bytes, columns and bytes used. */
static size_t fit(const char *s, int w, char *buf, int *cols)
{
	*cols = -1;
	return screen_fit(buf, 256, s, w, cols);
}

static void utf8_locale(void)
{
	ck_assert_ptr_nonnull(setlocale(LC_ALL, "C.UTF-8"));
}

START_TEST(ascii_is_cut_at_the_width)
{
	char buf[256];
	int cols;
	ck_assert_uint_eq(fit("abcdef", 3, buf, &cols), 3);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(cols, 3);
	ck_assert_uint_eq(fit("ab", 10, buf, &cols), 2);
	ck_assert_str_eq(buf, "ab");
	ck_assert_int_eq(cols, 2);
}
END_TEST

START_TEST(multi_byte_characters_count_as_their_columns_and_are_never_split)
{
	utf8_locale();
	char buf[256];
	int cols;
	/* "aéb": é is two bytes, one column. */
	ck_assert_uint_eq(fit("a\xc3\xa9"
			      "b",
			      2, buf, &cols),
			  3);
	ck_assert_str_eq(buf, "a\xc3\xa9");
	ck_assert_int_eq(cols, 2);
	/* The tree's glyphs: three bytes, one column each. */
	ck_assert_uint_eq(fit("├─ vf0", 4, buf, &cols), 8);
	ck_assert_str_eq(buf, "├─ v");
	ck_assert_int_eq(cols, 4);
	/* A byte budget that ends inside a character stops before it. */
	ck_assert_uint_eq(screen_fit(buf, 5, "ab├", 10, &cols), 2);
	ck_assert_str_eq(buf, "ab");
	ck_assert_int_eq(cols, 2);
}
END_TEST

START_TEST(a_double_width_character_that_does_not_fit_is_left_out_whole)
{
	utf8_locale();
	char buf[256];
	int cols;
	/* 漢 (U+6F22) is two columns. */
	ck_assert_uint_eq(fit("a\xe6\xbc\xa2"
			      "b",
			      2, buf, &cols),
			  1);
	ck_assert_str_eq(buf, "a");
	ck_assert_int_eq(cols, 1);
	ck_assert_uint_eq(fit("a\xe6\xbc\xa2"
			      "b",
			      3, buf, &cols),
			  4);
	ck_assert_str_eq(buf, "a\xe6\xbc\xa2");
	ck_assert_int_eq(cols, 3);
	ck_assert_uint_eq(fit("\xe6\xbc\xa2\xe6\xbc\xa2", 3, buf, &cols), 3);
	ck_assert_int_eq(cols, 2);
	/* A combining mark goes with the character before it, in no column. */
	ck_assert_uint_eq(fit("e\xcc\x81x", 1, buf, &cols), 3);
	ck_assert_str_eq(buf, "e\xcc\x81");
	ck_assert_int_eq(cols, 1);
}
END_TEST

START_TEST(control_bytes_and_bytes_that_are_not_utf8_are_shown_escaped)
{
	utf8_locale();
	char buf[256];
	int cols;
	/* ESC, BEL, a C1 control (U+009B, two bytes) and 0xff, as the tree shows
	 * the hostile names of the screen tests. */
	const char *s = "e\033]0;pwn\a c1\xc2\x9b[2J\xff";
	ck_assert_uint_eq(fit(s, 80, buf, &cols), strlen(s));
	ck_assert_str_eq(buf, "e\\x1b]0;pwn\\x07 c1\\x9b[2J\\xff");
	ck_assert_int_eq(cols, (int)strlen(buf));
	/* Cut to a column, the escape is text like any other. */
	ck_assert_uint_eq(fit(s, 13, buf, &cols), 9);
	ck_assert_str_eq(buf, "e\\x1b]0;pwn\\x");
	ck_assert_int_eq(cols, 13);
	ck_assert_uint_eq(fit("\t", 2, buf, &cols), 1);
	ck_assert_str_eq(buf, "\\x");
	ck_assert_int_eq(cols, 2);
}
END_TEST

START_TEST(zero_or_negative_width_or_no_text_gives_nothing)
{
	char buf[256];
	int cols;
	ck_assert_uint_eq(fit("abc", 0, buf, &cols), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(cols, 0);
	ck_assert_uint_eq(fit("abc", -4, buf, &cols), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(cols, 0);
	ck_assert_uint_eq(fit(NULL, 5, buf, &cols), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(cols, 0);
	ck_assert_uint_eq(fit("", 5, buf, &cols), 0);
	ck_assert_int_eq(cols, 0);
}
END_TEST

/* A curses screen (vt100, 80x24) that is written to but never shown. */
static FILE *term_out, *term_in;

static SCREEN *screen_open(void)
{
	utf8_locale();
	term_out = fopen("/dev/null", "w");
	term_in = fopen("/dev/null", "r");
	ck_assert_ptr_nonnull(term_out);
	ck_assert_ptr_nonnull(term_in);
	SCREEN *scr = newterm("vt100", term_out, term_in);
	ck_assert_ptr_nonnull(scr);
	ck_assert_int_eq(COLS, 80);
	return scr;
}

static void screen_close(SCREEN *scr)
{
	endwin();
	delscreen(scr);
	fclose(term_out);
	fclose(term_in);
}

/* Row y's text from column x on, n characters (winnwstr does not count the
 * second cell of a double-width character). */
static void row_text(int y, int x, int n, char *buf, size_t size)
{
	wchar_t wbuf[128];
	ck_assert_int_lt(n, 128);
	ck_assert_int_ne(mvinnwstr(y, x, wbuf, n), ERR);
	size_t m = wcstombs(buf, wbuf, size);
	ck_assert(m != (size_t)-1 && m < size);
}

START_TEST(put_pads_to_the_width_in_the_attribute_and_stops_there)
{
	SCREEN *scr = screen_open();
	char buf[256];
	mvaddstr(0, 0, "..........................");
	screen_put(0, 2, 10, "ab", A_BOLD);
	row_text(0, 0, 14, buf, sizeof(buf));
	ck_assert_str_eq(buf, "..ab        ..");
	ck_assert(mvinch(0, 2) & A_BOLD);
	ck_assert(mvinch(0, 11) & A_BOLD); /* the padding is in the attribute */
	ck_assert(!(mvinch(0, 12) & A_BOLD));
	/* Too long: cut at the width, the cells after left as they were. */
	screen_put(0, 2, 5, "abcdefgh", A_NORMAL);
	row_text(0, 0, 9, buf, sizeof(buf));
	ck_assert_str_eq(buf, "..abcde  ");
	screen_close(scr);
}
END_TEST

START_TEST(put_fits_wide_characters_and_escapes_controls_on_screen)
{
	SCREEN *scr = screen_open();
	char buf[256];
	mvaddstr(1, 0, "xxxxxxxxxxxxxxxxxxxx");
	/* 漢漢 in three columns: one character and a space, then the row goes on. */
	screen_put(1, 0, 3, "\xe6\xbc\xa2\xe6\xbc\xa2", A_NORMAL);
	row_text(1, 0, 4, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\xe6\xbc\xa2 xx");
	/* UTF-8 pads to the width by columns, not bytes. */
	screen_put(1, 0, 6, "├─ é", A_NORMAL);
	row_text(1, 0, 8, buf, sizeof(buf));
	ck_assert_str_eq(buf, "├─ é  xx");
	screen_put(1, 0, 9, "a\033[2Jb", A_NORMAL);
	row_text(1, 0, 11, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\\x1b[2Jbxx");
	screen_close(scr);
}
END_TEST

START_TEST(put_with_no_width_or_off_the_screen_writes_nothing)
{
	SCREEN *scr = screen_open();
	char buf[256];
	mvaddstr(2, 0, "xxxx");
	screen_put(2, 0, 0, "ab", A_NORMAL);
	screen_put(2, 0, -3, "ab", A_NORMAL);
	screen_put(-1, 0, 4, "ab", A_NORMAL);
	screen_put(LINES, 0, 4, "ab", A_NORMAL);
	screen_put(2, COLS, 4, "ab", A_NORMAL);
	row_text(2, 0, 4, buf, sizeof(buf));
	ck_assert_str_eq(buf, "xxxx");
	screen_put(2, 1, 2, NULL, A_NORMAL); /* no text: blank */
	row_text(2, 0, 4, buf, sizeof(buf));
	ck_assert_str_eq(buf, "x  x");
	screen_close(scr);
}
END_TEST

START_TEST(a_port_state_has_one_colour_in_every_view)
{
	struct port p = {.state = {true, PORT_STATE_ACTIVE}};
	ck_assert_int_eq(screen_port_role(&p), TR_PORT_ACTIVE);
	/* INIT and ARMED are on the way up: yellow, in the details too. */
	p.state.v = PORT_STATE_INIT;
	ck_assert_int_eq(screen_port_role(&p), TR_PORT_INIT);
	p.state.v = PORT_STATE_ARMED;
	ck_assert_int_eq(screen_port_role(&p), TR_PORT_INIT);
	p.state.v = PORT_STATE_DOWN;
	ck_assert_int_eq(screen_port_role(&p), TR_PORT_DOWN);
	p.state.v = 0; /* NOP: not up */
	ck_assert_int_eq(screen_port_role(&p), TR_PORT_DOWN);
	p.state.known = false; /* unknown is not DOWN */
	ck_assert_int_eq(screen_port_role(&p), TR_WARNING);
	ck_assert_int_eq(screen_port_role(NULL), TR_WARNING);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("screen");
	TCase *tc = tcase_create("fit");
	tcase_add_test(tc, ascii_is_cut_at_the_width);
	tcase_add_test(tc, multi_byte_characters_count_as_their_columns_and_are_never_split);
	tcase_add_test(tc, a_double_width_character_that_does_not_fit_is_left_out_whole);
	tcase_add_test(tc, control_bytes_and_bytes_that_are_not_utf8_are_shown_escaped);
	tcase_add_test(tc, zero_or_negative_width_or_no_text_gives_nothing);
	suite_add_tcase(s, tc);
	tc = tcase_create("put");
	tcase_add_test(tc, put_pads_to_the_width_in_the_attribute_and_stops_there);
	tcase_add_test(tc, put_fits_wide_characters_and_escapes_controls_on_screen);
	tcase_add_test(tc, put_with_no_width_or_off_the_screen_writes_nothing);
	suite_add_tcase(s, tc);
	tc = tcase_create("port");
	tcase_add_test(tc, a_port_state_has_one_colour_in_every_view);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
