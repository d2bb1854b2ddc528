// SPDX-License-Identifier: MIT
/* The key-binding table. A row without keys continues the help of the row
 * above; a row without a label shares the line of the row above. */
#include "keys.h"

#include <string.h>

#include <curses.h>
#include <stdio.h>

#define TREE	 KV(VIEW_TREE)
#define JOURNAL	 KV(VIEW_JOURNAL)
#define BENCH	 KV(VIEW_BENCH)
#define CHECKS	 KV(VIEW_CHECKS)
#define TIMELINE KV(VIEW_TIMELINE)

const struct key_binding keys_table[] = {
	{KV_ALL, {KEY_UP, 'k'}, KA_UP, 0, "Up/Down j/k", "move the selection"},
	{KV_ALL, {KEY_DOWN, 'j'}, KA_DOWN, 0, NULL, NULL},
	{KV_ALL, {KEY_PPAGE}, KA_PGUP, 0, "PgUp/PgDn", "move a page"},
	{KV_ALL, {KEY_NPAGE}, KA_PGDN, 0, NULL, NULL},
	{KV_ALL, {KEY_HOME, 'g'}, KA_HOME, 0, "Home/End g/G", "first / last line"},
	{KV_ALL, {KEY_END, 'G'}, KA_END, 0, NULL, NULL},
	{TREE,
	 {'\n', '\r', KEY_ENTER, ' '},
	 KA_TOGGLE,
	 0,
	 "Enter Space",
	 "expand or collapse a PF"},
	{TREE,
	 {KEY_LEFT, 'h'},
	 KA_LEFT,
	 0,
	 "Left/Right h/l",
	 "collapse / expand (Left on a VF: its PF)"},
	{TREE, {KEY_RIGHT, 'l'}, KA_RIGHT, 0, NULL, NULL},
	{TREE, {'+'}, KA_EXPAND_ALL, 0, "+ / -  F5", "expand all / collapse all / toggle"},
	{TREE, {'-'}, KA_COLLAPSE_ALL, 0, NULL, NULL},
	{TREE, {KEY_F(5)}, KA_TOGGLE_ALL, 0, NULL, NULL},
	{KV_ALL,
	 {'/', KEY_F(3)},
	 KA_FILTER,
	 0,
	 "/  F3",
	 "filter the list: names, BDFs, GUIDs, states (Esc restores)"},
	{KV_ALL, {':', KEY_F(2)}, KA_COMMAND, 0, ":  F2", "command line (Tab completes)"},
	{TREE, {'d'}, KA_ZOOM, 0, "d", "details full screen (Esc returns)"},
	{KV_ALL,
	 {'s', KEY_F(9)},
	 KA_SNAPSHOT,
	 0,
	 "s  F9",
	 "write a snapshot of the node (JSON; asks first)"},
	{KV_ALL,
	 {KEY_F(6)},
	 KA_CREATE,
	 0,
	 "F6 / F7 / F8",
	 "create VFs on the PF / rename the VF / set its GUIDs"},
	{KV_ALL, {KEY_F(7)}, KA_RENAME, 0, NULL, NULL},
	{KV_ALL, {KEY_F(8)}, KA_GUID, 0, NULL, NULL},
	{TREE,
	 {'X'},
	 KA_DESTROY,
	 0,
	 "tree: X / e",
	 "destroy the PF's VFs / set the VF's link state"},
	{TREE, {'e'}, KA_LINK_STATE, 0, NULL, NULL},
	{KV_ALL, {0}, KA_N, 0, "", "(a preview first; while it applies, Esc stops waiting)"},
	{TREE,
	 {'P'},
	 KA_PERSIST,
	 0,
	 "tree: P",
	 "persist: .link files and the boot unit (a preview)"},
	{KV_ALL,
	 {'\t'},
	 KA_NEXT_VIEW,
	 0,
	 "Tab 1-7",
	 "views: 1 Tree, 2 Checks, 3 Bench, 4 Journal, 5 Kernel log,"},
	{KV_ALL, {0}, KA_N, 0, "", "       6 Timeline (the node's recorded history),"},
	{KV_ALL, {0}, KA_N, 0, "", "       7 Topology (GPUs and HCAs, as nvidia-smi topo -m)"},
	{KV_ALL, {'1'}, KA_VIEW, VIEW_TREE, NULL, NULL},
	{KV_ALL, {'2'}, KA_VIEW, VIEW_CHECKS, NULL, NULL},
	{KV_ALL, {'3'}, KA_VIEW, VIEW_BENCH, NULL, NULL},
	{KV_ALL, {'4'}, KA_VIEW, VIEW_JOURNAL, NULL, NULL},
	{KV_ALL, {'5'}, KA_VIEW, VIEW_KMSG, NULL, NULL},
	{KV_ALL, {'6'}, KA_VIEW, VIEW_TIMELINE, NULL, NULL},
	{KV_ALL, {'7'}, KA_VIEW, VIEW_TOPO, NULL, NULL},
	{CHECKS,
	 {'\n', '\r', KEY_ENTER},
	 KA_FINDING,
	 0,
	 "checks: Enter",
	 "unfold a problem / open a finding; Enter again: fold / its row"},
	{CHECKS, {'t'}, KA_JUMP, 0, "checks: t", "go to the finding's PF or VF in the tree"},
	{CHECKS,
	 {'f'},
	 KA_FIX,
	 0,
	 "checks: f",
	 "fix: preview the remedy (a group's one), or show manual steps"},
	{KV_ALL, {'L'}, KA_KMSG, 0, "L", "the kernel log (from a finding: at its line)"},
	{KV_ALL,
	 {'T'},
	 KA_TIMELINE,
	 0,
	 "T",
	 "the selected PF's or VF's history (T or Esc: back to it)"},
	{TIMELINE,
	 {'f'},
	 KA_FILTER,
	 0,
	 "timeline: f r",
	 "filter: kinds, PCI addresses, names, any text / read again"},
	{TIMELINE, {'r'}, KA_RELOAD, 0, NULL, NULL},
	{JOURNAL,
	 {'\n', '\r', KEY_ENTER, ' '},
	 KA_ENTRY_STEPS,
	 0,
	 "Enter u r",
	 "journal: steps or changes / undo the entry / read again"},
	{JOURNAL, {'u'}, KA_ENTRY_UNDO, 0, NULL, NULL},
	{JOURNAL, {'r'}, KA_RELOAD, 0, NULL, NULL},
	{BENCH,
	 {KEY_UP, 'k', KEY_BTAB},
	 KA_FIELD_PREV,
	 0,
	 "bench: Up/Down",
	 "the form's field (j/k)"},
	{BENCH, {KEY_DOWN, 'j'}, KA_FIELD_NEXT, 0, NULL, NULL},
	{BENCH,
	 {KEY_LEFT, 'h'},
	 KA_VALUE_PREV,
	 0,
	 "bench: Left/Right",
	 "the field's value (h/l, Space)"},
	{BENCH, {KEY_RIGHT, 'l', ' '}, KA_VALUE_NEXT, 0, NULL, NULL},
	{BENCH,
	 {'\n', '\r', KEY_ENTER},
	 KA_RUN,
	 0,
	 "bench: Enter",
	 "run (Esc stops it; PgUp/PgDn scroll the runs)"},
	{KV_ALL, {KEY_MOUSE}, KA_MOUSE, 0, "mouse", "click selects, wheel scrolls"},
	{KV_ALL, {12}, KA_REDRAW, 0, "Ctrl-L", "redraw the screen"},
	{KV_ALL, {27}, KA_BACK, 0, "Esc", "back: from the details, a view, a prompt"},
	{KV_ALL, {'?', KEY_F(1)}, KA_HELP, 0, "?  F1", "this help"},
	{KV_ALL, {'q', KEY_F(10)}, KA_QUIT, 0, "q  F10", "quit"},
};
const size_t keys_n = sizeof(keys_table) / sizeof(keys_table[0]);

const struct console_cmd_def console_cmds[CC_N] = {
	[CC_BENCH] = {"bench", "bench [all|BDF|IBDEV]"},
	[CC_CREATE] = {"create", "create N"},
	[CC_DESTROY] = {"destroy", "destroy"},
	[CC_FILTER] = {"filter", "filter TEXT"},
	[CC_GUID] = {"guid", "guid [--node G] [--port G] | guid --assign-all [PREFIX]"},
	[CC_HELP] = {"help", "help"},
	[CC_JOURNAL] = {"journal", "journal"},
	[CC_PERSIST] = {"persist", "persist [IBVF-PATH]"},
	[CC_QUIT] = {"quit", "quit"},
	[CC_RENAME] = {"rename", "rename NAME | rename --all [SCHEME]"},
	[CC_SNAPSHOT] = {"snapshot", "snapshot [FILE]"},
	[CC_STATE] = {"state", "state auto|enable|disable"},
	[CC_THEME] = {"theme", "theme NAME|PATH"},
	[CC_TIMELINE] = {"timeline", "timeline [DEV|all]"},
};

int console_cmd_find(const char *s, size_t len)
{
	for (int i = 0; i < CC_N; i++)
		if (strlen(console_cmds[i].name) == len && !strncmp(console_cmds[i].name, s, len))
			return i;
	return -1;
}

static const struct key_binding *find(unsigned int views, int key)
{
	for (size_t i = 0; i < keys_n; i++) {
		const struct key_binding *b = &keys_table[i];
		if (b->views != views)
			continue;
		for (int k = 0; k < KEYS_PER_BINDING && b->keys[k]; k++)
			if (b->keys[k] == key)
				return b;
	}
	return NULL;
}

const struct key_binding *keys_find(enum console_view view, int key)
{
	const struct key_binding *b = find(KV(view), key);
	return b ? b : find(KV_ALL, key);
}

size_t keys_help(char (*ret)[96], size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < keys_n && n < max; i++)
		if (keys_table[i].label)
			snprintf(ret[n++], sizeof(ret[0]), "%-17s %s", keys_table[i].label,
				 keys_table[i].help);
	if (n < max)
		snprintf(ret[n++], sizeof(ret[0]), "%s", "");
	/* "commands: USAGE, USAGE, ..." filled to 78 columns */
	char line[80] = "commands:";
	for (int i = 0; i < CC_N && n < max; i++) {
		const char *u = console_cmds[i].usage;
		size_t len = strlen(line);
		if (len + 2 + strlen(u) + 1 > 78) {
			snprintf(ret[n++], sizeof(ret[0]), "%s,", line);
			snprintf(line, sizeof(line), "  %s", u);
		} else {
			snprintf(line + len, sizeof(line) - len, "%s%s", i ? ", " : " ", u);
		}
	}
	if (n < max)
		snprintf(ret[n++], sizeof(ret[0]), "%s", line);
	if (n < max)
		snprintf(ret[n++], sizeof(ret[0]), "%s",
			 "  (--force after one: act on a VF bound to a pod)");
	return n;
}
