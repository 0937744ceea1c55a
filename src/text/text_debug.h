/* SPDX-License-Identifier: MIT */
/* --debug, as GNU sort 9.1 shows it: notes on standard error before the sort (how text
 * is ordered in the locale, and what of the keys and options may not act as meant), and
 * in the output each line (tabs shown as '>') followed by a line per key underlining
 * the part of the line that key compares, then one for the last-resort comparison. */
#ifndef GPUSORT_TEXT_DEBUG_H
#define GPUSORT_TEXT_DEBUG_H

#include <stddef.h>
#include "../settings/keydef.h"
#include "text_order.h"

/* The notes, in GNU's words and order, on standard error: on the keys as given and
 * the order made of them. */
void text_debug_notes(const struct text_keys *given, const struct text_order *order);

/* What the output shows of line[0, len) (without its terminator): written to
 * out[0, room) as far as it fits; returns its whole length. */
size_t text_debug_annotate(const struct text_order *order, const char *line, size_t len, char *out, size_t room);

#endif
