// SPDX-License-Identifier: MIT
/* Name rules and the naming policy (naming.h). */
#include "naming.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"

bool naming_kernel_form(const char *name)
{
	size_t pre = !strncmp(name, "ib", 2) ? 2 : !strncmp(name, "eth", 3) ? 3 : 0;
	if (!pre || !name[pre])
		return false;
	for (const char *c = name + pre; *c; c++)
		if (!isdigit((unsigned char)*c))
			return false;
	return true;
}

int naming_check(const char *name, bool kernel_ok, struct err *e)
{
	size_t len = strlen(name);
	if (len == 0)
		return err_setx(e, EINVAL, "invalid interface name '': it is empty");
	/* Quoted escaped: the name may be a node's, with ESC in it. */
	for (size_t i = 0; i < len; i++)
		if (!isprint((unsigned char)name[i]) || name[i] == ' ' || name[i] == '\t') {
			char shown[68];
			escape_term_into(shown, sizeof(shown), name);
			return err_setx(e, EINVAL,
					"invalid interface name '%s': byte %zu is a space or not "
					"printable ASCII",
					shown, i + 1);
		}
	if (len > SYS_IFNAMSIZ - 1)
		return err_setx(e, EINVAL,
				"invalid interface name '%.64s%s': %zu bytes, a name has 1 to %d",
				name, len > 64 ? "..." : "", len, SYS_IFNAMSIZ - 1);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return err_setx(e, EINVAL,
				"invalid interface name '%s': '.' and '..' are not names", name);
	for (const char *c = name; *c; c++) {
		unsigned char ch = (unsigned char)*c;
		if (ch == '%')
			return err_setx(
				e, EINVAL,
				"invalid interface name '%s': '%%' makes it a kernel template "
				"(ib%%d), not a name",
				name);
		if (ch == '/' || ch == ':' || isspace(ch) || !isprint(ch))
			return err_setx(
				e, EINVAL,
				"invalid interface name '%s': no '/', ':', spaces or control "
				"characters",
				name);
	}
	if (!kernel_ok && naming_kernel_form(name))
		return err_setx(
			e, EINVAL,
			"refusing '%s': a kernel name (ibN, ethN) is handed out again by the "
			"kernel at the next probe and can collide after a reboot; --force to "
			"use it anyway",
			name);
	return 0;
}

static const char *digits(const char *q)
{
	while (*q >= '0' && *q <= '9')
		q++;
	return q;
}

/* The length of name without a trailing systemd port suffix: after a path
 * or slot name (en|ib|..[P<d>](p<b>s<s>|s<s>|o<n>)[f<f>]), "n<port>" or
 * "d<dev_port>". Other names are kept whole. */
static size_t parent_len(const char *name)
{
	size_t len = strlen(name);
	if (len < 4 || !((name[0] >= 'a' && name[0] <= 'z') && (name[1] >= 'a' && name[1] <= 'z')))
		return len;
	const char *q = name + 2, *d;
	if (*q == 'P' && (d = digits(q + 1)) > q + 1)
		q = d;
	if (*q == 'p' && (d = digits(q + 1)) > q + 1 && *d == 's')
		q = d;
	if ((*q == 's' || *q == 'o') && (d = digits(q + 1)) > q + 1)
		q = d;
	else
		return len;
	if (*q == 'f' && (d = digits(q + 1)) > q + 1)
		q = d;
	if ((*q == 'n' && q[1]) || (*q == 'd' && q[1] && !*digits(q + 1)))
		return (size_t)(q - name);
	return len;
}

/* Expands scheme for one VF into buf (which may not fit: the length is
 * returned, as snprintf does), or -EINVAL/-ENODEV with e. */
static int expand(const char *scheme, const struct pf *pf, const struct vf *vf, char *buf,
		  size_t size, struct err *e)
{
	unsigned int dom = 0, bus = 0, slot = 0, fn = 0;
	bool pci = sscanf(pf->fn.bdf, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) == 4;
	size_t len = 0;
	buf[0] = '\0';
	for (const char *p = scheme; *p; p++) {
		char piece[64];
		if (*p != '%') {
			piece[0] = *p;
			piece[1] = '\0';
		} else {
			p++;
			if (*p == 'n' || *p == 'p') {
				if (!pf->fn.n_netdevs)
					return err_setx(e, ENODEV,
							"VF %u of %s (%s): its PF has no netdev "
							"to take the name from (%%%c)",
							vf->index, pf->fn.bdf, vf->fn.bdf, *p);
				const char *pn = pf->fn.netdevs[0].name;
				if (naming_kernel_form(pn))
					return err_setx(e, EINVAL,
							"VF %u of %s (%s): its PF has the kernel "
							"name '%s', which moves with probe order; "
							"give the PF a stable name or use a scheme "
							"of %%b, %%s and %%f",
							vf->index, pf->fn.bdf, vf->fn.bdf, pn);
				snprintf(piece, sizeof(piece), "%.*s",
					 (int)(*p == 'p' ? parent_len(pn) : strlen(pn)), pn);
			} else if (*p == 'i') {
				snprintf(piece, sizeof(piece), "%u", vf->index);
			} else if (!pci) {
				return err_setx(e, EINVAL, "VF %s: its PF '%s' is no PCI address",
						vf->fn.bdf, pf->fn.bdf);
			} else {
				unsigned int v = *p == 'D'   ? dom
						 : *p == 'b' ? bus
						 : *p == 's' ? slot
							     : fn;
				snprintf(piece, sizeof(piece), "%u", v);
			}
		}
		size_t pl = strlen(piece);
		if (len + pl < size)
			memcpy(buf + len, piece, pl + 1);
		len += pl;
	}
	return (int)(len > 4096 ? 4096 : len);
}

int naming_scheme_check(const char *scheme, struct err *e)
{
	bool idx = false;
	if (!scheme || !*scheme)
		return 0;
	if (strlen(scheme) >= NAMING_SCHEME_MAX)
		return err_setx(e, EINVAL, "invalid scheme: more than %d bytes",
				NAMING_SCHEME_MAX - 1);
	for (const char *p = scheme; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch != '%') {
			if (ch == '/' || ch == ':' || isspace(ch) || !isprint(ch))
				return err_setx(e, EINVAL,
						"invalid scheme '%s': no '/', ':', spaces or "
						"control characters",
						scheme);
			continue;
		}
		p++;
		if (!*p || !strchr("pnDbsfi", *p))
			return err_setx(
				e, EINVAL,
				"invalid scheme '%s': unknown token '%%%.1s' (%%p %%n PF name, "
				"%%D %%b %%s %%f PF PCI domain/bus/slot/function, %%i VF "
				"index)",
				scheme, *p ? p : "");
		idx |= *p == 'i';
	}
	if (!idx)
		return err_setx(
			e, EINVAL,
			"invalid scheme '%s': it has no %%i, so the VFs of a PF would share "
			"one name",
			scheme);
	return 0;
}

int naming_vf_name(const char *scheme, const struct pf *pf, const struct vf *vf,
		   char ret[SYS_IFNAMSIZ], struct err *e)
{
	char buf[128];
	int r;
	if (!scheme || !*scheme)
		scheme = NAMING_DEFAULT_SCHEME;
	if ((r = naming_scheme_check(scheme, e)) < 0)
		return r;
	if ((r = expand(scheme, pf, vf, buf, sizeof(buf), e)) < 0)
		return r;
	/* A PF's name is the kernel's to allow: nothing unprintable is quoted. */
	for (const char *c = buf; *c; c++)
		if (!isprint((unsigned char)*c))
			return err_setx(
				e, EINVAL,
				"VF %u of %s (%s): the scheme '%s' gives a name with a byte "
				"that is not printable ASCII",
				vf->index, pf->fn.bdf, vf->fn.bdf, scheme);
	if (r > SYS_IFNAMSIZ - 1)
		return err_setx(
			e, EINVAL,
			"VF %u of %s (%s): the scheme '%s' gives '%s', %d bytes; a name has "
			"at most %d",
			vf->index, pf->fn.bdf, vf->fn.bdf, scheme, buf, r, SYS_IFNAMSIZ - 1);
	struct err ce;
	if (naming_check(buf, false, &ce) < 0)
		return err_setx(e, EINVAL, "VF %u of %s (%s): the scheme '%s' gives '%s': %s",
				vf->index, pf->fn.bdf, vf->fn.bdf, scheme, buf,
				naming_kernel_form(buf) ? "a kernel name (ibN, ethN)" : ce.msg);
	memcpy(ret, buf, (size_t)r + 1);
	return 0;
}

int naming_node(const struct node *n, const char *scheme, struct naming_entry **ret, size_t *ret_n,
		struct err *e)
{
	size_t total = 0, k = 0;
	int r;
	if ((r = naming_scheme_check(scheme, e)) < 0)
		return r;
	for (size_t i = 0; i < n->n_pfs; i++)
		total += n->pfs[i].n_vfs;
	struct naming_entry *v = calloc(total + 1, sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "cannot name the VFs");
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++, k++) {
			struct naming_entry *x = &v[k];
			struct err ve = {{0}};
			x->pf = &n->pfs[i];
			x->vf = &n->pfs[i].vfs[j];
			if (naming_vf_name(scheme, x->pf, x->vf, x->name, &ve) < 0)
				snprintf(x->error, sizeof(x->error), "%.199s", ve.msg);
		}
	/* Two VFs, one name: the scheme does not tell them apart. */
	for (size_t a = 0; a < total; a++)
		for (size_t b = a + 1; v[a].name[0] && b < total; b++)
			if (!strcmp(v[a].name, v[b].name)) {
				r = err_setx(e, EEXIST,
					     "the scheme '%s' gives VF %u of %s (%s) and VF %u of "
					     "%s (%s) the same name '%s'",
					     scheme && *scheme ? scheme : NAMING_DEFAULT_SCHEME,
					     v[a].vf->index, v[a].pf->fn.bdf, v[a].vf->fn.bdf,
					     v[b].vf->index, v[b].pf->fn.bdf, v[b].vf->fn.bdf,
					     v[a].name);
				free(v);
				return r;
			}
	*ret = v;
	*ret_n = total;
	return 0;
}

int naming_check_ifname(const char *name, struct err *e)
{
	return naming_check(name, true, e);
}

int naming_parse_prefix(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	int digits = 0;
	const char *p = s;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; *p; p++, digits++) {
			int c = *p;
			int d = c >= '0' && c <= '9'   ? c - '0'
				: c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10
						       : -1;
			if (d < 0 || digits == 10)
				return -EINVAL;
			v = v << 4 | (uint64_t)d;
		}
		if (digits != 10)
			return -EINVAL;
	} else {
		unsigned int b[5];
		int used = 0;
		if (sscanf(s, "%2x:%2x:%2x:%2x:%2x%n", &b[0], &b[1], &b[2], &b[3], &b[4], &used) !=
			    5 ||
		    (size_t)used != strlen(s) || strlen(s) != 14)
			return -EINVAL;
		for (int i = 0; i < 5; i++)
			v = v << 8 | b[i];
	}
	*ret = v;
	return 0;
}

int naming_scheme_guid(const struct pf *pf, unsigned int vf, bool has_prefix, uint64_t prefix,
		       uint64_t *ret)
{
	unsigned int dom, bus, dev, fn;
	if (has_prefix) {
		if (vf > 0xff || sscanf(pf->fn.bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
			return -ERANGE;
		*ret = (prefix & 0xffffffffffULL) << 24 | (uint64_t)(bus & 0xff) << 16 |
		       (uint64_t)((dev << 3 | fn) & 0xff) << 8 | vf;
		return 0;
	}
	if (vf > 0xffff || !pf->fn.n_rdmas || !pf->fn.rdmas[0].node_guid.known ||
	    !pf->fn.rdmas[0].node_guid.v)
		return -ENODATA;
	*ret = 0x02ULL << 56 | (pf->fn.rdmas[0].node_guid.v & 0xffffffffffULL) << 16 | vf;
	return 0;
}
