/* SPDX-License-Identifier: MIT */
/* The console bench form's choices as a bench run's configuration: the one
 * place the form becomes a struct bench_config, so the console's runs take
 * the same defaults and the same shared key as `ibvf bench`. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/exchange_auth.h"

struct bench_form {
	enum bench_test test;
	uint64_t size; /* 0: the test's default */
	unsigned int qps, duration_s;
	bool validate; /* the validation profile: its own sizes */
};

/* f's run; key (NULL or unset: none, the server must be open) and cancel
 * are pointed to, not copied: they outlive the run. */
void bench_form_config(const struct bench_form *f, const struct exchange_key *key,
		       atomic_bool *cancel, struct bench_config *ret);
