/* SPDX-License-Identifier: MIT */
/* The distributed sort with the shares kept on the ranks' GPUs (resident_sort.h). Each
 * step ends in an agreement: a rank that failed has reported why, and every rank stops
 * there; a step that cannot be done here (a GPU that cannot open another's memory) is
 * agreed too, and every rank gives way to the file-based path before anything is
 * written. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "resident_sort.h"
#include "agreed_splitters.h"
#include "splitters.h"
#include "../binary/record_reader.h"
#include "../common/environment.h"
#include "../common/report.h"
#include "../common/verify.h"

/* As binary_sort.c's: under --device=auto, fewer bytes of keys than this sort on the
 * CPU threads in one process, which finish before a GPU would start. */
#define RESIDENT_MIN_ITEM_BYTES ((uint64_t)256 << 20)

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* What a rank holds on the way. */
struct resident_rank {
	const struct cluster *cluster;
	const struct resident_job *work;
	struct record_layout layout; /* the job's, with this engine's pool and the self-check */
	enum record_form form;
	size_t width, record_size;
	struct sort_engine *engine;
	struct resident_sort resident; /* the GPU's calls, once the share is sorted there */
	unsigned char *records; /* the share, read whole, until it is on the GPU */
	size_t capacity;        /* records the buffer holds */
	size_t n, m;            /* records of the share, of the range */
	uint64_t *cuts;         /* size + 1: where the share is cut for each rank */
	struct sort_verify verify;
};

/* Whether this rank can take the path before anything is read (see the header). */
static bool rank_may(const struct resident_rank *rank)
{
	const struct resident_job *work = rank->work;
	const struct sort_job *job = work->job;
	if (environment_switch(ENVIRONMENT_RESIDENT) == 0 || rank->cluster->local_size != rank->cluster->size ||
	    job->engine.device == SORT_DEVICE_CPU || !record_form_in_place(rank->form))
		return false;
	uint64_t share = work->share->bytes;
	if (share > work->budget / 2)
		return false;
	return job->engine.device != SORT_DEVICE_AUTO || share / rank->record_size * rank->width >= RESIDENT_MIN_ITEM_BYTES;
}

/* Opens this rank's engine on its GPU, as the file-based path's local sort would. */
static int engine_open(struct resident_rank *rank)
{
	const struct cluster *cluster = rank->cluster;
	struct sort_engine_config config = rank->work->job->engine;
	config.threads = rank->work->threads;
	config.auto_device = (unsigned)cluster->local_rank;
	config.auto_device_ranks = (unsigned)cluster->local_size;
	char reason[256];
	if (sort_engine_open_explained(&config, &rank->engine, reason, sizeof reason) != 0) {
		rank->engine = NULL;
		return -ENODEV; /* the file-based path says why, if it cannot open it either */
	}
	rank->layout.pool = sort_engine_thread_pool(rank->engine);
	return sort_engine_may_use_gpu(rank->engine) ? 0 : -ENODEV;
}

/* Reads the share whole into the buffer: 0, a negative errno reported, or -ENODEV when
 * its inputs are not all regular files (their size unknown: the file-based path). */
static int share_read(struct resident_rank *rank)
{
	const struct input_share *share = rank->work->share;
	struct record_reader *reader = NULL;
	if (share->count == 0)
		return 0;
	int error = record_reader_open(share->names, share->ranges, share->count, rank->record_size, &reader);
	if (error)
		return error;
	int64_t total = record_reader_total_bytes(reader);
	if (total < 0) {
		record_reader_close(reader);
		return -ENODEV;
	}
	rank->capacity = (size_t)total / rank->record_size;
	rank->records = sort_engine_host_alloc(rank->engine, (rank->capacity ? rank->capacity : 1) * rank->record_size);
	if (!rank->records) {
		record_reader_close(reader);
		report_errno(-ENOMEM);
		return -ENOMEM;
	}
	while (rank->n < rank->capacity) {
		int64_t got = record_reader_read(reader, rank->records + rank->n * rank->record_size,
						 rank->capacity - rank->n);
		if (got < 0) {
			error = (int)got;
			break;
		}
		if (got == 0)
			break;
		rank->n += (size_t)got;
	}
	record_reader_close(reader);
	return error;
}

/* The share's keys made images as they go to the GPU (sort_engine_sort_resident). */
static int share_piece(void *context, void *items, size_t count, uint64_t first)
{
	struct resident_rank *rank = context;
	record_items_build_bare_into(&rank->layout, rank->form, rank->records + first * rank->record_size, count, items);
	return 0;
}

/* A bare key of width bytes (little-endian) turned into its image or back, in place. */
static void bare_flip(unsigned char *key, size_t width, uint64_t mask)
{
	uint64_t word = 0;
	memcpy(&word, key, width);
	word ^= mask;
	memcpy(key, &word, width);
}

/* Reports a failure of the engine, with its reason where it gave one. */
static void report_engine(const struct resident_rank *rank, const char *reason, int error)
{
	report_error(error, "sort engine (%s): %s", sort_engine_describe(rank->engine), reason[0] ? reason : strerror(-error));
}

/* Each splitter's bounds in this share, found on the GPU; a record's place is (key,
 * rank, position), so this rank's equal keys go before a splitter of a later rank,
 * after one of an earlier rank, and at its position for one of its own. */
static int resident_cut(void *context, const struct sample *splitters, size_t count, uint64_t *cuts)
{
	struct resident_rank *rank = context;
	uint64_t mask = record_form_bare_mask(&rank->layout, rank->form);
	uint64_t *lower = calloc(count, sizeof *lower), *upper = calloc(count, sizeof *upper);
	unsigned char *values = calloc(count, rank->width);
	char reason[256] = "";
	int error = lower && upper && values ? 0 : -ENOMEM;
	for (size_t j = 0; !error && j < count; j++) {
		memcpy(values + j * rank->width, splitters[j].record, rank->width);
		bare_flip(values + j * rank->width, rank->width, mask);
	}
	if (!error)
		error = rank->resident.call->bounds(rank->resident.gpu, values, count, lower, upper, reason, sizeof reason);
	for (size_t j = 0; !error && j < count; j++) {
		uint64_t own = splitters[j].position / rank->record_size, mine = (uint64_t)rank->cluster->rank;
		if (splitters[j].rank < mine)
			cuts[j] = lower[j];
		else if (splitters[j].rank > mine)
			cuts[j] = upper[j];
		else
			cuts[j] = own < lower[j] ? lower[j] : own > upper[j] ? upper[j] : own;
	}
	if (error)
		report_engine(rank, reason, error);
	free(lower);
	free(upper);
	free(values);
	return error;
}

/* The splitters from every rank's samples of its sorted share, and this rank's cuts. */
static int split(struct resident_rank *rank)
{
	const struct cluster *cluster = rank->cluster;
	size_t samples_each = splitters_sample_count(cluster->size);
	size_t count = rank->n < samples_each ? rank->n : samples_each;
	uint64_t *indexes = malloc((count ? count : 1) * sizeof *indexes);
	uint64_t *positions = malloc((count ? count : 1) * sizeof *positions);
	unsigned char *images = malloc((count ? count : 1) * rank->width), *encoded = NULL;
	size_t encoded_bytes = 0;
	char reason[256] = "";
	int error = indexes && positions && images ? 0 : -ENOMEM;
	/* equidistant samples, as the file-based path takes them from its run */
	for (size_t j = 0; j < count; j++) {
		indexes[j] = (uint64_t)((unsigned __int128)rank->n * j / count);
		positions[j] = indexes[j] * rank->record_size;
	}
	if (!error && count)
		error = rank->resident.call->gather(rank->resident.gpu, indexes, count, images, reason, sizeof reason);
	/* images back into records (bare keys: the image's bytes under the form's mask) */
	uint64_t mask = record_form_bare_mask(&rank->layout, rank->form);
	for (size_t j = 0; !error && j < count; j++)
		bare_flip(images + j * rank->width, rank->width, mask);
	if (!error)
		error = splitters_encode(cluster->rank, images, rank->record_size, positions, count, &encoded,
					 &encoded_bytes);
	if (error)
		report_engine(rank, reason, error);
	const struct share_cutter cutter = {resident_cut, rank, rank->n};
	error = agreed_splitters_split(cluster, rank->work->order, false, error, encoded, encoded_bytes, &cutter,
				       rank->cuts);
	free(indexes);
	free(positions);
	free(images);
	free(encoded);
	return error;
}

/* Copies this rank's range from every rank's GPU. -EXDEV: this GPU cannot (the others
 * are told by the agreement, and all give way). */
static int exchange(struct resident_rank *rank)
{
	const struct cluster *cluster = rank->cluster;
	int size = cluster->size;
	unsigned char handle[SORT_SHARE_HANDLE_BYTES] = {0}, *handles = NULL;
	uint64_t *all_cuts = malloc((size_t)size * ((size_t)size + 1) * sizeof *all_cuts);
	uint64_t *offsets = malloc(((size_t)size + 1) * sizeof *offsets);
	uint64_t *begins = malloc((size_t)size * sizeof *begins), *lengths = malloc((size_t)size * sizeof *lengths);
	char reason[256] = "";
	int error = all_cuts && offsets && begins && lengths ? 0 : -ENOMEM;
	if (!error)
		error = rank->resident.call->export_handle(rank->resident.gpu, handle, reason, sizeof reason);
	if (!error)
		error = cluster_allgather(cluster, rank->cuts, (size_t)size + 1, all_cuts);
	if (!error)
		error = cluster_allgather_bytes(cluster, handle, sizeof handle, &handles, offsets);
	for (int s = 0; !error && s < size; s++) {
		const uint64_t *theirs = all_cuts + (size_t)s * ((size_t)size + 1);
		begins[s] = theirs[cluster->rank];
		lengths[s] = theirs[cluster->rank + 1] - theirs[cluster->rank];
		rank->m += lengths[s];
	}
	rank->work->figures->sent_bytes = (rank->n - (rank->cuts[cluster->rank + 1] - rank->cuts[cluster->rank])) *
					  rank->record_size;
	if (!error) {
		rank->work->figures->received_bytes = (rank->m - lengths[cluster->rank]) * rank->record_size;
		/* nothing is written yet: whatever failed, the file-based path can still sort */
		if (rank->resident.call->receive(rank->resident.gpu, handles, (size_t)size, (size_t)cluster->rank, begins,
						 lengths, reason, sizeof reason) != 0) {
			if (rank->work->job->verbose)
				report("note: sorting through files: gpu exchange: %s", reason);
			error = -EXDEV;
		}
	}
	free(all_cuts);
	free(offsets);
	free(begins);
	free(lengths);
	free(handles);
	return error;
}

/* The range's pieces as the GPU hands them out (sort_engine_resident_copy_out): each
 * turned back into keys in place, checked, and copied into the output at its offset, on
 * the engine's threads. Each piece's first and last key are noted for the checks across
 * pieces, which see them in order afterwards. */
struct piece_ends {
	uint64_t first_index, count;
	unsigned char first[8], last[8];
};

struct range_writer {
	struct resident_rank *rank;
	uint64_t base; /* the range's offset in the output */
	pthread_mutex_t lock;
	struct piece_ends *pieces;
	size_t piece_count, piece_capacity;
};

static int range_piece(void *context, void *items, size_t count, uint64_t first)
{
	struct range_writer *writer = context;
	struct resident_rank *rank = writer->rank;
	size_t size = rank->record_size;
	unsigned char *keys = items;
	record_items_restore_bare(&rank->layout, rank->form, keys, count);
	int error = distributed_output_write_at(rank->work->output, keys, count * size, writer->base + first * size);
	if (error || count == 0)
		return error;
	struct piece_ends ends = {first, count, {0}, {0}};
	memcpy(ends.first, keys, size);
	memcpy(ends.last, keys + (count - 1) * size, size);
	pthread_mutex_lock(&writer->lock);
	if (writer->piece_count == writer->piece_capacity) {
		size_t grown = writer->piece_capacity ? 2 * writer->piece_capacity : 1024;
		struct piece_ends *more = realloc(writer->pieces, grown * sizeof *more);
		if (!more)
			error = -ENOMEM;
		else {
			writer->pieces = more;
			writer->piece_capacity = grown;
		}
	}
	if (!error)
		writer->pieces[writer->piece_count++] = ends;
	pthread_mutex_unlock(&writer->lock);
	return error;
}

static int piece_order(const void *a, const void *b)
{
	const struct piece_ends *x = a, *y = b;
	return x->first_index < y->first_index ? -1 : x->first_index > y->first_index;
}

/* The pieces in order: they cover the range, and each one's last key is not above the
 * next one's first (disorder for the self-check); the range's ends noted. */
static int pieces_check(struct range_writer *writer)
{
	struct resident_rank *rank = writer->rank;
	const struct record_order *order = rank->work->order;
	size_t size = rank->record_size;
	qsort(writer->pieces, writer->piece_count, sizeof *writer->pieces, piece_order);
	uint64_t next = 0, disorder = 0;
	for (size_t i = 0; i < writer->piece_count; i++) {
		const struct piece_ends *piece = &writer->pieces[i];
		if (piece->first_index != next)
			disorder++; /* a piece missing or repeated: never by a correct engine */
		if (i > 0 && record_compare(order, writer->pieces[i - 1].last, size, piece->first, size) > 0)
			disorder++;
		next = piece->first_index + piece->count;
	}
	if (next != rank->m)
		disorder++;
	if (rank->verify.enabled) {
		struct fingerprint none = {0, 0};
		sort_verify_output(&rank->verify, &none, disorder);
	}
	if (writer->piece_count && rank->work->ends) {
		range_ends_note(rank->work->ends, order, writer->pieces[0].first, size);
		range_ends_note(rank->work->ends, order, writer->pieces[writer->piece_count - 1].last, size);
	}
	return 0;
}

/* The merged range out of the GPU and into the output at its offset. */
static int range_put(struct resident_rank *rank, double *merge_seconds)
{
	const struct cluster *cluster = rank->cluster;
	const struct resident_job *work = rank->work;
	uint64_t bytes = (uint64_t)rank->m * rank->record_size;
	uint64_t offset = cluster_exscan(cluster, bytes);
	char reason[256] = "";
	distributed_output_prefault_stop(work->output);
	double started = seconds_now();
	int error = rank->resident.call->merge(rank->resident.gpu, reason, sizeof reason);
	if (error) {
		report("sort engine (%s): %s", sort_engine_describe(rank->engine), reason);
		return error;
	}
	*merge_seconds = seconds_now() - started;
	/* mapped when the range fits half of -S, as the file-based path's merge maps it */
	if (bytes <= work->budget / 2 && (error = distributed_output_map(work->output, offset, bytes)) != 0) {
		report_output_failure(work->output->name, error, false);
		return error;
	}
	struct range_writer writer = {.rank = rank, .base = offset};
	pthread_mutex_init(&writer.lock, NULL);
	error = rank->resident.call->copy_out(rank->resident.gpu, range_piece, &writer, reason, sizeof reason);
	if (error == -ENOSPC || error == -EDQUOT || error == -EFBIG || (error && reason[0] == '\0'))
		report_output_failure(work->output->name, error, false);
	else if (error)
		report("sort engine (%s): %s", sort_engine_describe(rank->engine), reason);
	if (!error)
		error = pieces_check(&writer);
	pthread_mutex_destroy(&writer.lock);
	free(writer.pieces);
	/* the GPU's part is done: its context goes on a thread of its own while the ranks
	 * check and commit (sort_engine_close, after the commit, waits for it) */
	sort_engine_resident_free(rank->engine);
	sort_engine_release_gpu(rank->engine);
	work->figures->output_bytes = bytes;
	return error;
}

/* The self-check across ranks: every key read went out once (the fingerprints of all
 * shares against those of all ranges), in order within and across ranges. */
static int check(struct resident_rank *rank)
{
	const struct cluster *cluster = rank->cluster;
	uint64_t in_count = cluster_sum(cluster, atomic_load(&rank->verify.input_count));
	uint64_t in_sum = cluster_sum(cluster, atomic_load(&rank->verify.input_sum));
	uint64_t out_count = cluster_sum(cluster, atomic_load(&rank->verify.output_count));
	uint64_t out_sum = cluster_sum(cluster, atomic_load(&rank->verify.output_sum));
	int error = 0;
	if (cluster->rank == 0 && (in_count != out_count || in_sum != out_sum)) {
		report_internal("distributed self-check: the ranges' keys are not the shares' keys");
		error = -EIO;
	}
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	return distributed_verify(cluster, rank->work->order, rank->work->ends, atomic_load(&rank->verify.disorder),
				  (uint64_t)rank->n * rank->record_size, (uint64_t)rank->m * rank->record_size);
}

/* Every rank's flag in, whether all of them are set out. */
static bool all_ranks(const struct cluster *cluster, bool mine)
{
	return cluster_sum(cluster, mine ? 0 : 1) == 0;
}

/* --stats: this rank's steps, beside the distributed table rank 0 prints. */
struct resident_times {
	double read, gpu_sort, split, exchange, merge, out;
};

static void times_print(const struct resident_rank *rank, const struct resident_times *t)
{
	fprintf(stderr,
		"gpusort: stats: rank %d: on %s (opened in %.3f s, the sort waited %.3f s of it): read %.3f s, to the "
		"GPU and sorted there %.3f, split %.3f, ranges GPU to GPU %.3f, merge on the GPU %.3f, out into the "
		"output %.3f\n",
		rank->cluster->rank, sort_engine_describe(rank->engine), sort_engine_open_seconds(rank->engine),
		sort_engine_wait_seconds(rank->engine), t->read, t->gpu_sort, t->split, t->exchange, t->merge,
		t->out);
}

static int sorted_resident(struct resident_rank *rank, struct resident_times *times)
{
	const struct cluster *cluster = rank->cluster;
	struct rank_figures *figures = rank->work->figures;
	double phase = seconds_now(), step = phase;
	char reason[256] = "";

	/* the share read (while the GPU opens), its keys made images in place and sorted
	 * on the GPU, where they stay */
	int error = share_read(rank), declined = error == -ENODEV;
	if (declined)
		error = 0;
	times->read = seconds_now() - step;
	if (!error && !declined) {
		step = seconds_now();
		int sorted = sort_engine_sort_resident(rank->engine, (enum item_width)rank->width, share_piece, rank,
						       rank->n, &rank->resident, reason, sizeof reason);
		times->gpu_sort = seconds_now() - step;
		declined = sorted != 0; /* the file-based path sorts it, on the CPU if it must */
		if (declined && rank->work->job->verbose)
			report("note: sorting through files: gpu resident sort: %s", reason);
	}
	/* the host's copy of the share is no longer needed */
	if (rank->records)
		sort_engine_host_free(rank->engine, rank->records, (rank->capacity ? rank->capacity : 1) * rank->record_size);
	rank->records = NULL;
	figures->share_bytes = (uint64_t)rank->n * rank->record_size;
	figures->sort_seconds = seconds_now() - phase;
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	if (!all_ranks(cluster, !declined))
		return 0;

	phase = seconds_now();
	rank->cuts = calloc((size_t)cluster->size + 1, sizeof *rank->cuts);
	if (!rank->cuts)
		report_errno(-ENOMEM);
	if ((error = cluster_agree(cluster, rank->cuts ? 0 : -ENOMEM)) != 0 || (error = split(rank)) != 0)
		return error;
	figures->split_seconds = times->split = seconds_now() - phase;

	/* the ranges GPU to GPU; once every rank has its own, the shares may go */
	phase = seconds_now();
	error = exchange(rank);
	declined = error == -EXDEV;
	if (declined)
		error = 0;
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	if (!all_ranks(cluster, !declined))
		return 0;
	figures->exchange_seconds = times->exchange = seconds_now() - phase;
	figures->on_gpus = 1;

	phase = seconds_now();
	error = range_put(rank, &times->merge);
	figures->merge_seconds = seconds_now() - phase;
	times->out = figures->merge_seconds - times->merge;
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	if (!rank->work->job->no_verify && (error = check(rank)) != 0)
		return error;
	return 1;
}

int resident_sort(const struct cluster *cluster, const struct resident_job *work)
{
	/* the same on every rank: no agreement needed to decline */
	if (work->job->mode != MODE_BINARY || work->job->unique || !work->output->positional)
		return 0;
	struct resident_rank rank = {.cluster = cluster, .work = work, .layout = *work->layout};
	rank.record_size = rank.layout.record_size;
	rank.form = record_form_choose(&rank.layout, (size_t)(work->share->bytes / rank.record_size));
	rank.width = record_form_width(rank.form);
	sort_verify_init(&rank.verify, !work->job->no_verify);
	rank.layout.verify = &rank.verify;
	bool may = rank_may(&rank) && engine_open(&rank) == 0;
	int result = 0;
	struct resident_times times = {0};
	if (all_ranks(cluster, may))
		result = sorted_resident(&rank, &times);
	if (result == 1 && work->job->stats)
		times_print(&rank, &times);
	if (result == 1 && work->engine_out) {
		*work->engine_out = rank.engine;
		rank.engine = NULL;
	}
	if (rank.engine) {
		sort_engine_resident_free(rank.engine);
		if (rank.records)
			sort_engine_host_free(rank.engine, rank.records, (rank.capacity ? rank.capacity : 1) * rank.record_size);
		sort_engine_close(rank.engine);
	}
	free(rank.cuts);
	return result;
}
