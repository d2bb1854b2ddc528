// SPDX-License-Identifier: MIT
#include "bench_form.h"

void bench_form_config(const struct bench_form *f, const struct exchange_key *key,
		       atomic_bool *cancel, struct bench_config *ret)
{
	*ret = bench_config_default();
	ret->test = f->test;
	ret->size = f->validate ? 0 : f->size;
	/* latency runs one QP: the field is for bandwidth */
	ret->qps = f->validate || !bench_is_latency(f->test) ? f->qps : 0;
	ret->duration_s = f->duration_s;
	ret->key = key && key->set ? key : NULL;
	ret->cancel = cancel;
}
