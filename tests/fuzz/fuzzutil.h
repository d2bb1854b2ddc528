/* SPDX-License-Identifier: MIT */
/* What the fuzz targets share: a private scratch root per process (for the
 * parsers that only read files under a node's root), and writing an input
 * into it. The root is removed when the process exits normally. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The process's scratch root (mkdtemp under $TMPDIR, else /dev/shm,
 * else /tmp), made on the
 * first call; aborts when it cannot be made: a target without it tests
 * nothing. */
const char *fuzz_root(void);
/* Writes len bytes of data to root/rel (rel as on the node, "/var/..."),
 * making its directories; aborts on failure. */
void fuzz_write(const char *root, const char *rel, const uint8_t *data, size_t len);
/* Removes root/rel if present. */
void fuzz_unlink(const char *root, const char *rel);
/* A NUL-terminated malloc'd copy of data (aborts on ENOMEM). */
char *fuzz_strndup(const uint8_t *data, size_t len);
/* The next field of *data (up to a NUL byte or the end) as a NUL-terminated
 * malloc'd string; advances past the NUL. */
char *fuzz_field(const uint8_t **data, size_t *len);
/* Aborts with a one-line message: an oracle failed (libFuzzer saves the input). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
