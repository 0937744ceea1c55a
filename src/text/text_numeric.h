/* SPDX-License-Identifier: MIT */
/* Numbers in text keys as GNU sort reads them: -n (optional '-', digits, optional
 * decimal point and digits; anything else counts as zero; the thousands separator among
 * the integer digits is skipped, byte 0x80 where the locale has none, as sort 9.1 skips
 * them) and -h (the same, ordered first by an SI suffix K/k M G T P E Z Y, as coreutils
 * 9.1). The decimal point and separator are the locale's (text_locale.h). Comparisons take bounded keys; the images are
 * 64-bit order-preserving summaries for the sort items (equal images may still differ). */
#ifndef GPUSORT_TEXT_NUMERIC_H
#define GPUSORT_TEXT_NUMERIC_H

#include <stddef.h>
#include <stdint.h>
#include "text_locale.h"

int text_numeric_compare(const struct text_numbers *numbers, const char *a, size_t alen,
			 const char *b, size_t blen);
int text_human_compare(const struct text_numbers *numbers, const char *a, size_t alen,
		       const char *b, size_t blen);

uint64_t text_numeric_image(const struct text_numbers *numbers, const char *key, size_t len);
uint64_t text_human_image(const struct text_numbers *numbers, const char *key, size_t len);

#endif
