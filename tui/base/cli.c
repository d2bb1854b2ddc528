// SPDX-License-Identifier: MIT
/* What the commands share: messages, opening the node the global options
 * name, stray arguments, JSON on stdout. */
#include "cli.h"
#include "userdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/base/escape.h"
#include "core/sim/sim_tree.h"
#include "core/sys/podres.h"
#include "core/sys/sys.h"
#include "text.h"

/* Where cli_error() goes while the console parses a command line: the
 * terminal belongs to curses then (cli_error_capture()). */
static struct err *error_sink;

void cli_error_capture(struct err *e)
{
	error_sink = e;
	if (e)
		e->msg[0] = '\0';
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	if (error_sink) {
		if (!error_sink->msg[0]) { /* the first error says what is wrong */
			va_start(ap, fmt);
			vsnprintf(error_sink->msg, sizeof(error_sink->msg), fmt, ap);
			va_end(ap);
		}
		return;
	}
	/* A message quotes names and files from the node: escaped, as all text. */
	char *raw = NULL, *s = NULL;
	va_start(ap, fmt);
	int r = vasprintf(&raw, fmt, ap);
	va_end(ap);
	if (r < 0 || !(s = text_escape(raw)))
		fputs("ibvf: out of memory\n", stderr);
	else
		fprintf(stderr, "ibvf: %s\n", s);
	free(r < 0 ? NULL : raw);
	free(s);
}

/* The simulated node's default home, per user: $XDG_CACHE_HOME/ibvf/sim
 * (root's own under sudo, userdir.h), else /tmp/ibvf-sim-UID. */
static int default_sim_dir(char *buf, size_t size)
{
	char base[PATH_MAX - 16];
	int n;
	if (userdir_base("XDG_CACHE_HOME", ".cache", base, sizeof(base)) == 0)
		n = snprintf(buf, size, "%s/ibvf/sim", base);
	else
		n = snprintf(buf, size, "/tmp/ibvf-sim-%u", (unsigned)getuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The default directory is made 0700 on first use (its parents as
 * mkdir -p would), and used only while it is still a directory of this
 * user that no one else can write into or read: the simulator writes a
 * journal and state there, and /tmp/ibvf-sim-UID is a predictable name. */
static int private_sim_dir(const char *d, bool *ret_made)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", d);
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			cli_error("cannot make '%s' for the simulated node: %s", p,
				  strerror(errno));
			return -errno;
		}
		*c = '/';
	}
	*ret_made = mkdir(d, 0700) == 0;
	struct stat st;
	if (lstat(d, &st) < 0) {
		cli_error("cannot use '%s' for the simulated node: %s", d, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_error("refusing the simulated node in '%s': it is %s, not a directory", d,
			  S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
		return -ENOTDIR;
	}
	/* The mode is checked and tightened on the directory opened, not on
	 * the name again. */
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int r = -errno;
		cli_error("cannot use '%s' for the simulated node: %s", d, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	int r = 0;
	if (st.st_uid != getuid()) {
		cli_error("refusing the simulated node in '%s': it belongs to uid %u, not to you "
			  "(uid %u)",
			  d, (unsigned)st.st_uid, (unsigned)getuid());
		r = -EPERM;
	} else if (!*ret_made && (st.st_mode & 022)) {
		/* Others could have planted files in it: not used. */
		cli_error("refusing the simulated node in '%s': other users can write into it "
			  "(mode %04o); remove it or give --sim=DIR",
			  d, (unsigned)(st.st_mode & 07777));
		r = -EPERM;
	} else if ((st.st_mode & 077) && fchmod(fd, 0700) < 0) {
		/* New, or readable by others (made 0755 by ibvf before 14):
		 * made private. */
		r = -errno;
		cli_error("cannot make '%s' private: %s", d, strerror(-r));
	}
	close(fd);
	return r;
}

int cli_open(const struct cli *c, struct sys **ret)
{
	struct err e = {{0}};
	int r;
	if (!c->sim) {
		r = sys_open_linux(c->root, ret, &e);
	} else {
		char dir[PATH_MAX];
		const char *d = c->sim_dir;
		if (!d) {
			if (default_sim_dir(dir, sizeof(dir)) < 0) {
				cli_error("cannot place the simulated node: path too long");
				return -ENAMETOOLONG;
			}
			d = dir;
			bool made = false;
			if ((r = private_sim_dir(d, &made)) < 0)
				return r;
			if (made) {
				struct sim_fixture_opts o = {0};
				/* It makes the directory and its parents. */
				if ((r = sim_fixture_create(d, &o, &e)) < 0) {
					cli_error("cannot create the simulated node in '%s': %s", d,
						  r == -ENOMEM || !e.msg[0] ? strerror(-r) : e.msg);
					return r;
				}
			}
		}
		struct sys_sim_params p = {.kernel = c->kernel};
		r = sys_open_sim(d, &p, ret, &e);
	}
	if (r < 0) {
		cli_error("%s", e.msg);
		return r;
	}
	struct podres_opts o = {.socket = c->kubelet_socket, .timeout_ms = c->kubelet_timeout_ms};
	sys_set_podres(*ret, &o);
	return 0;
}

int cli_kubelet_socket(struct cli *c, const char *v)
{
	/* A path on the node, joined to --root's: absolute, and short enough
	 * for a unix socket's address (108 bytes with the NUL). */
	if (v[0] != '/' || strlen(v) >= 108) {
		cli_error("--kubelet-socket: '%s' is not an absolute path of at most 107 bytes", v);
		return -1;
	}
	c->kubelet_socket = v;
	return 0;
}

int cli_kubelet_timeout(struct cli *c, const char *v)
{
	char *end;
	errno = 0;
	long ms = strtol(v, &end, 10);
	if (errno || end == v || *end || ms < 1 || ms > 60000) {
		cli_error("--kubelet-timeout: '%s' is not a number of milliseconds from 1 to 60000",
			  v);
		return -1;
	}
	c->kubelet_timeout_ms = (int)ms;
	return 0;
}

int cli_bad_arg(const char *cmd, const char *arg)
{
	if (arg[0] == '-' && arg[1])
		cli_error("unknown option '%s' (see 'ibvf %s --help')", arg, cmd);
	else
		cli_error("%s takes no arguments, got '%s'", cmd, arg);
	return EXIT_USAGE;
}

void cli_print_json(struct json_object *o)
{
	cli_print_json_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

void cli_print_json_ext(struct json_object *o, int flags)
{
	/* Strings from the node need not be UTF-8; the document must be. */
	char *s = escape_json_text(json_object_to_json_string_ext(o, flags));
	if (s)
		puts(s);
	else
		cli_error("cannot print the JSON: out of memory");
	free(s);
}

int cli_terminal_width(void)
{
	struct winsize ws;
	if (!isatty(STDOUT_FILENO))
		return 0;
	const char *cols = getenv("COLUMNS");
	int n = cols ? atoi(cols) : 0;
	if (n > 0 && n < 10000)
		return n;
	return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 0;
}
