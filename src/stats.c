/* --stats: a small table of stage times and bytes on stderr (see stats.h). */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "stats.h"

static const char *const stage_names[STAGE_COUNT] = {
	"read", "prepare", "sort", "spill", "merge", "write",
};

double stats_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

void stats_begin(struct sort_stats *stats)
{
	memset(stats, 0, sizeof *stats);
	stats->started = stats_now();
}

double stats_add(struct sort_stats *stats, enum stats_stage stage, double since, uint64_t bytes)
{
	double now = stats_now();
	stats->seconds[stage] += now - since;
	stats->bytes[stage] += bytes;
	return now;
}

void stats_print(const struct sort_stats *stats)
{
	double total = stats_now() - stats->started;
	fprintf(stderr, "gpusort: stats: engine %s\n", stats->engine ? stats->engine : "none");
	if (stats->fallback)
		fprintf(stderr, "gpusort: stats: GPU not used: %s\n", stats->fallback);
	fprintf(stderr, "gpusort: stats: %-8s %10s %12s %10s\n", "stage", "seconds", "MiB", "MiB/s");
	for (int i = 0; i < STAGE_COUNT; i++) {
		double mib = (double)stats->bytes[i] / 1048576.0;
		double rate = stats->seconds[i] > 0 ? mib / stats->seconds[i] : 0;
		fprintf(stderr, "gpusort: stats: %-8s %10.3f %12.1f %10.1f\n", stage_names[i],
			stats->seconds[i], mib, rate);
	}
	fprintf(stderr, "gpusort: stats: records %" PRIu64 ", runs %" PRIu64 ", merge passes %" PRIu64
		", temp %.1f MiB (compression ratio %.2f), total %.3f s\n",
		stats->records, stats->runs, stats->merge_passes, (double)stats->temp_bytes / 1048576.0,
		stats->temp_bytes ? (double)stats->temp_raw_bytes / (double)stats->temp_bytes : 0.0, total);
}
