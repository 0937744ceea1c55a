/* SPDX-License-Identifier: MIT */
/* Collation through the C library: strcoll and strxfrm want NUL-terminated strings and
 * lines are not, so keys are copied (on the stack when short). A failed allocation is
 * not reported here; a wrong order it causes is one the sort's self-check reports. */
#include "text_collate.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

enum { STACK_KEY = 512, STACK_IMAGE = 2048 };

/* glibc 2.35's C.UTF-8 collates by code point with no tables (codepoint_collation), and
 * its strcoll is then strcmp: byte order, which the byte path gives faster. */
static bool is_codepoint_locale(const char *name)
{
#if defined __GLIBC__ && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
	return strcmp(name, "C.UTF-8") == 0 || strcmp(name, "C.utf8") == 0;
#else
	(void)name;
	return false;
#endif
}

bool text_collate_active(void)
{
	const char *name = setlocale(LC_COLLATE, NULL);
	return name && strcmp(name, "C") != 0 && strcmp(name, "POSIX") != 0 &&
	       !is_codepoint_locale(name);
}

/* A NUL-terminated copy of key, in stack when it fits. */
static char *terminated_copy(const char *key, size_t len, char *stack, size_t stack_size)
{
	char *copy = len < stack_size ? stack : malloc(len + 1);
	if (copy) {
		memcpy(copy, key, len);
		copy[len] = '\0';
	}
	return copy;
}

/* gnulib's strcoll_loop: strcoll stops at a NUL, so equal parts move on to the next
 * part; sizes count the terminating NUL. */
static int strcoll_loop(const char *a, size_t asize, const char *b, size_t bsize)
{
	int diff;
	while ((diff = strcoll(a, b)) == 0) {
		size_t apart = strlen(a) + 1, bpart = strlen(b) + 1;
		a += apart, b += bpart;
		asize -= apart, bsize -= bpart;
		if (asize == 0)
			return -(bsize != 0);
		if (bsize == 0)
			return 1;
	}
	return diff;
}

int text_collate_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen == 0)
		return -(blen != 0);
	if (blen == 0)
		return 1;
	if (alen == blen && memcmp(a, b, alen) == 0)
		return 0;
	char stack_a[STACK_KEY], stack_b[STACK_KEY];
	char *ta = terminated_copy(a, alen, stack_a, sizeof stack_a);
	char *tb = terminated_copy(b, blen, stack_b, sizeof stack_b);
	int diff = 0;
	if (ta && tb)
		diff = strcoll_loop(ta, alen + 1, tb, blen + 1);
	else
		diff = (ta != NULL) - (tb != NULL);
	if (ta != stack_a)
		free(ta);
	if (tb != stack_b)
		free(tb);
	return diff;
}

/* Only the image's first level (the base letters), which ends at glibc's level
 * separator, byte 1: past it, glibc 2.36's strxfrm and strcoll disagree where blanks
 * and punctuation are ignored (strcoll puts "0\xc3\xa8" before "  0\t\xc3\xa9",
 * strxfrm after), and sort follows strcoll. Cutting at byte 1 keeps the order also
 * where such a byte is a weight: the cut key's zero padding is below any other byte. */
static uint64_t big_endian_prefix(const char *image, size_t len)
{
	uint64_t prefix = 0;
	bool cut = false;
	for (size_t i = 0; i < 8; i++) {
		unsigned char byte = i < len ? (unsigned char)image[i] : 0;
		cut = cut || byte <= 1;
		prefix = prefix << 8 | (cut ? 0 : byte);
	}
	return prefix;
}

/* Calls use(context, image, length) with the strxfrm image of the key up to its first
 * NUL byte; false when memory ran out. */
static bool with_image(const char *key, size_t len, void (*use)(void *, const char *, size_t), void *context)
{
	char stack_key[STACK_KEY], stack_image[STACK_IMAGE];
	char *copy = terminated_copy(key, len, stack_key, sizeof stack_key);
	if (!copy)
		return false;
	bool made = true;
	size_t needed = strxfrm(stack_image, copy, sizeof stack_image);
	if (needed < sizeof stack_image) {
		use(context, stack_image, needed);
	} else {
		/* the contents are unspecified when the image does not fit: redo it whole */
		char *image = malloc(needed + 1);
		if ((made = image != NULL)) {
			strxfrm(image, copy, needed + 1);
			use(context, image, needed);
			free(image);
		}
	}
	if (copy != stack_key)
		free(copy);
	return made;
}

static void take_prefix(void *context, const char *image, size_t len)
{
	*(uint64_t *)context = big_endian_prefix(image, len);
}

uint64_t text_collate_image(const char *key, size_t len)
{
	uint64_t prefix = 0;
	with_image(key, len, take_prefix, &prefix);
	return prefix;
}

static size_t first_level_length(const char *image, size_t len)
{
	size_t level = 0;
	while (level < len && (unsigned char)image[level] > 1)
		level++;
	return level;
}

static uint64_t level_word(const char *image, size_t level, size_t at)
{
	return at < level ? big_endian_prefix(image + at, level - at) : 0;
}

static void take_two_words(void *context, const char *image, size_t len)
{
	uint64_t *words = context;
	words[0] = big_endian_prefix(image, len);
	words[1] = level_word(image, first_level_length(image, len), 8);
}

uint64_t text_collate_image_pair(const char *key, size_t len, uint64_t *next)
{
	uint64_t words[2] = {0, 0};
	with_image(key, len, take_two_words, words);
	*next = words[1];
	return words[0];
}

struct level_word {
	size_t at, length;
	uint64_t word;
};

static void take_level_word(void *context, const char *image, size_t len)
{
	struct level_word *want = context;
	want->length = first_level_length(image, len);
	want->word = level_word(image, want->length, want->at);
}

uint64_t text_collate_level_at(const char *key, size_t len, size_t at, size_t *level_length)
{
	struct level_word want = {at, 0, 0};
	if (!with_image(key, len, take_level_word, &want))
		want.length = SIZE_MAX;
	*level_length = want.length;
	return want.word;
}

size_t text_collate_transform(const char *key, size_t len, char *image, size_t size)
{
	if (len == 0)
		return 0;
	char stack_key[STACK_KEY];
	char *copy = terminated_copy(key, len, stack_key, sizeof stack_key);
	if (!copy)
		return SIZE_MAX;
	size_t used = 0;
	for (size_t part = 0; part <= len; part += strlen(copy + part) + 1) {
		size_t room = used < size ? size - used : 0;
		size_t needed = strxfrm(room ? image + used : NULL, copy + part, room);
		if (needed < room)
			image[used + needed] = '\0';
		used += needed + 1;
	}
	if (copy != stack_key)
		free(copy);
	return used;
}
