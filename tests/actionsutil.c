// SPDX-License-Identifier: MIT
/* Helpers of the actions suites (test_actions.c, test_actions_guid.c): the real
 * binary on a simulated node, the node and the journal read back, faults armed. */
#include "actionsutil.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "core/actions/actions.h"
#include "core/actions/journal.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

/* The node as `ibvf list --json` prints it: the whole model, to compare. */
char *node_json(const char *dir)
{
	char *out;
	ck_assert_int_eq(tu_sim_run(dir, &out, NULL, "list", "--json", NULL), 0);
	return out;
}

/* Every file, link and directory of the tree with its size, mtime and link
 * target: a refusal must not touch any of them. */
static char *digest_buf;
static size_t digest_len, digest_cap;

static int digest_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char line[8192], target[4096] = "";
	if (strstr(path, "/.sim/lock"))
		return 0;
	if (flag == FTW_SL) {
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
	}
	int n = snprintf(line, sizeof(line), "%s %lld %lld.%09ld %s\n", path,
			 (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			 target);
	if (digest_len + (size_t)n + 1 > digest_cap) {
		digest_cap = (digest_len + (size_t)n + 1) * 2;
		digest_buf = realloc(digest_buf, digest_cap);
		ck_assert_ptr_nonnull(digest_buf);
	}
	memcpy(digest_buf + digest_len, line, (size_t)n + 1);
	digest_len += (size_t)n;
	return 0;
}

char *tree_digest(const char *dir)
{
	digest_buf = NULL;
	digest_len = digest_cap = 0;
	ck_assert_int_eq(nftw(dir, digest_one, 32, FTW_PHYS), 0);
	return digest_buf;
}

struct node *discover(const char *dir)
{
	struct sys *s;
	struct node *n;
	struct err e = {{0}};
	ck_assert_msg(sys_open_sim(dir, NULL, &s, &e) == 0, "%s", e.msg);
	ck_assert_msg(node_discover(s, &n, &e) == 0, "%s", e.msg);
	sys_close(s);
	return n;
}

const struct vf *vf_by_bdf(const struct node *n, const char *bdf)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			if (!strcmp(n->pfs[i].vfs[j].fn.bdf, bdf))
				return &n->pfs[i].vfs[j];
	ck_abort_msg("no VF %s", bdf);
	return NULL;
}

const char *vf_netdev(const struct vf *vf)
{
	return vf->fn.n_netdevs ? vf->fn.netdevs[0].name : "";
}

struct json_object *journal(const char *dir)
{
	char *out;
	ck_assert_int_eq(tu_sim_run(dir, &out, NULL, "journal", "--json", NULL), 0);
	struct json_object *doc = json_tokener_parse(out), *o = NULL;
	ck_assert_msg(doc && json_object_object_get_ex(doc, "entries", &o) &&
			      json_object_is_type(o, json_type_array),
		      "journal --json: %s", out);
	json_object_get(o);
	json_object_put(doc);
	free(out);
	return o;
}

const char *jget(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

void arm_fault(const char *dir, const char *spec)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/.sim/faults", dir);
	tu_write(p, spec);
}

/* One line on stderr, nothing on stdout, exit 2, node untouched. The
 * arguments after `want` are the command line, NULL-terminated. */
void assert_refused(const char *dir, const char *want, ...)
{
	const char *a[8] = {0};
	va_list ap;
	va_start(ap, want);
	for (size_t i = 0; i < 7 && (a[i] = va_arg(ap, const char *)); i++)
		;
	va_end(ap);
	char *before = tree_digest(dir), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
	ck_assert_msg(rc == 2, "%s %s %s: exit %d, stderr: %s", a[0], a[1], a[2], rc, err);
	ck_assert_msg(strstr(err, want), "stderr '%s' lacks '%s'", err, want);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
	ck_assert_str_eq(out, "");
	char *after = tree_digest(dir);
	ck_assert_msg(!strcmp(before, after), "the node changed after a refusal");
	free(before);
	free(after);
	free(out);
	free(err);
}
