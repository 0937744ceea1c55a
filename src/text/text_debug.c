/* SPDX-License-Identifier: MIT */
/* --debug (see text_debug.h). The notes follow GNU sort's key_warnings: its keys are
 * ours seen through its fields (sword, schar, eword, echar: 0-based, SIZE_MAX for "from
 * the line's start" and "to the line's end"), and the global options it reports as
 * ignored are those no key took. An underline spans the display columns (a tab counts
 * one) of the key's extent, as GNU's debug_key narrows it: blanks skipped and the
 * number or month name alone for -n -g -h -M. */
#include "config.h"
#include "text_debug.h"

#include <ctype.h>
#include <limits.h>
#include <langinfo.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>
#include "../common/report.h"
#include "text_fields.h"
#include "text_month.h"

/* --- The notes ----------------------------------------------------------------------- */

/* A key as GNU's struct keyfield holds what the notes look at. */
struct gnu_key {
	size_t sword, schar, eword, echar;
	bool skipsblanks, skipeblanks, fold, month, numeric, general, human, random, version, reverse;
	int ignore; /* 0, 'd' (-d, which wins over -i) or 'i' */
};

static struct gnu_key gnu_ordering(const struct key_ordering *o)
{
	return (struct gnu_key){.skipsblanks = o->skip_start_blanks, .skipeblanks = o->skip_end_blanks,
				.fold = o->fold_case, .month = o->month, .numeric = o->numeric,
				.general = o->general_numeric, .human = o->human_numeric, .random = o->random,
				.version = o->version, .reverse = o->reverse,
				.ignore = o->dictionary ? 'd' : o->ignore_nonprinting ? 'i' : 0};
}

/* A -k key, or (whole_line) the one key global options make without -k. */
static struct gnu_key gnu_key(const struct keydef *key, bool whole_line)
{
	struct gnu_key k = gnu_ordering(&key->ordering);
	k.sword = key->start_field - 1;
	k.schar = key->start_char - 1;
	if (k.sword == 0 && k.schar == 0 && !whole_line)
		k.sword = SIZE_MAX;
	k.eword = key->end_field ? key->end_field - 1 : SIZE_MAX;
	k.echar = key->end_field ? key->end_char : 0;
	return k;
}

static bool is_numeric(const struct gnu_key *k)
{
	return k->numeric || k->general || k->human;
}

static bool default_compare(const struct gnu_key *k)
{
	return !(k->ignore || k->fold || k->skipsblanks || k->skipeblanks || is_numeric(k) || k->month ||
		 k->version || k->random);
}

/* GNU's key_to_opts: the letters in its order. */
static void option_letters(const struct gnu_key *k, char *letters)
{
	const struct { bool on; char letter; } all[] = {
		{ k->skipsblanks || k->skipeblanks, 'b' }, { k->ignore == 'd', 'd' }, { k->fold, 'f' },
		{ k->general, 'g' }, { k->human, 'h' }, { k->ignore == 'i', 'i' }, { k->month, 'M' },
		{ k->numeric, 'n' }, { k->random, 'R' }, { k->reverse, 'r' }, { k->version, 'V' },
	};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i].on)
			*letters++ = all[i].letter;
	*letters = '\0';
}

/* What each key's fields and options may not do as meant; clears from *unused the
 * global options the key uses. Sets the numeric findings for the notes after. */
static void key_notes(const struct gnu_key *k, unsigned long number, bool whole_line, int tab,
		      struct gnu_key *unused, bool *numeric_span, bool *general_span)
{
	bool zero_width = k->sword != SIZE_MAX && k->eword < k->sword;
	if (zero_width)
		report("key %lu has zero width and will be ignored", number);
	bool implicit_skip = is_numeric(k) || k->month;
	bool line_offset = k->eword == 0 && k->echar != 0;
	if (!zero_width && !whole_line && tab < 0 && !line_offset &&
	    ((!k->skipsblanks && !implicit_skip) || (!k->skipsblanks && k->schar) || (!k->skipeblanks && k->echar)))
		report("leading blanks are significant in key %lu; consider also specifying 'b'", number);
	if (!whole_line && is_numeric(k)) {
		size_t sword = k->sword + 1, eword = k->eword + 1; /* SIZE_MAX wraps to 0 */
		if (!sword)
			sword++;
		if (!eword || sword < eword) {
			report("key %lu is numeric and spans multiple fields", number);
			*(k->general ? general_span : numeric_span) = true;
		}
	}
	if (unused->ignore && unused->ignore == k->ignore)
		unused->ignore = 0;
	unused->fold &= !k->fold;
	unused->skipsblanks &= !k->skipsblanks;
	unused->skipeblanks &= !k->skipeblanks;
	unused->month &= !k->month;
	unused->numeric &= !k->numeric;
	unused->general &= !k->general;
	unused->human &= !k->human;
	unused->random &= !k->random;
	unused->version &= !k->version;
	unused->reverse &= !k->reverse;
}

static const char *quoted_char(int c, char *buffer, size_t size)
{
	char text[2] = {(char)c, '\0'};
	return report_locale_quote(text, buffer, size);
}

/* Where the field separator can be read as part of a number, and the locale's decimal
 * point. */
static void number_notes(const struct text_order *order, int tab, bool any_numeric, bool any_general,
			 bool numeric_span, bool general_span)
{
	const struct text_numbers *numbers = &order->locale.numbers;
	int decimal_point = numbers->decimal_point, thousands = numbers->thousands_separator;
	bool has_thousands = thousands != CHAR_MAX + 1, warned = false;
	char quoted[32];
	if (numeric_span && (tab < 0 ? has_thousands && isblank(thousands) : tab == thousands)) {
		report("field separator %s is treated as a group separator in numbers",
		       quoted_char(thousands, quoted, sizeof quoted));
		warned = true;
	}
	if (numeric_span || general_span) {
		if (tab < 0 ? has_thousands && isblank(decimal_point) : tab == decimal_point) {
			report("field separator %s is treated as a decimal point in numbers",
			       quoted_char(decimal_point, quoted, sizeof quoted));
			warned = true;
		} else if (tab == '-') {
			report("field separator %s is treated as a minus sign in numbers",
			       quoted_char(tab, quoted, sizeof quoted));
		} else if (general_span && tab == '+') {
			report("field separator %s is treated as a plus sign in numbers",
			       quoted_char(tab, quoted, sizeof quoted));
		}
	}
	if ((any_numeric || any_general) && !warned)
		report("%snumbers use %s as a decimal point in this locale", tab == decimal_point ? "" : "note ",
		       quoted_char(decimal_point, quoted, sizeof quoted));
	const char *separator = nl_langinfo(THOUSEP);
	if (any_numeric && separator[0] && separator[1])
		report("the multi-byte number group separator in this locale is not supported");
}

static void locale_notes(void)
{
	/* GNU's setlocale (LC_ALL, "") failed: the environment names no installed locale */
	locale_t wanted = newlocale(LC_ALL_MASK, "", (locale_t)0);
	if (wanted)
		freelocale(wanted);
	else
		report("failed to set locale");
	const char *collation = setlocale(LC_COLLATE, NULL);
	if (collation && strcmp(collation, "C") != 0 && strcmp(collation, "POSIX") != 0) {
		char quoted[256];
		report("text ordering performed using %s sorting rules",
		       report_locale_quote(collation, quoted, sizeof quoted));
	} else {
		report("text ordering performed using simple byte comparison");
	}
}

void text_debug_notes(const struct text_keys *given, const struct text_order *order)
{
	locale_notes();
	bool whole_line = given->count == 0 && order->key_count == 1;
	int tab = given->field_separator;
	struct gnu_key unused = gnu_ordering(&given->global_ordering);
	unused.skipsblanks = unused.skipeblanks = unused.skipsblanks || unused.skipeblanks;
	unused.reverse = given->reverse;
	bool any_numeric = false, any_general = false, numeric_span = false, general_span = false;
	for (size_t i = 0; i < order->key_count; i++) {
		struct gnu_key k = gnu_key(&order->keys[i], whole_line);
		if (is_numeric(&k))
			*(k.general ? &any_general : &any_numeric) = true;
		key_notes(&k, (unsigned long)i + 1, whole_line, tab, &unused, &numeric_span, &general_span);
	}
	number_notes(order, tab, any_numeric, any_general, numeric_span, general_span);
	bool keyed = order->key_count > 0, no_last_resort = given->stable || order->unique;
	if (!default_compare(&unused) || (unused.reverse && no_last_resort && keyed)) {
		struct gnu_key shown = unused;
		shown.reverse = unused.reverse && no_last_resort;
		char letters[16];
		option_letters(&shown, letters);
		if (strlen(letters) == 1)
			report("option '-%s' is ignored", letters);
		else
			report("options '-%s' are ignored", letters);
	}
	if (unused.reverse && !no_last_resort && keyed)
		report("option '-r' only applies to last-resort comparison");
}

/* --- The annotated lines ---------------------------------------------------------------- */

struct writer {
	char *out;
	size_t room, used;
};

static void put(struct writer *w, char c)
{
	if (w->used < w->room)
		w->out[w->used] = c;
	w->used++;
}

static void put_text(struct writer *w, const char *text)
{
	while (*text)
		put(w, *text++);
}

/* Display columns of [p, end) as gnulib's mbsnwidth counts them (a byte that is no
 * character: one; a control character: none), plus one for each tab. */
static size_t display_width(const char *p, const char *end)
{
	size_t width = 0;
	for (const char *t = p; t < end; t++)
		width += *t == '\t';
	if (MB_CUR_MAX == 1) {
		for (; p < end; p++)
			width += isprint((unsigned char)*p) || !iscntrl((unsigned char)*p);
		return width;
	}
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c < 0x7f) {
			p++, width++;
			continue;
		}
		mbstate_t state;
		memset(&state, 0, sizeof state);
		wchar_t wc;
		size_t bytes = mbrtowc(&wc, p, (size_t)(end - p), &state);
		if (bytes == (size_t)-1) {
			p++, width++;
			continue;
		}
		if (bytes == (size_t)-2) {
			width++;
			break;
		}
		if (bytes == 0)
			bytes = 1;
		int w = wcwidth(wc);
		if (w >= 0)
			width += (size_t)w;
		else if (!iswcntrl((wint_t)wc))
			width++;
		p += bytes;
	}
	return width;
}

/* GNU's mark_key: the key's first column, and '_' under each of its columns. */
static void mark(struct writer *w, const char *line, const char *begin, const char *end)
{
	size_t offset = display_width(line, begin), width = end > begin ? display_width(begin, end) : 0;
	for (size_t i = 0; i < offset; i++)
		put(w, ' ');
	if (!width) {
		put_text(w, "^ no match for key\n");
		return;
	}
	for (size_t i = 0; i < width; i++)
		put(w, '_');
	put(w, '\n');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The end of the number -n or -h reads at p (GNU's traverse_raw_number, after an
 * optional '-'): digits, each followed by at most one thousands separator, a decimal
 * point and digits; a separator no digit follows is not part of it. beginning when
 * there is no digit; -h takes the unit letter after the number too (9.1's: no R, Q). */
static const char *number_end(const struct text_numbers *numbers, const char *beginning, const char *end,
			      bool human)
{
	const char *p = beginning + (beginning < end && *beginning == '-');
	bool digits = false, ends_with_separator = false;
	while (p < end && is_digit(*p)) {
		digits = true;
		p++;
		ends_with_separator = p < end && (unsigned char)*p == numbers->unit_separator;
		if (ends_with_separator)
			p++;
	}
	if (ends_with_separator) {
		p--;
	} else if (p < end && (unsigned char)*p == numbers->decimal_point) {
		for (p++; p < end && is_digit(*p); p++)
			digits = true;
	}
	if (!digits)
		return beginning;
	if (human && p < end && strchr("KMGTPEZYk", *p) && *p)
		p++;
	return p;
}

/* The end of the number strtold reads at [begin, end) (-g), or begin when none. */
static const char *general_end(const char *begin, const char *end)
{
	size_t len = (size_t)(end - begin);
	char stack[256];
	char *copy = len < sizeof stack ? stack : malloc(len + 1);
	if (!copy)
		return begin;
	memcpy(copy, begin, len);
	copy[len] = '\0';
	char *stop;
	strtold(copy, &stop);
	size_t read = (size_t)(stop - copy);
	if (copy != stack)
		free(copy);
	return begin + read;
}

/* GNU's debug_key: the key's extent as begfield and limfield find it, then for -b keys
 * from the line's start and for -n -g -h -M keys blanks skipped and, for the latter,
 * only the number or month name. */
static void mark_key(const struct text_order *order, const struct keydef *key, const char *line, size_t len,
		     struct writer *w)
{
	const char *end = line + len, *begin = line, *limit = end, *b, *e;
	bool from_line_start = key->start_field == 1 && key->start_char == 1;
	if (!from_line_start) {
		text_key_bounds(key, order->separator, line, len, &b, &e);
		begin = b;
	}
	if (key->end_field) {
		/* the end as limfield finds it, even before the start */
		struct keydef to_end = *key;
		to_end.start_field = to_end.start_char = 1;
		to_end.ordering.skip_start_blanks = false;
		text_key_bounds(&to_end, order->separator, line, len, &b, &e);
		limit = e;
	}
	const struct key_ordering *o = &key->ordering;
	bool number = o->numeric || o->general_numeric || o->human_numeric;
	if ((o->skip_start_blanks && from_line_start) || o->month || number) {
		const char *bound = limit < begin ? end : limit;
		while (begin < bound && text_is_blank((unsigned char)*begin))
			begin++;
		const char *tighter = limit;
		size_t matched;
		if (limit < begin)
			tighter = limit;
		else if (o->month)
			tighter = text_month_match(order->locale.months, begin, (size_t)(limit - begin), &matched)
				  ? begin + matched : begin;
		else if (o->general_numeric)
			tighter = general_end(begin, limit);
		else if (number)
			tighter = number_end(&order->locale.numbers, begin, limit, o->human_numeric);
		limit = tighter;
	}
	mark(w, line, begin, limit);
}

size_t text_debug_annotate(const struct text_order *order, const char *line, size_t len, char *out, size_t room)
{
	struct writer w = {out, room, 0};
	for (size_t i = 0; i < len; i++)
		put(&w, line[i] == '\t' ? '>' : line[i]);
	put(&w, '\n');
	for (size_t k = 0; k < order->key_count; k++)
		mark_key(order, &order->keys[k], line, len, &w);
	if (order->last_resort)
		mark(&w, line, line, line + len);
	return w.used;
}
