/* --stats: a small table of stage times and bytes on stderr; --progress: a one-line bar
 * on a terminal, redrawn from the same byte counts (see stats.h). */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "stats.h"

/* About four redraws a second: often enough to look alive, rare enough to cost nothing. */
#define PROGRESS_INTERVAL 0.25
#define PROGRESS_BAR 20

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
	if (stats->progress && (stage == STAGE_READ || stage == STAGE_WRITE))
		stats_progress_update(stats, UINT64_MAX);
	return now;
}

double stats_seconds_recorded(const struct sort_stats *stats)
{
	double seconds = 0;
	for (int i = 0; i < STAGE_COUNT; i++)
		seconds += stats->seconds[i];
	return seconds;
}

double stats_add_enclosing(struct sort_stats *stats, enum stats_stage stage, double since,
			   double recorded_before, uint64_t bytes)
{
	double inner = stats_seconds_recorded(stats) - recorded_before;
	double now = stats_now(), own = now - since - inner;
	stats->seconds[stage] += own > 0 ? own : 0;
	stats->bytes[stage] += bytes;
	return now;
}

void stats_temp_add(struct sort_stats *stats, uint64_t bytes)
{
	stats->temp_live_bytes += bytes;
	if (stats->temp_live_bytes > stats->temp_peak_bytes)
		stats->temp_peak_bytes = stats->temp_live_bytes;
}

void stats_temp_remove(struct sort_stats *stats, uint64_t bytes)
{
	stats->temp_live_bytes -= bytes < stats->temp_live_bytes ? bytes : stats->temp_live_bytes;
}

void stats_progress_start(struct sort_stats *stats, bool wanted, int64_t total_bytes)
{
	stats->progress = wanted && isatty(STDERR_FILENO);
	stats->progress_total = total_bytes;
	stats->progress_last = 0;
	stats->progress_shown = false;
}

/* 1536 MiB as "1.5 GiB": the unit that keeps the number short. */
static void format_bytes(char *text, size_t size, double bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int unit = 0;
	while (bytes >= 1024 && unit < 4) {
		bytes /= 1024;
		unit++;
	}
	snprintf(text, size, unit ? "%.1f %s" : "%.0f %s", bytes, units[unit]);
}

void stats_progress_update(struct sort_stats *stats, uint64_t done_bytes)
{
	if (!stats->progress)
		return;
	double now = stats_now();
	if (now - stats->progress_last < PROGRESS_INTERVAL)
		return;
	stats->progress_last = now;
	uint64_t done = done_bytes != UINT64_MAX ? done_bytes
		: (stats->bytes[STAGE_READ] + stats->bytes[STAGE_WRITE]) / 2;
	double elapsed = now - stats->started, rate = elapsed > 0 ? (double)done / elapsed : 0;
	char done_text[32], rate_text[32], line[256];
	format_bytes(done_text, sizeof done_text, (double)done);
	format_bytes(rate_text, sizeof rate_text, rate);
	if (stats->progress_total > 0) {
		double fraction = (double)done / (double)stats->progress_total;
		if (fraction > 1)
			fraction = 1;
		char bar[PROGRESS_BAR + 1], total_text[32];
		int filled = (int)(fraction * PROGRESS_BAR);
		for (int i = 0; i < PROGRESS_BAR; i++)
			bar[i] = i < filled ? '#' : '.';
		bar[PROGRESS_BAR] = '\0';
		format_bytes(total_text, sizeof total_text, (double)stats->progress_total);
		long eta = rate > 0 ? (long)(((double)stats->progress_total - (double)done) / rate + 0.5) : 0;
		snprintf(line, sizeof line, "gpusort: [%s] %3d%% %s of %s, %s/s, ETA %ld:%02ld", bar,
			 (int)(fraction * 100), done_text, total_text, rate_text, eta / 60, eta % 60);
	} else {
		snprintf(line, sizeof line, "gpusort: %s, %s/s", done_text, rate_text);
	}
	/* \r back to the start, the line, then erase whatever a longer line left */
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	stats->progress_shown = true;
}

void stats_progress_finish(struct sort_stats *stats)
{
	if (stats->progress && stats->progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	stats->progress = false;
	stats->progress_shown = false;
}

void stats_print(const struct sort_stats *stats)
{
	double total = stats_now() - stats->started;
	fprintf(stderr, "gpusort: stats: engine %s, opened in %.3f s\n", stats->engine ? stats->engine : "none",
		stats->engine_seconds);
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
		", temp %.1f MiB (compression ratio %.2f), temp peak %.1f MiB, total %.3f s\n",
		stats->records, stats->runs, stats->merge_passes, (double)stats->temp_bytes / 1048576.0,
		stats->temp_bytes ? (double)stats->temp_raw_bytes / (double)stats->temp_bytes : 0.0,
		(double)stats->temp_peak_bytes / 1048576.0, total);
	if (stats->verified)
		fprintf(stderr, "gpusort: stats: verify %.3f s per thread within the stages above, %" PRIu64
			" records in and out matched, output in order\n", stats->verify_seconds, stats->verified_records);
	else
		fprintf(stderr, "gpusort: stats: verify off\n");
}
