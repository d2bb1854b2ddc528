// SPDX-License-Identifier: MIT
/* The journal read back whatever happened to the file: a crash mid-append,
 * a line of NULs, garbage, entries of the wrong JSON types, a one-byte file,
 * a planted link. Each damaged line is skipped and named; ids come from the
 * records, never from a line's position; undo refuses a malformed entry in
 * one line. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model/node.h"
#include "testutil.h"

#include "actionsutil.h"

static char *jpath(const char *dir)
{
	char *p;
	ck_assert_int_gt(asprintf(&p, "%s/var/lib/ibvf/journal.jsonl", dir), 0);
	return p;
}

static void append(const char *dir, const char *bytes, size_t len)
{
	char *p = jpath(dir);
	int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, len), (ssize_t)len);
	close(fd);
	free(p);
}

/* The number of lines in the journal now: the next line is this + 1. */
static int lines_now(const char *dir)
{
	char *p = jpath(dir);
	FILE *f = fopen(p, "re");
	int n = 0, ch;
	ck_assert_ptr_nonnull(f);
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	free(p);
	return n;
}

static void rename_vf(const char *dir, const char *bdf, const char *name)
{
	char *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "vf", "rename", bdf, name, "--yes", NULL);
	ck_assert_msg(rc == 0, "vf rename %s %s: %s", bdf, name, err);
	free(out);
	free(err);
}

static const char *netdev_of(struct node *n, const char *bdf)
{
	return vf_netdev(vf_by_bdf(n, bdf));
}

/* A crash mid-append leaves a line without its end: the next entry starts
 * on a line of its own, and both good entries keep their ids. */
START_TEST(partial_last_line_keeps_later_entries_readable)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	rename_vf(dir, "0000:18:00.4", "x0");
	static const char partial[] = "{\"id\":1,\"time\":\"2025-";
	char want[64];
	snprintf(want, sizeof(want), "journal: line %d damaged, skipped", lines_now(dir) + 1);
	append(dir, partial, sizeof(partial) - 1);
	rename_vf(dir, "0000:18:00.5", "x1");
	int rc = tu_sim_run(dir, &out, &err, "journal", "undo", "2", "--yes", "--force", NULL);
	ck_assert_msg(rc == 0, "journal undo 2: rc %d: %s", rc, err);
	ck_assert_msg(strstr(err, want), "'%s' lacks '%s'", err, want);
	struct node *n = discover(dir);
	ck_assert_str_eq(netdev_of(n, "0000:18:00.4"), "x0");
	ck_assert_str_ne(netdev_of(n, "0000:18:00.5"), "x1");
	node_free(n);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* A line of NULs (a crash after the size grew, before the data) is one
 * damaged line; the next entry gets max id + 1, and undo 1 undoes entry 1. */
START_TEST(nul_line_neither_shifts_nor_repeats_ids)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	rename_vf(dir, "0000:18:00.4", "x0");
	static const char nuls[64] = {0};
	append(dir, nuls, sizeof(nuls));
	append(dir, "\n", 1);
	rename_vf(dir, "0000:18:00.5", "x1");
	struct json_object *j = journal(dir);
	ck_assert_uint_eq(json_object_array_length(j), 2);
	ck_assert_str_eq(jget(json_object_array_get_idx(j, 0), "id"), "1");
	ck_assert_str_eq(jget(json_object_array_get_idx(j, 1), "id"), "2");
	json_object_put(j);
	int rc = tu_sim_run(dir, &out, &err, "journal", "undo", "1", "--yes", "--force", NULL);
	ck_assert_msg(rc == 0, "journal undo 1: rc %d: %s", rc, err);
	struct node *n = discover(dir);
	ck_assert_str_ne(netdev_of(n, "0000:18:00.4"), "x0"); /* entry 1 undone */
	ck_assert_str_eq(netdev_of(n, "0000:18:00.5"), "x1"); /* entry 2 left alone */
	node_free(n);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* Garbage between entries is reported by line number; `journal` still
 * lists every good entry. */
START_TEST(garbage_lines_are_named_and_skipped)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	rename_vf(dir, "0000:18:00.4", "x0");
	static const char junk[] = "not json\n[1,2]\n{\"id\":\"three\"}\n";
	int first = lines_now(dir) + 1;
	append(dir, junk, strlen(junk));
	rename_vf(dir, "0000:18:00.5", "x1");
	int rc = tu_sim_run(dir, &out, &err, "journal", NULL);
	ck_assert_int_eq(rc, 0);
	for (int line = first; line < first + 3; line++) {
		char want[64];
		snprintf(want, sizeof(want), "journal: line %d damaged, skipped", line);
		ck_assert_msg(strstr(err, want), "'%s' lacks '%s'", err, want);
	}
	ck_assert_msg(strstr(out, "x0") && strstr(out, "x1"), "%s", out);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* An entry whose fields have the wrong JSON type: undo says so in one line
 * and exits 2; json-c never aborts. */
START_TEST(undo_of_a_malformed_entry_is_one_clear_line)
{
	static const char *const bad[] = {
		"{\"id\":1,\"action\":\"vf rename\",\"changes\":{\"kind\":\"name\"}}\n",
		"{\"id\":1,\"action\":\"vf rename\",\"changes\":\"all\"}\n",
		"{\"id\":1,\"action\":\"vf rename\",\"changes\":[7]}\n",
		"{\"id\":1,\"action\":\"vf rename\",\"changes\":[{\"kind\":\"name\",\"bdf\":5,"
		"\"before\":[],\"after\":{}}]}\n",
		"{\"id\":1,\"action\":[\"vf rename\"],\"changes\":[]}\n",
		"{\"id\":1,\"action\":\"persist\",\"changes\":[{\"kind\":\"file\",\"path\":1,"
		"\"content\":2}]}\n",
		"{\"id\":1,\"action\":\"vf rename-all\",\"changes\":[{\"kind\":\"name\",\"bdf\":"
		"[],\"before\":7,\"after\":8}]}\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char *dir = tu_mkfixture(NULL), *out, *err;
		char *p = jpath(dir), *d = strdup(p);
		*strrchr(d, '/') = '\0';
		ck_assert_int_eq(mkdir(d, 0755), 0);
		append(dir, bad[i], strlen(bad[i]));
		char *before = tree_digest(dir);
		int rc = tu_sim_run(dir, &out, &err, "journal", "undo", "1", "--yes", "--force",
				    NULL);
		ck_assert_msg(rc == 2, "entry %zu: rc %d, stderr: %s", i, rc, err);
		ck_assert_msg(strstr(err, "journal entry 1"), "entry %zu: %s", i, err);
		ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
		char *after = tree_digest(dir);
		ck_assert_str_eq(before, after);
		free(before);
		free(after);
		free(p);
		free(d);
		free(out);
		free(err);
		tu_rmtree(dir);
	}
}
END_TEST

/* A journal of one byte (and of one number) reads as empty, damaged line
 * named, nothing leaked (the ASan build's LeakSanitizer checks). */
START_TEST(one_byte_journal_reads_as_empty)
{
	static const char *const bodies[] = {"1", "{", "\n", "7\n"};
	for (size_t i = 0; i < sizeof(bodies) / sizeof(*bodies); i++) {
		char *dir = tu_mkfixture(NULL), *out, *err;
		char *p = jpath(dir), *d = strdup(p);
		*strrchr(d, '/') = '\0';
		ck_assert_int_eq(mkdir(d, 0755), 0);
		append(dir, bodies[i], strlen(bodies[i]));
		int rc = tu_sim_run(dir, &out, &err, "journal", "--json", NULL);
		ck_assert_msg(rc == 0, "'%s': rc %d: %s", bodies[i], rc, err);
		ck_assert_msg(strstr(out, "\"entries\":[\n  ]\n") || strstr(out, "\"entries\":[]"),
			      "%s", out);
		free(p);
		free(d);
		free(out);
		free(err);
		tu_rmtree(dir);
	}
}
END_TEST

/* A journal that is a symbolic link (planted to make root append to another
 * file) is refused before any step: the target is untouched, the command
 * exits non-zero in one line naming the journal, and the node is as it was
 * (no change nothing records, so nothing undoable). */
START_TEST(journal_that_is_a_link_stops_the_action)
{
	char *dir = tu_mkfixture(NULL), *out, *err, *victim;
	char *p = jpath(dir), *d = strdup(p);
	*strrchr(d, '/') = '\0';
	ck_assert_int_eq(mkdir(d, 0755), 0);
	ck_assert_int_gt(asprintf(&victim, "%s/victim", dir), 0);
	tu_write(victim, "precious\n");
	ck_assert_int_eq(symlink(victim, p), 0);
	struct node *n = discover(dir);
	char *policy = strdup(vf_by_bdf(n, "0000:18:00.4")->admin.mofed_policy);
	int state = vf_by_bdf(n, "0000:9a:00.2")->admin.link_state.v;
	node_free(n);
	ck_assert_str_ne(policy, "Down");
	ck_assert_int_ne(state, 2);

	int rc = tu_sim_run(dir, &out, &err, "vf", "state", "0000:18:00.4", "disable", "--yes",
			    NULL);
	ck_assert_msg(rc != 0, "mofed: rc 0: %.1500s%.1500s", out, err);
	ck_assert_msg(strstr(err, "journal.jsonl' is a symbolic link") &&
			      strstr(err, "nothing was changed"),
		      "%.1500s", err);
	ck_assert_msg(!strchr(strchr(err, '\n') + 1, '\n'), "not one line: %.1500s", err);
	ck_assert_msg(!strstr(out, "echo Down"), "a step ran: %.1500s", out);
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "vf", "state", "0000:9a:00.2", "disable", "--yes", NULL);
	ck_assert_msg(rc != 0, "netlink: rc 0: %.1500s%.1500s", out, err);
	free(out);
	free(err);

	n = discover(dir);
	ck_assert_str_eq(vf_by_bdf(n, "0000:18:00.4")->admin.mofed_policy, policy);
	ck_assert_int_eq(vf_by_bdf(n, "0000:9a:00.2")->admin.link_state.v, state);
	node_free(n);
	FILE *f = fopen(victim, "re");
	char buf[64] = "";
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	ck_assert_str_eq(buf, "precious\n");
	ck_assert_ptr_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	free(policy);
	free(victim);
	free(p);
	free(d);
	tu_rmtree(dir);
}
END_TEST

/* The journal is 0640 whatever the umask, also when it existed with
 * another mode. */
START_TEST(journal_mode_is_fixed)
{
	char *dir = tu_mkfixture(NULL);
	char *p = jpath(dir), *d = strdup(p);
	*strrchr(d, '/') = '\0';
	ck_assert_int_eq(mkdir(d, 0755), 0);
	append(dir, "", 0);
	ck_assert_int_eq(chmod(p, 0666), 0);
	rename_vf(dir, "0000:18:00.4", "x0");
	struct stat st;
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	free(p);
	free(d);
	tu_rmtree(dir);
}
END_TEST

/* Another process holding the journal's flock (anyone who can open the
 * file) does not stall a plan for ever: the wait is bounded and said. */
START_TEST(held_journal_lock_is_waited_on_for_a_bounded_time)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	char *p = jpath(dir), *d = strdup(p);
	*strrchr(d, '/') = '\0';
	ck_assert_int_eq(mkdir(d, 0755), 0);
	append(dir, "", 0);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_SH), 0);
	int rc = tu_sim_run(dir, &out, &err, "vf", "rename", "0000:18:00.4", "x0", "--yes", NULL);
	ck_assert_msg(strstr(err, "another process has held it"), "rc %d: %s", rc, err);
	close(fd);
	free(out);
	free(err);
	free(p);
	free(d);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("reader");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, partial_last_line_keeps_later_entries_readable);
	tcase_add_test(tc, nul_line_neither_shifts_nor_repeats_ids);
	tcase_add_test(tc, garbage_lines_are_named_and_skipped);
	tcase_add_test(tc, undo_of_a_malformed_entry_is_one_clear_line);
	tcase_add_test(tc, one_byte_journal_reads_as_empty);
	tcase_add_test(tc, journal_that_is_a_link_stops_the_action);
	tcase_add_test(tc, journal_mode_is_fixed);
	tcase_add_test(tc, held_journal_lock_is_waited_on_for_a_bounded_time);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
