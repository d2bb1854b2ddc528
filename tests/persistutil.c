// SPDX-License-Identifier: MIT
#include "persistutil.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

char *pu_slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	ck_assert_ptr_nonnull(buf);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

char *pu_host(const char *dir, const char *path)
{
	char *host;
	ck_assert_int_gt(asprintf(&host, "%s%s", dir, path), 0);
	return host;
}

char *pu_install(const char *dir)
{
	char *host = pu_host(dir, "/usr/sbin/ibvf");
	pu_install_at(host);
	free(host);
	return strdup("/usr/sbin/ibvf");
}

void pu_install_at(const char *path)
{
	const char *bin = getenv("IBVF_BIN");
	ck_assert_msg(bin && *bin, "IBVF_BIN is not set");
	FILE *in = fopen(bin, "rb"), *out = fopen(path, "wb");
	ck_assert(in && out);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

int pu_run(const char *dir, const char *const *argv, char **ret_out, char **ret_err)
{
	const char *full[32];
	char sim[4096];
	size_t n = 0;
	snprintf(sim, sizeof(sim), "--sim=%s", dir);
	full[n++] = sim;
	for (; *argv && n < 31; argv++)
		full[n++] = *argv;
	full[n] = NULL;
	return tu_run(full, ret_out, ret_err);
}
