// SPDX-License-Identifier: MIT
/* The benchmark's control-channel decoder (bench/exchange.c) against any
 * bytes a peer can send. Oracle: a message that decodes is one ibvf itself
 * would send: it encodes again, to the very bytes received (the format has
 * one encoding per message, but for the padding after an abort's text),
 * which decode again; its strings are printable. */
#include <stdint.h>
#include <string.h>

#include "bench/exchange.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	uint16_t type;
	if (size >= EXCHANGE_HEADER_LEN)
		exchange_decode_header(data, size, &type, &e);
	struct exchange_msg m;
	if (exchange_decode(data, size, &m, &e) < 0) {
		if (!memchr(e.msg, '\0', sizeof(e.msg)) || !e.msg[0])
			fuzz_fail("a refusal without a reason");
		return 0;
	}
	uint8_t out[EXCHANGE_MAX_MSG];
	int n = exchange_encode(&m, out, sizeof(out), &e);
	if (n < 0)
		fuzz_fail("a decoded message of type %u does not encode: %s", m.type, e.msg);
	/* An abort's text is sent zero-padded; what follows its NUL is not read. */
	size_t same =
		m.type == EXCHANGE_ABORT ? EXCHANGE_HEADER_LEN + 4 + strlen(m.abort.text) : size;
	if ((size_t)n != size || memcmp(out, data, same))
		fuzz_fail("type %u: decoded %zu bytes encode to %d other bytes", m.type, size, n);
	struct exchange_msg again;
	if (exchange_decode(out, (size_t)n, &again, &e) < 0)
		fuzz_fail("type %u: what ibvf sends it refuses: %s", m.type, e.msg);
	char line[256];
	switch (m.type) {
	case EXCHANGE_HELLO:
	case EXCHANGE_ACCEPT:
		if (exchange_params_validate(&m.params, &e) < 0)
			fuzz_fail("decoded parameters fail validation: %s", e.msg);
		if (m.dest.n_qps > EXCHANGE_MAX_QPS)
			fuzz_fail("%u QPs decoded", m.dest.n_qps);
		exchange_test_name(m.params.test);
		break;
	case EXCHANGE_MISMATCH:
		exchange_mismatch_describe(&m.mismatch, line, sizeof(line));
		break;
	case EXCHANGE_ABORT:
		if (!memchr(m.abort.text, '\0', sizeof(m.abort.text)))
			fuzz_fail("abort text not terminated");
		for (const char *c = m.abort.text; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				fuzz_fail("abort text with byte 0x%02x", (unsigned char)*c);
		break;
	default:
		break;
	}
	return 0;
}
