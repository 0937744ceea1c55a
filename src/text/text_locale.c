/* SPDX-License-Identifier: MIT */
/* The locale's parts for text keys, through nl_langinfo and the locale's names, with
 * GNU sort's fallbacks (its inittables and main), so that C and POSIX give exactly the
 * rules gpusort had before it read the locale. nl_langinfo's RADIXCHAR and THOUSEP are
 * localeconv's decimal_point and thousands_sep without its shared static result, which
 * two jobs of the library starting at once would both write. */
#include "text_locale.h"

#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include "text_collate.h"
#include "text_compare.h"

static const char *const english_months[12] = { "JAN", "FEB", "MAR", "APR", "MAY", "JUN",
						 "JUL", "AUG", "SEP", "OCT", "NOV", "DEC" };

/* GNU's hard_locale: any locale but C and POSIX. */
static bool hard_locale(int category)
{
	const char *name = setlocale(category, NULL);
	return name && strcmp(name, "C") != 0 && strcmp(name, "POSIX") != 0;
}

static void read_numbers(struct text_numbers *numbers)
{
	const char *decimal_point = nl_langinfo(RADIXCHAR), *separator = nl_langinfo(THOUSEP);
	numbers->decimal_point = (unsigned char)decimal_point[0];
	if (!numbers->decimal_point || decimal_point[1])
		numbers->decimal_point = '.';
	numbers->thousands_separator = (unsigned char)separator[0];
	if (!numbers->thousands_separator || separator[1])
		numbers->thousands_separator = CHAR_MAX + 1;
	/* sort 9.1's unit scan compares it with a char, which never holds CHAR_MAX + 1 */
	numbers->unit_separator = numbers->thousands_separator <= CHAR_MAX ? numbers->thousands_separator : -1;
}

static void set_month(struct text_month_name *month, const char *name, int number)
{
	size_t n = 0;
	for (; *name && n + 1 < sizeof month->name; name++)
		if (*name != ' ' && *name != '\t')
			month->name[n++] = (char)text_fold((unsigned char)*name);
	month->name[n] = '\0';
	month->month = number;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct text_month_name *)a)->name, ((const struct text_month_name *)b)->name);
}

static void read_months(struct text_month_name months[12])
{
	static const nl_item abbreviations[12] = { ABMON_1, ABMON_2, ABMON_3, ABMON_4, ABMON_5, ABMON_6,
						   ABMON_7, ABMON_8, ABMON_9, ABMON_10, ABMON_11, ABMON_12 };
	bool local = hard_locale(LC_TIME);
	for (int i = 0; i < 12; i++)
		set_month(&months[i], local ? nl_langinfo(abbreviations[i]) : english_months[i], i + 1);
	qsort(months, 12, sizeof months[0], by_name);
}

void text_locale_init(struct text_locale *locale)
{
	locale->collate = text_collate_active();
	read_numbers(&locale->numbers);
	read_months(locale->months);
}
