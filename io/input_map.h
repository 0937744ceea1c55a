/* A whole regular input file mapped read-only into memory: for callers that want all of
 * an input at once, this skips the copy through read buffers and the faulting-in of fresh
 * pages that reading needs. Functions return 0 or a negative errno. */
#ifndef GPUSORT_INPUT_MAP_H
#define GPUSORT_INPUT_MAP_H

#include <stddef.h>

struct input_map;

/* Maps path. Fails with -ENOTSUP for stdin ("-"), pipes and other non-regular files and
 * for empty files, and with -EFBIG for files larger than limit bytes (the caller reads
 * those instead); the file must not shrink while it is mapped. */
int input_map_open(const char *path, size_t limit, struct input_map **map);
const char *input_map_data(const struct input_map *map);
size_t input_map_size(const struct input_map *map);
void input_map_close(struct input_map *map);

#endif
