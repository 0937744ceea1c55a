/* SPDX-License-Identifier: MIT */
/* Run files: a spilled sorted run stored as independent blocks, one per block the caller
 * hands over (whole records or whole lines; io/ does not know keys), each checksummed,
 * then a block index and a fixed footer, so a reader can start at any block. Per block
 * the index keeps its offset and size in the file, its uncompressed size, its record
 * count and an opaque entry from the caller (the merge stores each block's first key).
 * A damaged block or index reads as -EBADMSG.
 *
 *   file   = block 0 | block 1 | ... | index frame | footer
 *   block  = a zstd frame with its content checksum, or (stored) the bytes as they are
 *            followed by their u64 block_checksum (io/block_checksum.h)
 *   footer = "GPURUN01" | u64 index offset | u64 index frame bytes | u64 blocks |
 *            u64 FNV-1a of the 32 bytes before it              (little-endian, 40 bytes)
 *   index  = per block: u64 offset, u64 file bytes, u64 bytes, u64 records,
 *            u32 transform, u32 entry bytes, the entry          (zstd frame, checksummed)
 *
 * The transform word holds the transform in its low 7 bits, RUN_BLOCK_STORED in bit 7
 * and the element width above (for RUN_TRANSFORM_PREFIX_XOR: the width in bits 8-23 and
 * the prefix in bits 24-31); a stored block has no transform and takes bytes + 8 in
 * the file. Runs written before stored blocks existed read as they always did.
 *
 * The writer is a pipeline: the caller hands blocks over, `threads` compressor threads
 * compress them (several at once, out of order), and a writer thread puts them in the
 * file in block order through a write_queue (io_uring, several writes in flight). It
 * measures both sides (run_file_stats), so that the next run's level can follow
 * whichever of the compressor and the disk is slower (run_level.h).
 *
 * A run may go to a stream instead (options.stream: a pipe to --compress-program's
 * PROG, which does the compressing): blocks stored, in order, and nothing after them;
 * run_writer_finish_stream keeps the index in memory and hands it over as a reader
 * whose blocks come back from a stream (run_reader_stream_begin: `PROG -d`'s pipe) one
 * after another, from the first, each checked against the index and its checksum.
 * Such a reader has no random access: run_reader_read_block takes its blocks in order.
 * Functions return 0 (or a byte count) or a negative errno. */
#ifndef GPUSORT_RUN_FILE_H
#define GPUSORT_RUN_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* zstd level 1: level 3 gains nothing once RUN_TRANSFORM_DELTA is on (run_writer.c). */
#define RUN_DEFAULT_LEVEL 1
/* A block handed over (run_writer_append_exchange) in a buffer with this many bytes to
 * spare after it is stored without a copy. */
#define RUN_BLOCK_SPARE_BYTES 8
/* A run's blocks go on to the device this far behind its writes (the writer thread
 * waits for the window before, write_queue_write_behind): its dirty pages stay within a
 * few windows, so temp files neither crowd a memory cgroup nor leave a backlog of
 * writeback for the merge's output to queue behind, and a run that wrote two windows
 * or more has timed the disk itself, not the page cache (run_level.h). Far more than
 * the write queue holds, so the window waited for has been written. Only the bytes past
 * the page cache's budget (options.cached_bytes, io/cache_budget.h) are written behind:
 * a sort whose temp files fit it leaves them to the kernel. */
#define RUN_WRITE_BEHIND_BYTES ((size_t)8 << 20)
/* Bit 7 of an index entry's transform word: the block is stored, not compressed. */
#define RUN_BLOCK_STORED 0x80u

/* Optional order-aware transforms before zstd for blocks of fixed-size elements; the
 * reader undoes them on its own (the transform is recorded per block). */
enum run_transform {
	RUN_TRANSFORM_NONE = 0,
	/* byte planes: byte j of every element together (element_bytes wide elements) */
	RUN_TRANSFORM_BYTE_PLANES = 1,
	/* elements as little-endian unsigned integers of 4 or 8 bytes replaced by their
	 * differences from the previous one (sorted keys: small numbers), then byte planes;
	 * other widths get byte planes only. Use it for records that are just a u32/u64/
	 * i32/i64/f32/f64 key: sorted keys compress several times better, and faster
	 * than without. */
	RUN_TRANSFORM_DELTA = 2,
	/* the first prefix_bytes of each element XORed with the element before's: for
	 * sorted records whose key leads them (elements below 64 KiB, a prefix below 256
	 * bytes; else none): a higher ratio, and faster at level -1 than level 1 without
	 * it (bench/RESULTS.md). Its runs start at level 1 and may go down to level -1
	 * (RUN_PREFIX_XOR_LEVEL) where the compressor is slower than the disk. */
	RUN_TRANSFORM_PREFIX_XOR = 3,
};
#define RUN_PREFIX_XOR_MAX_ELEMENT 65535u
/* the lowest level its runs go to (run_level.h) */
#define RUN_PREFIX_XOR_LEVEL (-1)
#define RUN_PREFIX_XOR_MAX_PREFIX 255u

struct run_writer_options {
	int level;                  /* zstd level; 0: RUN_DEFAULT_LEVEL */
	bool stored;                /* store blocks uncompressed (checksummed), no transform */
	enum run_transform transform;
	size_t element_bytes;       /* element width for the transforms */
	size_t prefix_bytes;        /* RUN_TRANSFORM_PREFIX_XOR: the bytes XORed */
	unsigned threads;           /* compressor threads; 0: 1 */
	unsigned depth;             /* blocks held at once (queued, compressing or waiting
				       to be written); 0: 2 * threads + 2 */
	bool stream;                /* fd is a pipe: blocks stored (level, stored, transform
				       and threads ignored), no index or footer written; end
				       with run_writer_finish_stream */
	uint64_t cached_bytes;      /* file bytes the run may leave to the page cache
				       before its writes go on to the device behind it
				       (io/cache_budget.h); 0: written behind from the start */
	bool on_caller;             /* no threads (threads ignored; not with stream): each
				       block compressed or stored and queued for writing by
				       the caller as it is handed over, for where no thread
				       can be started (no process left: RLIMIT_NPROC) */
};

struct run_writer;
struct run_reader;

struct run_block_info {
	uint64_t offset;            /* of the compressed frame in the file */
	uint64_t compressed_bytes;
	uint64_t bytes;             /* uncompressed: what run_reader_read_block returns */
	uint64_t records;
	const void *index_entry;    /* the caller's entry; valid until run_reader_close */
	size_t index_entry_bytes;
};

struct run_file_stats {
	uint64_t blocks;
	uint64_t records;
	uint64_t bytes;             /* uncompressed, as handed over */
	uint64_t file_bytes;        /* on disk, index and footer included */
	int level;                  /* the zstd level used, or 0 when stored */
	bool stored;
	unsigned threads;           /* the compressor threads */
	double compress_seconds;    /* the threads' time compressing, all added up */
	double write_seconds;       /* the writer thread's time in the writes: waiting for
				       the disk, or writing (write_queue_wait_seconds) */
	uint64_t behind_bytes;      /* file bytes past cached_bytes: once a run passes its
				       allowance, all of it goes to the device, timed */
};

/* Writes a run at fd's current offset (normally a fresh temp file from
 * temp_file_create). The fd stays the caller's. options may be NULL. */
int run_writer_open(int fd, const struct run_writer_options *options,
		    struct run_writer **writer);
/* Queues one block for compression and writing (a copy of it: data is free again on
 * return); waits while `depth` blocks are held. A block whose size is not a multiple of
 * element_bytes, or is 0, is stored without transform. An error of an earlier block
 * (a write, compression) is returned here or by run_writer_finish. */
int run_writer_append_block(struct run_writer *writer, const void *data, size_t bytes,
			    uint64_t records, const void *index_entry, size_t entry_bytes);
/* The same without the copy: the writer takes the malloc'ed *block (*capacity bytes, the
 * block's bytes at its start) and hands back in *block a free buffer of at least as many
 * bytes, with its capacity. index_entry may point into the block. */
int run_writer_append_exchange(struct run_writer *writer, void **block, size_t *capacity,
			       size_t bytes, uint64_t records, const void *index_entry,
			       size_t entry_bytes);
/* The same without any copy: the writer's compressor threads read data where it lies,
 * and the caller leaves it unchanged until run_writer_wait_lent returns. For blocks that
 * are part of a larger buffer of the caller's (a chunk's gathered records). */
int run_writer_append_lent(struct run_writer *writer, const void *data, size_t bytes, uint64_t records,
			   const void *index_entry, size_t entry_bytes);
/* Waits until every block handed over so far is compressed (or stored): lent data is
 * free again. Returns the first error, as append does. */
int run_writer_wait_lent(struct run_writer *writer);
/* Waits for every block, writes the index and footer and waits for every write; frees
 * the writer either way. stats may be NULL. */
int run_writer_finish(struct run_writer *writer, struct run_file_stats *stats);
/* For a stream writer: waits for every block to be written (SIGPIPE held off: a
 * reader that went away is -EPIPE), frees the writer and hands the index over as a
 * reader with no stream yet (*reader, NULL on error). stats may be NULL. */
int run_writer_finish_stream(struct run_writer *writer, struct run_file_stats *stats,
			     struct run_reader **reader);
/* Stops the threads and frees without finishing (the caller removes the file). */
void run_writer_abort(struct run_writer *writer);

/* Reads the footer and index. The fd stays the caller's and must stay open until
 * run_reader_detach (or run_reader_close). */
int run_reader_open(int fd, struct run_reader **reader);
/* A run's reader holds its index in memory and its file only while a merge reads it:
 * run_reader_detach forgets the fd (the caller closes it) and returns it, -1 if none;
 * run_reader_attach hands it the same run file opened again. Reading a block with no
 * file attached fails with -EBADF. Not for a stream's reader. */
int run_reader_detach(struct run_reader *reader);
void run_reader_attach(struct run_reader *reader, int fd);
size_t run_reader_block_count(const struct run_reader *reader);
uint64_t run_reader_records(const struct run_reader *reader);
/* The largest uncompressed block: a buffer this big fits any block. */
size_t run_reader_max_block_bytes(const struct run_reader *reader);
int run_reader_block_info(const struct run_reader *reader, size_t index,
			  struct run_block_info *info);
/* Decompresses block `index` into buffer (buffer_bytes at least its bytes) and returns
 * its size; -EBADMSG when its checksum or framing is wrong. Safe to call from several
 * threads at once on one reader (pread, and per-thread zstd contexts). */
ssize_t run_reader_read_block(struct run_reader *reader, size_t index, void *buffer,
			      size_t buffer_bytes);
/* Asks the kernel to read blocks [first, first + count) (those that exist) into the
 * page cache in the background (posix_fadvise WILLNEED), so that reading them later
 * finds them there: a merge asks for each run's next blocks while it merges the current
 * ones. Advice only: nothing is returned, nothing held in our memory. */
void run_reader_prefetch(struct run_reader *reader, size_t first, size_t count);
/* For a reader from run_writer_finish_stream: its blocks come from fd (the caller's,
 * open until run_reader_stream_end), block 0 first. */
void run_reader_stream_begin(struct run_reader *reader, int fd);
/* After the last block: the stream must end there (-EBADMSG when more follows). The
 * reader forgets fd; a later run_reader_stream_begin reads the run again. */
int run_reader_stream_end(struct run_reader *reader);
/* Whether the reader's blocks come from a stream, in order only. */
bool run_reader_is_stream(const struct run_reader *reader);
void run_reader_close(struct run_reader *reader);

#endif
