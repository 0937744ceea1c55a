/* SPDX-License-Identifier: MIT */
/* Parses GPUSORT_FAULT once and answers, per call of an I/O operation, whether it should
 * fail (see fault_inject.h for the syntax). Without the variable this is one load. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fault_inject.h"

#define FAULT_RULES_MAX 8

struct fault_rule {
	char op[32];
	int result;           /* negative errno or FAULT_SHORT */
	unsigned long nth;    /* 0: every call */
	unsigned long last;   /* the last call that fails: nth, a range's end, or ULONG_MAX */
	atomic_ulong calls;
};

static struct fault_rule fault_rules[FAULT_RULES_MAX];
static int fault_rule_count;
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;

static int fault_error_by_name(const char *name)
{
	static const struct { const char *name; int error; } names[] = {
		{"ENOSPC", ENOSPC}, {"EIO", EIO}, {"EACCES", EACCES}, {"EROFS", EROFS},
		{"EDQUOT", EDQUOT}, {"EFBIG", EFBIG}, {"EPIPE", EPIPE}, {"ENOMEM", ENOMEM},
		{"EPERM", EPERM}, {"EINTR", EINTR}, {"EAGAIN", EAGAIN}, {"EBADF", EBADF},
	};
	if (strcmp(name, "SHORT") == 0)
		return FAULT_SHORT;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i].name) == 0)
			return -names[i].error;
	char *end;
	long number = strtol(name, &end, 10);
	return (*name && !*end && number > 0) ? (int)-number : 0;
}

static void fault_parse(void)
{
	const char *spec = getenv("GPUSORT_FAULT");
	if (!spec || !*spec)
		return;
	char *copy = strdup(spec), *save = NULL;
	for (char *rule = copy ? strtok_r(copy, ",", &save) : NULL;
	     rule && fault_rule_count < FAULT_RULES_MAX; rule = strtok_r(NULL, ",", &save)) {
		char *op = rule, *err = strchr(op, ':');
		if (!err)
			continue;
		*err++ = '\0';
		char *nth = strchr(err, ':');
		if (nth)
			*nth++ = '\0';
		struct fault_rule *r = &fault_rules[fault_rule_count];
		r->result = fault_error_by_name(err);
		if (!r->result || strlen(op) >= sizeof r->op)
			continue;
		strcpy(r->op, op);
		if (nth) {
			char *end;
			r->nth = strtoul(nth, &end, 10);
			r->last = *end == '+' ? ULONG_MAX : *end == '-' ? strtoul(end + 1, NULL, 10) : r->nth;
		}
		fault_rule_count++;
	}
	free(copy);
}

int fault_inject(const char *op)
{
	pthread_once(&fault_once, fault_parse);
	for (int i = 0; i < fault_rule_count; i++) {
		struct fault_rule *r = &fault_rules[i];
		if (strcmp(r->op, op) != 0)
			continue;
		unsigned long call = atomic_fetch_add(&r->calls, 1) + 1;
		if (r->nth == 0 || (call >= r->nth && call <= r->last))
			return r->result;
	}
	return 0;
}
