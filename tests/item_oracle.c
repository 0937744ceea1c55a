/* SPDX-License-Identifier: MIT */
/* qsort over sort items (see item_oracle.h): an independent reference for the engines. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "item_oracle.h"

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int compare_u128(const void *a, const void *b)
{
	item_u128 x = *(const item_u128 *)a, y = *(const item_u128 *)b;
	return (x > y) - (x < y);
}

static int compare_u96(const void *a, const void *b)
{
	item_u96 x, y;
	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	item_u128 p = item_u96_value(x), q = item_u96_value(y);
	return (p > q) - (p < q);
}

void item_oracle_sort(enum item_width width, void *items, size_t n)
{
	qsort(items, n, (size_t)width,
	      width == ITEM_U32 ? compare_u32 : width == ITEM_U64 ? compare_u64 : width == ITEM_U96 ? compare_u96 : compare_u128);
}
