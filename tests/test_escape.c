// SPDX-License-Identifier: MIT
/* core/escape: UTF-8 as RFC 3629 has it, text for a terminal, shell words
 * read back by a real shell, JSON made valid UTF-8 and read back by json-c. */
#include <check.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/escape.h"
#include "testutil.h"

START_TEST(utf8_is_strict)
{
	static const struct {
		const char *s;
		bool valid;
	} cases[] = {
		{"", true},
		{"ib0", true},
		{"\xc3\xa9", true},	     /* é */
		{"\xe2\x82\xac", true},	     /* € */
		{"\xf0\x9f\x98\x80", true},  /* U+1F600 */
		{"\xf4\x8f\xbf\xbf", true},  /* U+10FFFF */
		{"\xc2\x9b", true},	     /* U+009B, a control, but UTF-8 */
		{"\xc0\xaf", false},	     /* overlong '/' */
		{"\xe0\x80\xaf", false},     /* overlong '/' */
		{"\xed\xa0\x80", false},     /* a surrogate */
		{"\xf4\x90\x80\x80", false}, /* past U+10FFFF */
		{"\xe2\x82", false},	     /* cut */
		{"\x9b", false},	     /* a lone continuation byte */
		{"\xff", false},
		{"a\xfe", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		ck_assert_msg(escape_utf8_valid(cases[i].s) == cases[i].valid, "case %zu", i);
}
END_TEST

START_TEST(terminal_text_has_no_control_and_is_utf8)
{
	static const char *const cases[][2] = {
		{"ibp24s0v3", "ibp24s0v3"},	  {"e\x1b]0;pwn\x07", "e\\x1b]0;pwn\\x07"},
		{"tab\there", "tab\\x09here"},	  {"del\x7f", "del\\x7f"},
		{"c1\xc2\x9b", "c1\\x9b"},	  /* C1 CSI in UTF-8 */
		{"raw\x9b[2J", "raw\\x9b[2J"},	  /* C1 CSI as an 8-bit byte */
		{"bad\xff\xfe", "bad\\xff\\xfe"}, /* never UTF-8 */
		{"caf\xc3\xa9", "caf\xc3\xa9"},	  /* é stays */
		{"\xe2\x82", "\\xe2\\x82"},	  /* a cut character */
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		ck_assert(escape_term_needed(cases[i][0]) == !!strcmp(cases[i][0], cases[i][1]));
		escape_term_into(buf, sizeof(buf), cases[i][0]);
		ck_assert_str_eq(buf, cases[i][1]);
	}
	/* Cut to fit, never inside a character or an escape. */
	escape_term_into(buf, 6, "ab\033cd");
	ck_assert_str_eq(buf, "ab");
	escape_term_into(buf, 4, "a\xc3\xa9\xc3\xa9");
	ck_assert_str_eq(buf, "a\xc3\xa9");
	escape_term_into(buf, 1, "abc");
	ck_assert_str_eq(buf, "");
}
END_TEST

static void round_trip(const char *shell, const char *w)
{
	char line[512], want[512];
	size_t len = 0;
	ck_assert(escape_shell_word(line, sizeof(line), &len, w));
	ck_assert_uint_eq(len, strlen(line));
	ck_assert_msg(!escape_term_needed(line), "the line for '%s' holds a control", w);
	snprintf(want, sizeof(want), "<%s>", w);
	char *got = tu_shell_words(shell, line);
	ck_assert_msg(!strcmp(got, want), "%s reads %s as %s", shell, line, got);
	free(got);
}

START_TEST(shell_words_read_back_as_they_were)
{
	/* Single quotes: what POSIX sh (dash here) reads. */
	static const char *const posix[] = {
		"a$(id)", "it's",	 "`reboot`", "a b",   "*",     "~root",	  "-n",
		"a\\b",	  "'",		 "''",	     "\"",    "$HOME", "a;b|c&d", "!x",
		"#c",	  "caf\xc3\xa9", "x=y z",    "{a,b}", "$'x'",
	};
	for (size_t i = 0; i < sizeof(posix) / sizeof(*posix); i++)
		round_trip("/bin/sh", posix[i]);
	/* $'...' for controls and bytes that are not UTF-8: bash reads it. */
	static const char *const dollar[] = {
		"e\x1b[2J", "\x01\x7f", "\xff\xfe", "\xc2\x9b",
		"x\ny",	    "\t'\\",	"a\0331", /* ESC, then a digit an escape must not take */
	};
	for (size_t i = 0; i < sizeof(dollar) / sizeof(*dollar); i++)
		round_trip("/bin/bash", dollar[i]);

	char buf[64];
	size_t len = 0;
	ck_assert(escape_shell_word(buf, sizeof(buf), &len, "ibp24s0v3"));
	ck_assert_str_eq(buf, "ibp24s0v3"); /* plain: as it is */
	len = 0;
	ck_assert(escape_shell_word(buf, sizeof(buf), &len, ""));
	ck_assert_str_eq(buf, "''");
	len = 0;
	ck_assert(escape_shell_word(buf, sizeof(buf), &len, "e\x1b"));
	ck_assert_str_eq(buf, "$'e\\033'");
	/* A word that does not fit leaves the buffer as it was. */
	len = 0;
	ck_assert(escape_shell_word(buf, 8, &len, "ab"));
	ck_assert(!escape_shell_word(buf, 8, &len, "c d e f"));
	ck_assert_str_eq(buf, "ab");
	ck_assert_uint_eq(len, 2);
}
END_TEST

START_TEST(shell_join_cuts_with_dots)
{
	char buf[16];
	const char *argv[] = {"ip", "link", "set", "dev", "a$(id)", "name", "b"};
	escape_shell_join(buf, sizeof(buf), argv, 7);
	ck_assert_str_eq(buf, "ip link set ...");
	char big[64];
	escape_shell_join(big, sizeof(big), argv, 7);
	ck_assert_str_eq(big, "ip link set dev 'a$(id)' name b");
}
END_TEST

/* The one rule for a name in a copy-paste line: the names Kubernetes,
 * the kernel and udev give pass; shell, quotes, blanks, control bytes,
 * empty and overlong do not, and get the placeholder. */
START_TEST(safe_words_pass_and_others_get_the_placeholder)
{
	static const char *const ok[] = {"dgx-h200-07",
					 "kube-system",
					 "sriov-device-plugin-7wq4z",
					 "ibp24s0",
					 "mlx5_0",
					 "0000:18:00.4",
					 "4e8b1f2a-9c3d-4e5f-8a6b-7c8d9e0f1a55",
					 "node.example.com"};
	static const char *const bad[] = {"n1$(reboot);x", "a b", "it's",     "`id`", "a\nb",
					  "a|b",	   "",	  "\xc3\xa9", "x>y"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		ck_assert_str_eq(escape_word_or(ok[i], "<x>"), ok[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_str_eq(escape_word_or(bad[i], "<x>"), "<x>");
	ck_assert_str_eq(escape_word_or(NULL, "<x>"), "<x>");
	char longw[300];
	memset(longw, 'a', sizeof(longw) - 1);
	longw[sizeof(longw) - 1] = '\0';
	ck_assert(!escape_safe_word(longw));
	longw[253] = '\0';
	ck_assert(escape_safe_word(longw));
}
END_TEST

START_TEST(json_text_is_valid_utf8_and_reads_back)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "hostname", json_object_new_string("dgx\xfe\xc2\x9bh200"));
	json_object_object_add(o, "name", json_object_new_string("caf\xc3\xa9\x7f"));
	json_object_object_add(o, "esc", json_object_new_string("e\x1b"));
	const char *raw = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ck_assert(!escape_utf8_valid(raw)); /* json-c passes the bytes on */
	char *s = escape_json_text(raw);
	ck_assert(escape_utf8_valid(s));
	ck_assert(!escape_term_needed(s));
	ck_assert_str_eq(
		s, "{\"hostname\":\"dgx\xef\xbf\xbd\\u009bh200\",\"name\":\"caf\xc3\xa9\\u007f\","
		   "\"esc\":\"e\\u001b\"}");
	struct json_object *back = json_tokener_parse(s), *v;
	ck_assert_ptr_nonnull(back);
	ck_assert(json_object_object_get_ex(back, "hostname", &v));
	ck_assert_str_eq(json_object_get_string(v), "dgx\xef\xbf\xbd\xc2\x9bh200");
	ck_assert(json_object_object_get_ex(back, "name", &v));
	ck_assert_str_eq(json_object_get_string(v), "caf\xc3\xa9\x7f");
	json_object_put(back);
	json_object_put(o);
	free(s);
}
END_TEST

/* The bytes to fix are found wherever they are: the text is scanned eight
 * bytes at a time, so at every offset from a word's start and its end. */
START_TEST(json_text_fixes_a_byte_anywhere)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"\x7f", "\\u007f"},	  {"\x80", "\xef\xbf\xbd"},
		{"\xc2\x9b", "\\u009b"},  {"\xc3\xa9", "\xc3\xa9"},
		{"\xff", "\xef\xbf\xbd"}, {"\xe2\x82\xac", "\xe2\x82\xac"},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int pre = 0; pre < 20; pre++)
			for (int post = 0; post < 20; post += 3) {
				char in[64], want[64];
				snprintf(in, sizeof(in), "%.*s%s%.*s", pre,
					 "{\"aaaaaaaaaaaaaaaaaaaaa", cases[c].in, post,
					 "bbbbbbbbbbbbbbbbbbbbbbb");
				snprintf(want, sizeof(want), "%.*s%s%.*s", pre,
					 "{\"aaaaaaaaaaaaaaaaaaaaa", cases[c].out, post,
					 "bbbbbbbbbbbbbbbbbbbbbbb");
				char *s = escape_json_text(in);
				ck_assert_str_eq(s, want);
				free(s);
			}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("escape");
	TCase *t = tcase_create("escape");
	tcase_add_test(t, utf8_is_strict);
	tcase_add_test(t, terminal_text_has_no_control_and_is_utf8);
	tcase_add_test(t, shell_words_read_back_as_they_were);
	tcase_add_test(t, shell_join_cuts_with_dots);
	tcase_add_test(t, json_text_fixes_a_byte_anywhere);
	tcase_add_test(t, json_text_is_valid_utf8_and_reads_back);
	tcase_add_test(t, safe_words_pass_and_others_get_the_placeholder);
	suite_add_tcase(s, t);
	return tu_run_suite(s);
}
