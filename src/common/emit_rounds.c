/* SPDX-License-Identifier: MIT */
/* The emit both modes share (see emit_rounds.h). */
#include "config.h"
#include <errno.h>
#include <stdatomic.h>
#include "emit_rounds.h"
#include "job_context.h"
#include "../../kernels/thread_pool.h"

void offset_writes_fail(struct offset_writes *sink, int error)
{
	int none = 0;
	atomic_compare_exchange_strong(&sink->error, &none, error);
}

void offset_writes_put(struct offset_writes *sink, const unsigned char *bytes, size_t len, uint64_t offset)
{
	if (!sink->sink_at || len == 0 || sink->error)
		return;
	int error = sink->sink_at(sink->context, bytes, len, offset);
	if (error)
		offset_writes_fail(sink, error);
}

int emit_rounds_run(struct emit_rounds *rounds, const struct emit_output *output)
{
	struct emit_scratch own = {{NULL, NULL}, 0};
	struct emit_scratch *scratch = output->scratch ? output->scratch : &own;
	rounds->at = (struct offset_writes){output->sink_at, output->context, 0};
	int error = emit_scratch_reserve(scratch, rounds->block_bytes ? rounds->block_bytes : 1) ? 0 : -ENOMEM;
	/* with a positional sink the gathering threads write, and one block is enough */
	struct sink_call call = {0};
	struct emit_round round;
	for (size_t k = 0; !error; k++) {
		unsigned char *block = scratch->blocks[output->sink_at ? 0 : k & 1];
		if (job_cancelled()) {
			error = -ECANCELED;
			break;
		}
		if (!rounds->next(rounds->job, block, &round))
			break;
		/* the sink's thread may still be writing the other block, not this one */
		thread_pool_parallel_for(rounds->pool, round.tasks, rounds->gather, rounds->job);
		if (output->sink_at || rounds->at.error) /* a gather's own failure, too */
			error = rounds->at.error;
		else if (round.bytes > 0)
			error = sink_call_start(&call, output->sink, output->context, block, round.bytes, round.count);
		else
			error = sink_call_wait(&call);
	}
	int last = sink_call_wait(&call);
	emit_scratch_free(&own);
	return error ? error : last;
}
