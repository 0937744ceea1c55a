/* Numbers in text keys as GNU sort reads them under LC_ALL=C: -n (optional '-', digits,
 * optional '.' and digits; anything else counts as zero; byte 0x80 among the integer
 * digits is skipped as sort 9.1 skips it) and -h (the same, ordered first by an SI
 * suffix K/k M G T P E Z Y, as coreutils 9.1). Comparisons take bounded keys; the images are
 * 64-bit order-preserving summaries for the sort items (equal images may still differ). */
#ifndef GPUSORT_TEXT_NUMERIC_H
#define GPUSORT_TEXT_NUMERIC_H

#include <stddef.h>
#include <stdint.h>

int text_numeric_compare(const char *a, size_t alen, const char *b, size_t blen);
int text_human_compare(const char *a, size_t alen, const char *b, size_t blen);

uint64_t text_numeric_image(const char *key, size_t len);
uint64_t text_human_image(const char *key, size_t len);

#endif
