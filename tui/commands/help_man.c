// SPDX-License-Identifier: MIT
/* `ibvf help --man`: ibvf(1) in man(7), rendered at build time from the
 * command table, so the page cannot say other than the program: each
 * command's usage and prose, its options from its option table (opts.h:
 * the term in bold, the placeholder in italics, the subcommands that take
 * it, its help) and the global options it takes; the global options' own
 * table. Prose is plain text in columns: an item ("  create PF N   what it
 * does", its continuation indented deeper) becomes a .TP paragraph, the rest
 * filled text. The sections the table has no words for (files, exit status,
 * environment, examples) are written here. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/base/cli.h"
#include "help_gen.h"

struct roff {
	FILE *f;
	bool fresh;   /* nothing written since the last heading */
	bool para;    /* a blank line was seen: the next text starts a paragraph */
	bool in_item; /* inside a .TP paragraph */
};

/* Text with roff's specials escaped: '\' as \e, '-' as \- (a minus, as in
 * options, not a hyphen that may break). */
static void roff_escape(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

/* One input line of text; a leading '.' or '\'' would be a request. */
static void roff_line(FILE *f, const char *s, size_t n)
{
	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	roff_escape(f, s, n);
	fputc('\n', f);
}

static bool is_placeholder(const char *w, size_t n)
{
	bool letter = false;
	for (size_t i = 0; i < n; i++) {
		if ((w[i] >= 'A' && w[i] <= 'Z'))
			letter = true;
		else if (!(w[i] == '_' || (w[i] >= '0' && w[i] <= '9')))
			return false;
	}
	return letter;
}

/* An item's term: options in bold, placeholders (FILE, PF) in italics. */
static void roff_term(FILE *f, const char *s, size_t n)
{
	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && s[j] != ' ')
			j++;
		const char *font = s[i] == '-'			  ? "\\fB"
				   : is_placeholder(s + i, j - i) ? "\\fI"
								  : NULL;
		if (font)
			fputs(font, f);
		roff_escape(f, s + i, j - i);
		if (font)
			fputs("\\fR", f);
		for (; j < n && s[j] == ' '; j++)
			fputc(' ', f);
		i = j;
	}
	fputc('\n', f);
}

static void roff_heading(struct roff *r, const char *macro, const char *title)
{
	fprintf(r->f, ".%s ", macro);
	roff_line(r->f, title, strlen(title));
	r->fresh = true;
	r->para = r->in_item = false;
}

/* Before a line of filled text: a paragraph break when one is due. */
static void roff_para(struct roff *r, bool leave_item)
{
	if ((r->para || (leave_item && r->in_item)) && !r->fresh)
		fputs(".PP\n", r->f);
	if (leave_item)
		r->in_item = false;
	r->para = r->fresh = false;
}

static size_t indent_of(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	return i;
}

/* Plain help text in columns into roff, as the header comment says. */
static void roff_help(struct roff *r, const char *text)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *next = nl ? nl + 1 : p + n;
		size_t in = indent_of(p, n), nnext = strcspn(next, "\n");
		const char *body = p + in, *gap;
		size_t blen = n - in;
		if (blen == 0) {
			r->para = true;
		} else if (in == 0) {
			roff_para(r, true);
			roff_line(r->f, body, blen);
		} else if (in <= 2 && (gap = strstr(body, "  ")) && gap < p + n) {
			const char *desc = gap;
			while (*desc == ' ')
				desc++;
			fputs(".TP\n", r->f);
			roff_term(r->f, body, (size_t)(gap - body));
			roff_line(r->f, desc, (size_t)(p + n - desc));
			r->in_item = true;
			r->para = r->fresh = false;
		} else if (in <= 2 && nnext && indent_of(next, nnext) > in + 2) {
			fputs(".TP\n", r->f);
			roff_term(r->f, body, blen);
			r->in_item = true;
			r->para = r->fresh = false;
		} else {
			roff_para(r, in <= 2);
			roff_line(r->f, body, blen);
		}
		p = next;
	}
}

/* Lines of text unfilled (a usage block), without a leading "usage: ". */
static void roff_nofill(struct roff *r, const char *text)
{
	if (!strncmp(text, "usage: ", 7))
		text += 7;
	fputs(".nf\n", r->f);
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		roff_line(r->f, p, n);
		p += n + (p[n] == '\n');
	}
	fputs(".fi\n", r->f);
	r->fresh = false;
}

/* An option of a table as a .TP paragraph: "-d, --dev DEV" with the names
 * in bold and the placeholder in italics; the subcommands that take it
 * (when not all do) and its help, filled. */
static void roff_option(struct roff *r, const struct cmd *cmd, const struct opt *o)
{
	FILE *f = r->f;
	char tag[128];
	fputs(".TP\n", f);
	if (o->short_name)
		fprintf(f, "\\fB\\-%c\\fR%s", o->short_name, o->long_name ? ", " : "");
	if (o->long_name) {
		fputs("\\fB\\-\\-", f);
		roff_escape(f, o->long_name, strlen(o->long_name));
		fputs("\\fR", f);
	}
	if (o->arg) {
		fputs(o->kind == OPT_OPTIONAL ? "[=\\fI" : " \\fI", f);
		roff_escape(f, o->arg, strlen(o->arg));
		fputs(o->kind == OPT_OPTIONAL ? "\\fR]" : "\\fR", f);
	}
	fputc('\n', f);
	opts_subs_tag(cmd, o, tag, sizeof(tag));
	if (*tag)
		fprintf(f, "%s:\n", tag);
	for (const char *p = o->help ? o->help : ""; *p;) {
		size_t n = strcspn(p, "\n");
		roff_line(f, p, n);
		p += n + (p[n] == '\n');
	}
	r->in_item = true;
	r->para = r->fresh = false;
}

/* A table's options and paragraphs, in its order. */
static void roff_options(struct roff *r, const struct cmd *cmd, const struct opt *t)
{
	for (const struct opt *o = t; o && o->kind != OPT_END; o++) {
		if (!opts_shown(o))
			continue;
		if (o->kind == OPT_TEXT)
			roff_help(r, o->help);
		else
			roff_option(r, cmd, o);
	}
}

static const char man_head[] =
	".SH DESCRIPTION\n"
	"ibvf shows and changes the SR\\-IOV virtual functions (VFs) of a node's InfiniBand\n"
	"and RoCE HCAs: the PF \\-> VF tree with netdev and RDMA device names, port states,\n"
	"GUIDs and the pods holding VFs; checks of what is wrong, with evidence and remedy;\n"
	"actions (create VFs, rename, set GUIDs, persist the layout) run as plans that are\n"
	"previewed, verified and journaled; and an RDMA bandwidth and latency benchmark\n"
	"judged against each port's rate.\n"
	".PP\n"
	"The global options go before or after the command.\n"
	"Devices are named by PCI address (full or short), netdev, altname, RDMA device or\n"
	"the pod holding the VF (namespace/name).\n"
	"Without a command, ibvf runs the console when standard input and output are a\n"
	"terminal, else\n"
	".BR list .\n";

static const char man_tail[] =
	".SH FILES\n"
	".TP\n/var/lib/ibvf/journal.jsonl\n"
	"every applied plan, one JSON line each (\\fBibvf journal\\fR, \\fBjournal undo\\fR)\n"
	".TP\n/var/lib/ibvf/bench\\-history.jsonl\n"
	"the results of \\fBbench validate\\fR, compared with the next run\n"
	".TP\n/run/ibvf/lock\n"
	"held while a plan applies: one ibvf changes the node at a time\n"
	".TP\n/var/lib/ibvf/history.db\n"
	"the node's recorded history (\\fBrecord\\fR, \\fBtimeline\\fR); "
	"/run/ibvf/history.lock, its one writer\n"
	".TP\n/etc/systemd/network/70\\-ibvf\\-*.link\n"
	"the .link file per VF that \\fBpersist\\fR writes (VF names by PCI path)\n"
	".TP\n/etc/systemd/system/ibvf\\-sriov.service\n"
	"the boot unit \\fBpersist\\fR writes: driver, VFs, GUIDs, before the kubelet\n"
	".TP\n/usr/share/ibvf/themes/\n"
	"the console's colour themes; \\fI$XDG_CONFIG_HOME\\fR/ibvf/themes/NAME.theme adds\n"
	"one\n"
	".SH EXIT STATUS\n"
	"0 on success; 1 when an action failed (a step or its verification, an\n"
	"interrupted plan, a lock held with \\-\\-no\\-wait) or a benchmark did not pass;\n"
	"2 for a bad argument or a refused action (nothing changed).\n"
	"\\fBcheck\\fR exits as a monitoring plugin does: 0 no findings (or info), 1\n"
	"warnings, 2 critical, 3 when it could not check.\n"
	".SH ENVIRONMENT\n"
	".TP\nNO_COLOR\nset and not empty: the console draws without colours\n"
	".TP\nIBVF_BENCH_KEY_FILE\n"
	"the bench shared secret's file when \\-\\-key is not given\n"
	".TP\nIBVF_SIM_SEED\nthe probe order of a simulated reboot (\\fBdebug reboot\\fR)\n"
	".TP\nXDG_CONFIG_HOME, XDG_CACHE_HOME\n"
	"user themes (ibvf/themes), and the default simulated node (ibvf/sim); unset,\n"
	"\\fI$HOME\\fR/.config and \\fI$HOME\\fR/.cache.\n"
	"Root takes neither them nor HOME under sudo (SUDO_USER set, with or without\n"
	"\\-E), nor when they name a directory of another user (su without \\-, doas):\n"
	"it uses its own home from the password database, ~root/.config/ibvf/themes and\n"
	"~root/.cache/ibvf/sim, never the invoking user's\n"
	".SH EXAMPLES\n"
	"The node's VFs, and what is wrong with them:\n"
	".PP\n.nf\n.RS\nibvf list\nibvf check \\-\\-severity warning\n.RE\n.fi\n"
	".PP\n"
	"Eight VFs on a PF, named and with GUIDs, kept over reboots:\n"
	".PP\n.nf\n.RS\nibvf vf create 18:00.0 8 \\-\\-dry\\-run\n"
	"ibvf vf create 18:00.0 8 \\-\\-yes\nibvf vf rename \\-\\-all \\-\\-yes\n"
	"ibvf vf guid \\-\\-assign\\-all \\-\\-yes\nibvf persist \\-\\-yes\n.RE\n.fi\n"
	".PP\n"
	"Every VF's bandwidth and latency against a peer node running a server:\n"
	".PP\n.nf\n.RS\npeer# ibvf bench server \\-\\-all\\-pfs\n"
	"ibvf bench validate \\-\\-all\\-vfs \\-\\-parallel peer\n.RE\n.fi\n"
	".PP\n"
	"Try it all on a simulated DGX H200, as any user:\n"
	".PP\n.nf\n.RS\nibvf \\-\\-sim list\n.RE\n.fi\n"
	".SH SEE ALSO\n"
	".BR ip (8),\n.BR rdma (8),\n.BR systemd.link (5),\n.BR ibstat (8)\n";

/* The page's date: SOURCE_DATE_EPOCH when the build sets it (reproducible
 * packages), else today. */
static void man_date(char buf[static 16])
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v = sde ? strtoll(sde, &end, 10) : -1;
	time_t t = sde && *sde && !*end && v >= 0 ? (time_t)v : time(NULL);
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(buf, 16, "%Y-%m-%d", &tm))
		snprintf(buf, 16, "1970-01-01");
}

/* What print(f, cmd) prints, unfilled or as a paragraph; -1 out of memory. */
static int roff_printed(struct roff *r, void (*print)(FILE *, const struct cmd *),
			const struct cmd *cmd, bool nofill)
{
	char *text = help_string(print, cmd);
	if (!text)
		return -1;
	if (nofill) {
		roff_nofill(r, text);
	} else {
		r->para = true; /* a paragraph of its own */
		roff_para(r, true);
		roff_line(r->f, text, strcspn(text, "\n"));
	}
	free(text);
	return 0;
}

static int man_commands(struct roff *r)
{
	size_t n;
	const struct cmd *cmds = cmd_table(&n);
	fputs(".PP\nThe commands:\n", r->f);
	for (size_t i = 0; i < n; i++) {
		fprintf(r->f, ".TP\n%s\n", cmds[i].name);
		roff_line(r->f, cmds[i].summary, strlen(cmds[i].summary));
	}
	roff_heading(r, "SH", "COMMANDS");
	for (size_t i = 0; i < n; i++) {
		roff_heading(r, "SS", cmds[i].name);
		if (roff_printed(r, cmd_print_usage, &cmds[i], true) < 0)
			return -1;
		roff_help(r, cmds[i].help);
		roff_options(r, &cmds[i], cmds[i].options);
		if (!(cmds[i].flags & CMD_ANY) &&
		    roff_printed(r, cmd_print_globals, &cmds[i], false) < 0)
			return -1;
	}
	return 0;
}

int help_man(FILE *f)
{
	struct roff r = {.f = f};
	char date[16];
	man_date(date);
	fprintf(f,
		".\\\" ibvf(1): generated by 'ibvf help \\-\\-man' from the command table\n"
		".\\\" (tui/commands/commands.c); change that, not this page.\n"
		".TH IBVF 1 %s \"ibvf %s\" \"User Commands\"\n"
		".SH NAME\n"
		"ibvf \\- SR\\-IOV VF and RDMA port console for InfiniBand GPU nodes\n",
		date, IBVF_VERSION);
	roff_heading(&r, "SH", "SYNOPSIS");
	roff_nofill(&r, CMD_SYNOPSIS);
	fputs(".nf\nibvf help [COMMAND [SUBCOMMAND]]\nibvf COMMAND [SUBCOMMAND] \\-\\-help\n.fi\n",
	      f);
	fputs(man_head, f);
	r.fresh = false;
	if (man_commands(&r) < 0) {
		cli_error("cannot render the man page: out of memory");
		return 1;
	}
	roff_heading(&r, "SH", "OPTIONS");
	roff_options(&r, NULL, cli_globals);
	fputs(man_tail, f);
	return fflush(f) == 0 ? 0 : 1;
}
