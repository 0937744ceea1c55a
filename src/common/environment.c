/* SPDX-License-Identifier: MIT */
/* The table of GPUSORT_* variables and their three syntaxes (a string, a 0/1 switch, a
 * size); nothing else in the product reads GPUSORT_* from the environment. */
#include "config.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "environment.h"
#include "size_parse.h"
#include "../../io/fault_inject.h"
#include "../../kernels/gpu_module.h"

enum environment_syntax { SYNTAX_STRING, SYNTAX_SWITCH, SYNTAX_SIZE };

static const struct environment_entry {
	const char *name;
	const char *meaning;
	const char *fallback; /* the default; a switch's and a size's: automatic */
	enum environment_syntax syntax;
} environment_table[ENVIRONMENT_NAMES] = {
	/* NULL: the installed module, else the build tree's beside the program (module_open.h) */
	[ENVIRONMENT_CUDA_MODULE] = {"GPUSORT_CUDA_MODULE", "the CUDA backend's module", NULL, SYNTAX_STRING},
	[ENVIRONMENT_MPI_MODULE] = {"GPUSORT_MPI_MODULE", "the MPI module a rank loads", NULL,
				    SYNTAX_STRING},
	[ENVIRONMENT_MEMORY_DIR] = {"GPUSORT_MEMORY_DIR",
				    "the memory file system for a distributed sort's rank files (empty: none)",
				    "/dev/shm", SYNTAX_STRING},
	[ENVIRONMENT_RESIDENT] = {"GPUSORT_RESIDENT",
				  "0: a distributed sort goes through the ranks' files, never resident on GPUs",
				  NULL, SYNTAX_SWITCH},
	[ENVIRONMENT_SHARED_RUNS] = {"GPUSORT_SHARED_RUNS",
				     "0: the ranks send their ranges through MPI, never read in place",
				     NULL, SYNTAX_SWITCH},
	[ENVIRONMENT_TEMP_CACHE] = {"GPUSORT_TEMP_CACHE",
				    "the temp bytes left to the page cache before the rest is written behind",
				    NULL, SYNTAX_SIZE},
	[ENVIRONMENT_OUTPUT_MAP] = {"GPUSORT_OUTPUT_MAP",
				    "1: an in-memory sort's output always through a mapping; 0: never",
				    NULL, SYNTAX_SWITCH},
	[ENVIRONMENT_OUTPUT_DIRECT] = {"GPUSORT_OUTPUT_DIRECT",
				       "1: the final merge's output always past the page cache; 0: never",
				       NULL, SYNTAX_SWITCH},
	[ENVIRONMENT_HOST_REGISTER] = {"GPUSORT_HOST_REGISTER",
				       "0: every GPU copy goes through the staging buffers", NULL,
				       SYNTAX_SWITCH},
	[ENVIRONMENT_FAULT] = {"GPUSORT_FAULT", "faults injected for the tests (io/fault_inject.h)", NULL,
			       SYNTAX_STRING},
};

/* The variable's text where it is set and not empty, else NULL. */
static const char *environment_text(enum environment_name name, enum environment_syntax syntax)
{
	const struct environment_entry *entry = &environment_table[name];
	if (entry->syntax != syntax)
		return NULL;
	const char *text = getenv(entry->name);
	return text && *text ? text : NULL;
}

const char *environment_string(enum environment_name name)
{
	const char *text = getenv(environment_table[name].name);
	if (environment_table[name].syntax != SYNTAX_STRING)
		return NULL;
	/* a set but empty string is a value (GPUSORT_MEMORY_DIR= says: none) */
	return text ? text : environment_table[name].fallback;
}

int environment_switch(enum environment_name name)
{
	const char *text = environment_text(name, SYNTAX_SWITCH);
	if (text && (strcmp(text, "0") == 0 || strcmp(text, "1") == 0))
		return text[0] - '0';
	return ENVIRONMENT_AUTOMATIC;
}

int64_t environment_size(enum environment_name name)
{
	const char *text = environment_text(name, SYNTAX_SIZE);
	size_t bytes;
	/* -S's syntax (size_parse.h), a bare number in bytes */
	if (!text || size_parse(text, 1, &bytes) != 0 || bytes > (size_t)INT64_MAX)
		return -1;
	return (int64_t)bytes;
}

static pthread_once_t environment_once = PTHREAD_ONCE_INIT;

static void environment_hand_down(void)
{
	fault_arm(environment_string(ENVIRONMENT_FAULT));
#ifdef HAVE_CUDA
	gpu_module_choose(environment_string(ENVIRONMENT_CUDA_MODULE));
#endif
}

void environment_apply(void)
{
	pthread_once(&environment_once, environment_hand_down);
}
