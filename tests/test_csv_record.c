/* SPDX-License-Identifier: MIT */
/* Unit tests of the CSV record scanner and field locator (src/text/csv_record.c,
 * csv_field.c): hand-written records (CRLF, empty fields, quoted separators, quoted
 * newlines, "", a last record without newline) and every malformed kind with its line
 * and offset, each scanned whole, cut at every offset and at every pair of offsets, and
 * byte by byte; the next record start after each offset; and random inputs against
 * Python's csv module (tests/csv_oracle.py) for several separators, whole and in pieces,
 * with the next record start after offsets spread over them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "src/text/csv_field.h"
#include "src/text/csv_record.h"

#define MAX_RECORDS 4096

/* What a scan found: record ends as stream offsets, or the malformation. */
struct scan_result {
	size_t ends[MAX_RECORDS], count;
	int status;
	enum csv_malformation malformation;
	uint64_t line, offset;
};

/* Scans data[0, len) in pieces cut at cuts[0..ncuts) (increasing offsets). */
static void scan_pieces(const char *data, size_t len, unsigned char sep, const size_t *cuts, size_t ncuts,
			struct scan_result *result)
{
	struct csv_scanner scanner;
	csv_scanner_init(&scanner, sep, false);
	*result = (struct scan_result){ .status = 0 };
	size_t from = 0;
	for (size_t piece = 0; piece <= ncuts; piece++) {
		size_t to = piece < ncuts ? cuts[piece] : len, count = 0, taken = 0;
		int status = csv_scan_records(&scanner, data + from, to - from, piece == ncuts,
					      result->ends + result->count, MAX_RECORDS - result->count, &count, &taken);
		for (size_t i = 0; i < count; i++)
			result->ends[result->count + i] += from;
		result->count += count;
		if (status < 0 || taken != to - from) {
			result->status = status < 0 ? status : -ENOSPC;
			result->malformation = scanner.malformation;
			result->line = scanner.record_line;
			result->offset = scanner.error_offset;
			return;
		}
		from = to;
	}
}

static bool same_result(const struct scan_result *a, const struct scan_result *b)
{
	if (a->status != b->status || a->count != b->count ||
	    memcmp(a->ends, b->ends, a->count * sizeof a->ends[0]) != 0)
		return false;
	return a->status == 0 ||
	       (a->malformation == b->malformation && a->line == b->line && a->offset == b->offset);
}

/* Every cut, every pair of cuts and byte-by-byte pieces scan as the whole does. */
static bool chunking_agrees(const char *data, size_t len, unsigned char sep, const struct scan_result *whole)
{
	static struct scan_result cut;
	size_t cuts[2];
	for (cuts[0] = 0; cuts[0] <= len; cuts[0]++) {
		scan_pieces(data, len, sep, cuts, 1, &cut);
		if (!same_result(whole, &cut))
			return tap_diag("cut at %zu differs", cuts[0]), false;
		for (cuts[1] = cuts[0]; cuts[1] <= len; cuts[1]++) {
			scan_pieces(data, len, sep, cuts, 2, &cut);
			if (!same_result(whole, &cut))
				return tap_diag("cuts at %zu, %zu differ", cuts[0], cuts[1]), false;
		}
	}
	size_t *each = malloc((len + 1) * sizeof *each);
	for (size_t i = 0; i < len; i++)
		each[i] = i + 1;
	scan_pieces(data, len, sep, each, len ? len - 1 : 0, &cut);
	free(each);
	return same_result(whole, &cut) || (tap_diag("byte by byte differs"), false);
}

/* Renders records as "RAWLEN:field|field;" from the scan and the locator. */
static void render(const char *data, const struct scan_result *result, unsigned char sep, char *out, size_t size)
{
	char scratch[256];
	size_t at = 0, start = 0;
	for (size_t r = 0; r < result->count; r++) {
		size_t end = result->ends[r], len = end - start;
		at += (size_t)snprintf(out + at, size - at, "%zu:", len);
		if (len && data[end - 1] == '\n')
			len--;
		struct csv_fields fields;
		struct csv_field field;
		csv_fields_init(&fields, data + start, len, sep);
		for (int n = 0; csv_fields_next(&fields, &field); n++) {
			const char *content;
			size_t clen = csv_field_content(&field, scratch, &content);
			at += (size_t)snprintf(out + at, size - at, "%s%.*s", n ? "|" : "", (int)clen, content);
		}
		at += (size_t)snprintf(out + at, size - at, ";");
		start = end;
	}
	out[at] = 0;
}

/* For every step-th offset o, csv_next_record_start with the quotes' parity before o
 * gives the first record end after o that a LF makes. */
static bool next_starts_agree(const char *data, size_t len, const struct scan_result *whole, size_t step)
{
	size_t quotes = 0, counted = 0, r = 0;
	for (size_t o = 0; o < len; o += step) {
		quotes += csv_count_quotes(data + counted, o - counted);
		counted = o;
		size_t start = 0, expected = 0;
		int status = csv_next_record_start(data + o, len - o, quotes % 2, &start);
		while (r < whole->count && whole->ends[r] <= o)
			r++;
		for (size_t e = r; e < whole->count && !expected; e++)
			if (data[whole->ends[e] - 1] == '\n')
				expected = whole->ends[e];
		bool agree = expected ? status == 0 && o + start == expected : status == -EAGAIN;
		if (!agree)
			return tap_diag("next record start after %zu: %d %zu, expected %zu", o, status, o + start,
					expected), false;
	}
	return true;
}

struct good_case {
	const char *input;
	char sep;
	const char *expected;
};

static const struct good_case good_cases[] = {
	{ "a,b\nc,d\n", ',', "4:a|b;4:c|d;" },
	{ "a,b\r\nc,d\r\n", ',', "5:a|b;5:c|d;" },
	{ "a,b\nc,d", ',', "4:a|b;3:c|d;" },
	{ ",,\n,\n\n", ',', "3:||;2:|;1:;" },
	{ "\"x,y\",z\n", ',', "8:x,y|z;" },
	{ "\"line1\nline2\",2\n3\n", ',', "16:line1\nline2|2;2:3;" },
	{ "\"say \"\"hi\"\"\",\"\"\n", ',', "16:say \"hi\"|;" },
	{ "\"\"\"\"\n", ',', "5:\";" },
	{ "\"a\"\r\n\"b\"", ',', "5:a;3:b;" },
	{ "\"a\"\r", ',', "4:a;" },
	{ "a\r", ',', "2:a;" },
	{ "\"crlf\r\ninside\"\r\nnext\n", ';', "16:crlf\r\ninside;5:next;" },
	{ "a;\"b;c\";d\n", ';', "10:a|b;c|d;" },
	{ "a,b\tc\n", '\t', "6:a,b|c;" },
	{ "x\ry,z\n", ',', "6:x\ry|z;" },
	{ "\n\n", ',', "1:;1:;" },
	{ "", ',', "" },
	{ "\"\",\"\",\"\"\n", ',', "9:||;" },
	{ "\"a,\n,b\"\n", ',', "8:a,\n,b;" },
};

struct bad_case {
	const char *input;
	enum csv_malformation malformation;
	uint64_t line, offset;
	size_t records_before;
};

static const struct bad_case bad_cases[] = {
	{ "a\n\"open", CSV_UNCLOSED_QUOTE, 2, 2, 1 },
	{ "a,\"x\ny\n", CSV_UNCLOSED_QUOTE, 1, 2, 0 },
	{ "ok\nx\n\"a\"\"\n", CSV_UNCLOSED_QUOTE, 3, 5, 2 },
	{ "a\"b\n", CSV_QUOTE_IN_UNQUOTED, 1, 1, 0 },
	{ "1\n2\nab,c\"\n", CSV_QUOTE_IN_UNQUOTED, 3, 8, 2 },
	{ "\"q\nq\",x\"\n", CSV_QUOTE_IN_UNQUOTED, 1, 7, 0 },
	{ "\"a\"b,c\n", CSV_AFTER_CLOSING_QUOTE, 1, 3, 0 },
	{ "\"a\" ,c\n", CSV_AFTER_CLOSING_QUOTE, 1, 3, 0 },
	{ "z\n\"multi\nline\"\rx\n", CSV_AFTER_CLOSING_QUOTE, 2, 15, 1 },
	{ "\"a\nb\"\r\nx\"y\n", CSV_QUOTE_IN_UNQUOTED, 3, 8, 1 },
};

static void test_good_cases(void)
{
	static struct scan_result whole;
	char rendered[1024];
	for (size_t i = 0; i < sizeof good_cases / sizeof good_cases[0]; i++) {
		const struct good_case *c = &good_cases[i];
		size_t len = strlen(c->input);
		scan_pieces(c->input, len, (unsigned char)c->sep, NULL, 0, &whole);
		render(c->input, &whole, (unsigned char)c->sep, rendered, sizeof rendered);
		if (!tap_ok(whole.status == 0 && strcmp(rendered, c->expected) == 0, "good case %zu: records and fields", i))
			tap_diag("got status %d, '%s'", whole.status, rendered);
		tap_ok(chunking_agrees(c->input, len, (unsigned char)c->sep, &whole), "good case %zu: every cut", i);
		tap_ok(next_starts_agree(c->input, len, &whole, 1), "good case %zu: next record starts", i);
	}
}

static void test_bad_cases(void)
{
	static struct scan_result whole;
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t len = strlen(c->input);
		scan_pieces(c->input, len, ',', NULL, 0, &whole);
		bool right = whole.status == -EILSEQ && whole.malformation == c->malformation && whole.line == c->line &&
			     whole.offset == c->offset && whole.count == c->records_before;
		if (!tap_ok(right, "bad case %zu: %s on line %llu", i, csv_malformation_text(c->malformation),
			    (unsigned long long)c->line))
			tap_diag("got %d %s line %llu offset %llu after %zu records", whole.status,
				 csv_malformation_text(whole.malformation), (unsigned long long)whole.line,
				 (unsigned long long)whole.offset, whole.count);
		tap_ok(chunking_agrees(c->input, len, ',', &whole), "bad case %zu: every cut", i);
	}
}

static void test_field_find(void)
{
	const char *record = "one,\"t,w\"\"o\",,last\r";
	size_t len = strlen(record);
	struct csv_field field;
	char scratch[64];
	const char *content;
	bool right = csv_field_find(record, len, ',', 1, &field) == 0 && field.bytes == record && field.size == 3 &&
		     !field.quoted && csv_field_content(&field, scratch, &content) == 3 && content == record;
	tap_ok(right, "field 1 unquoted: its bytes in the record, no copy");
	right = csv_field_find(record, len, ',', 2, &field) == 0 && field.bytes == record + 4 && field.size == 8 &&
		field.quoted && csv_field_content(&field, scratch, &content) == 5 && content == scratch &&
		memcmp(content, "t,w\"o", 5) == 0;
	tap_ok(right, "field 2 quoted: its range with the quotes, its content unquoted in scratch");
	right = csv_field_find(record, len, ',', 3, &field) == 0 && field.size == 0 && field.bytes == record + 13;
	tap_ok(right, "field 3 empty");
	right = csv_field_find(record, len, ',', 4, &field) == 0 && field.size == 4 && memcmp(field.bytes, "last", 4) == 0;
	tap_ok(right, "field 4: the CR before the LF is not the field's");
	right = csv_field_find(record, len, ',', 5, &field) == -ENOENT && field.size == 0 && field.bytes == record + len - 1;
	tap_ok(right, "field 5: -ENOENT, empty at the record's end");
}

/* Reads "WORD LEN\n" and LEN bytes and a LF into a fresh buffer. */
static char *read_counted(FILE *in, const char *word, size_t *len)
{
	char name[16];
	if (fscanf(in, "%15s %zu", name, len) != 2 || strcmp(name, word) != 0 || fgetc(in) != '\n')
		return NULL;
	char *bytes = malloc(*len + 1);
	if (!bytes || fread(bytes, 1, *len, in) != *len || fgetc(in) != '\n')
		return free(bytes), NULL;
	return bytes;
}

/* Checks one record's fields against the oracle's; returns false at the first mismatch. */
static bool record_agrees(FILE *in, const char *record, size_t len, unsigned char sep, size_t expected_fields)
{
	struct csv_fields fields;
	struct csv_field field;
	char *scratch = malloc(len + 1);
	csv_fields_init(&fields, record, len, sep);
	/* csv.reader reads an empty line as no fields; the locator as one empty field */
	size_t n = 0;
	bool right = true;
	for (; right && csv_fields_next(&fields, &field); n++) {
		size_t want = 0;
		char *expected = n < expected_fields ? read_counted(in, "field", &want) : NULL;
		const char *content;
		size_t got = csv_field_content(&field, scratch, &content);
		if (expected_fields == 0 && n == 0)
			right = got == 0;
		else
			right = expected && got == want && memcmp(content, expected, got) == 0;
		free(expected);
	}
	free(scratch);
	return right && n == (expected_fields ? expected_fields : 1);
}

/* One oracle input: its records scanned whole and in random pieces, their fields. */
static bool oracle_agrees(FILE *in, unsigned char sep, unsigned seed)
{
	static struct scan_result whole, chunked;
	size_t len;
	char *data = read_counted(in, "input", &len);
	if (!data)
		return tap_diag("no input from the oracle"), false;
	scan_pieces(data, len, sep, NULL, 0, &whole);
	size_t cuts[16];
	srand(seed);
	for (size_t i = 0; i < 16; i++)
		cuts[i] = (size_t)rand() % (len + 1);
	for (size_t i = 1; i < 16; i++)
		for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
			size_t t = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = t;
		}
	scan_pieces(data, len, sep, cuts, 16, &chunked);
	bool right = whole.status == 0 && same_result(&whole, &chunked) &&
		     next_starts_agree(data, len, &whole, len / 500 + 1);
	size_t start = 0, r = 0, raw, count;
	char word[16];
	while (right && fscanf(in, "%15s", word) == 1 && strcmp(word, "record") == 0) {
		right = fscanf(in, "%zu %zu", &raw, &count) == 2 && fgetc(in) == '\n' && r < whole.count &&
			whole.ends[r] - start == raw;
		size_t body = raw - (raw && data[start + raw - 1] == '\n');
		right = right && record_agrees(in, data + start, body, sep, count);
		if (!right)
			tap_diag("record %zu at offset %zu differs", r, start);
		start += raw;
		r++;
	}
	right = right && r == whole.count && strcmp(word, "end") == 0;
	free(data);
	return right;
}

/* One oracle run for every separator and seed: an input after another. */
static void test_oracle(void)
{
	const char *dir = getenv("TESTS_SRCDIR");
	const char separators[] = { ',', ';', '\t', '|' };
	char command[4096];
	int at = snprintf(command, sizeof command, "python3 '%s/csv_oracle.py' 2000", dir ? dir : "tests");
	for (size_t s = 0; s < sizeof separators; s++)
		for (unsigned seed = 1; seed <= 3; seed++)
			at += snprintf(command + at, sizeof command - (size_t)at, " %u '%c'", seed * 10 + (unsigned)s,
				       separators[s]);
	FILE *in = popen(command, "r");
	bool right = in != NULL;
	for (size_t s = 0; s < sizeof separators; s++)
		for (unsigned seed = 1; seed <= 3; seed++) {
			right = right && oracle_agrees(in, (unsigned char)separators[s], seed);
			tap_ok(right, "oracle: separator 0x%02x, seed %u", (unsigned)separators[s],
			       seed * 10 + (unsigned)s);
		}
	while (in && fgetc(in) != EOF)
		; /* the rest, so that the oracle can finish */
	tap_ok(in && pclose(in) == 0, "the oracle ran to its end");
}

int main(void)
{
	test_good_cases();
	test_bad_cases();
	test_field_find();
	test_oracle();
	return tap_done();
}
