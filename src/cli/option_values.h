/* SPDX-License-Identifier: MIT */
/* The arguments of single options, read as GNU sort reads them where GNU has the
 * option (--batch-size, --parallel, -S's errors, --sort and --check's words) and by
 * gpusort's own rules otherwise (--type, --key-field, --device, --algorithm). */
#ifndef GPUSORT_CLI_OPTION_VALUES_H
#define GPUSORT_CLI_OPTION_VALUES_H

#include <stddef.h>
#include <gpusort.h>
#include "option_errors.h"

/* A word option's argument as GNU's argmatch takes it: a word in full, or the start of
 * one word (or of several that mean the same). Returns that word's value; -1 when no
 * word starts so, -2 when words of different meanings do. */
int match_word(const char *text, const char *const *words, const char *values, size_t count);

/* A decimal count, digits only, at least minimum: 0 or -EINVAL. */
int parse_count(const char *text, size_t minimum, size_t *value);
/* A key type (u32 ... bytes) or an engine's name: 0 or -EINVAL. */
int parse_key_type(const char *text, enum gpusort_key_type *type);
int parse_algorithm(const char *text, enum gpusort_algorithm *algorithm);
/* --device=auto|cpu|N: 0 or -EINVAL. */
int parse_device(const char *text, int *device);
/* -t SEP: one byte, or "\0" for NUL; -EINVAL when empty, -E2BIG when longer. */
int parse_separator(const char *text, int *separator);

/* --batch-size=NMERGE and --parallel=N: 0, or 2 after GNU's message. */
int parse_batch_size(const char *text, size_t *batch_size);
/* --header[=N]: N lines (no N: 1); 0, or 2 after the message. */
int parse_header_lines(const char *text, size_t *lines);
int parse_threads(const char *text, unsigned *threads);

/* Why gpusort_parse_size() refused a SIZE, in GNU sort 9.1's terms. */
enum number_trouble size_trouble(const char *text);

/* --key-field=TYPE:OFFSET[:SIZE][:asc|:desc] into a field: 0, or -EINVAL with what is
 * wrong in reason. */
int parse_key_field(const char *spec, struct gpusort_binary_key *field, char *reason, size_t size);

#endif
