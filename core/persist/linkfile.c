// SPDX-License-Identifier: MIT
/* systemd .link files (systemd.link(5), docs/kernel.md): read from the
 * node's systemd/network directories in systemd's order, and matched to a
 * netdev as udev's net_setup_link does, to tell whether its name is pinned. */
#include "linkfile.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sys/sys.h"

/* Highest precedence first: a file name met earlier masks later ones. */
static const char *const link_dirs[] = {
	"/etc/systemd/network",	    "/run/systemd/network", "/usr/local/lib/systemd/network",
	"/usr/lib/systemd/network", "/lib/systemd/network",
};

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct parse {
	struct link_file *lf;
	bool nomem;
};

/* A match list as systemd keeps it: words separated by whitespace; a list
 * that starts with "!" is negated word by word ("!a b" is "!a", "!b"); an
 * empty value empties the list. */
static void list_add(struct parse *p, char ***v, size_t *n, const char *value)
{
	while (isspace((unsigned char)*value))
		value++;
	if (!*value) {
		strv_free(*v, *n);
		*v = NULL;
		*n = 0;
		return;
	}
	bool invert = *value == '!';
	value += invert;
	const char *w = value;
	while (*w && *n < LINKFILE_LIST_MAX) {
		while (isspace((unsigned char)*w))
			w++;
		size_t len = strcspn(w, " \t\r\n");
		if (!len)
			break;
		char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
		char *word = malloc(len + 2);
		if (!nv || !word) {
			free(word);
			if (nv)
				*v = nv;
			p->nomem = true;
			return;
		}
		*v = nv;
		snprintf(word, len + 2, "%s%.*s", invert ? "!" : "", (int)len, w);
		nv[(*n)++] = word;
		w += len;
	}
}

static void set_str(struct parse *p, char **dst, const char *value)
{
	free(*dst);
	*dst = NULL;
	if (*value && !(*dst = strdup(value)))
		p->nomem = true;
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
	struct parse *p = user;
	struct link_file *lf = p->lf;
	if (!strcmp(section, "Match")) {
		if (!strcmp(key, "Path"))
			list_add(p, &lf->match_path, &lf->n_match_path, value);
		else if (!strcmp(key, "OriginalName"))
			list_add(p, &lf->match_original_name, &lf->n_match_original_name, value);
		else if (!strcmp(key, "MACAddress"))
			list_add(p, &lf->match_mac, &lf->n_match_mac, value);
		else if (!strcmp(key, "PermanentMACAddress"))
			list_add(p, &lf->match_permanent_mac, &lf->n_match_permanent_mac, value);
		else if (!strcmp(key, "Driver"))
			list_add(p, &lf->match_driver, &lf->n_match_driver, value);
		else if (*value)
			lf->match_other = true; /* Property=, Type=, Kind=, Host=, ... */
	} else if (!strcmp(section, "Link")) {
		if (!strcmp(key, "Name"))
			set_str(p, &lf->name, value);
		else if (!strcmp(key, "NamePolicy"))
			set_str(p, &lf->name_policy, value);
	}
	return 1; /* go on: systemd skips what it does not know */
}

int linkfile_parse(const char *path, const char *text, struct link_file *lf)
{
	*lf = (struct link_file){0};
	struct parse p = {.lf = lf};
	if (!(lf->path = strdup(path)))
		return -ENOMEM;
	ini_parse_string(text, on_key, &p); /* a line it cannot parse is skipped */
	if (p.nomem) {
		linkfile_fini(lf);
		return -ENOMEM;
	}
	return 0;
}

struct name_entry {
	char *name; /* file name */
	const char *dir;
	bool masked;
};

static bool is_link_name(const char *name)
{
	size_t len = strlen(name);
	return len > 5 && len < 256 && !strcmp(name + len - 5, ".link") && name[0] != '.';
}

/* Adds the names of dir not seen yet (a name seen in an earlier directory
 * masks this one). */
static int names_add(struct sys *s, const char *dir, struct name_entry **v, size_t *n)
{
	char **names;
	size_t nn;
	if (sys_list(s, dir, &names, &nn) < 0)
		return 0;
	int r = 0;
	for (size_t i = 0; i < nn && r == 0 && *n < LINKFILE_FILES_MAX * 2; i++) {
		if (!is_link_name(names[i]))
			continue;
		bool seen = false;
		for (size_t j = 0; j < *n && !seen; j++)
			seen = !strcmp((*v)[j].name, names[i]);
		if (seen)
			continue;
		struct name_entry *nv = realloc(*v, (*n + 1) * sizeof(*nv));
		if (!nv) {
			r = -ENOMEM;
			break;
		}
		*v = nv;
		char path[512], target[64];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		int l = sys_readlink(s, path, target, sizeof(target));
		nv[*n] = (struct name_entry){.name = names[i], .dir = dir};
		nv[*n].masked = l > 0 && !strcmp(target, "/dev/null");
		names[i] = NULL; /* now owned by the entry */
		(*n)++;
	}
	sys_list_free(names, nn);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct name_entry *)a)->name, ((const struct name_entry *)b)->name);
}

static int read_one(struct sys *s, const struct name_entry *ne, struct link_file *lf, bool *ok)
{
	char path[512], *text;
	snprintf(path, sizeof(path), "%s/%s", ne->dir, ne->name);
	*ok = false;
	if (sys_read_file(s, path, LINKFILE_SIZE_MAX, &text, NULL) < 0)
		return 0; /* unreadable or too large: udev would not apply it either */
	int r = linkfile_parse(path, text, lf);
	free(text);
	*ok = r == 0;
	return r;
}

int linkfile_read_all(struct sys *s, struct link_file **ret, size_t *ret_n)
{
	struct name_entry *names = NULL;
	size_t nn = 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < sizeof(link_dirs) / sizeof(*link_dirs); i++)
		r = names_add(s, link_dirs[i], &names, &nn);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_entry);
	struct link_file *v = NULL;
	size_t n = 0;
	for (size_t i = 0; r == 0 && i < nn && n < LINKFILE_FILES_MAX; i++) {
		if (names[i].masked)
			continue;
		struct link_file *nv = realloc(v, (n + 1) * sizeof(*nv));
		if (!nv) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		bool ok;
		r = read_one(s, &names[i], &v[n], &ok);
		n += ok;
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i].name);
	free(names);
	if (r < 0) {
		linkfile_free_all(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* systemd's list test: any positive word matching, and no negated one; a
 * list of negated words alone matches whatever they do not name, and an
 * unknown value (NULL) only such a list. */
static bool list_test(char *const *v, size_t n, const char *value,
		      bool (*eq)(const char *pattern, const char *value))
{
	bool match = false, positive = false;
	if (!n)
		return true;
	for (size_t i = 0; i < n; i++) {
		const char *pat = v[i];
		bool invert = *pat == '!';
		pat += invert;
		positive |= !invert;
		if (value && eq(pat, value)) {
			if (invert)
				return false;
			match = true;
		}
	}
	return positive ? match : true;
}

static bool glob_eq(const char *pattern, const char *value)
{
	/* A pattern without *, ?, [ or \\ matches only itself. */
	if (!strpbrk(pattern, "*?[\\"))
		return !strcmp(pattern, value);
	return fnmatch(pattern, value, 0) == 0;
}

/* Hardware addresses are compared as their hex digits: "AA:BB" is "aa-bb". */
static bool mac_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a == ':' || *a == '-' || *a == '.')
			a++;
		while (*b == ':' || *b == '-' || *b == '.')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (tolower((unsigned char)*a++) != tolower((unsigned char)*b++))
			return false;
	}
}

static const struct netdev *fn_netdev(const struct fn *fn, const char *ifname)
{
	for (size_t i = 0; fn && ifname && i < fn->n_netdevs; i++)
		if (fn->netdevs[i].name && !strcmp(fn->netdevs[i].name, ifname))
			return &fn->netdevs[i];
	return fn && fn->n_netdevs == 1 ? &fn->netdevs[0] : NULL;
}

bool linkfile_matches(const struct link_file *lf, const struct fn *fn, const char *ifname)
{
	if (!lf->n_match_path && !lf->n_match_original_name && !lf->n_match_mac &&
	    !lf->n_match_permanent_mac && !lf->n_match_driver && !lf->match_other)
		return false; /* "No valid settings found in the [Match] section, ignoring file" */
	char id_path[4 + sizeof(fn->bdf)] = "";
	if (fn && fn->bdf[0]) { /* "pci-<bdf>" */
		memcpy(id_path, "pci-", 4);
		memcpy(id_path + 4, fn->bdf, strnlen(fn->bdf, sizeof(fn->bdf) - 1));
	}
	const struct netdev *nd = fn_netdev(fn, ifname);
	const char *mac = nd ? nd->address : NULL;
	/* udev's ID_NET_DRIVER: the driver of the netdev's device. */
	return list_test(lf->match_path, lf->n_match_path, *id_path ? id_path : NULL, glob_eq) &&
	       list_test(lf->match_original_name, lf->n_match_original_name, ifname, glob_eq) &&
	       list_test(lf->match_driver, lf->n_match_driver, fn ? fn->driver : NULL, glob_eq) &&
	       list_test(lf->match_mac, lf->n_match_mac, mac, mac_eq) &&
	       list_test(lf->match_permanent_mac, lf->n_match_permanent_mac, mac, mac_eq);
}
