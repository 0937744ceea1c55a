/* Copying one open file's bytes over another's: how the output is committed when the
 * file it replaces cannot be replaced by a rename (see output_file.h). Returns 0 or a
 * negative errno. */
#ifndef GPUSORT_FILE_COPY_H
#define GPUSORT_FILE_COPY_H

/* Makes to_fd (open for writing) hold exactly the bytes of from_fd (open for reading),
 * from offset 0: writes them over the old ones, then cuts to_fd to from_fd's length.
 * Faults are injected as "output_copy". */
int file_copy_contents(int from_fd, int to_fd);

#endif
