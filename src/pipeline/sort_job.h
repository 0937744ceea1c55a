/* SPDX-License-Identifier: MIT */
/* The pipeline's entry: a sort job, what it asks for as the library built it from a
 * struct gpusort_job (src/library/job_options.c, validated there), and the one call
 * that runs it. Only the drivers (this entry, binary_sort.c, text_sort.c and the
 * sort_driver.c they share) and the rooms above the pipeline see the whole job; each
 * stage below takes the few values it uses. */
#ifndef GPUSORT_SORT_JOB_H
#define GPUSORT_SORT_JOB_H

#include <stdbool.h>
#include "../settings/key_field.h"
#include "../settings/keydef.h"
#include "../../kernels/sort_engine.h"
#include "input_list.h"
#include "memory_plan.h"
#include "output_check.h"
#include "runs.h"

enum sort_mode { MODE_TEXT, MODE_BINARY };

struct sort_job {
	enum sort_mode mode;

	/* what orders the records: the binary key, or the text keys and -R's salt */
	struct binary_key binary;
	struct text_keys text;
	const char *random_source; /* --random-source: the salt of -R; NULL: getrandom() */
	/* -R's salt itself (TEXT_RANDOM_SALT_BYTES bytes), over random_source: the ranks of
	 * a distributed sort share rank 0's; NULL: read it as random_source says */
	const unsigned char *random_salt;

	/* what is done: sort, -c/-C or -m; -u */
	bool unique;             /* -u */
	int check;               /* 0, 'c' (report disorder) or 'C' (silent) */
	bool merge_only;         /* -m */
	size_t header_lines;     /* --header=N, text mode: each input's first N lines */

	/* each stage's part, in the struct it takes */
	struct input_spec inputs;    /* operands, a rank's ranges, --files0-from */
	struct output_target output; /* -o, or standard output, or a job's descriptor */
	struct memory_limits memory; /* -S, --batch-size */
	struct run_settings runs;    /* -T */
	struct sort_engine_config engine; /* --device, --parallel, --gpu-memory, --algorithm */

	/* what is said and checked on the way */
	bool stats;              /* --stats */
	bool no_verify;          /* --no-verify: skip the self-check of the sort */
	bool progress;           /* --progress */
	bool verbose;            /* --verbose */
	bool debug;              /* --debug: GNU sort's notes, and each output line annotated */
};

/* Runs the job in this process: the sort of its mode (or -c check, or -m merge).
 * Returns the exit status: 0, 1 (disorder under -c/-C) or 2 (trouble, reported). */
int sort_job_run(const struct sort_job *job);

#endif
