// SPDX-License-Identifier: MIT
/* The console's key table and list widget: the README's key list is the
 * table's (IBVF_UPDATE_README=1 rewrites it), no key is bound twice where it
 * acts, and the one list widget moves, scrolls and clicks as every list on
 * screen needs. */
#include <check.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/console/keys.h"
#include "tui/console/listw.h"
#include "testutil.h"

#define BEGIN "<!-- keys: begin -->\n```\n"
#define END   "```\n<!-- keys: end -->"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open '%s'", path);
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void table_block(char *buf, size_t size)
{
	char lines[64][96];
	size_t n = keys_help(lines, 64), len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char *l = lines[i];
		size_t ll = strlen(l);
		while (ll && l[ll - 1] == ' ')
			l[--ll] = '\0';
		len += (size_t)snprintf(buf + len, size - len, "%s\n", l);
	}
}

START_TEST(bench_form_keys_come_from_the_table)
{
	/* The form's own bindings win in the bench view; elsewhere j is the list's. */
	ck_assert_int_eq(keys_find(VIEW_BENCH, 'j')->action, KA_FIELD_NEXT);
	ck_assert_int_eq(keys_find(VIEW_BENCH, KEY_UP)->action, KA_FIELD_PREV);
	ck_assert_int_eq(keys_find(VIEW_BENCH, ' ')->action, KA_VALUE_NEXT);
	ck_assert_int_eq(keys_find(VIEW_BENCH, '\n')->action, KA_RUN);
	ck_assert_int_eq(keys_find(VIEW_BENCH, 27)->action, KA_BACK);
	ck_assert_int_eq(keys_find(VIEW_TREE, 'j')->action, KA_DOWN);
	ck_assert_int_eq(keys_find(VIEW_TREE, ' ')->action, KA_TOGGLE);
	ck_assert_int_eq(keys_find(VIEW_JOURNAL, KEY_UP)->action, KA_UP);
}
END_TEST

START_TEST(readme_key_list_is_the_table)
{
	char path[4096], want[8192];
	snprintf(path, sizeof(path), "%s/README.md", getenv("IBVF_SRCDIR"));
	char *readme = slurp(path);
	char *b = strstr(readme, BEGIN), *e = b ? strstr(b, END) : NULL;
	ck_assert_msg(b && e, "README.md has no '%s' ... '%s' block", BEGIN, END);
	b += strlen(BEGIN);
	table_block(want, sizeof(want));
	if (getenv("IBVF_UPDATE_README")) {
		FILE *f = fopen(path, "w");
		ck_assert(f != NULL);
		fprintf(f, "%.*s%s%s", (int)(b - readme), readme, want, e);
		fclose(f);
	} else {
		ck_assert_msg(
			strlen(want) == (size_t)(e - b) && !strncmp(b, want, strlen(want)),
			"README.md's key list differs from tui/console/keys.c; it should read:\n%s"
			"(IBVF_UPDATE_README=1 test_keys rewrites it)",
			want);
	}
	free(readme);
}
END_TEST

START_TEST(every_key_finds_its_own_binding)
{
	for (size_t i = 0; i < keys_n; i++) {
		const struct key_binding *b = &keys_table[i];
		for (int v = 0; v < VIEW_N; v++) {
			if (b->views && !(b->views & KV(v)))
				continue;
			for (int k = 0; k < KEYS_PER_BINDING && b->keys[k]; k++) {
				const struct key_binding *f =
					keys_find((enum console_view)v, b->keys[k]);
				/* A view's own binding may override an every-view one. */
				ck_assert_msg(f == b || (!b->views && f->views),
					      "key %d of row %zu is bound twice in view %d",
					      b->keys[k], i, v);
			}
		}
	}
	ck_assert_ptr_null(keys_find(VIEW_TREE, 'Z'));
	ck_assert_int_eq(keys_find(VIEW_JOURNAL, '\n')->action, KA_ENTRY_STEPS);
	ck_assert_int_eq(keys_find(VIEW_TREE, '\n')->action, KA_TOGGLE);
	ck_assert_int_eq(keys_find(VIEW_BENCH, 's')->action, KA_SNAPSHOT);
}
END_TEST

START_TEST(help_lists_every_action_once)
{
	char lines[64][96];
	size_t n = keys_help(lines, 64);
	ck_assert_uint_gt(n, 10);
	int quit = 0;
	for (size_t i = 0; i < n; i++)
		quit += strstr(lines[i], "q  F10") != NULL;
	ck_assert_int_eq(quit, 1);
}
END_TEST

START_TEST(list_moves_pages_and_keeps_the_selection_shown)
{
	struct listw l = {0};
	listw_set_rows(&l, 100);
	listw_fit(&l, 10);
	ck_assert(!listw_move(&l, LISTW_UP)); /* at the top already */
	ck_assert(listw_move(&l, LISTW_DOWN));
	ck_assert_int_eq(l.sel, 1);
	listw_move(&l, LISTW_PGDN);
	ck_assert_int_eq(l.sel, 11);
	listw_fit(&l, 10);
	ck_assert_int_eq(l.top, 2); /* the selection is the last row shown */
	listw_move(&l, LISTW_END);
	listw_fit(&l, 10);
	ck_assert_int_eq(l.sel, 99);
	ck_assert_int_eq(l.top, 90);
	listw_move(&l, LISTW_HOME);
	listw_fit(&l, 10);
	ck_assert_int_eq(l.sel, 0);
	ck_assert_int_eq(l.top, 0);
	listw_set_rows(&l, 0);
	ck_assert_int_eq(l.sel, 0);
	ck_assert(!listw_move(&l, LISTW_DOWN));
}
END_TEST

START_TEST(list_clicks_and_wheel)
{
	struct listw l = {0};
	listw_set_rows(&l, 20);
	listw_fit(&l, 5);
	ck_assert_int_eq(listw_click(&l, 3), 3);
	ck_assert_int_eq(l.sel, 3);
	ck_assert_int_eq(listw_click(&l, 5), -1); /* below the rows shown */
	listw_wheel(&l, 1);
	ck_assert_int_eq(l.sel, 6);
	listw_wheel(&l, -1);
	listw_wheel(&l, -1);
	ck_assert_int_eq(l.sel, 0);
	listw_set_rows(&l, 2);
	ck_assert_int_eq(listw_click(&l, 2), -1); /* past the last row */
}
END_TEST

START_TEST(text_scrolls_without_a_selection)
{
	struct listw l = {.text = true};
	listw_set_rows(&l, 30);
	listw_fit(&l, 10);
	listw_move(&l, LISTW_PGDN);
	ck_assert_int_eq(l.top, 9); /* a page keeps one line of context */
	listw_move(&l, LISTW_END);
	ck_assert_int_eq(l.top, 20);
	ck_assert(!listw_move(&l, LISTW_DOWN));
	listw_set_rows(&l, 12); /* the text got shorter: no empty page */
	ck_assert_int_eq(l.top, 2);
}
END_TEST

START_TEST(filter_matches_any_case)
{
	struct listw l = {0};
	ck_assert(listw_match(&l, "anything"));
	snprintf(l.filter, sizeof(l.filter), "IBP64");
	ck_assert(listw_match(&l, "vf0 ibp64s0v0"));
	ck_assert(!listw_match(&l, "ibp24s0"));
	ck_assert(!listw_match(&l, NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("keys");
	TCase *tc = tcase_create("keys");
	tcase_add_test(tc, readme_key_list_is_the_table);
	tcase_add_test(tc, bench_form_keys_come_from_the_table);
	tcase_add_test(tc, every_key_finds_its_own_binding);
	tcase_add_test(tc, help_lists_every_action_once);
	tcase_add_test(tc, list_moves_pages_and_keeps_the_selection_shown);
	tcase_add_test(tc, list_clicks_and_wheel);
	tcase_add_test(tc, text_scrolls_without_a_selection);
	tcase_add_test(tc, filter_matches_any_case);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
