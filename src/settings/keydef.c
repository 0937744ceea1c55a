/* SPDX-License-Identifier: MIT */
/* Parsing of GNU sort's KEYDEF (F[.C][OPTS][,F[.C][OPTS]]) and of the ordering option
 * letters, with GNU sort's acceptance rules and error wording, so that scripts written
 * for `sort -k` behave the same here. */
#include "keydef.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../common/report.h"

/* GNU reads counts with xstrtoumax: blanks and '+' may lead, '-' may not, digits must
 * follow; anything after the digits is left for the caller; overflow saturates. */
/* A field as a column's name, [NAME] (--csv --header): its text in *name, the
 * field 1 until keydef_resolve_names sets it. NULL when text is no [NAME]. */
static const char *parse_name(const char *text, size_t *field, struct keydef_name *name)
{
	if (*text != '[')
		return NULL;
	const char *close = strchr(text + 1, ']');
	if (!close || close == text + 1)
		return NULL;
	*name = (struct keydef_name){text + 1, (size_t)(close - text - 1)};
	*field = 1;
	return close + 1;
}

static const char *parse_count(const char *text, size_t *value)
{
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	size_t n = 0;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned digit = (unsigned)(*p - '0');
		n = n > (SIZE_MAX - digit) / 10 ? SIZE_MAX : n * 10 + digit;
	}
	*value = n;
	return p;
}

int key_ordering_set(struct key_ordering *ordering, char letter, bool on_end)
{
	switch (letter) {
	case 'b':
		if (on_end)
			ordering->skip_end_blanks = true;
		else
			ordering->skip_start_blanks = true;
		break;
	case 'd': ordering->dictionary = true; break;
	case 'f': ordering->fold_case = true; break;
	case 'g': ordering->general_numeric = true; break;
	case 'h': ordering->human_numeric = true; break;
	case 'i': ordering->ignore_nonprinting = true; break;
	case 'M': ordering->month = true; break;
	case 'n': ordering->numeric = true; break;
	case 'R': ordering->random = true; break;
	case 'r': ordering->reverse = true; break;
	case 'V': ordering->version = true; break;
	default: return -EINVAL;
	}
	return 0;
}

bool key_ordering_any(const struct key_ordering *o)
{
	return o->skip_start_blanks || o->skip_end_blanks || o->dictionary || o->fold_case
	    || o->general_numeric || o->human_numeric || o->ignore_nonprinting || o->month
	    || o->numeric || o->random || o->reverse || o->version;
}

static const char *parse_letters(const char *p, struct key_ordering *ordering, bool on_end)
{
	while (*p && key_ordering_set(ordering, *p, on_end) == 0)
		p++;
	return p;
}

/* The one parser behind keydef_parse and keydef_error_message; on failure *bad_count
 * tells which of GNU's two message shapes applies and *rest where the count began. */
static int parse(const char *text, struct keydef *key, const char **reason,
		 bool *bad_count, const char **rest)
{
	memset(key, 0, sizeof *key);
	key->start_char = 1;
	*bad_count = false;
	const char *p = parse_name(text, &key->start_field, &key->start_name);
	if (!p)
		p = parse_count(text, &key->start_field);
	if (!p) {
		*reason = "invalid number at field start", *bad_count = true, *rest = text;
		return -EINVAL;
	}
	if (key->start_field == 0) {
		*reason = "field number is zero";
		return -EINVAL;
	}
	if (*p == '.') {
		const char *q = parse_count(p + 1, &key->start_char);
		if (!q) {
			*reason = "invalid number after '.'", *bad_count = true, *rest = p + 1;
			return -EINVAL;
		}
		if (key->start_char == 0) {
			*reason = "character offset is zero";
			return -EINVAL;
		}
		p = q;
	}
	p = parse_letters(p, &key->ordering, false);
	if (*p == ',') {
		const char *q = parse_name(p + 1, &key->end_field, &key->end_name);
		if (!q)
			q = parse_count(p + 1, &key->end_field);
		if (!q) {
			*reason = "invalid number after ','", *bad_count = true, *rest = p + 1;
			return -EINVAL;
		}
		if (key->end_field == 0) {
			*reason = "field number is zero";
			return -EINVAL;
		}
		p = q;
		if (*p == '.') {
			q = parse_count(p + 1, &key->end_char);
			if (!q) {
				*reason = "invalid number after '.'", *bad_count = true, *rest = p + 1;
				return -EINVAL;
			}
			p = q;
		}
		p = parse_letters(p, &key->ordering, true);
	}
	if (*p) {
		*reason = "stray character in field spec";
		return -EINVAL;
	}
	key->has_ordering = key_ordering_any(&key->ordering);
	return 0;
}

int keydef_parse(const char *text, struct keydef *key, const char **reason)
{
	bool bad_count;
	const char *rest, *why = NULL;
	int err = parse(text, key, &why, &bad_count, &rest);
	if (reason)
		*reason = why;
	return err;
}

bool keydef_named(const struct keydef *key)
{
	return key->start_name.text || key->end_name.text;
}

/* The 1-based number of the column called name, or 0. */
static size_t column_number(const struct keydef_name *name, const struct keydef_name *columns, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (columns[i].length == name->length && memcmp(columns[i].text, name->text, name->length) == 0)
			return i + 1;
	return 0;
}

int keydef_resolve_names(struct keydef *keys, size_t count, const struct keydef_name *columns, size_t column_count,
			 const struct keydef_name **unknown)
{
	for (size_t i = 0; i < count; i++) {
		struct keydef *key = &keys[i];
		if (key->start_name.text && !(key->start_field = column_number(&key->start_name, columns, column_count))) {
			*unknown = &key->start_name;
			return -ENOENT;
		}
		if (key->end_name.text && !(key->end_field = column_number(&key->end_name, columns, column_count))) {
			*unknown = &key->end_name;
			return -ENOENT;
		}
	}
	return 0;
}

void keydef_error_message(const char *text, char *buffer, size_t size)
{
	struct keydef key;
	bool bad_count;
	const char *rest = text, *why = "invalid key";
	char quoted[1024];
	if (parse(text, &key, &why, &bad_count, &rest) == 0)
		snprintf(buffer, size, "%s", "no error");
	else if (bad_count)
		snprintf(buffer, size, "%s: invalid count at start of %s", why,
			 report_locale_quote(rest, quoted, sizeof quoted));
	else
		snprintf(buffer, size, "%s: invalid field specification %s", why,
			 report_locale_quote(text, quoted, sizeof quoted));
}

bool key_ordering_conflict(const struct key_ordering *o, char *letters, size_t size)
{
	/* -d implies -i (and wins over it), as in GNU sort; V, R and d/i count as one kind
	 * (R then wins over V, and hashes the key d/i leave). */
	bool ignore = o->dictionary || o->ignore_nonprinting;
	int kinds = o->numeric + o->general_numeric + o->human_numeric + o->month
		  + (o->version || o->random || ignore);
	if (kinds <= 1)
		return false;
	/* GNU names the clashing letters in this order, leaving out b and r. */
	size_t n = 0;
	const struct { bool on; char letter; } all[] = {
		{ o->dictionary, 'd' }, { o->fold_case, 'f' }, { o->general_numeric, 'g' },
		{ o->human_numeric, 'h' }, { o->ignore_nonprinting && !o->dictionary, 'i' },
		{ o->month, 'M' }, { o->numeric, 'n' }, { o->random, 'R' }, { o->version, 'V' },
	};
	for (size_t i = 0; i < sizeof all / sizeof all[0] && n + 1 < size; i++)
		if (all[i].on)
			letters[n++] = all[i].letter;
	if (size)
		letters[n < size ? n : size - 1] = '\0';
	return true;
}
