/* SPDX-License-Identifier: MIT */
/* --stats of a distributed sort (see distributed_stats.h). */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "distributed_stats.h"

#define FIGURES (sizeof(struct rank_figures) / sizeof(uint64_t))

static double mib(uint64_t bytes)
{
	return (double)bytes / 1048576.0;
}

static void print_line(const char *who, const struct rank_figures *f)
{
	fprintf(stderr,
		"gpusort: stats: %-6s %10.1f %8.3f %8.3f %10.1f %10.1f %8.3f %8.3f %10.1f %8.3f %8.3f\n", who,
		mib(f->share_bytes), f->sort_seconds, f->split_seconds, mib(f->sent_bytes), mib(f->received_bytes),
		f->exchange_seconds, f->merge_seconds, mib(f->output_bytes), f->write_seconds, f->total_seconds);
}

void distributed_stats_print(const struct cluster *cluster, const struct rank_figures *mine)
{
	uint64_t packed[FIGURES];
	memcpy(packed, mine, sizeof packed);
	uint64_t *all = malloc(sizeof packed * (size_t)cluster->size);
	/* every rank takes part, also one short of memory: up to 1024 ranks it has room */
	static uint64_t spare[FIGURES * 1024];
	uint64_t *into = all ? all : cluster->size <= 1024 ? spare : NULL;
	if (!into)
		return;
	cluster_allgather(cluster, packed, FIGURES, into);
	if (cluster->rank == 0) {
		struct rank_figures total = {0}, f;
		uint64_t largest = 0;
		fprintf(stderr, "gpusort: stats: distributed over %d ranks\n", cluster->size);
		fprintf(stderr, "gpusort: stats: %-6s %10s %8s %8s %10s %10s %8s %8s %10s %8s %8s\n", "rank",
			"share MiB", "sort s", "split s", "sent MiB", "recv MiB", "xchg s", "merge s", "out MiB",
			"write s", "total s");
		for (int r = 0; r < cluster->size; r++) {
			char who[16];
			memcpy(&f, into + (size_t)r * FIGURES, sizeof f);
			snprintf(who, sizeof who, "%d", r);
			print_line(who, &f);
			total.share_bytes += f.share_bytes;
			total.sent_bytes += f.sent_bytes;
			total.received_bytes += f.received_bytes;
			total.output_bytes += f.output_bytes;
			/* the job's times are its slowest rank's */
			if (f.sort_seconds > total.sort_seconds) total.sort_seconds = f.sort_seconds;
			if (f.split_seconds > total.split_seconds) total.split_seconds = f.split_seconds;
			if (f.exchange_seconds > total.exchange_seconds) total.exchange_seconds = f.exchange_seconds;
			if (f.merge_seconds > total.merge_seconds) total.merge_seconds = f.merge_seconds;
			if (f.write_seconds > total.write_seconds) total.write_seconds = f.write_seconds;
			if (f.total_seconds > total.total_seconds) total.total_seconds = f.total_seconds;
			if (f.output_bytes > largest)
				largest = f.output_bytes;
			total.rounds = f.rounds;
			total.shared_runs = f.shared_runs;
			total.on_gpus = f.on_gpus;
		}
		print_line("total", &total);
		double mean = (double)total.output_bytes / cluster->size;
		fprintf(stderr, "gpusort: stats: bytes exchanged %" PRIu64 " in %" PRIu64 " rounds%s, %.3f s; imbalance"
			" (largest range / mean) %.3f; times in the total line are the slowest rank's\n", total.sent_bytes,
			total.rounds, total.on_gpus ? " (GPU to GPU, the shares kept on the GPUs)"
				      : total.shared_runs ? " (read in place from the ranks' runs)" : "",
			total.exchange_seconds, mean > 0 ? (double)largest / mean : 1.0);
	}
	free(all);
}
