/* SPDX-License-Identifier: MIT */
/* Unit tests of text mode's pieces against hand-made cases: KEYDEF parsing and GNU's
 * messages, key extraction, the -n -h -g -M -V comparisons, the full comparator, and
 * the prefix property (a smaller prefix always means an earlier line), and -R's keyed
 * hash against SipHash-2-4's published test vectors. */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "src/settings/keydef.h"
#include "src/settings/keydef.h"
#include "src/text/text_compare.h"
#include "src/text/text_fields.h"
#include "src/text/text_general.h"
#include "src/text/text_locale.h"
#include "src/text/text_month.h"
#include "src/text/text_numeric.h"
#include "src/text/text_order.h"
#include "src/text/text_prefix.h"
#include "src/text/text_random.h"
#include "src/text/text_version.h"

static int sign(int x) { return (x > 0) - (x < 0); }

static void test_keydef_messages(void)
{
	static const struct { const char *text, *message; } bad[] = {
		{ "0", "field number is zero: invalid field specification '0'" },
		{ "a", "invalid number at field start: invalid count at start of 'a'" },
		{ "1.0", "character offset is zero: invalid field specification '1.0'" },
		{ "1.x", "invalid number after '.': invalid count at start of 'x'" },
		{ "1,0", "field number is zero: invalid field specification '1,0'" },
		{ "1,x", "invalid number after ',': invalid count at start of 'x'" },
		{ "1b,2bx", "stray character in field spec: invalid field specification '1b,2bx'" },
		{ "1.2.3", "stray character in field spec: invalid field specification '1.2.3'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct keydef key;
		const char *reason;
		char message[200];
		int err = keydef_parse(bad[i].text, &key, &reason);
		keydef_error_message(bad[i].text, message, sizeof message);
		tap_ok(err < 0 && strcmp(message, bad[i].message) == 0, "-k '%s': %s", bad[i].text, message);
	}
	struct keydef key;
	const char *reason;
	tap_ok(keydef_parse("2.3b,4.5nr", &key, &reason) == 0 && key.start_field == 2 &&
	       key.start_char == 3 && key.end_field == 4 && key.end_char == 5 &&
	       key.ordering.skip_start_blanks && !key.ordering.skip_end_blanks &&
	       key.ordering.numeric && key.ordering.reverse && key.has_ordering,
	       "-k 2.3b,4.5nr parses");
	tap_ok(keydef_parse("1,1.0", &key, &reason) == 0 && key.end_char == 0, "-k 1,1.0 is the whole field");
	char letters[16];
	keydef_parse("1bdfgr", &key, &reason);
	tap_ok(key_ordering_conflict(&key.ordering, letters, sizeof letters) && strcmp(letters, "dfg") == 0,
	       "conflict letters as GNU: -%s", letters);
	keydef_parse("1Vd", &key, &reason);
	tap_ok(!key_ordering_conflict(&key.ordering, letters, sizeof letters), "-k1Vd is allowed");
}

static void test_fields(void)
{
	static const struct { const char *keydef; int separator; const char *line, *key; } cases[] = {
		{ "2", -1, "a  b c", "  b c" },
		{ "2,2", -1, "a  b c", "  b" },
		{ "2b,2", -1, "a  b c", "b" },
		{ "2.2,2.2", -1, "a  b c", " " },
		{ "2.2b,2.2b", -1, "a  bcd c", "c" },
		{ "2.2b,2.2", -1, "a  bcd c", "" },
		{ "2,2", ':', "a::b", "" },
		{ "3,3", ':', "a::b", "b" },
		{ "2.2,3.1", ':', "aa:bbb:ccc", "bb:c" },
		{ "4", ':', "a:b", "" },
		{ "2,1", -1, "a b", "" },
		{ "1.10", -1, "abc", "" },
		{ "2,2.0", ':', "a:b:c", "b" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct keydef key;
		const char *reason, *begin, *end;
		keydef_parse(cases[i].keydef, &key, &reason);
		text_key_bounds(&key, cases[i].separator, cases[i].line, strlen(cases[i].line), &begin, &end);
		size_t len = (size_t)(end - begin);
		tap_ok(len == strlen(cases[i].key) && memcmp(begin, cases[i].key, len) == 0,
		       "key %s of '%s' is '%s' (got '%.*s')", cases[i].keydef, cases[i].line,
		       cases[i].key, (int)len, begin);
	}
}

typedef int (*compare_fn)(const char *, size_t, const char *, size_t);

/* The C locale's rules, for the parsers' own tests. */
static struct text_locale c_rules;

static int month_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	return text_month(c_rules.months, a, alen) - text_month(c_rules.months, b, blen);
}

static int numeric_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	return text_numeric_compare(&c_rules.numbers, a, alen, b, blen);
}

static int human_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	return text_human_compare(&c_rules.numbers, a, alen, b, blen);
}

static void expect(const char *what, compare_fn compare, const char *a, const char *b, int want)
{
	int got = sign(compare(a, strlen(a), b, strlen(b)));
	tap_ok(got == want, "%s: '%s' vs '%s' is %d (got %d)", what, a, b, want, got);
}

static void test_parsers(void)
{
	expect("-n", numeric_compare, "-0", "0", 0);
	expect("-n", numeric_compare, "", "abc", 0);
	expect("-n", numeric_compare, "+5", "0", 0);
	expect("-n", numeric_compare, " 10", "9", 1);
	expect("-n", numeric_compare, "-10", "-9", -1);
	expect("-n", numeric_compare, "1.50", "1.5", 0);
	expect("-n", numeric_compare, ".5", "0.49", 1);
	expect("-n", numeric_compare, "-.5", "-", -1);
	expect("-n", numeric_compare, "0001", "1", 0);
	expect("-n", numeric_compare, "123456789012345678901234567890", "123456789012345678901234567891", -1);
	/* sort 9.1 skips byte 0x80 among integer digits as a thousands separator */
	expect("-n", numeric_compare, "\x80" "1", "1", 0);
	expect("-n", numeric_compare, "1\x80" "2", "13", -1);
	expect("-n", numeric_compare, "1\x80" "2", "11", 1);
	expect("-n", numeric_compare, "-\x80" "1", "-2", 1);
	expect("-n", numeric_compare, "0\x80\x80" "0", "", 0);
	expect("-n", numeric_compare, "1\x80.5", "1.4", 1);
	expect("-n", numeric_compare, "1.\x80" "5", "1.4", -1);
	expect("-h", human_compare, "1K", "999", 1);
	expect("-h", human_compare, "1k", "1K", 0);
	expect("-h", human_compare, "-1K", "-5", -1);
	expect("-h", human_compare, "0K", "0", 0);
	expect("-h", human_compare, "2M", "1G", -1);
	expect("-h", human_compare, "1.5K", "1K", 1);
	/* R and Q are no units in sort 9.1 (9.2 made them the largest) */
	expect("-h", human_compare, "1R", "999Y", -1);
	expect("-h", human_compare, "1Q", "2R", -1);
	expect("-h", human_compare, "2Q", "1R", 1);
	expect("-h", human_compare, "-1Q", "-1R", 0);
	expect("-h", human_compare, "1Q", "1", 0);
	/* but -h's unit scan ends at 0x80: 11 with no unit, and 1 with no unit */
	expect("-h", human_compare, "1\x80" "1K", "99", -1);
	expect("-h", human_compare, "0\x80" "1K", "2", -1);
	expect("-h", human_compare, "1\x80" "2", "13", -1);
	expect("-g", text_general_compare, "abc", "nan", -1);
	expect("-g", text_general_compare, "nan", "-inf", -1);
	expect("-g", text_general_compare, "1e3", "999", 1);
	expect("-g", text_general_compare, "0x10", "15", 1);
	expect("-g", text_general_compare, "-0", "0", 0);
	expect("-g", text_general_compare, "inf", "1e308", 1);
	expect("-M", month_compare, " jan", "FEB", -1);
	expect("-M", month_compare, "xyz", "jan", -1);
	expect("-M", month_compare, "DECEMBER", "dec", 0);
	expect("-V", text_version_compare, "1.2.10", "1.2.9", 1);
	expect("-V", text_version_compare, "1.0~rc1", "1.0", -1);
	expect("-V", text_version_compare, "", "0", -1);
	expect("-V", text_version_compare, ".", "..", -1);
	expect("-V", text_version_compare, ".z", "a", -1);
	expect("-V", text_version_compare, "a.tar.gz", "a.tar", 1);
	expect("-V", text_version_compare, "1.01", "1.1", 0);
	/* sort 9.1: a dot name can be all suffix, and then compares as empty first */
	expect("-V", text_version_compare, ".a", ".5", -1);
	expect("-V", text_version_compare, ".n", ".0", -1);
	expect("-V", text_version_compare, ".ab", ".5", -1);
	expect("-V", text_version_compare, ".T", ".0", -1);
	expect("-V", text_version_compare, ".5a", ".a", 1);
}

/* Orders built from command-line-like settings. */
static int order_from(struct text_order *order, const char *const *keydefs, size_t count,
		      const char *global, int separator, bool stable, bool unique, bool reverse)
{
	struct text_keys given;
	memset(&given, 0, sizeof given);
	struct keydef keys[4];
	const char *reason;
	for (size_t i = 0; i < count; i++)
		keydef_parse(keydefs[i], &keys[i], &reason);
	given.keys = keys;
	given.count = count;
	for (const char *g = global; *g; g++)
		key_ordering_set(&given.global_ordering, *g, false);
	given.field_separator = separator;
	given.stable = stable;
	given.reverse = reverse;
	char letters[16];
	return text_order_init(order, &given, unique, false, letters, sizeof letters);
}

static int line_compare(const struct text_order *order, const char *a, const char *b)
{
	return sign(text_compare_lines(order, a, strlen(a), b, strlen(b)));
}

static void test_full_comparator(void)
{
	struct text_order order;
	const char *k2n[] = { "2,2n" };
	order_from(&order, k2n, 1, "", -1, false, false, false);
	tap_ok(line_compare(&order, "b 10", "a 9") == 1, "-k2,2n: numbers decide");
	tap_ok(line_compare(&order, "b 10", "a 10") == 1, "-k2,2n: whole line breaks ties");
	text_order_free(&order);
	order_from(&order, k2n, 1, "", -1, true, false, false);
	tap_ok(line_compare(&order, "b 10", "a 10") == 0, "-s -k2,2n: no last resort");
	text_order_free(&order);
	order_from(&order, k2n, 1, "", -1, false, false, true);
	tap_ok(line_compare(&order, "b 10", "a 10") == -1, "-r -k2,2n: last resort reversed");
	tap_ok(line_compare(&order, "b 10", "a 9") == 1, "-r -k2,2n: the key has its own letters, so no -r");
	text_order_free(&order);
	const char *k1[] = { "1,1" };
	order_from(&order, k1, 1, "f", -1, false, false, true);
	tap_ok(line_compare(&order, "a", "B") == 1, "-fr -k1,1: the key inherits f and r");
	text_order_free(&order);
	order_from(&order, NULL, 0, "n", -1, false, true, false);
	tap_ok(line_compare(&order, "01", "1") == 0, "-nu: equal numbers are duplicates");
	text_order_free(&order);
	order_from(&order, NULL, 0, "d", -1, false, false, false);
	tap_ok(line_compare(&order, "a-b", "ab") == -1, "-d: equal ignoring punctuation, then the whole line");
	text_order_free(&order);
	order_from(&order, NULL, 0, "", -1, false, false, false);
	tap_ok(line_compare(&order, "", "\x01") == -1 && line_compare(&order, "\xff", "a") == 1,
	       "plain: unsigned bytes, empty first");
	text_order_free(&order);
}

/* The prefix property over random lines and every key type. */
static void test_prefix_property(void)
{
	static const char *const globals[] = { "", "f", "d", "i", "n", "h", "g", "M", "fn", "hf", "b",
					       "V", "Vf", "Vd", "R", "Rf", "Rd", "RV" };
	static const char alphabet[] = "0123456789-.+ \tkKMeEabxyjanFEBnaif\x01\xff~.00\x80\x80";
	srand(7);
	for (size_t g = 0; g < sizeof globals / sizeof globals[0]; g++) {
		for (int reverse = 0; reverse < 2; reverse++) {
			struct text_order order;
			const char *k[] = { "1" };
			order_from(&order, k, reverse, globals[g], -1, false, false, reverse);
			int bad = 0;
			for (int trial = 0; trial < 20000; trial++) {
				char a[16], b[16];
				size_t alen = (size_t)rand() % 12, blen = (size_t)rand() % 12;
				for (size_t i = 0; i < alen; i++)
					a[i] = alphabet[rand() % (sizeof alphabet - 1)];
				for (size_t i = 0; i < blen; i++)
					b[i] = alphabet[rand() % (sizeof alphabet - 1)];
				uint64_t pa = text_prefix(&order, a, alen), pb = text_prefix(&order, b, blen);
				int diff = text_compare_lines(&order, a, alen, b, blen);
				if ((pa < pb && diff >= 0) || (pa > pb && diff <= 0))
					bad++;
			}
			tap_ok(bad == 0, "prefix order agrees with the comparator for -%s%s%s (%d bad)",
			       globals[g], reverse ? "r" : "", reverse ? " -k1" : "", bad);
			text_order_free(&order);
		}
	}
}

/* The prefix property in collating locales: the start of the strxfrm image must never
 * contradict strcoll, also where glibc's strxfrm and strcoll disagree past the first
 * level (ignored blanks before accented letters). */
static void test_collated_prefix_property(void)
{
	static const char *const locales[] = { "en_US.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8" };
	static const char *const globals[] = { "", "f", "d", "i", "b", "R", "Rf" };
	static const char *const tokens[] = { "a", "A", "b", "B", "e", "E", "\xc3\xa9", "\xc3\xa8",
					      "\xc3\x89", "\xc3\xa4", "\xc3\x84", "\xc3\xb6", "\xc3\x9f",
					      "\xc3\xb8", "\xc5\x93", " ", "  ", "\t", "-", "_", ".", ",",
					      "'", "0", "1", "9", "\xff", "\x80", "\x01", "z", "Z" };
	size_t token_count = sizeof tokens / sizeof tokens[0];
	for (size_t l = 0; l < sizeof locales / sizeof locales[0]; l++) {
		if (!setlocale(LC_COLLATE, locales[l])) {
			tap_skip(2 * (int)(sizeof globals / sizeof globals[0]) + 1, "locale not installed");
			continue;
		}
		srand(11);
		for (size_t g = 0; g < sizeof globals / sizeof globals[0]; g++) {
			for (int reverse = 0; reverse < 2; reverse++) {
				struct text_order order;
				const char *k[] = { "1" };
				order_from(&order, k, reverse, globals[g], -1, false, false, reverse);
				int bad = 0;
				for (int trial = 0; trial < 20000; trial++) {
					char a[64] = "", b[64] = "";
					for (int i = rand() % 7; i > 0; i--)
						strcat(a, tokens[rand() % token_count]);
					for (int i = rand() % 7; i > 0; i--)
						strcat(b, tokens[rand() % token_count]);
					size_t alen = strlen(a), blen = strlen(b);
					uint64_t pa = text_prefix(&order, a, alen), pb = text_prefix(&order, b, blen);
					int diff = text_compare_lines(&order, a, alen, b, blen);
					if ((pa < pb && diff >= 0) || (pa > pb && diff <= 0))
						bad++;
				}
				tap_ok(order.locale.collate && bad == 0, "%s: prefix order agrees with strcoll for -%s%s%s (%d bad)",
				       locales[l], globals[g], reverse ? "r" : "", reverse ? " -k1" : "", bad);
				text_order_free(&order);
			}
		}
		struct text_order order;
		order_from(&order, NULL, 0, "", -1, false, false, false);
		const char *a = "0\xc3\xa8", *b = "  0\t\xc3\xa9";
		uint64_t pa = text_prefix(&order, a, strlen(a)), pb = text_prefix(&order, b, strlen(b));
		int diff = line_compare(&order, a, b);
		tap_ok(diff == (strcoll(a, b) < 0 ? -1 : 1) && !(pa > pb && diff < 0),
		       "%s: '0\\xc3\\xa8' vs '  0\\t\\xc3\\xa9' as strcoll, whatever strxfrm says", locales[l]);
		text_order_free(&order);
	}
	setlocale(LC_COLLATE, "C");
}

/* SipHash-2-4 with the key 00 01 .. 0f over the messages 00 01 .. (n - 1) bytes: the
 * reference implementation's vectors for n = 0, 1, 7, 8 and 15. And what -R asks of the
 * order: R counts with V and d as one kind, not with n. */
static void test_random_hash(void)
{
	static const struct { size_t len; uint64_t hash; } vectors[] = {
		{ 0, 0x726fdb47dd0e0e31ULL }, { 1, 0x74f839c593dc67fdULL }, { 7, 0xab0200f58b01d137ULL },
		{ 8, 0x93f5f5799a932462ULL }, { 15, 0xa129ca6149be45e5ULL },
	};
	unsigned char salt[TEXT_RANDOM_SALT_BYTES], message[16];
	for (int i = 0; i < 16; i++)
		salt[i] = message[i] = (unsigned char)i;
	struct text_random random;
	text_random_init(&random, salt);
	for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
		tap_ok(text_random_hash(&random, message, vectors[i].len) == vectors[i].hash,
		       "SipHash-2-4 of %zu bytes is the reference's", vectors[i].len);
	struct keydef key;
	const char *reason;
	char letters[16];
	keydef_parse("1nR", &key, &reason);
	tap_ok(key_ordering_conflict(&key.ordering, letters, sizeof letters) && strcmp(letters, "nR") == 0,
	       "-k1nR: options '-nR' are incompatible");
	keydef_parse("1RVdf", &key, &reason);
	tap_ok(!key_ordering_conflict(&key.ordering, letters, sizeof letters) && key.ordering.random,
	       "-k1RVdf is allowed");
}

int main(void)
{
	text_locale_init(&c_rules);
	test_keydef_messages();
	test_fields();
	test_parsers();
	test_full_comparator();
	test_prefix_property();
	test_collated_prefix_property();
	test_random_hash();
	return tap_done();
}
