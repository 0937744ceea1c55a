/* SPDX-License-Identifier: MIT */
/* --stats: a small table of stage times and bytes on stderr; --progress: a one-line bar
 * on a terminal, redrawn from the same byte counts (see stats.h). */
#include "config.h"
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "stats.h"
#include "job_context.h"
#include "../../kernels/thread_pool.h"

/* About four redraws a second: often enough to look alive (at least twice a second
 * even on a busy machine), rare enough to cost nothing. */
#define PROGRESS_INTERVAL_NANOSECONDS 250000000L
#define PROGRESS_BAR 20

/* One progress line per process: the lock orders its draws, its erasures and the
 * messages that interrupt it; `progress_line` is the sort whose line is on the
 * terminal now (NULL: none is). */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t progress_wake;
static pthread_once_t progress_wake_once = PTHREAD_ONCE_INIT;
static struct sort_stats *progress_line;

static void progress_wake_init(void)
{
	pthread_condattr_t attributes;
	pthread_condattr_init(&attributes);
	pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
	pthread_cond_init(&progress_wake, &attributes);
	pthread_condattr_destroy(&attributes);
}

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

static const char *const progress_verbs[PROGRESS_STAGES] = {"reading", "sorting", "spilling", "writing"};

/* How far the sort is, from the bytes each stage has moved of the input's size (or of
 * what was read, when it is not known): the stage furthest on, its bytes, and the
 * fraction of all stages' bytes. The fraction never falls (a stage that turns out to be
 * needed, a spill, adds to the total), and reaches 1 only when the sort completes. */
struct progress_view {
	enum progress_stage stage;
	bool known; /* the total: the input's size, or all of it read */
	uint64_t stage_bytes, total;
	double fraction;
};

static struct progress_view progress_measure(struct sort_progress *line)
{
	struct progress_view view = {PROGRESS_READ, false, 0, 0, 0};
	uint64_t moved[PROGRESS_STAGES];
	for (int i = 0; i < PROGRESS_STAGES; i++)
		moved[i] = atomic_load_explicit(&line->moved[i], memory_order_relaxed);
	/* the chunk being sorted, by the share of its steps done */
	uint64_t chunk = atomic_load_explicit(&line->chunk_bytes, memory_order_relaxed);
	if (chunk) {
		uint64_t steps = atomic_load_explicit(&line->chunk_steps, memory_order_relaxed);
		uint64_t done = atomic_load_explicit(&line->steps, memory_order_relaxed) -
				atomic_load_explicit(&line->chunk_from, memory_order_relaxed);
		double share = steps ? (double)done / (double)steps : 0;
		moved[PROGRESS_SORT] += (uint64_t)((double)chunk * (share < 0.99 ? share : 0.99));
	}
	view.total = line->total > 0 ? (uint64_t)line->total : moved[PROGRESS_READ];
	view.known = line->total > 0 || atomic_load_explicit(&line->read_all, memory_order_relaxed);
	if (!view.known) {
		view.stage_bytes = moved[PROGRESS_READ];
		return view;
	}
	if (view.total == 0)
		return view;
	bool spills = atomic_load_explicit(&line->spills, memory_order_relaxed);
	double done = 0;
	for (int i = 0; i < PROGRESS_STAGES; i++) {
		if (moved[i] > view.total)
			moved[i] = view.total;
		if (moved[i] > 0 || (i == PROGRESS_SORT && chunk)) {
			view.stage = (enum progress_stage)i;
			view.stage_bytes = moved[i];
		}
		done += (double)moved[i];
	}
	double fraction = done / ((double)view.total * (spills ? 4 : 3));
	if (fraction > 0.999)
		fraction = 0.999;
	if (fraction < line->shown)
		fraction = line->shown;
	line->shown = view.fraction = fraction;
	return view;
}

static void format_duration(char *text, size_t size, double seconds)
{
	long whole = (long)(seconds + 0.5);
	snprintf(text, size, "%ld:%02ld", whole / 60, whole % 60);
}

/* Draws the line (complete: the sort is done, 100% of what was read). The caller holds
 * the lock, or has stopped the thread. */
static void progress_draw(struct sort_stats *stats, bool complete)
{
	struct sort_progress *line = &stats->line;
	double now = stats_now(), elapsed = now - stats->started;
	struct progress_view view = progress_measure(line);
	char bytes_text[32], total_text[32], rate_text[48], time_text[32], text[256];
	if (complete) {
		uint64_t total = line->total > 0 ? (uint64_t)line->total : stats->bytes[STAGE_READ];
		format_bytes(total_text, sizeof total_text, (double)total);
		format_bytes(rate_text, sizeof rate_text, elapsed > 0 ? (double)total / elapsed : 0);
		format_duration(time_text, sizeof time_text, elapsed);
		snprintf(text, sizeof text, "gpusort: [%.*s] 100%% sorted %s of %s in %s, %s/s", PROGRESS_BAR,
			 "##############################", total_text, total_text, time_text, rate_text);
	} else {
		if (view.stage_bytes && line->first_moved[view.stage] == 0)
			line->first_moved[view.stage] = now;
		double stage_time = line->first_moved[view.stage] ? now - line->first_moved[view.stage] : 0;
		format_bytes(bytes_text, sizeof bytes_text, (double)view.stage_bytes);
		format_bytes(total_text, sizeof total_text, (double)view.total);
		/* the stage's pace, once it has run long enough to have one */
		rate_text[0] = '\0';
		if (stage_time >= 0.2) {
			char pace[32];
			format_bytes(pace, sizeof pace, (double)view.stage_bytes / stage_time);
			snprintf(rate_text, sizeof rate_text, ", %s/s", pace);
		}
		/* the time left: what every stage has still to move, at the pace so far */
		if (view.fraction >= 0.005 && elapsed >= 0.5)
			format_duration(time_text, sizeof time_text, elapsed * (1 - view.fraction) / view.fraction);
		else
			snprintf(time_text, sizeof time_text, "-:--");
		if (view.known) {
			char bar[PROGRESS_BAR + 1];
			int filled = (int)(view.fraction * PROGRESS_BAR);
			for (int i = 0; i < PROGRESS_BAR; i++)
				bar[i] = i < filled ? '#' : '.';
			bar[PROGRESS_BAR] = '\0';
			snprintf(text, sizeof text, "gpusort: [%s] %3d%% %s %s of %s%s, ETA %s", bar,
				 (int)(view.fraction * 100), progress_verbs[view.stage], bytes_text, total_text,
				 rate_text, time_text);
		} else { /* a pipe being read: its size is not known yet, nor the time left */
			snprintf(text, sizeof text, "gpusort: reading %s%s", bytes_text, rate_text);
		}
	}
	/* \r back to the start, the line, then erase whatever a longer line left */
	fprintf(stderr, "\r%s\033[K", text);
	fflush(stderr);
	progress_line = stats;
}

static void *progress_main(void *argument)
{
	struct sort_stats *stats = argument;
	pthread_mutex_lock(&progress_lock);
	while (!stats->line.stop) {
		progress_draw(stats, false);
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += PROGRESS_INTERVAL_NANOSECONDS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!stats->line.stop &&
		       pthread_cond_timedwait(&progress_wake, &progress_lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&progress_lock);
	return NULL;
}

void stats_progress_start(struct sort_stats *stats, bool wanted, int64_t total_bytes)
{
	if (stats->progress || !wanted || !isatty(STDERR_FILENO))
		return;
	pthread_once(&progress_wake_once, progress_wake_init);
	struct sort_progress *line = &stats->line;
	memset(line, 0, sizeof *line);
	line->total = total_bytes;
	for (int i = 0; i < PROGRESS_STAGES; i++)
		atomic_init(&line->moved[i], 0);
	atomic_init(&line->steps, 0);
	atomic_init(&line->chunk_bytes, 0);
	atomic_init(&line->chunk_steps, 0);
	atomic_init(&line->chunk_from, 0);
	atomic_init(&line->spills, false);
	atomic_init(&line->read_all, false);
	/* without a thread there is no line; the sort itself goes on */
	stats->progress = pthread_create(&line->thread, NULL, progress_main, stats) == 0;
}

void stats_progress_watch(struct sort_stats *stats, struct thread_pool *pool)
{
	if (stats->progress) {
		stats->line.pool = pool;
		thread_pool_set_progress(pool, &stats->line.steps);
	}
}

void stats_progress_add(struct sort_stats *stats, enum progress_stage stage, uint64_t bytes)
{
	if (stats && stats->progress)
		atomic_fetch_add_explicit(&stats->line.moved[stage], bytes, memory_order_relaxed);
}

void stats_progress_chunk_begin(struct sort_stats *stats, uint64_t bytes, uint64_t steps)
{
	if (!stats || !stats->progress)
		return;
	struct sort_progress *line = &stats->line;
	atomic_store_explicit(&line->chunk_steps, steps, memory_order_relaxed);
	atomic_store_explicit(&line->chunk_from, atomic_load(&line->steps), memory_order_relaxed);
	atomic_store_explicit(&line->chunk_bytes, bytes, memory_order_relaxed);
}

void stats_progress_chunk_end(struct sort_stats *stats)
{
	if (!stats || !stats->progress)
		return;
	uint64_t bytes = atomic_exchange(&stats->line.chunk_bytes, 0);
	atomic_fetch_add_explicit(&stats->line.moved[PROGRESS_SORT], bytes, memory_order_relaxed);
}

void stats_progress_read_all(struct sort_stats *stats)
{
	if (stats && stats->progress)
		atomic_store_explicit(&stats->line.read_all, true, memory_order_relaxed);
}

void stats_progress_spills(struct sort_stats *stats)
{
	if (stats && stats->progress)
		atomic_store_explicit(&stats->line.spills, true, memory_order_relaxed);
}

void stats_progress_finish(struct sort_stats *stats, bool completed)
{
	if (!stats->progress)
		return;
	thread_pool_set_progress(stats->line.pool, NULL);
	pthread_mutex_lock(&progress_lock);
	stats->line.stop = true;
	pthread_cond_signal(&progress_wake);
	pthread_mutex_unlock(&progress_lock);
	pthread_join(stats->line.thread, NULL);
	pthread_mutex_lock(&progress_lock);
	if (completed) {
		/* all of the input went through: 100%, and the line stays */
		progress_draw(stats, true);
		fputc('\n', stderr);
	} else if (progress_line) {
		fputs("\r\033[K", stderr);
	}
	fflush(stderr);
	progress_line = NULL;
	pthread_mutex_unlock(&progress_lock);
	stats->progress = false;
}

void stats_progress_interrupt(void)
{
	pthread_mutex_lock(&progress_lock);
	if (progress_line) {
		fputs("\r\033[K", stderr);
		progress_line = NULL;
	}
}

void stats_progress_resume(void)
{
	pthread_mutex_unlock(&progress_lock);
}

void stats_set_label(const char *label)
{
	struct job_context *job = job_context_current();
	snprintf(job->stats_label, sizeof job->stats_label, "%s", label ? label : "");
}

/* One line "gpusort: stats: [LABEL: ]TEXT" in one write, so that lines of processes
 * that share stderr do not mix. */
__attribute__((format(printf, 1, 2))) static void stats_line(const char *format, ...)
{
	char text[512];
	va_list arguments;
	va_start(arguments, format);
	vsnprintf(text, sizeof text, format, arguments);
	va_end(arguments);
	const char *label = job_context_current()->stats_label;
	fprintf(stderr, "gpusort: stats: %s%s%s", label, label[0] ? ": " : "", text);
}

/* How the runs were written: their levels and the rates that chose them. */
static void stats_print_spill(const struct sort_stats *stats)
{
	char levels[256] = "";
	size_t used = 0;
	const char *separator = "";
	/* the fast levels (-N) first, then stored and the levels from 1 up */
	for (int level = 1 - STATS_SPILL_LEVELS; level < STATS_SPILL_LEVELS && used < sizeof levels; level++) {
		uint64_t runs = level < 0 ? stats->spill_fast_runs[-level] : stats->spill_level_runs[level];
		if (!runs)
			continue;
		int wrote = level == 0
			? snprintf(levels + used, sizeof levels - used, "%sstored %" PRIu64, separator, runs)
			: snprintf(levels + used, sizeof levels - used, "%sat zstd level %d%s %" PRIu64, separator,
				   level, level == STATS_SPILL_LEVELS - 1 ? "+" : "", runs);
		used += wrote > 0 ? (size_t)wrote : 0;
		separator = ", ";
	}
	double per_thread = stats->spill_compress_seconds > 0
		? (double)stats->spill_compressed_bytes / 1048576.0 / stats->spill_compress_seconds : 0;
	double writes = stats->spill_write_seconds > 0
		? (double)stats->spill_written_bytes / 1048576.0 / stats->spill_write_seconds : 0;
	if (stats->spill_program_runs || stats->spill_program_unstarted_runs) {
		/* PROG compresses: what the writer saw is how fast PROG took the runs' bytes
		 * (and wrote those it could not be started for, stored) */
		char unstarted[128] = "";
		if (stats->spill_program_unstarted_runs)
			snprintf(unstarted, sizeof unstarted, "; %" PRIu64 " stored without it (no process left to start it)",
				 stats->spill_program_unstarted_runs);
		stats_line("runs written through the compress program %" PRIu64 ", which took %.1f MiB/s of writer "
			   "time%s\n", stats->spill_program_runs, writes, unstarted);
		return;
	}
	stats_line("runs written %s; compressor %.1f MiB/s per thread x %u threads, temp writes %.1f MiB/s of "
		   "writer time; %.1f MiB left to the page cache, the rest written behind\n", levels, per_thread,
		   stats->spill_threads, writes, (double)stats->spill_cached_bytes / 1048576.0);
}

void stats_print(const struct sort_stats *stats)
{
	double total = stats_now() - stats->started;
	if (stats->engine_wait_seconds > 0)
		stats_line("engine %s, opened in %.3f s (beside the read; the sort waited %.3f s of it)\n",
			   stats->engine ? stats->engine : "none", stats->engine_seconds, stats->engine_wait_seconds);
	else
		stats_line("engine %s, opened in %.3f s\n", stats->engine ? stats->engine : "none",
			   stats->engine_seconds);
	if (stats->fallback)
		stats_line("GPU not used: %s\n", stats->fallback);
	stats_line("%-8s %10s %12s %10s\n", "stage", "seconds", "MiB", "MiB/s");
	for (int i = 0; i < STAGE_COUNT; i++) {
		double mib = (double)stats->bytes[i] / 1048576.0;
		double rate = stats->seconds[i] > 0 ? mib / stats->seconds[i] : 0;
		stats_line("%-8s %10.3f %12.1f %10.1f\n", stage_names[i],
			stats->seconds[i], mib, rate);
	}
	stats_line("records %" PRIu64 ", runs %" PRIu64 ", merge passes %" PRIu64
		", temp %.1f MiB (compression ratio %.2f), temp peak %.1f MiB, total %.3f s\n",
		stats->records, stats->runs, stats->merge_passes, (double)stats->temp_bytes / 1048576.0,
		stats->temp_bytes ? (double)stats->temp_raw_bytes / (double)stats->temp_bytes : 0.0,
		(double)stats->temp_peak_bytes / 1048576.0, total);
	if (stats->runs)
		stats_print_spill(stats);
	if (stats->output_mapped_bytes)
		stats_line("output copied through a mapping of %.1f MiB\n", (double)stats->output_mapped_bytes / 1048576.0);
	if (stats->output_uncached_bytes)
		stats_line("output written past the page cache (O_DIRECT): %.1f MiB\n",
			   (double)stats->output_uncached_bytes / 1048576.0);
	if (stats->output_moved_bytes)
		stats_line("-u: output moved into place after the duplicates dropped: %.1f MiB\n",
			   (double)stats->output_moved_bytes / 1048576.0);

	if (stats->verified)
		stats_line("verify %.3f s per thread within the stages above, %" PRIu64
			" records in and out matched, output in order\n", stats->verify_seconds, stats->verified_records);
	else
		stats_line("verify off\n");
}
