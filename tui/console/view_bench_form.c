// SPDX-License-Identifier: MIT
/* The bench view's form: its fields' choices, which fields are shown (the
 * peer's own, and Test and Size give way to the validation profile), and
 * how Left/Right step each value. */
#include "view_bench_int.h"

const uint64_t bv_sizes[] = {0, 2, 8, 64, 512, 4096, 65536, 1 << 20, 8 << 20};
const size_t bv_n_sizes = sizeof(bv_sizes) / sizeof(bv_sizes[0]);
const unsigned int bv_qps[] = {0, 1, 2, 4, 8};
const size_t bv_n_qps = sizeof(bv_qps) / sizeof(bv_qps[0]);
const unsigned int bv_durations[] = {0, 2, 5, 10, 30};
const size_t bv_n_durations = sizeof(bv_durations) / sizeof(bv_durations[0]);

bool bv_field_shown(const struct bench_view *bv, enum field f)
{
	return (f != FLD_PEER_VF || bv->peer == PEER_PAIR) &&
	       (f != FLD_HOST || bv->peer == PEER_REMOTE) &&
	       (!bv->validate || (f != FLD_TEST && f != FLD_SIZE));
}

/* Left/Right on the focused field: its value, one step in dir. */
void bv_form_change(struct console *c, int dir)
{
	struct bench_view *bv = bench_of(c);
	switch (bv->focus) {
	case FLD_VF:
		bv_step_vf(c, bv->vf, dir, true);
		break;
	case FLD_PEER:
		bv->peer = (enum peer_kind)((bv->peer + PEER_N + dir) % PEER_N);
		break;
	case FLD_PEER_VF:
		bv_step_vf(c, bv->peer_vf, dir, false);
		break;
	case FLD_TEST:
		bv->test = (enum bench_test)((bv->test + 4 + dir) % 4);
		break;
	case FLD_SIZE:
		bv->size = (bv->size + (dir < 0 ? bv_n_sizes - 1 : 1)) % bv_n_sizes;
		break;
	case FLD_PROFILE:
		bv->validate = !bv->validate;
		break;
	case FLD_QPS:
		bv->qps = (bv->qps + (dir < 0 ? bv_n_qps - 1 : 1)) % bv_n_qps;
		break;
	case FLD_DURATION:
		bv->duration = (bv->duration + (dir < 0 ? bv_n_durations - 1 : 1)) % bv_n_durations;
		break;
	default:
		break;
	}
}
