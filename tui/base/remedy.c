// SPDX-License-Identifier: MIT
/* A finding's ibvf remedy into the request `ibvf vf` makes of the same
 * words: the checks write command lines, and this reads them with vf's own
 * parser, so a remedy cannot mean something else here than typed. */
#include "remedy.h"

#include <errno.h>
#include <string.h>

#include "cli.h"

enum remedy_phase remedy_phase(const struct finding_remedy *r)
{
	if (r->kind != REMEDY_IBVF || !r->n_steps)
		return REMEDY_PHASE_OTHER;
	if (!strcmp(r->steps[0], "persist"))
		return REMEDY_PHASE_PERSIST;
	if (strcmp(r->steps[0], "vf") || r->n_steps < 2)
		return REMEDY_PHASE_OTHER;
	static const struct {
		const char *action;
		enum remedy_phase ph;
	} phases[] = {
		{"create", REMEDY_PHASE_LAYOUT}, {"destroy", REMEDY_PHASE_LAYOUT},
		{"state", REMEDY_PHASE_STATE},	 {"guid", REMEDY_PHASE_GUID},
		{"rename", REMEDY_PHASE_NAME},
	};
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++)
		if (!strcmp(r->steps[1], phases[i].action))
			return phases[i].ph;
	return REMEDY_PHASE_OTHER;
}

const char *remedy_phase_name(enum remedy_phase ph)
{
	static const char *const names[] = {
		[REMEDY_PHASE_LAYOUT] = "layout",   [REMEDY_PHASE_STATE] = "link state",
		[REMEDY_PHASE_GUID] = "GUIDs",	    [REMEDY_PHASE_NAME] = "names",
		[REMEDY_PHASE_PERSIST] = "persist", [REMEDY_PHASE_OTHER] = "other",
	};
	return names[ph];
}

/* The options a check may write into a vf remedy; *value: takes one. */
static bool remedy_option(const char *s, bool *value)
{
	static const char *const with_value[] = {"--node", "--port", "--prefix", "--scheme"};
	static const char *const flags[] = {"--assign-all", "--all"};
	for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
		if (!strcmp(s, with_value[i]))
			return *value = true;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(s, flags[i])) {
			*value = false;
			return true;
		}
	return false;
}

int remedy_request(const struct finding_remedy *r, bool force, struct act_args *ret, struct err *e)
{
	char *argv[FINDING_STEPS_MAX + 2];
	int argc = 0;
	if (r->kind != REMEDY_IBVF || !r->n_steps)
		return err_setx(e, EINVAL, "the remedy is not an ibvf command");
	if (strcmp(r->steps[0], "vf"))
		return err_setx(e, ENOTSUP, "'ibvf %s' is not a vf action", r->steps[0]);
	for (size_t i = 0; i < r->n_steps; i++) {
		bool value = false;
		if (r->steps[i][0] == '-' && !remedy_option(r->steps[i], &value))
			return err_setx(e, EINVAL,
					"remedy argument %zu looks like an option: not run "
					"(give the command by hand)",
					i + 1);
		argv[argc++] = r->steps[i];
		if (value && i + 1 < r->n_steps)
			argv[argc++] = r->steps[++i];
	}
	if (force)
		argv[argc++] = "--force";
	argv[argc] = NULL;
	struct act_args p;
	cli_error_capture(e);
	int rc = vf_request_parse(argc, argv, &p);
	cli_error_capture(NULL);
	if (rc < 0)
		return -EINVAL;
	p.args = NULL;
	p.n_args = 0;
	*ret = p;
	return 0;
}
