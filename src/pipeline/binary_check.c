/* Checking binary records for order (see binary_check.h): a stream over the input in
 * blocks, comparing each record's key with the one before, as GNU sort -c does. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "binary_check.h"
#include "../binary/key_image.h"
#include "../common/report.h"

#define CHECK_BLOCK_BYTES ((size_t)4 << 20)

int binary_check(const struct options *options, const struct record_layout *layout,
		 struct record_reader *reader)
{
	size_t size = layout->record_size;
	size_t per_block = CHECK_BLOCK_BYTES / size ? CHECK_BLOCK_BYTES / size : 1;
	/* One extra record in front holds the last record of the previous block. */
	unsigned char *buffer = malloc((per_block + 1) * size);
	if (!buffer) {
		report("%s", strerror(ENOMEM));
		return 2;
	}
	uint64_t index = 0;
	bool have_previous = false;
	for (;;) {
		int64_t got = record_reader_read(reader, buffer + size, per_block);
		if (got < 0) {
			free(buffer);
			return 2;
		}
		if (got == 0)
			break;
		for (int64_t i = have_previous ? 0 : 1; i < got; i++) {
			const unsigned char *previous = buffer + (size_t)i * size;
			const unsigned char *current = previous + size;
			int order = key_compare(layout->type, layout->key_size, previous + layout->key_offset,
						current + layout->key_offset);
			if (layout->reverse)
				order = -order;
			if (order > 0 || (order == 0 && options->unique)) {
				if (options->check == 'c') {
					const char *name = record_reader_current_name(reader);
					/* 1-based, as GNU sort counts lines */
					report("%s: disorder at record %" PRIu64,
					       strcmp(name, "-") == 0 ? "standard input" : name,
					       index + (uint64_t)i + 1);
				}
				free(buffer);
				return 1;
			}
		}
		memcpy(buffer, buffer + (size_t)got * size, size);
		index += (uint64_t)got;
		have_previous = true;
	}
	free(buffer);
	return 0;
}
