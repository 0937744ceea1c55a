/* SPDX-License-Identifier: MIT */
/* The tables of the bytes -d and -i leave out (text_ignore.h), made once for every
 * thread: -d keeps letters, digits and blanks, -i keeps the printable ASCII bytes. */
#include "text_ignore.h"

#include <pthread.h>
#include "text_fields.h"

static bool dictionary_ignored[256], nonprinting_ignored[256];

static void init_tables(void)
{
	for (int c = 0; c < 256; c++) {
		bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		dictionary_ignored[c] = !alnum && !text_is_blank((unsigned char)c);
		nonprinting_ignored[c] = c < 0x20 || c >= 0x7f;
	}
}

const bool *text_ignored_bytes(const struct key_ordering *ordering)
{
	static pthread_once_t ready = PTHREAD_ONCE_INIT; /* sort threads ask at once */
	pthread_once(&ready, init_tables);
	if (ordering->dictionary)
		return dictionary_ignored;
	if (ordering->ignore_nonprinting)
		return nonprinting_ignored;
	return NULL;
}
