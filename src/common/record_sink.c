/* SPDX-License-Identifier: MIT */
/* A sink call on a thread of its own (see record_sink.h). */
#include "config.h"
#include "record_sink.h"
#include "job_context.h"

#include <stdlib.h>

/* The least a write takes to go on a thread of its own. */
#define SINK_THREAD_MIN_BYTES ((size_t)1 << 20)

static void *sink_call_run(void *argument)
{
	struct sink_call *call = argument;
	call->error = call->sink(call->context, call->bytes, call->len, call->count);
	return NULL;
}

int sink_call_wait(struct sink_call *call)
{
	if (!call->running)
		return 0;
	pthread_join(call->thread, NULL);
	call->running = false;
	return call->error;
}

int sink_call_start(struct sink_call *call, record_sink sink, void *context, const unsigned char *bytes,
		    size_t len, size_t count)
{
	int error = sink_call_wait(call);
	if (error)
		return error;
	if (len < SINK_THREAD_MIN_BYTES)
		return sink(context, bytes, len, count);
	*call = (struct sink_call){sink, context, bytes, len, count, 0, call->thread, false};
	if (job_thread_create(&call->thread, sink_call_run, call) == 0)
		call->running = true;
	else
		return sink(context, bytes, len, count);
	return 0;
}

void emit_scratch_free(struct emit_scratch *scratch)
{
	free(scratch->blocks[0]);
	free(scratch->blocks[1]);
	*scratch = (struct emit_scratch){{NULL, NULL}, 0};
}

bool emit_scratch_reserve(struct emit_scratch *scratch, size_t bytes)
{
	if (scratch->bytes >= bytes)
		return true;
	emit_scratch_free(scratch);
	scratch->blocks[0] = malloc(bytes);
	scratch->blocks[1] = malloc(bytes);
	scratch->bytes = scratch->blocks[0] && scratch->blocks[1] ? bytes : 0;
	return scratch->bytes > 0;
}
