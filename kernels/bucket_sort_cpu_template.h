/* SPDX-License-Identifier: MIT */
/* The CPU bucket sort for one item width: included by bucket_sort_cpu.c once per width
 * with ITEM_T (the item type as stored), VALUE_T and ITEM_VALUE(item) (its value as an
 * unsigned integer, for order and digits) and WIDTH_NAME(name) (name with a width
 * suffix) defined, so the algorithm is written once. No include guard on purpose. */


/* Moves src's n items sorted into dst by counting, for each item, the items that go
 * before it (smaller ones, and equal ones further left). Quadratic but free of
 * unpredictable branches, which makes it the fastest finish for a radix bin of a few
 * dozen items; insertion sort loses a mispredicted branch per item. */
static void WIDTH_NAME(rank_sort_into)(const ITEM_T *src, ITEM_T *dst, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		VALUE_T item = ITEM_VALUE(src[i]);
		size_t rank = 0;
		for (size_t j = 0; j < i; j++)
			rank += ITEM_VALUE(src[j]) <= item;
		for (size_t j = i + 1; j < n; j++)
			rank += ITEM_VALUE(src[j]) < item;
		dst[rank] = src[i];
	}
}

/* In-place heapsort: the sort of last resort when no scratch memory can be had. */
static void WIDTH_NAME(sift_down)(ITEM_T *items, size_t root, size_t n)
{
	ITEM_T item = items[root];
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			break;
		if (child + 1 < n && ITEM_VALUE(items[child + 1]) > ITEM_VALUE(items[child]))
			child++;
		if (ITEM_VALUE(items[child]) <= ITEM_VALUE(item))
			break;
		items[root] = items[child];
		root = child;
	}
	items[root] = item;
}

static void WIDTH_NAME(heap_sort)(ITEM_T *items, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		WIDTH_NAME(sift_down)(items, i, n);
	for (size_t end = n; end-- > 1;) {
		ITEM_T top = items[0];
		items[0] = items[end];
		items[end] = top;
		WIDTH_NAME(sift_down)(items, 0, end);
	}
}

/* MSD radix sort, ping-ponging between two arrays so that each level is one scatter
 * pass. Bits [0, top) of the items are still to be sorted on; a level takes the next
 * digit below `top`, wide enough that its bins average a few items, and the bins are
 * finished by rank_sort_into. A digit that all items share costs one counting pass and
 * no scatter, so runs of equal items end quickly. The items are in `from`, `to` is as
 * large; the result ends in `to` when into_to, else back in `from`. n < 2^32. */
static void WIDTH_NAME(finish_bin)(ITEM_T *from, ITEM_T *to, size_t n, unsigned top, bool into_to)
{
	if (top == 0 || n < 2) {
		if (into_to)
			memcpy(to, from, n * sizeof(ITEM_T));
		return;
	}
	WIDTH_NAME(rank_sort_into)(from, to, n);
	if (!into_to)
		memcpy(from, to, n * sizeof(ITEM_T));
}

static void WIDTH_NAME(msd_sort)(ITEM_T *from, ITEM_T *to, size_t n, unsigned top, bool into_to)
{
	uint32_t count[1 << RADIX_MAX_BITS];
	while (top > 0 && n > RANK_SORT_LIMIT) {
		unsigned bits = radix_digit_bits(n, top), shift = top - bits;
		uint32_t mask = ((uint32_t)1 << bits) - 1, position = 0;
		top = shift;
		memset(count, 0, ((size_t)mask + 1) * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(uint32_t)(ITEM_VALUE(from[i]) >> shift) & mask]++;
		if (count[(uint32_t)(ITEM_VALUE(from[0]) >> shift) & mask] == n)
			continue;
		for (uint32_t d = 0; d <= mask; d++) {
			uint32_t c = count[d];
			count[d] = position;
			position += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(uint32_t)(ITEM_VALUE(from[i]) >> shift) & mask]++] = from[i];
		/* bin d is now to[count[d - 1], count[d]); the bins go back the other way */
		uint32_t begin = 0;
		for (uint32_t d = 0; d <= mask; d++) {
			uint32_t length = count[d] - begin;
			if (length > RANK_SORT_LIMIT && top > 0)
				WIDTH_NAME(msd_sort)(to + begin, from + begin, length, top, !into_to);
			else
				WIDTH_NAME(finish_bin)(to + begin, from + begin, length, top, !into_to);
			begin = count[d];
		}
		return;
	}
	WIDTH_NAME(finish_bin)(from, to, n, top, into_to);
}

/* The number of low bits in which the items differ (0 when all are equal). */
static unsigned WIDTH_NAME(differing_bits)(const ITEM_T *items, size_t n)
{
	VALUE_T differ = 0, first = n ? ITEM_VALUE(items[0]) : 0;
	unsigned bits = 0;
	for (size_t i = 1; i < n; i++)
		differ |= ITEM_VALUE(items[i]) ^ first;
	while (differ) {
		differ >>= 1;
		bits++;
	}
	return bits;
}

/* Sorts items in place; tmp holds n items of scratch. */
static void WIDTH_NAME(local_sort)(ITEM_T *items, ITEM_T *tmp, size_t n)
{
	if (n > UINT32_MAX)
		WIDTH_NAME(heap_sort)(items, n);
	else
		WIDTH_NAME(msd_sort)(items, tmp, n, WIDTH_NAME(differing_bits)(items, n), false);
}

/* Moves src's n items sorted into dst; src is scratch afterwards. */
static void WIDTH_NAME(local_sort_into)(ITEM_T *src, ITEM_T *dst, size_t n)
{
	if (n > UINT32_MAX) {
		WIDTH_NAME(heap_sort)(src, n);
		memcpy(dst, src, n * sizeof(ITEM_T));
	} else {
		WIDTH_NAME(msd_sort)(src, dst, n, WIDTH_NAME(differing_bits)(src, n), true);
	}
}

/* Sorts items without scratch from the caller: a buffer if one can be had, else heapsort. */
static void WIDTH_NAME(sort_alone)(ITEM_T *items, size_t n)
{
	ITEM_T *tmp = malloc(n * sizeof(ITEM_T) + 1);
	if (tmp)
		WIDTH_NAME(local_sort)(items, tmp, n);
	else
		WIDTH_NAME(heap_sort)(items, n);
	free(tmp);
}

static inline size_t sublist_length(const struct bucket_plan *plan, size_t j);

/* Step 2: each pool thread takes sublists from a shared counter and sorts them with
 * one scratch buffer of m items that stays in its cache. */
struct WIDTH_NAME(sublist_job) {
	ITEM_T *items;
	const struct bucket_plan *plan;
	atomic_size_t next;
	struct thread_pool *pool;
	bool counted; /* the top level: half of each sublist's items are steps of progress */
};

static void WIDTH_NAME(sort_sublists_worker)(void *context, size_t worker)
{
	struct WIDTH_NAME(sublist_job) *job = context;
	const struct bucket_plan *plan = job->plan;
	ITEM_T *tmp = malloc(plan->m * sizeof(ITEM_T));
	(void)worker;
	for (;;) {
		size_t j = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
		if (j >= plan->sublists || thread_pool_stopped(job->pool))
			break;
		ITEM_T *sublist = job->items + j * plan->m;
		if (tmp)
			WIDTH_NAME(local_sort)(sublist, tmp, sublist_length(plan, j));
		else
			WIDTH_NAME(heap_sort)(sublist, sublist_length(plan, j));
		if (job->counted)
			thread_pool_progress(job->pool, sublist_length(plan, j) / 2);
	}
	free(tmp);
}

static void WIDTH_NAME(sort_sublists)(struct thread_pool *pool, ITEM_T *items,
				      const struct bucket_plan *plan, bool counted)
{
	struct WIDTH_NAME(sublist_job) job = { .items = items, .plan = plan, .pool = pool, .counted = counted };
	atomic_init(&job.next, 0);
	/* a worker per thread, but no more than there are sublists */
	size_t workers = thread_pool_size(pool);
	thread_pool_parallel_for(pool, workers < plan->sublists ? workers : plan->sublists,
				 WIDTH_NAME(sort_sublists_worker), &job);
}

/* Step 3. */
struct WIDTH_NAME(sample_job) {
	const ITEM_T *items;
	const struct bucket_plan *plan;
	ITEM_T *samples;
	struct thread_pool *pool;
};

static void WIDTH_NAME(take_samples_of)(void *context, size_t j)
{
	struct WIDTH_NAME(sample_job) *job = context;
	const struct bucket_plan *plan = job->plan;
	const ITEM_T *sublist = job->items + j * plan->m;
	size_t length = sublist_length(plan, j);
	if (thread_pool_stopped(job->pool))
		return; /* the pass is cut short: its caller stops after it */
	for (size_t k = 0; k < plan->s; k++)
		job->samples[j * plan->s + k] = sublist[(k * length) / plan->s];
}

static void WIDTH_NAME(take_samples)(struct thread_pool *pool, const ITEM_T *items,
				     const struct bucket_plan *plan, ITEM_T *samples)
{
	struct WIDTH_NAME(sample_job) job = { items, plan, samples, pool };
	thread_pool_parallel_for(pool, plan->sublists, WIDTH_NAME(take_samples_of), &job);
}

/* The whole sort of items[0, n) in place, scratch holding n items; -ENOMEM when the
 * plan's tables cannot be had (items untouched, the caller sorts them otherwise),
 * -ECANCELED when the pool's owner stopped it (items a permutation of what they were).
 * Buckets that fit a cache are finished by the local sort straight from scratch into
 * items; larger ones by the same method one level down, unless splitting made no
 * progress (many equal items), where the local sort, which skips digits all items
 * share, finishes them. */
static int WIDTH_NAME(bucket_sort_range)(struct thread_pool *pool, ITEM_T *items,
					 ITEM_T *scratch, size_t n, unsigned depth);

/* Steps 4 and 5; tmp (L*s items) is scratch for the sample sort, or NULL. The samples
 * (an eighth of the items or fewer) are sorted by the same method on the pool, so that
 * the step is neither one thread's nor deaf to a stop. Returns 0 or -ECANCELED. */
static int WIDTH_NAME(choose_splitters)(struct thread_pool *pool, ITEM_T *samples, ITEM_T *tmp,
					const struct bucket_plan *plan, ITEM_T *splitters, unsigned depth)
{
	size_t count = plan->sublists * plan->s;
	if (!tmp) {
		WIDTH_NAME(sort_alone)(samples, count);
	} else {
		int error = WIDTH_NAME(bucket_sort_range)(pool, samples, tmp, count, depth + 1);
		if (error == -ECANCELED)
			return error;
		if (error) /* no room for its tables: the local sort alone */
			WIDTH_NAME(local_sort)(samples, tmp, count);
	}
	for (size_t k = 1; k < plan->s; k++)
		splitters[k - 1] = samples[k * plan->sublists];
	return 0;
}

/* Step 6: the splitters ascend, so each lower bound is searched from the previous one,
 * galloping first (the gaps average m/s items) and then bisecting. */
struct WIDTH_NAME(locate_job) {
	const ITEM_T *items;
	const struct bucket_plan *plan;
	const ITEM_T *splitters;
	uint32_t *bounds;
	struct thread_pool *pool;
};

static void WIDTH_NAME(locate_in)(void *context, size_t j)
{
	struct WIDTH_NAME(locate_job) *job = context;
	const struct bucket_plan *plan = job->plan;
	const ITEM_T *sublist = job->items + j * plan->m;
	size_t length = sublist_length(plan, j);
	uint32_t *bounds = job->bounds + j * (plan->s + 1);
	size_t found = 0;

	if (thread_pool_stopped(job->pool))
		return;
	bounds[0] = 0;
	for (size_t b = 1; b < plan->s; b++) {
		VALUE_T key = ITEM_VALUE(job->splitters[b - 1]);
		if (found < length && ITEM_VALUE(sublist[found]) < key) {
			/* sublist[low] < key; sublist[high] >= key or high == length */
			size_t low = found, step = 1, high = found + 1;
			while (high < length && ITEM_VALUE(sublist[high]) < key) {
				low = high;
				step *= 2;
				high = low + step;
			}
			if (high > length)
				high = length;
			while (high - low > 1) {
				size_t middle = low + (high - low) / 2;
				if (ITEM_VALUE(sublist[middle]) < key)
					low = middle;
				else
					high = middle;
			}
			found = high;
		}
		bounds[b] = (uint32_t)found;
	}
	bounds[plan->s] = (uint32_t)length;
}

static void WIDTH_NAME(locate)(struct thread_pool *pool, const ITEM_T *items,
			       const struct bucket_plan *plan, const ITEM_T *splitters,
			       uint32_t *bounds)
{
	struct WIDTH_NAME(locate_job) job = { items, plan, splitters, bounds, pool };
	thread_pool_parallel_for(pool, plan->sublists, WIDTH_NAME(locate_in), &job);
}

/* Step 8: each sublist's pieces go to their buckets' places. */
struct WIDTH_NAME(relocate_job) {
	const ITEM_T *items;
	const struct bucket_plan *plan;
	const uint32_t *bounds;
	const uint64_t *offsets;
	ITEM_T *out;
	struct thread_pool *pool;
};

static void WIDTH_NAME(relocate_from)(void *context, size_t j)
{
	struct WIDTH_NAME(relocate_job) *job = context;
	const struct bucket_plan *plan = job->plan;
	const ITEM_T *sublist = job->items + j * plan->m;
	const uint32_t *bounds = job->bounds + j * (plan->s + 1);
	if (thread_pool_stopped(job->pool))
		return;
	for (size_t b = 0; b < plan->s; b++) {
		size_t length = bounds[b + 1] - bounds[b];
		if (length > 0)
			memcpy(job->out + job->offsets[b * plan->sublists + j], sublist + bounds[b],
			       length * sizeof(ITEM_T));
	}
}

static void WIDTH_NAME(relocate)(struct thread_pool *pool, const ITEM_T *items,
				 const struct bucket_plan *plan, const uint32_t *bounds,
				 const uint64_t *offsets, ITEM_T *out)
{
	struct WIDTH_NAME(relocate_job) job = { items, plan, bounds, offsets, out, pool };
	thread_pool_parallel_for(pool, plan->sublists, WIDTH_NAME(relocate_from), &job);
}

struct WIDTH_NAME(bucket_job) {
	ITEM_T *items;
	ITEM_T *scratch;
	const struct bucket_plan *plan;
	const uint64_t *offsets;
	unsigned depth;
	struct thread_pool *pool;
};

static void WIDTH_NAME(sort_bucket)(void *context, size_t b)
{
	struct WIDTH_NAME(bucket_job) *job = context;
	const struct bucket_plan *plan = job->plan;
	size_t start = job->offsets[b * plan->sublists];
	size_t length = job->offsets[(b + 1) * plan->sublists] - start;
	ITEM_T *bucket = job->scratch + start;

	if (thread_pool_stopped(job->pool))
		return; /* the sort is stopped: its result is not wanted */
	if (length <= cpu_direct_limit(sizeof(ITEM_T)) || length == plan->n ||
	    job->depth >= CPU_MAX_DEPTH) {
		WIDTH_NAME(local_sort_into)(bucket, job->items + start, length);
		if (job->depth == 0)
			thread_pool_progress(job->pool, length - length / 2);
		return;
	}
	/* one level down on this thread (the pool is busy with the other buckets: its loops
	 * run here), still asking whether to stop */
	int error = WIDTH_NAME(bucket_sort_range)(job->pool, bucket, job->items + start, length, job->depth + 1);
	if (error == -ECANCELED)
		return;
	if (error == 0)
		memcpy(job->items + start, bucket, length * sizeof(ITEM_T));
	else
		WIDTH_NAME(local_sort_into)(bucket, job->items + start, length);
	if (job->depth == 0)
		thread_pool_progress(job->pool, length - length / 2);
}

static int WIDTH_NAME(bucket_sort_range)(struct thread_pool *pool, ITEM_T *items,
					 ITEM_T *scratch, size_t n, unsigned depth)
{
	struct bucket_plan plan;
	ITEM_T *samples = NULL, *splitters = NULL;
	uint32_t *bounds = NULL;
	uint64_t *offsets = NULL;
	int error = 0;

	if (n <= cpu_sublist_items(sizeof(ITEM_T))) {
		WIDTH_NAME(local_sort)(items, scratch, n);
		if (depth == 0)
			thread_pool_progress(pool, n);
		return 0;
	}
	if (cpu_plan(&plan, n, sizeof(ITEM_T)) < 0)
		return -EINVAL;
	samples = malloc(plan.sublists * plan.s * sizeof(ITEM_T));
	splitters = malloc(plan.s * sizeof(ITEM_T));
	bounds = malloc(plan.sublists * (plan.s + 1) * sizeof(uint32_t));
	offsets = malloc((plan.sublists * plan.s + 1) * sizeof(uint64_t));
	if (!samples || !splitters || !bounds || !offsets) {
		error = -ENOMEM;
		goto out;
	}
	PROFILE_MARK(depth, "start");
	WIDTH_NAME(sort_sublists)(pool, items, &plan, depth == 0);
	PROFILE_MARK(depth, "2 sort sublists");
	/* A stop between the passes leaves items a permutation of what they were; later
	 * passes rely on earlier ones, so none runs on a pass cut short. */
	if (thread_pool_stopped(pool)) {
		error = -ECANCELED;
		goto out;
	}
	WIDTH_NAME(take_samples)(pool, items, &plan, samples);
	PROFILE_MARK(depth, "3 samples");
	/* scratch is free until step 8, so the sample sort borrows it */
	error = thread_pool_stopped(pool) ? -ECANCELED
		: WIDTH_NAME(choose_splitters)(pool, samples, plan.sublists * plan.s <= n ? scratch : NULL,
					       &plan, splitters, depth);
	if (error)
		goto out;
	PROFILE_MARK(depth, "4-5 splitters");
	WIDTH_NAME(locate)(pool, items, &plan, splitters, bounds);
	PROFILE_MARK(depth, "6 locate");
	if (thread_pool_stopped(pool)) {
		error = -ECANCELED;
		goto out;
	}
	bucket_cpu_offsets(&plan, bounds, offsets);
	PROFILE_MARK(depth, "7 offsets");
	WIDTH_NAME(relocate)(pool, items, &plan, bounds, offsets, scratch);
	PROFILE_MARK(depth, "8 relocate");
	if (thread_pool_stopped(pool)) {
		error = -ECANCELED; /* scratch holds only some of the items */
		goto out;
	}

	struct WIDTH_NAME(bucket_job) job = { items, scratch, &plan, offsets, depth, pool };
	thread_pool_parallel_for(pool, plan.s, WIDTH_NAME(sort_bucket), &job);
	PROFILE_MARK(depth, "9 sort buckets");
	if (thread_pool_stopped(pool))
		error = -ECANCELED; /* buckets were left unsorted */
out:
	free(offsets);
	free(bounds);
	free(splitters);
	free(samples);
	return error;
}

