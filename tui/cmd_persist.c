// SPDX-License-Identifier: MIT
/* `ibvf persist`: .link files and a boot unit for the current VF layout. */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli_action.h"
#include "core/persist.h"
#include "core/sys.h"
#include "text.h"

int cmd_persist(const struct cli *c, int argc, char **argv)
{
	struct act_args p;
	struct sys *s;
	struct node *n = NULL;
	struct persist *ps = NULL;
	struct err e = {{0}};
	char self[PATH_MAX];
	int rc = 1;

	if (cli_action_parse(argc, argv, "output dry-run ibvf", &p) < 0 ||
	    cli_want_args(&p, 0, "persist [--output DIR] [--dry-run] [--ibvf PATH]") < 0)
		return EXIT_USAGE;
	struct persist_opts po = {.ibvf = p.ibvf};
	if (!po.ibvf) {
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[len > 0 ? len : 0] = '\0';
		po.ibvf = self;
	}
	if (po.ibvf[0] != '/') {
		cli_error("invalid --ibvf '%s': the unit needs an absolute path", po.ibvf);
		return EXIT_USAGE;
	}
	if (cli_open(c, &s) < 0)
		return 1;
	if (node_discover(s, &n, &e) < 0 || persist_build(n, &po, &ps, &e) < 0) {
		cli_error("%s", e.msg);
		goto out;
	}
	struct json_object *o = persist_to_json(ps, sys_root(s), p.output),
			   *files = text_jarr(o, "files");
	json_object_object_add(o, "written", json_object_new_boolean(!p.o.dry_run));
	rc = 0;
	if (!p.o.dry_run && persist_write(ps, sys_root(s), p.output, &e) < 0) {
		cli_error("%s", e.msg);
		rc = 1;
	}
	if (c->json) {
		cli_print_json(o);
	} else if (rc == 0) {
		for (size_t i = 0; i < json_object_array_length(files); i++) {
			struct json_object *f = json_object_array_get_idx(files, i);
			if (p.o.dry_run)
				printf("# ---- %s\n%s\n", text_jstr(f, "path"),
				       text_jstr(f, "content"));
			else
				printf("wrote %s\n", text_jstr(f, "path"));
		}
		for (size_t i = 0; i < ps->n_notes; i++)
			printf("note: %s\n", ps->notes[i]);
		if (!p.o.dry_run)
			printf("next: systemctl daemon-reload && systemctl enable %s; if the "
			       "driver "
			       "loads in the initramfs, update-initramfs -u so the .link files "
			       "apply "
			       "there too\n",
			       PERSIST_UNIT);
	}
	json_object_put(o);
out:
	persist_free(ps);
	node_free(n);
	sys_close(s);
	return rc;
}
