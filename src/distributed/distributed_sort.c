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
			report_errno(error);
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
		report_errno(-ENOMEM);
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
		report_errno(-ENOMEM);
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
	local.output = (struct output_target){.name = path, .scratch = true};
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

/* The cuts of this rank's run before each splitter. */
struct run_cutter {
	struct local_run *run;
	bool unique;
	int rank;
};

static int run_cut(void *context, const struct sample *splitters, size_t count, uint64_t *cuts)
{
	struct run_cutter *cutter = context;
	int error = 0;
	for (size_t j = 0; j < count && !error; j++)
		error = splitters_cut(cutter->run, cutter->unique, cutter->rank, &splitters[j], &cuts[j]);
	if (error)
		report_error(error, "%s: %s", cutter->run->path, strerror(-error));
	return error;
}

/* Splitters from every rank's samples, and this rank's cuts: cuts[d] to cuts[d + 1] of
 * its run go to rank d. */
static int split(const struct cluster *cluster, struct local_run *run, bool unique, uint64_t *cuts)
{
	unsigned char *encoded = NULL;
	size_t encoded_bytes = 0;
	int error = splitters_sample(run, cluster->rank, splitters_sample_count(cluster->size), &encoded, &encoded_bytes);
	if (error)
		report_error(error, "%s: %s", run->path, strerror(-error));
	struct run_cutter context = {run, unique, cluster->rank};
	const struct share_cutter cutter = {run_cut, &context, run->size};
	error = agreed_splitters_split(cluster, run->order, unique, error, encoded, encoded_bytes, &cutter, cuts);
	free(encoded);
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
		report_errno(-ENOMEM);
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

/* What one rank holds for the job, from its first step to the teardown, which alone
 * releases it (rank_job_finish). */
struct rank_job {
	const struct cluster *cluster;
	const struct sort_job *job;
	bool root;
	size_t budget;
	unsigned threads;
	struct rank_figures figures;
	double started, phase;
	struct distributed_order built;
	struct shared_inputs inputs;
	struct input_share share;
	struct job_dirs dirs;
	const char *rank_dir;                /* this rank's own files: a memory file system, or NULL */
	struct distributed_output output;
	bool direct;                         /* the range merged straight into the output */
	struct sort_engine *resident_engine; /* the resident sort's, closed after the commit */
	char local_path[PATH_MAX];           /* this rank's run, "" once removed */
	struct local_run run;
	uint64_t *cuts;
	struct exchange exchange;
	struct range_ends ends;
	struct sort_verify verify;
	char piece_path[PATH_MAX];           /* the merged range, when not direct */
	int piece_fd;
};

static void rank_job_init(struct rank_job *rj, const struct cluster *cluster, const struct sort_job *job)
{
	memset(rj, 0, sizeof *rj);
	rj->cluster = cluster;
	rj->job = job;
	rj->root = cluster->rank == 0;
	rj->budget = rank_budget(cluster, job);
	rj->threads = rank_threads(cluster, job);
	rj->started = rj->phase = seconds_now();
	rj->run.fd = -1;
	rj->output.fd = -1;
	rj->piece_fd = -1;
	sort_verify_init(&rj->verify, !job->no_verify);
}

/* The order (with -R's salt, rank 0's for all), the temp directories, the output's
 * check and the inputs, each checked and said by rank 0 as one process would. */
static int rank_job_prepare(struct rank_job *rj)
{
	const struct cluster *cluster = rj->cluster;
	const struct sort_job *job = rj->job;
	struct distributed_order *built = &rj->built;
	int error = order_build(job, !rj->root, built);
	bool random = built->has_text && text_order_is_random(&built->text);
	if ((error = cluster_agree(cluster, error)) == 0 && random) {
		if (rj->root && text_sort_read_salt(job->random_source, built->salt) != 0)
			error = -EINVAL;
		if ((error = cluster_agree(cluster, error)) != 0)
			return error;
		cluster_broadcast(cluster, built->salt, sizeof built->salt, 0);
		text_order_salt(&built->text, built->salt);
		built->salted = true;
	}
	if (!error && (error = temp_files_init(job->runs.temp_dirs, job->runs.temp_dir_count)) != 0)
		report_error(error, "temporary directory: %s", strerror(-error));
	/* every rank's files in the job's directories, which the others remove on signals */
	if ((error = cluster_agree(cluster, error)) != 0 ||
	    (error = job_dirs_make(cluster, job->runs.temp_dirs, job->runs.temp_dir_count, &rj->dirs)) != 0)
		return error;
	if (rj->root && output_check(&job->output))
		error = -EACCES;
	if ((error = cluster_agree(cluster, error)) != 0 || (error = inputs_resolve(cluster, job, &rj->inputs)) != 0)
		return error;
	/* the shares: rank 0 first, so that a bad input is reported once */
	size_t record_size = built->order.record_size;
	if (rj->root)
		error = input_share_plan(&rj->inputs.list, record_size, built->order.eol, 0, cluster->size, false, &rj->share);
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	if (!rj->root)
		error = input_share_plan(&rj->inputs.list, record_size, built->order.eol, cluster->rank, cluster->size,
					 false, &rj->share);
	return cluster_agree(cluster, error);
}

/* Where this rank's files go, and the output, opened before the sort. */
static int rank_job_open_output(struct rank_job *rj)
{
	const struct cluster *cluster = rj->cluster;
	const struct sort_job *job = rj->job;
	uint64_t share = rj->share.bytes;
	/* This rank's own files (its sorted share, what it receives, its piece) hold about
	 * its share each. When the share is small beside -S (these files live in memory
	 * then, beside the local sort's buffers) they go to a memory file system with room
	 * for them: in the -T directories they would pass through the disk's write-back,
	 * which every rank of the machine shares. */
	if (share && share <= rj->budget / 4 && temp_memory_dir(rj->dirs.memory, 3 * share + ((uint64_t)64 << 20)))
		rj->rank_dir = rj->dirs.memory;
	int error = distributed_output_open(cluster, &job->output, &rj->output);
	if (error)
		return error;
	rj->direct = rj->output.positional && !job->unique;
	if (!rj->direct)
		return 0;
	/* A rank whose range will be mapped faults in, on threads of its own while it
	 * sorts, about where that range will be (its share's place: the splitters cut ranges
	 * about as large as the shares), so that the merge copies into pages already there
	 * rather than fresh ones. Not beside a sort on the CPU threads, whose cores it would
	 * take. */
	uint64_t share_offset = cluster_exscan(cluster, share), total = cluster_sum(cluster, share);
	if (share <= rj->budget / 2 && job->engine.device != SORT_DEVICE_CPU &&
	    (error = distributed_output_prefault_start(&rj->output, share_offset, share, total)) != 0)
		report_output_failure(rj->output.name, error, false);
	return cluster_agree(cluster, error);
}

/* Bare keys beside GPUs: the shares kept on them, the ranges exchanged GPU to GPU.
 * Returns 1 when it sorted, 0 when the files must, or the agreed error. */
static int rank_job_resident(struct rank_job *rj)
{
	const struct resident_job work = {rj->job, &rj->share, &rj->built.layout, &rj->built.order, &rj->output,
					  rj->budget, rj->threads, &rj->figures, rj->job->no_verify ? NULL : &rj->ends,
					  &rj->resident_engine};
	int done = resident_sort(rj->cluster, &work);
	rj->phase = seconds_now();
	return done;
}

/* 1. this rank's share sorted into a local run */
static int rank_job_sort_share(struct rank_job *rj)
{
	rj->phase = seconds_now();
	int error, fd = temp_file_create_preferring(rj->rank_dir, rj->local_path, sizeof rj->local_path);
	if (fd < 0) {
		error = fd;
		report_temp_create_error(rj->local_path, error);
		rj->local_path[0] = '\0';
	} else {
		close(fd);
		error = local_sort(rj->cluster, rj->job, &rj->share, &rj->built, &rj->dirs, rj->local_path);
	}
	if (!error && (error = local_run_open(&rj->run, rj->local_path, &rj->built.order)) != 0)
		report_file_error(rj->local_path, error);
	distributed_output_prefault_stop(&rj->output);
	rj->figures.share_bytes = rj->run.size;
	rj->figures.sort_seconds = seconds_now() - rj->phase;
	return cluster_agree(rj->cluster, error);
}

/* 2. splitters and cuts; 3. the exchange: the ranges read in place from the runs, or
 * sent in batches that -S bounds */
static int rank_job_exchange(struct rank_job *rj)
{
	const struct cluster *cluster = rj->cluster;
	rj->phase = seconds_now();
	rj->cuts = calloc((size_t)cluster->size + 1, sizeof *rj->cuts);
	if (!rj->cuts)
		report_errno(-ENOMEM);
	int error = cluster_agree(cluster, rj->cuts ? 0 : -ENOMEM);
	if (error || (error = split(cluster, &rj->run, rj->job->unique, rj->cuts)) != 0)
		return error;
	rj->figures.split_seconds = seconds_now() - rj->phase;
	size_t batch = rj->budget / (4 * (size_t)cluster->size);
	batch = batch < BATCH_MIN ? BATCH_MIN : batch > BATCH_MAX ? BATCH_MAX : batch;
	struct exchange *exchange = &rj->exchange;
	error = exchange_run(cluster, &rj->run, rj->cuts, batch, rj->rank_dir, exchange);
	rj->figures.sent_bytes = exchange->sent_bytes;
	rj->figures.received_bytes = exchange->received_bytes;
	rj->figures.rounds = exchange->rounds;
	rj->figures.shared_runs = exchange->shared;
	rj->figures.exchange_seconds = exchange->seconds;
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	/* every rank holds every run open now: the run's name goes, so that whatever ends
	 * the job, even SIGKILL of every rank, its bytes go with the last descriptor */
	if (exchange->by_descriptor) {
		temp_file_remove(rj->local_path);
		rj->local_path[0] = '\0';
	}
	return 0;
}

/* Where this rank's merged range goes: straight into the output at its offset when the
 * range's size is known (without -u, every record received is written) and the output
 * is a file every rank can write, else into a piece put in place after. */
static int rank_job_sink(struct rank_job *rj, struct range_sink *sink)
{
	uint64_t incoming = 0;
	for (int s = 0; s < rj->cluster->size; s++)
		incoming += rj->exchange.received[s];
	*sink = (struct range_sink){NULL, -1, NULL, 0, 0, &rj->built.order, rj->job->no_verify ? NULL : &rj->ends};
	if (rj->direct) {
		sink->output = &rj->output;
		sink->name = rj->output.name;
		sink->offset = cluster_exscan(rj->cluster, incoming);
		/* mapped when the range fits half of -S: the mapped pages count as this rank's */
		int error = incoming <= rj->budget / 2 ? distributed_output_map(&rj->output, sink->offset, incoming) : 0;
		if (error)
			report_output_failure(rj->output.name, error, false);
		return error;
	}
	rj->piece_fd = temp_file_create_preferring(rj->rank_dir, rj->piece_path, sizeof rj->piece_path);
	sink->fd = rj->piece_fd;
	sink->name = rj->piece_path;
	if (rj->piece_fd >= 0)
		return 0;
	report_temp_create_error(rj->piece_path, rj->piece_fd);
	rj->piece_path[0] = '\0';
	return rj->piece_fd;
}

/* 4. the merge of this rank's range, checked, and (a piece) put in place */
static int rank_job_merge(struct rank_job *rj)
{
	const struct cluster *cluster = rj->cluster;
	rj->phase = seconds_now();
	struct range_sink sink;
	int error = rank_job_sink(rj, &sink);
	if (!error)
		error = merge_range(cluster, &rj->built.order, &rj->exchange, rj->budget, rj->threads, &rj->verify, &sink);
	rj->figures.merge_seconds = seconds_now() - rj->phase;
	rj->figures.output_bytes = sink.written;
	/* the merged range is in the output or the piece: what was received goes now, and
	 * this rank's run once every rank has merged (their merges may read it in place) */
	local_run_close(&rj->run);
	exchange_free(cluster, &rj->exchange);
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	if (rj->local_path[0])
		temp_file_remove(rj->local_path);
	rj->local_path[0] = '\0';
	if (!rj->job->no_verify &&
	    (error = distributed_verify(cluster, &rj->built.order, &rj->ends, atomic_load(&rj->verify.disorder),
					rj->figures.share_bytes, sink.written)) != 0)
		return error;
	rj->phase = seconds_now();
	if (rj->direct)
		return 0;
	uint64_t offset = cluster_exscan(cluster, sink.written);
	return distributed_output_put(cluster, &rj->output, rj->piece_fd, rj->piece_path, sink.written, offset,
				      MERGE_BLOCK);
}

/* 5. every rank's range in place: rank 0 commits, or every rank gives up; then what the
 * rank holds is released. Returns the exit status. */
static int rank_job_finish(struct rank_job *rj, int error)
{
	error = distributed_output_finish(rj->cluster, &rj->output, error);
	rj->figures.write_seconds = seconds_now() - rj->phase;
	if (rj->resident_engine)
		sort_engine_close(rj->resident_engine);
	rj->figures.total_seconds = seconds_now() - rj->started;
	local_run_close(&rj->run);
	exchange_free(rj->cluster, &rj->exchange);
	if (rj->piece_fd >= 0)
		close(rj->piece_fd);
	if (rj->piece_path[0])
		temp_file_remove(rj->piece_path);
	if (rj->local_path[0])
		temp_file_remove(rj->local_path);
	job_dirs_remove(&rj->dirs);
	free(rj->cuts);
	range_ends_free(&rj->ends);
	input_share_free(&rj->share);
	inputs_free(rj->cluster, &rj->inputs);
	if (rj->built.has_text)
		text_order_free(&rj->built.text);
	if (!error && rj->job->stats)
		distributed_stats_print(rj->cluster, &rj->figures);
	return error ? 2 : 0;
}

static int distributed_sort(const struct cluster *cluster, const struct sort_job *job)
{
	struct rank_job rj;
	rank_job_init(&rj, cluster, job);
	int error = rank_job_prepare(&rj);
	if (!error)
		error = rank_job_open_output(&rj);
	int resident = !error && rj.direct ? rank_job_resident(&rj) : 0;
	if (resident < 0)
		error = resident;
	if (!error && resident == 0 && (error = rank_job_sort_share(&rj)) == 0 &&
	    (error = rank_job_exchange(&rj)) == 0)
		error = rank_job_merge(&rj);
	return rank_job_finish(&rj, error);
}

int distributed_sort_run(const struct sort_job *job)
{
	struct cluster cluster;
	if (cluster_join(&cluster) != 0)
		return 2; /* reported */
	/* each rank's messages wait for the next agreement (cluster_agree), where only the
	 * first failing rank's are said */
	report_hold();
	/* --debug annotates the output's lines, which a rank's run must not hold; a header
	 * is the first input's start, which only the rank reading it would see; a CSV
	 * record's end is known only from the start of its input */
	bool alone = job->check || job->merge_only || job->debug || job->header_lines || job->text.csv;
	int status = alone ? on_rank_zero(&cluster, job) : distributed_sort(&cluster, job);
	report_release(true);
	return status;
}
