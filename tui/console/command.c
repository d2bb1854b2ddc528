// SPDX-License-Identifier: MIT
/* The console's prompts: the `/` filter, the `:` command line with its
 * completion, and the commands themselves (snapshot, theme, ...). */
#include <curses.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actions.h"
#include "view_bench.h"
#include "console_int.h"
#include "screen.h"
#include "core/snapshot/json.h"

static int cmd_quit(struct console *c, const char *arg)
{
	c->quit = true;
	return 0;
}

static int cmd_theme(struct console *c, const char *arg)
{
	if (!*arg) {
		screen_message(c, TR_STATUS, "theme '%s' (usage: theme NAME|PATH)", c->theme.name);
		return 0;
	}
	return console_set_theme(c, arg);
}

static int cmd_snapshot(struct console *c, const char *arg)
{
	console_snapshot_ask(c, *arg ? arg : NULL);
	return 0;
}

static int cmd_filter(struct console *c, const char *arg)
{
	struct view *v = &c->views[c->view];
	console_filter_set(c, v->filtered ? v : &c->views[VIEW_TREE], arg);
	return 0;
}

static int cmd_help(struct console *c, const char *arg)
{
	console_overlay(c, &c->help);
	return 0;
}

/* What runs each command of keys.c's table (its names and usages). */
static int (*const commands[CC_N])(struct console *c, const char *arg) = {
	[CC_BENCH] = console_cmd_bench,
	[CC_CREATE] = console_cmd_create,
	[CC_DESTROY] = console_cmd_destroy,
	[CC_FILTER] = cmd_filter,
	[CC_GUID] = console_cmd_guid,
	[CC_HELP] = cmd_help,
	[CC_JOURNAL] = console_cmd_journal,
	[CC_PERSIST] = console_cmd_persist,
	[CC_QUIT] = cmd_quit,
	[CC_RENAME] = console_cmd_rename,
	[CC_SNAPSHOT] = cmd_snapshot,
	[CC_STATE] = console_cmd_state,
	[CC_THEME] = cmd_theme,
	[CC_TIMELINE] = console_cmd_timeline,
};

int console_command(struct console *c, const char *line)
{
	while (*line == ' ')
		line++;
	size_t len = strcspn(line, " ");
	const char *arg = line + len;
	while (*arg == ' ')
		arg++;
	if (!len)
		return 0;
	if (len == 1 && *line == 'q')
		return cmd_quit(c, arg);
	int k = console_cmd_find(line, len);
	if (k >= 0)
		return commands[k](c, arg);
	char names[256] = "";
	for (int i = 0; i < CC_N; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", console_cmds[i].name);
	screen_message(c, TR_ERROR, "unknown command '%.*s' (commands: %s)", (int)len, line, names);
	return -EINVAL;
}

/* Completes the word under the cursor to the longest common prefix of the
 * candidates; lists them in the status line when there are several. */
static void complete(struct console *c)
{
	char cand[64][64];
	size_t n = 0;
	char *word = strrchr(c->cmd, ' ');
	if (!word) {
		word = c->cmd;
		for (int i = 0; i < CC_N; i++)
			snprintf(cand[n++], sizeof(cand[0]), "%s", console_cmds[i].name);
	} else {
		word++;
		if (!strncmp(c->cmd, "theme ", 6)) {
			n = theme_list(cand, 64);
		} else if (!strncmp(c->cmd, "guid ", 5)) {
			snprintf(cand[n++], sizeof(cand[0]), "--node");
			snprintf(cand[n++], sizeof(cand[0]), "--port");
			snprintf(cand[n++], sizeof(cand[0]), "--force");
		} else if (!strncmp(c->cmd, "rename ", 7) || !strncmp(c->cmd, "create ", 7) ||
			   !strncmp(c->cmd, "destroy ", 8)) {
			snprintf(cand[n++], sizeof(cand[0]), "--force");
		} else {
			return;
		}
	}
	size_t wl = strlen(word), m = 0, common = 0;
	char list[256] = "";
	const char *first = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(cand[i], word, wl))
			continue;
		if (!first) {
			first = cand[i];
			common = strlen(first);
		}
		size_t k = 0;
		while (k < common && cand[i][k] == first[k])
			k++;
		common = k;
		m++;
		size_t ll = strlen(list);
		snprintf(list + ll, sizeof(list) - ll, "%s%s", ll ? "  " : "", cand[i]);
	}
	if (!first)
		return;
	size_t room = sizeof(c->cmd) - (size_t)(word - c->cmd) - 1;
	snprintf(word, room + 1, "%.*s%s", (int)common, first, m == 1 ? " " : "");
	if (m > 1)
		screen_message(c, TR_STATUS, "%s", list);
}

static void prompt_edit(char *buf, size_t size, int k)
{
	size_t len = strlen(buf);
	if ((k == KEY_BACKSPACE || k == 127 || k == 8) && len)
		buf[len - 1] = '\0';
	else if (k == 21) /* Ctrl-U */
		buf[0] = '\0';
	else if (k >= 32 && k < 127 && len + 1 < size) {
		buf[len] = (char)k;
		buf[len + 1] = '\0';
	}
}

void console_key_prompt(struct console *c, int k)
{
	bool enter = k == '\n' || k == '\r' || k == KEY_ENTER;
	c->dirty = true;
	if (c->mode == MODE_FILTER) {
		struct view *v = c->filtering;
		char text[sizeof(v->list->filter)];
		snprintf(text, sizeof(text), "%s", v->list->filter);
		if (k == 27) { /* Esc: back to the filter in force before */
			snprintf(text, sizeof(text), "%s", v->list->filter_saved);
			c->mode = MODE_NORMAL;
		} else if (enter) {
			c->mode = MODE_NORMAL;
		} else if (k == KEY_UP || k == KEY_DOWN) {
			return;
		} else {
			prompt_edit(text, sizeof(text), k);
		}
		console_filter_set(c, v, text);
		return;
	}
	if (k == 27) {
		c->mode = MODE_NORMAL;
	} else if (k == '\t') {
		complete(c);
	} else if (enter) {
		c->mode = MODE_NORMAL;
		char line[sizeof(c->cmd)];
		snprintf(line, sizeof(line), "%s", c->cmd);
		console_command(c, line);
	} else {
		prompt_edit(c->cmd, sizeof(c->cmd), k);
	}
}

int console_set_theme(struct console *c, const char *name)
{
	struct theme t;
	char warn[512];
	int r = theme_load(name, &t, warn, sizeof(warn));
	if (r < 0) {
		screen_message(c, TR_ERROR, "%s", warn);
		return r;
	}
	c->theme = t;
	console_theme_apply(c);
	screen_message(c, TR_STATUS, "theme '%s'%s", t.name,
		       c->no_color ? " (colours off: NO_COLOR is set)" : "");
	return 0;
}
