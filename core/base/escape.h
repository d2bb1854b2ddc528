/* SPDX-License-Identifier: MIT */
/* Text from the node made safe for where it goes. A netdev name, a hostname,
 * a firmware string or a file's line is anyone's text: the kernel takes ESC,
 * quotes, '$' and bytes that are not UTF-8 in a name. Three places would act
 * on such text rather than show it, and each has one function here:
 *
 *   a shell command line  escape_shell_*: a word is left as it is when it is
 *                         only letters, digits and -_./:=@%+, ; otherwise it
 *                         is single-quoted ('it'\''s'), as POSIX sh reads
 *                         it; a word with a control character or a byte
 *                         that is not UTF-8 is written $'...' with those
 *                         bytes as \ooo (POSIX.1-2024, bash, zsh, ksh), so
 *                         the line itself holds no control character
 *   a terminal            escape_term_*: C0 controls, DEL and C1 controls
 *                         (U+0080..U+009F) as \xNN, and every byte that is
 *                         not part of valid UTF-8 as \xNN, as `ip` and
 *                         systemd's cescape show them
 *   a JSON document       escape_json_text(): json-c's output made valid
 *                         UTF-8: a byte that is not UTF-8 becomes U+FFFD,
 *                         DEL and C1 controls become \u007f, \u0080..\u009f
 *                         (JSON has to carry text, not bytes; the text
 *                         renderings keep the byte as \xNN) */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The length (1 to 4) of the valid UTF-8 character at s (no overlong form,
 * no surrogate, at most U+10FFFF); 0 at the end of s or when s[0] starts no
 * valid character. */
size_t escape_utf8_len(const char *s);
bool escape_utf8_valid(const char *s);

/* Whether escape_term_into() would change s. */
bool escape_term_needed(const char *s);
/* s for a terminal (see above) into buf, cut at a character to fit size. */
void escape_term_into(char *buf, size_t size, const char *s);
/* The character at s for a terminal: into out, NUL-terminated, either its
 * own bytes or \xNN (then *ret_hex is true); returns how many bytes of s it
 * takes, 0 at the end of s. One character at a time, for a writer that fits
 * text in columns. */
size_t escape_term_char(const char *s, char out[static 5], bool *ret_hex);

/* The one rule for a name in a copy-paste line (a kubectl, ip or ibstat
 * command in a remedy): it goes in as it is when it is 1 to 253 letters,
 * digits and ._:/- (every valid Kubernetes name, hostname, PCI address,
 * and the netdev and RDMA device names the kernel and udev give); any other
 * text (a planted "n1$(reboot);x") is not pasted at all: the line names a
 * placeholder ("<node>") the person fills in. */
bool escape_safe_word(const char *s);
/* s when escape_safe_word(s), else placeholder. */
const char *escape_word_or(const char *s, const char *placeholder);

/* Appends w as one shell word to buf (size bytes, *len used); false, with
 * buf as it was, when it does not fit. */
bool escape_shell_word(char *buf, size_t size, size_t *len, const char *w);
/* argv (n words) as one shell command line; cut to size, ending in "...". */
void escape_shell_join(char *buf, size_t size, const char *const *argv, size_t n);

/* A malloc'd copy of json (json-c's output) as valid UTF-8 (see above);
 * NULL on ENOMEM or when json is NULL (json-c out of memory). */
char *escape_json_text(const char *json);
