/* SPDX-License-Identifier: MIT */
/* What text keys take from the user's locale, read once when an order is built and
 * shared read-only by all threads, each part as GNU sort 9.1 takes it: collation
 * (LC_COLLATE), -n and -h's decimal point and thousands separator (LC_NUMERIC), and
 * -M's month names (LC_TIME). In the C locale it is the C rules. */
#ifndef GPUSORT_TEXT_LOCALE_H
#define GPUSORT_TEXT_LOCALE_H

#include <stdbool.h>

struct text_numbers {
	unsigned char decimal_point; /* LC_NUMERIC's, or '.' when it has none or a multibyte one */
	/* The byte strnumcmp skips among integer digits: LC_NUMERIC's single-byte thousands
	 * separator, or sort's NON_CHAR (CHAR_MAX + 1: 0x80 as an unsigned byte) */
	int thousands_separator;
	/* The one -h's unit scan skips: the same where a (signed) char can equal it, else -1 */
	int unit_separator;
};

struct text_month_name {
	char name[32]; /* upper case as GNU folds it (ASCII letters), blanks dropped */
	int month;     /* 1..12 */
};

struct text_locale {
	bool collate;                       /* LC_COLLATE is not C/POSIX: keys collate */
	struct text_numbers numbers;
	struct text_month_name months[12];  /* sorted by name (strcmp), for GNU's search */
};

/* Reads the process's current locale. */
void text_locale_init(struct text_locale *locale);

#endif
