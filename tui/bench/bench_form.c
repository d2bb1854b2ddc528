// SPDX-License-Identifier: MIT
#include "bench_form.h"

void bench_form_config(const struct bench_form *f, const struct exchange_key *key,
		       atomic_bool *cancel, struct bench_config *ret)
{
	*ret = (struct bench_config){.gid_index = -1,
				     .pkey_index = -1,
				     .listen_fd = -1,
				     .tcp_port = BENCH_DEFAULT_PORT,
				     .test = f->test,
				     .size = f->validate ? 0 : f->size,
				     /* latency runs one QP: the field is for bandwidth */
				     .qps = f->validate || !bench_is_latency(f->test) ? f->qps : 0,
				     .duration_s = f->duration_s,
				     .key = key && key->set ? key : NULL,
				     .cancel = cancel};
}
