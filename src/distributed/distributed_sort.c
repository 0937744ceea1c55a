/* SPDX-License-Identifier: MIT */
/* The sort across ranks (see distributed_sort.h), phase by phase. Every phase ends in
 * cluster_agree(): a rank that failed has reported why (the file it names, as a single
 * process words it; held until then, and said by the first failing rank alone), and
 * then every rank stops at the same step with exit status 2, its temp files removed and
 * the output's twin abandoned. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "agreed_splitters.h"
#include "cluster.h"
#include "distributed_output.h"
#include "distributed_sort.h"
#include "distributed_stats.h"
#include "distributed_verify.h"
#include "exchange.h"
#include "input_share.h"
#include "job_dirs.h"
#include "local_run.h"
#include "rank_merge.h"
#include "resident_sort.h"
#include "splitters.h"
#include "../binary/record_items.h"
#include "../common/report.h"
#include "../common/stats.h"
#include "../common/verify.h"
#include "../pipeline/binary_sort.h"
#include "../pipeline/input_list.h"
#include "../pipeline/memory_plan.h"
#include "../pipeline/output_check.h"
#include "../pipeline/record_order.h"
#include "../pipeline/text_sort.h"
#include "../text/text_order.h"
#include "../../io/fault_inject.h"
#include "../../io/temp_files.h"

/* The exchange's bytes per pair of ranks and round, within these bounds of -S / (4 x ranks). */
#define BATCH_MIN ((size_t)64 << 10)
#define BATCH_MAX ((size_t)64 << 20)
/* Blocks of the merge's output and of the copy of a range into place. */
#define MERGE_BLOCK ((size_t)4 << 20)

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

bool distributed_launched(void)
{
	return cluster_launched();
}

/* The order of either mode, as the pipeline builds it. */
struct distributed_order {
	struct record_layout layout;
	struct text_order text;
	bool has_text;
	struct record_order order;
	unsigned char salt[TEXT_RANDOM_SALT_BYTES]; /* -R's, rank 0's for every rank */
	bool salted;
};

static int order_build(const struct sort_job *job, bool quiet, struct distributed_order *built)
{
	memset(built, 0, sizeof *built);
	if (job->mode == MODE_BINARY) {
		record_layout_from_key(&job->binary, &built->layout);
		record_order_binary(&built->order, &built->layout, job->unique);
		return quiet || binary_record_fits(&job->memory, job->binary.record_size_option, &built->layout) ? 0 : -EINVAL;
	}
	char letters[16];
	int error = text_order_init(&built->text, &job->text, job->unique, job->debug, letters, sizeof letters);
	if (error && !quiet) {
		if (error == -EINVAL)
			report("options '-%s' are incompatible", letters);
		else
			report("%s", strerror(-error));
	}
	if (error)
		return error;
	built->has_text = true;
	record_order_text(&built->order, &built->text);
	return 0;
}

/* The inputs, resolved by rank 0 (which alone reads standard input, so --files0-from=-
 * too) and sent to the others as NUL-terminated names. */
struct shared_inputs {
	struct input_list list;
	char *joined;
	const char **names;
};

static int inputs_resolve(const struct cluster *cluster, const struct sort_job *job, struct shared_inputs *inputs)
{
	memset(inputs, 0, sizeof *inputs);
	uint64_t length = 0;
	int error = 0;
	if (cluster->rank == 0) {
		error = input_list_resolve(&job->inputs, job->check, &inputs->list) ? -EINVAL : 0;
		for (size_t i = 0; !error && i < inputs->list.count; i++)
			length += strlen(inputs->list.names[i]) + 1;
	}
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	cluster_broadcast(cluster, &length, sizeof length, 0);
	inputs->joined = malloc(length ? length : 1);
	if (cluster->rank == 0 && inputs->joined)
		for (size_t i = 0, at = 0; i < inputs->list.count; i++) {
			size_t n = strlen(inputs->list.names[i]) + 1;
			memcpy(inputs->joined + at, inputs->list.names[i], n);
			at += n;
		}
	if (!inputs->joined)
		report("%s", strerror(ENOMEM));
	if ((error = cluster_agree(cluster, inputs->joined ? 0 : -ENOMEM)) != 0)
		return error;
	cluster_broadcast(cluster, inputs->joined, length, 0);
	if (cluster->rank == 0)
		return cluster_agree(cluster, 0); /* the others' names made, below */
	size_t count = 0;
	for (uint64_t i = 0; i < length; i++)
		count += inputs->joined[i] == '\0';
	inputs->names = malloc((count ? count : 1) * sizeof *inputs->names);
	if (inputs->names)
		for (size_t i = 0, at = 0; i < count; i++) {
			inputs->names[i] = inputs->joined + at;
			at += strlen(inputs->joined + at) + 1;
		}
	else
		report("%s", strerror(ENOMEM));
	inputs->list.names = inputs->names;
	inputs->list.count = count;
	return cluster_agree(cluster, inputs->names ? 0 : -ENOMEM);
}

static void inputs_free(const struct cluster *cluster, struct shared_inputs *inputs)
{
	if (cluster->rank == 0)
		input_list_free(&inputs->list);
	free(inputs->joined);
	free(inputs->names);
}

/* This rank's memory budget: -S, or the default shared by the ranks of this machine. */
static size_t rank_budget(const struct cluster *cluster, const struct sort_job *job)
{
	if (job->memory.budget)
		return job->memory.budget;
	size_t budget = memory_budget_default() / (size_t)cluster->local_size;
	return budget > ((size_t)16 << 20) ? budget : (size_t)16 << 20;
}

/* This rank's threads: --parallel, or the machine's cores shared by its ranks. */
static unsigned rank_threads(const struct cluster *cluster, const struct sort_job *job)
{
	if (job->engine.threads)
		return job->engine.threads;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	long each = cores > 0 ? cores / cluster->local_size : 1;
	return each > 0 ? (unsigned)each : 1;
}

/* Sorts this rank's share with the ordinary pipeline into the temp file path, its
 * spilled runs in the job's directories. */
static int local_sort(const struct cluster *cluster, const struct sort_job *job, const struct input_share *share,
		      const struct distributed_order *built, const struct job_dirs *dirs, const char *path)
{
	if (share->count == 0)
		return 0; /* an empty share: the empty temp file is its run */
	struct sort_job local = *job;
	local.inputs = (struct input_spec){.names = share->names, .count = share->count, .ranges = share->ranges};
	local.runs.temp_dirs = dirs->temp;
	local.runs.temp_dir_count = dirs->temp_count;
	if (built->salted)
		local.random_salt = built->salt;
	local.output = (struct output_target){.name = path};
	/* --stats: each rank's pipeline says its stages, its runs among them */
	local.progress = false;
	char label[32];
	snprintf(label, sizeof label, "rank %d", cluster->rank);
	stats_set_label(label);
	local.memory.budget = rank_budget(cluster, job);
	/* the machine's cores shared by its ranks, and its GPUs: one per local rank */
	local.engine.threads = rank_threads(cluster, job);
	local.engine.auto_device = (unsigned)cluster->local_rank;
	local.engine.auto_device_ranks = (unsigned)cluster->local_size;
	int status = sort_job_run(&local);
	return status ? -EIO : 0;
}

/* Splitters from every rank's samples, and this rank's cuts: cuts[d] to cuts[d + 1] of
 * its run go to rank d. */
static int split(const struct cluster *cluster, struct local_run *run, bool unique, uint64_t *cuts)
{
	int size = cluster->size;
	unsigned char *encoded = NULL;
	size_t encoded_bytes = 0;
	struct agreed_splitters agreed;
	int error = splitters_sample(run, cluster->rank, splitters_sample_count(size), &encoded, &encoded_bytes);
	if (error)
		report("%s: %s", run->path, strerror(-error));
	error = agreed_splitters_choose(cluster, run->order, unique, error, encoded, encoded_bytes, &agreed);
	if (error)
		goto out;
	cuts[0] = 0;
	for (int d = 1; d <= size && !error; d++) {
		cuts[d] = run->size;
		if (d < size && (size_t)d <= agreed.count)
			error = splitters_cut(run, unique, cluster->rank, &agreed.chosen[d - 1], &cuts[d]);
		if (d == 1 && size > 1 && fault_at(FAULT_DISTRIBUTED_CUT) == FAULT_SHORT)
			cuts[d] = 0; /* the planted bug (io/fault_inject.h) */
		if (cuts[d] < cuts[d - 1])
			cuts[d] = cuts[d - 1];
	}
	if (error)
		report("%s: %s", run->path, strerror(-error));
	error = cluster_agree(cluster, error);
out:
	free(encoded);
	agreed_splitters_free(&agreed);
	return error;
}

/* The merge of this rank's range: its own part of its run and what every other rank
 * gave it, in rank order. */
static int merge_range(const struct cluster *cluster, const struct record_order *order,
		       const struct exchange *exchange, size_t budget, unsigned threads, struct sort_verify *verify,
		       struct range_sink *sink)
{
	int size = cluster->size;
	struct merge_input *inputs = calloc(size, sizeof *inputs);
	char (*opened)[32] = calloc(size, sizeof *opened);
	if (!inputs || !opened) {
		free(inputs);
		free(opened);
		report("%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int s = 0; s < size; s++)
		inputs[s] = (struct merge_input){exchange_open_path(exchange, s, opened[s], sizeof opened[s]),
						 exchange->paths[s], exchange->bases[s], exchange->received[s]};
	size_t block = budget / (4 * (size_t)size * (threads ? threads : 1));
	block = block < BATCH_MIN ? BATCH_MIN : block > MERGE_BLOCK ? MERGE_BLOCK : block;
	int error = rank_merge(order, inputs, (size_t)size, threads, block, verify, sink);
	free(inputs);
	free(opened);
	return error;
}

/* -c, -C and -m read their inputs in order, and --debug annotates the output: rank 0
 * does the work, the others wait. */
static int on_rank_zero(const struct cluster *cluster, const struct sort_job *job)
{
	int status = 0;
	if (cluster->rank == 0)
		status = sort_job_run(job);
	cluster_broadcast(cluster, &status, sizeof status, 0);
	return status;
}

static int distributed_sort(const struct cluster *cluster, const struct sort_job *job)
{
	bool root = cluster->rank == 0;
	struct rank_figures figures = {0};
	double started = seconds_now(), phase = started;
	struct distributed_order built;
	struct shared_inputs inputs = {0};
	struct input_share share = {0};
	struct local_run run = {.fd = -1};
	struct exchange exchange = {0};
	struct distributed_output output = {.fd = -1};
	struct job_dirs dirs = {0};
	struct range_ends ends = {0};
	char local_path[PATH_MAX] = "", piece_path[PATH_MAX] = "";
	int piece_fd = -1;
	uint64_t *cuts = NULL;
	size_t budget = rank_budget(cluster, job);
	struct sort_engine *resident_engine = NULL; /* the resident sort's, closed after the commit */

	/* what one process checks before reading anything, checked and said by rank 0 */
	int error = order_build(job, !root, &built);
	/* -R: one salt for all, rank 0's, or the ranks' orders would differ */
	bool random = built.has_text && text_order_is_random(&built.text);
	if ((error = cluster_agree(cluster, error)) == 0 && random) {
		if (root && text_sort_read_salt(job->random_source, built.salt) != 0)
			error = -EINVAL;
		if ((error = cluster_agree(cluster, error)) == 0) {
			cluster_broadcast(cluster, built.salt, sizeof built.salt, 0);
			text_order_salt(&built.text, built.salt);
			built.salted = true;
		}
	}
	if (!error && (error = temp_files_init(job->runs.temp_dirs, job->runs.temp_dir_count)) != 0)
		report("temporary directory: %s", strerror(-error));
	/* every rank's files in the job's directories, which the others remove on signals */
	if ((error = cluster_agree(cluster, error)) != 0 ||
	    (error = job_dirs_make(cluster, job->runs.temp_dirs, job->runs.temp_dir_count, &dirs)) != 0)
		goto out;
	if (root && output_check(&job->output))
		error = -EACCES;
	if ((error = cluster_agree(cluster, error)) != 0 || (error = inputs_resolve(cluster, job, &inputs)) != 0)
		goto out;
	/* the shares: rank 0 first, so that a bad input is reported once */
	size_t record_size = built.order.record_size;
	if (root)
		error = input_share_plan(&inputs.list, record_size, built.order.eol, 0, cluster->size, false, &share);
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;
	if (!root)
		error = input_share_plan(&inputs.list, record_size, built.order.eol, cluster->rank, cluster->size, false,
					 &share);
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;

	/* This rank's own files (its sorted share, what it receives, its piece) hold about
	 * its share each. When the share is small beside -S (these files live in memory
	 * then, beside the local sort's buffers) they go to a memory file system with room
	 * for them: in the -T directories they would pass through the disk's write-back,
	 * which every rank of the machine shares (on 4 GPUs of one machine,
	 * bench/RESULTS.md, the ranks' writes of their runs took turns). */
	const char *rank_dir = NULL;
	if (share.bytes && share.bytes <= budget / 4 && temp_memory_dir(dirs.memory, 3 * share.bytes + ((uint64_t)64 << 20)))
		rank_dir = dirs.memory;

	/* The output, opened before the sort: a rank whose range will be mapped faults in,
	 * on threads of its own while it sorts, about where that range will be (its share's
	 * place: the splitters cut ranges about as large as the shares), so that the merge
	 * copies into pages already there (4 GPUs, bench/RESULTS.md: 16 GiB of fresh pages
	 * took the merge's copies at once). Not beside a sort on the CPU threads, whose
	 * cores it would take. */
	if ((error = distributed_output_open(cluster, &job->output, &output)) != 0)
		goto out;
	bool direct = output.positional && !job->unique;
	if (direct) {
		uint64_t share_offset = cluster_exscan(cluster, share.bytes), total = cluster_sum(cluster, share.bytes);
		if (share.bytes <= budget / 2 && job->engine.device != SORT_DEVICE_CPU &&
		    (error = distributed_output_prefault_start(&output, share_offset, share.bytes, total)) != 0)
			report_file_failure("write failed", output.name, error);
		if ((error = cluster_agree(cluster, error)) != 0)
			goto out;
	}

	/* bare keys beside GPUs: the shares kept on them, the ranges exchanged GPU to GPU */
	if (direct) {
		const struct resident_job work = {job, &share, &built.layout, &built.order, &output, budget,
						  rank_threads(cluster, job), &figures, job->no_verify ? NULL : &ends,
						  &resident_engine};
		int done = resident_sort(cluster, &work);
		if (done != 0) {
			error = done < 0 ? done : 0;
			phase = seconds_now();
			goto out;
		}
	}

	/* 1. this rank's share sorted into a local run */
	phase = seconds_now();
	int fd = temp_file_create_preferring(rank_dir, local_path, sizeof local_path);
	if (fd < 0) {
		error = fd;
		report_temp_create_error(local_path, error);
		local_path[0] = '\0';
	} else {
		close(fd);
		error = local_sort(cluster, job, &share, &built, &dirs, local_path);
	}
	if (!error && (error = local_run_open(&run, local_path, &built.order)) != 0)
		report_file_error(local_path, error);
	distributed_output_prefault_stop(&output);
	figures.share_bytes = run.size;
	figures.sort_seconds = seconds_now() - phase;
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;

	/* 2. splitters and cuts */
	phase = seconds_now();
	cuts = calloc((size_t)cluster->size + 1, sizeof *cuts);
	if (!cuts)
		report("%s", strerror(ENOMEM));
	if ((error = cluster_agree(cluster, cuts ? 0 : -ENOMEM)) != 0 ||
	    (error = split(cluster, &run, job->unique, cuts)) != 0)
		goto out;
	figures.split_seconds = seconds_now() - phase;

	/* 3. the exchange: the ranges read in place from the runs, or sent in batches that
	 * -S bounds */
	size_t batch = budget / (4 * (size_t)cluster->size);
	batch = batch < BATCH_MIN ? BATCH_MIN : batch > BATCH_MAX ? BATCH_MAX : batch;
	error = exchange_run(cluster, &run, cuts, batch, rank_dir, &exchange);
	figures.sent_bytes = exchange.sent_bytes;
	figures.received_bytes = exchange.received_bytes;
	figures.rounds = exchange.rounds;
	figures.shared_runs = exchange.shared;
	figures.exchange_seconds = exchange.seconds;
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;
	/* every rank holds every run open now: the run's name goes, so that whatever ends
	 * the job, even SIGKILL of every rank, its bytes go with the last descriptor */
	if (exchange.by_descriptor) {
		temp_file_remove(local_path);
		local_path[0] = '\0';
	}

	/* 4. the merge of this rank's range: straight into the output at its offset when
	 * the range's size is known (without -u, every record received is written) and the
	 * output is a file every rank can write, else into a piece put in place after */
	phase = seconds_now();
	uint64_t incoming = 0;
	for (int s = 0; s < cluster->size; s++)
		incoming += exchange.received[s];
	struct sort_verify verify;
	sort_verify_init(&verify, !job->no_verify);
	struct range_sink sink = {NULL, -1, NULL, 0, 0, &built.order, job->no_verify ? NULL : &ends};
	if (direct) {
		sink.output = &output;
		sink.name = output.name;
		sink.offset = cluster_exscan(cluster, incoming);
		/* mapped when the range fits half of -S: the mapped pages count as this rank's */
		if (incoming <= budget / 2 && (error = distributed_output_map(&output, sink.offset, incoming)) != 0)
			report_file_failure("write failed", output.name, error);
	} else {
		piece_fd = temp_file_create_preferring(rank_dir, piece_path, sizeof piece_path);
		if (piece_fd < 0) {
			error = piece_fd;
			report_temp_create_error(piece_path, error);
			piece_path[0] = '\0';
		}
		sink.fd = piece_fd;
		sink.name = piece_path;
	}
	if (!error)
		error = merge_range(cluster, &built.order, &exchange, budget, rank_threads(cluster, job),
				    &verify, &sink);
	figures.merge_seconds = seconds_now() - phase;
	figures.output_bytes = sink.written;
	/* the merged range is in the output or the piece: what was received goes now, and
	 * this rank's run once every rank has merged (their merges may read it in place) */
	local_run_close(&run);
	exchange_free(cluster, &exchange);
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;
	if (local_path[0])
		temp_file_remove(local_path);
	local_path[0] = '\0';
	if (!job->no_verify &&
	    (error = distributed_verify(cluster, &built.order, &ends, atomic_load(&verify.disorder), figures.share_bytes,
					sink.written)) != 0)
		goto out;
	phase = seconds_now();
	if (!direct) {
		uint64_t offset = cluster_exscan(cluster, sink.written);
		error = distributed_output_put(cluster, &output, piece_fd, piece_path, sink.written, offset, MERGE_BLOCK);
	}
out:
	/* 5. every rank's range in place: rank 0 commits, or every rank gives up */
	error = distributed_output_finish(cluster, &output, error);
	figures.write_seconds = seconds_now() - phase;
	if (resident_engine)
		sort_engine_close(resident_engine);
	figures.total_seconds = seconds_now() - started;
	local_run_close(&run);
	exchange_free(cluster, &exchange);
	if (piece_fd >= 0)
		close(piece_fd);
	if (piece_path[0])
		temp_file_remove(piece_path);
	if (local_path[0])
		temp_file_remove(local_path);
	job_dirs_remove(&dirs);
	free(cuts);
	range_ends_free(&ends);
	input_share_free(&share);
	inputs_free(cluster, &inputs);
	if (built.has_text)
		text_order_free(&built.text);
	if (!error && job->stats)
		distributed_stats_print(cluster, &figures);
	return error ? 2 : 0;
}

int distributed_sort_run(const struct sort_job *job)
{
	struct cluster cluster;
	if (cluster_join(&cluster) != 0)
		return 2; /* reported */
	/* each rank's messages wait for the next agreement (cluster_agree), where only the
	 * first failing rank's are said */
	report_hold();
	/* --debug annotates the output's lines, which a rank's run must not hold */
	int status = job->check || job->merge_only || job->debug ? on_rank_zero(&cluster, job)
								  : distributed_sort(&cluster, job);
	report_release(true);
	return status;
}
