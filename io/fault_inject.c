/* SPDX-License-Identifier: MIT */
/* The rules of a fault spec (see fault_inject.h for the syntax), each point's calls
 * counted, and the points descriptors were tagged with where they were opened. */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "fault_inject.h"

#define FAULT_RULES_MAX 8
#define FAULT_TAGGED_FDS 4096

struct fault_rule {
	enum fault_point point;
	int result;           /* negative errno or FAULT_SHORT */
	unsigned long nth;    /* 0: every call */
	unsigned long last;   /* the last call that fails: nth, a range's end, or ULONG_MAX */
	atomic_ulong calls;
};

atomic_bool fault_armed;
static struct fault_rule fault_rules[FAULT_RULES_MAX];
static int fault_rule_count;
static _Atomic unsigned char fault_tags[FAULT_TAGGED_FDS];

static const char *const fault_names[FAULT_POINTS] = {
	[FAULT_INPUT_READ] = "input_read",       [FAULT_OUTPUT_OPEN] = "output_open",
	[FAULT_OUTPUT_WRITE] = "output_write",   [FAULT_OUTPUT_MOVE] = "output_move",
	[FAULT_RANGE_WRITE] = "range_write",     [FAULT_OUTPUT_RENAME] = "output_rename",
	[FAULT_OUTPUT_COPY] = "output_copy",     [FAULT_TEMP_CREATE] = "temp_create",
	[FAULT_TEMP_WRITE] = "temp_write",       [FAULT_TEMP_READ] = "temp_read",
	[FAULT_IO_RING] = "io_ring",             [FAULT_COMPRESS_START] = "compress_start",
	[FAULT_DECOMPRESS_START] = "decompress_start", [FAULT_SPAWN_WAIT] = "spawn_wait",
	[FAULT_SORT_SWAP] = "sort_swap",         [FAULT_SORT_DUPLICATE] = "sort_duplicate",
	[FAULT_TEXT_CARRY] = "text_carry",       [FAULT_DISTRIBUTED_CUT] = "distributed_cut",
	[FAULT_RUN_SHARE] = "run_share",
};

static int fault_error_by_name(const char *name)
{
	static const struct { const char *name; int error; } names[] = {
		{"ENOSPC", ENOSPC}, {"EIO", EIO}, {"EACCES", EACCES}, {"EROFS", EROFS},
		{"EDQUOT", EDQUOT}, {"EFBIG", EFBIG}, {"EPIPE", EPIPE}, {"ENOMEM", ENOMEM},
		{"EPERM", EPERM}, {"EINTR", EINTR}, {"EAGAIN", EAGAIN}, {"EBADF", EBADF},
		{"ENOSYS", ENOSYS},
	};
	if (strcmp(name, "SHORT") == 0)
		return FAULT_SHORT;
	if (strcmp(name, "STOP") == 0)
		return FAULT_STOP;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i].name) == 0)
			return -names[i].error;
	char *end;
	long number = strtol(name, &end, 10);
	return (*name && !*end && number > 0) ? (int)-number : 0;
}

static enum fault_point fault_point_by_name(const char *name)
{
	for (int p = FAULT_NONE + 1; p < FAULT_POINTS; p++)
		if (strcmp(name, fault_names[p]) == 0)
			return (enum fault_point)p;
	return FAULT_NONE;
}

/* One rule "POINT:ERR[:N[+|-M]]" into r; false where it names no point or error. */
static bool fault_rule_parse(char *rule, struct fault_rule *r)
{
	char *err = strchr(rule, ':');
	if (!err)
		return false;
	*err++ = '\0';
	char *nth = strchr(err, ':');
	if (nth)
		*nth++ = '\0';
	r->point = fault_point_by_name(rule);
	r->result = fault_error_by_name(err);
	r->nth = r->last = 0;
	atomic_store(&r->calls, 0);
	if (nth) {
		char *end;
		r->nth = strtoul(nth, &end, 10);
		r->last = *end == '+' ? ULONG_MAX : *end == '-' ? strtoul(end + 1, NULL, 10) : r->nth;
	}
	return r->point != FAULT_NONE && r->result != 0;
}

void fault_arm(const char *spec)
{
	atomic_store(&fault_armed, false);
	fault_rule_count = 0;
	if (!spec || !*spec)
		return;
	char *copy = strdup(spec), *save = NULL;
	for (char *rule = copy ? strtok_r(copy, ",", &save) : NULL; rule && fault_rule_count < FAULT_RULES_MAX;
	     rule = strtok_r(NULL, ",", &save))
		if (fault_rule_parse(rule, &fault_rules[fault_rule_count]))
			fault_rule_count++;
	free(copy);
	atomic_store(&fault_armed, fault_rule_count > 0);
}

int fault_check(enum fault_point point)
{
	for (int i = 0; i < fault_rule_count; i++) {
		struct fault_rule *r = &fault_rules[i];
		if (r->point != point || point == FAULT_NONE)
			continue;
		unsigned long call = atomic_fetch_add(&r->calls, 1) + 1;
		if (r->nth == 0 || (call >= r->nth && call <= r->last)) {
			if (r->result != FAULT_STOP)
				return r->result;
			raise(SIGSTOP); /* held here for the test, which kills it (or continues it) */
			return 0;
		}
	}
	return 0;
}

void fault_tag_set(int fd, enum fault_point point)
{
	if (fd >= 0 && fd < FAULT_TAGGED_FDS)
		atomic_store_explicit(&fault_tags[fd], (unsigned char)point, memory_order_relaxed);
}

enum fault_point fault_tag_of(int fd)
{
	return fd >= 0 && fd < FAULT_TAGGED_FDS
		       ? (enum fault_point)atomic_load_explicit(&fault_tags[fd], memory_order_relaxed)
		       : FAULT_NONE;
}
