// SPDX-License-Identifier: MIT
/* The console's layout is a pure function of the terminal size: checked over
 * every size from 1x1 to 300x120. */
#include <check.h>

#include "tui/console/layout.h"

static void assert_inside(const struct rect *r, int cols, int rows, const char *what)
{
	if (!r->h || !r->w)
		return;
	ck_assert_msg(r->y >= 0 && r->x >= 0 && r->y + r->h <= rows && r->x + r->w <= cols,
		      "%s outside %dx%d", what, cols, rows);
}

static bool overlap(const struct rect *a, const struct rect *b)
{
	if (!a->h || !a->w || !b->h || !b->w)
		return false;
	return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

START_TEST(every_size_gives_rects_inside_the_screen_without_overlap)
{
	for (int cols = 1; cols <= 300; cols++)
		for (int rows = 1; rows <= 120; rows++) {
			struct layout l;
			layout_compute(cols, rows, &l);
			const struct rect *rs[] = {&l.header,  &l.views,  &l.tree,
						   &l.details, &l.status, &l.fkeys};
			for (size_t i = 0; i < 6; i++) {
				assert_inside(rs[i], cols, rows, "a pane");
				for (size_t j = i + 1; j < 6; j++)
					ck_assert_msg(!overlap(rs[i], rs[j]),
						      "panes %zu and %zu overlap at %dx%d", i, j,
						      cols, rows);
			}
			if (l.mode != LAYOUT_TOO_SMALL)
				ck_assert_msg(l.tree.h >= 2, "tree has no room at %dx%d", cols,
					      rows);
		}
}
END_TEST

START_TEST(full_layout_from_80x24)
{
	struct layout l;
	layout_compute(80, 24, &l);
	ck_assert_int_eq(l.mode, LAYOUT_FULL);
	ck_assert_int_eq(l.header.h, 2);
	ck_assert_int_eq(l.views.h, 1);
	ck_assert_int_ge(l.details.h, 8);
	ck_assert_int_eq(l.fkeys.y, 23);
	/* Every line is used: header, views, tree, details, status, keys. */
	ck_assert_int_eq(l.header.h + l.views.h + l.tree.h + l.details.h + 2, 24);
	layout_compute(160, 48, &l);
	ck_assert_int_eq(l.mode, LAYOUT_FULL);
	ck_assert_int_gt(l.tree.h, l.details.h);
	ck_assert_int_eq(l.tree.w, 160);
}
END_TEST

START_TEST(tree_only_when_narrower_or_shorter)
{
	int sizes[][2] = {{79, 24}, {80, 23}, {60, 20}, {40, 10}, {200, 12}};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct layout l;
		layout_compute(sizes[i][0], sizes[i][1], &l);
		ck_assert_int_eq(l.mode, LAYOUT_TREE_ONLY);
		ck_assert_int_eq(l.details.h, 0);
		ck_assert_int_eq(l.views.h, 0);
		ck_assert_int_eq(l.header.h, 1);
		ck_assert_int_eq(l.tree.h, sizes[i][1] - 3);
	}
}
END_TEST

START_TEST(too_small_below_40x10)
{
	int sizes[][2] = {{39, 24}, {80, 9}, {0, 0}, {1, 1}, {39, 9}};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct layout l;
		layout_compute(sizes[i][0], sizes[i][1], &l);
		ck_assert_int_eq(l.mode, LAYOUT_TOO_SMALL);
		ck_assert_int_eq(l.tree.h, 0);
	}
}
END_TEST

START_TEST(tree_columns_fit_every_width_and_keep_the_essentials)
{
	for (int dev = 14; dev <= 24; dev++)
		for (int w = 40; w <= 300; w++) {
			struct tree_cols c;
			layout_tree_columns(w, dev, &c);
			int right = 0;
			for (int i = 0; i < TC_N; i++)
				if (c.shown[i] && c.x[i] + c.w[i] > right)
					right = c.x[i] + c.w[i];
			ck_assert_msg(right <= w, "columns reach %d in %d", right, w);
			ck_assert(c.shown[TC_DEVICE] && c.shown[TC_NETDEV] && c.shown[TC_STATE]);
			if (w >= dev + 17)
				ck_assert_int_eq(c.w[TC_DEVICE], dev);
		}
}
END_TEST

START_TEST(tree_columns_at_80_show_guid_and_pod_at_160_everything)
{
	struct tree_cols c;
	layout_tree_columns(80, 21, &c);
	ck_assert(c.shown[TC_GUID] && c.shown[TC_POD] && c.shown[TC_LINK] && c.compact[TC_LINK]);
	layout_tree_columns(160, 21, &c);
	for (int i = 0; i < TC_N; i++)
		ck_assert_msg(c.shown[i] && !c.compact[i], "column %d not full at 160", i);
}
END_TEST

START_TEST(tree_columns_show_firmware_where_the_width_allows)
{
	struct tree_cols c;
	layout_tree_columns(120, 21, &c); /* rate compacted, the rest full */
	ck_assert(c.shown[TC_FW] && c.shown[TC_PHYS] && c.compact[TC_RATE]);
	ck_assert_int_eq(c.w[TC_FW], 10); /* "28.39.1002" */
	layout_tree_columns(110, 21, &c); /* the physical state goes first */
	ck_assert(c.shown[TC_FW] && !c.shown[TC_PHYS]);
	layout_tree_columns(100, 21, &c);
	ck_assert(!c.shown[TC_FW] && c.shown[TC_GUID] && c.shown[TC_POD]);
	layout_tree_columns(80, 21, &c);
	ck_assert(!c.shown[TC_FW]);
	/* Once it fits, it stays as the terminal widens. */
	bool was = false;
	for (int w = 40; w <= 300; w++) {
		layout_tree_columns(w, 21, &c);
		ck_assert_msg(!was || c.shown[TC_FW], "firmware dropped again at %d", w);
		was = c.shown[TC_FW];
	}
	ck_assert(was);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("layout");
	tcase_add_test(tc, every_size_gives_rects_inside_the_screen_without_overlap);
	tcase_add_test(tc, full_layout_from_80x24);
	tcase_add_test(tc, tree_only_when_narrower_or_shorter);
	tcase_add_test(tc, too_small_below_40x10);
	tcase_add_test(tc, tree_columns_fit_every_width_and_keep_the_essentials);
	tcase_add_test(tc, tree_columns_at_80_show_guid_and_pod_at_160_everything);
	tcase_add_test(tc, tree_columns_show_firmware_where_the_width_allows);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
