/*
 * ibal soft provider: a port's receive ring in shared memory (see soft_ring.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "soft_fabric.h"
#include "soft_ring.h"
#include "ibal_mem.h"
#include "ibal_tsan.h"

_Static_assert(sizeof(soft_ring_hdr_t) == SOFT_RING_HDR_BYTES, "ring header size");
_Static_assert(offsetof(soft_ring_hdr_t, owner_stats) == 256, "owner counters on their own line");
_Static_assert((SOFT_RING_BYTES & (SOFT_RING_BYTES - 1)) == 0, "ring size is a power of two");
_Static_assert(SOFT_RING_SPILL >= SOFT_RING_REC_HDR + SOFT_RING_MAX_PKT + SOFT_RING_ALIGN,
	       "the spill area holds any record");

/* A record's head; the packet follows. */
typedef struct ring_rec {
	uint64_t stamp; /* position + 1 once published */
	uint32_t len;
	uint32_t flags;
} ring_rec_t;

_Static_assert(offsetof(ring_rec_t, stamp) == 0, "the stamp heads a record (soft_ring_rec_published)");

static size_t rec_bytes(size_t len)
{
	return (SOFT_RING_REC_HDR + len + SOFT_RING_ALIGN - 1) & ~(size_t)(SOFT_RING_ALIGN - 1);
}

static ring_rec_t *rec_at(const soft_ring_t *ring, uint64_t pos)
{
	return (ring_rec_t *)(void *)soft_ring_rec_ptr(ring, pos);
}

/* A published record's length, or 0 if no producer could have written it
 * (the consumer then skips to the tail: soft_ring_get). */
static inline uint32_t rec_len(const ring_rec_t *r)
{
	uint32_t len = __atomic_load_n(&r->len, __ATOMIC_RELAXED);

	return len && len <= SOFT_RING_MAX_PKT ? len : 0;
}

/*
 * The rings this process has mapped, by file: a ring is mapped once per
 * process, so that its producers and its consumer in one process use the
 * same addresses (thread sanitizers then see their synchronization).
 * An entry is trusted only in the process that made it (a forked child
 * inherits the list with the mappings of files that may since have been
 * removed) and only while the mapping still shows the file's header (a
 * removed file's inode number is soon reused by a new file).
 */
typedef struct ring_map {
	struct ring_map *next;
	pid_t pid;
	dev_t dev;
	ino_t ino;
	void *map;
	unsigned refs;
} ring_map_t;

static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static ring_map_t *maps;

/* Polls of an unpublished record before the stall clock starts. */
#define STUCK_POLLS 1024u

/* The header bytes that tell one ring file from another: layout, generation, owner. */
#define ID_BYTES (offsetof(soft_ring_hdr_t, owner_pid) + sizeof(int32_t))

/* Does @p map show the file @p fd is open on (the same identifying header
 * bytes)? The generation is read atomically: a retiring thread may be
 * zeroing it in the mapping (soft_ring_retire). */
static int map_shows(const void *map, int fd)
{
	const soft_ring_hdr_t *h = (const soft_ring_hdr_t *)map;
	uint8_t id[ID_BYTES];
	uint64_t gen;
	int32_t pid;

	if (pread(fd, id, sizeof(id), 0) != (ssize_t)sizeof(id) ||
	    memcmp(id, map, offsetof(soft_ring_hdr_t, gen)))
		return 0;
	memcpy(&gen, id + offsetof(soft_ring_hdr_t, gen), sizeof(gen));
	memcpy(&pid, id + offsetof(soft_ring_hdr_t, owner_pid), sizeof(pid));
	return gen == __atomic_load_n(&h->gen, __ATOMIC_ACQUIRE) &&
	       pid == __atomic_load_n(&h->owner_pid, __ATOMIC_RELAXED);
}

/* maps_lock held: the mapping of the file open on @p fd, with one more reference, or NULL. */
static void *map_find(dev_t dev, ino_t ino, int fd)
{
	pid_t self = getpid();
	ring_map_t *m;

	for (m = maps; m; m = m->next) {
		if (m->pid == self && m->dev == dev && m->ino == ino && map_shows(m->map, fd)) {
			m->refs++;
			return m->map;
		}
	}
	return NULL;
}

/* maps_lock held: records a new mapping (not recorded if out of memory). */
static void map_add(dev_t dev, ino_t ino, void *map)
{
	ring_map_t *m = (ring_map_t *)cl_zalloc(sizeof(*m));

	if (!m)
		return;
	m->pid = getpid();
	m->dev = dev;
	m->ino = ino;
	m->map = map;
	m->refs = 1;
	m->next = maps;
	maps = m;
}

/* Drops a reference; unmaps with the last one. */
static void map_put(void *map)
{
	ring_map_t **pp, *m;

	pthread_mutex_lock(&maps_lock);
	for (pp = &maps; (m = *pp); pp = &m->next) {
		if (m->map == map) {
			if (!--m->refs) {
				*pp = m->next;
				cl_free(m);
				munmap(map, SOFT_RING_FILE_BYTES);
			}
			pthread_mutex_unlock(&maps_lock);
			return;
		}
	}
	pthread_mutex_unlock(&maps_lock);
	munmap(map, SOFT_RING_FILE_BYTES);
}

static void set_view(soft_ring_t *ring, void *map)
{
	memset(ring, 0, sizeof(*ring));
	ring->hdr = (soft_ring_hdr_t *)map;
	ring->data = (uint8_t *)map + SOFT_RING_HDR_BYTES;
	ring->stuck_pos = UINT64_MAX;
}

int soft_ring_create(const char *path, uint64_t gen, soft_ring_t *ring)
{
	struct stat st;
	soft_ring_hdr_t *h;
	void *map;
	int fd, err;

	if (unlink(path) < 0 && errno != ENOENT)
		return errno;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	/* Every page is allocated now: a full file system is an error here,
	 * not a SIGBUS at the first touch of a page. */
	err = posix_fallocate(fd, 0, SOFT_RING_FILE_BYTES);
	if (err) {
		close(fd);
		unlink(path);
		return err;
	}
	map = mmap(NULL, SOFT_RING_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = map == MAP_FAILED ? errno : 0;
	if (!err && fstat(fd, &st) < 0)
		err = errno;
	close(fd);
	if (err) {
		if (map != MAP_FAILED)
			munmap(map, SOFT_RING_FILE_BYTES);
		unlink(path);
		return err;
	}
	/* The consumer's page tables hold the whole ring now, not one page
	 * fault at a time as the first lap of packets arrives (10 us a fault
	 * on a host that shadows its guests' page tables). */
	ibal_mem_populate_shared(map, SOFT_RING_FILE_BYTES);
	pthread_mutex_lock(&maps_lock);
	map_add(st.st_dev, st.st_ino, map);
	pthread_mutex_unlock(&maps_lock);
	set_view(ring, map);
	h = ring->hdr;
	h->version = SOFT_RING_VERSION;
	h->hdr_bytes = SOFT_RING_HDR_BYTES;
	h->ring_bytes = SOFT_RING_BYTES;
	h->owner_pid = (int32_t)getpid();
	__atomic_store_n(&h->gen, gen, __ATOMIC_RELAXED);
	__atomic_store_n(&h->magic, SOFT_RING_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* Opens a ring file of ours and maps it (the process's mapping of it if
 * there is one, with one more reference); NULL with errno set. */
static void *map_file(const char *path)
{
	struct stat st;
	void *map;
	int fd, err;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size != (off_t)SOFT_RING_FILE_BYTES) {
		close(fd);
		errno = EPROTO;
		return NULL;
	}
	pthread_mutex_lock(&maps_lock);
	map = map_find(st.st_dev, st.st_ino, fd);
	if (!map) {
		map = mmap(NULL, SOFT_RING_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			map = NULL;
		else
			map_add(st.st_dev, st.st_ino, map);
	}
	err = errno;
	pthread_mutex_unlock(&maps_lock);
	close(fd);
	errno = err;
	return map;
}

static int hdr_ok(const soft_ring_hdr_t *h)
{
	return __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == SOFT_RING_MAGIC &&
	       h->version == SOFT_RING_VERSION && h->hdr_bytes == SOFT_RING_HDR_BYTES &&
	       h->ring_bytes == SOFT_RING_BYTES;
}

int soft_ring_attach(const char *path, soft_ring_t *ring)
{
	void *map = map_file(path);

	if (!map)
		return errno;
	if (!hdr_ok((const soft_ring_hdr_t *)map)) {
		map_put(map);
		return EPROTO;
	}
	/* A producer's writes would otherwise fault each page of the first
	 * lap (a burst of connections' MADs is one lap); the consumer and
	 * other producers write meanwhile, so the pages are only mapped. */
	ibal_mem_populate_shared(map, SOFT_RING_FILE_BYTES);
	set_view(ring, map);
	return 0;
}

void soft_ring_retire(const char *path, uint64_t gen)
{
	soft_ring_hdr_t *h = (soft_ring_hdr_t *)map_file(path);

	if (!h)
		return;
	if (hdr_ok(h) &&
	    __atomic_compare_exchange_n(&h->gen, &gen, 0, FALSE, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		unlink(path);
	map_put(h);
}

void soft_ring_unmap(soft_ring_t *ring)
{
	if (ring->hdr)
		map_put(ring->hdr);
	ring->hdr = NULL;
	ring->data = NULL;
}

int soft_ring_hollow(soft_ring_t *ring)
{
	ring_map_t **pp, *m;
	int done = 0;

	if (!ring->hdr)
		return 1;
	pthread_mutex_lock(&maps_lock);
	for (pp = &maps; (m = *pp); pp = &m->next) {
		if (m->map != (void *)ring->hdr)
			continue;
		if (m->refs == 1) {
			*pp = m->next;
			cl_free(m);
			done = 1;
		}
		break;
	}
	pthread_mutex_unlock(&maps_lock);
	/* Not in the list (it could not be recorded): ours alone. */
	if (!m)
		done = 1;
	/* The same addresses, now private zero pages: the file's pages go
	 * with its last mapping, and a late producer writes into nothing
	 * that anyone reads. If the kernel refuses, the file stays mapped. */
	if (done && mmap(ring->hdr, SOFT_RING_FILE_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
		return 0;
	return done;
}

/*
 * The consumer's head as a producer last read it (a relaxed copy in the
 * producer's view, shared by the process's threads): room is computed from
 * it, and the shared head is read again only when the copy leaves too little.
 * The shared head only grows, so the copy is never ahead of it: a stale copy
 * shows less room than there is, never more.
 */
static uint64_t seen_head(soft_ring_t *ring, boolean_t fresh)
{
	uint64_t hd;

	if (!fresh)
		return __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
	hd = __atomic_load_n(&ring->hdr->head, __ATOMIC_ACQUIRE);
	__atomic_store_n(&ring->head, hd, __ATOMIC_RELAXED);
	return hd;
}

soft_ring_put_t soft_ring_put(soft_ring_t *ring, const void *pkt, size_t len, uint32_t flags,
			      boolean_t *p_ring, uint64_t *p_count)
{
	soft_ring_hdr_t *h = ring->hdr;
	size_t need = rec_bytes(len);
	uint64_t t, hd;
	unsigned tries;
	boolean_t fresh = FALSE;
	ring_rec_t *r;

	t = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
	for (tries = 0;; tries++) {
		hd = seen_head(ring, fresh);
		if (hd > t) {
			/* Our tail is stale (the consumer passed it meanwhile), or the
			 * untrusted head is past every tail: then the ring is "full". */
			if (tries > 16)
				return SOFT_RING_FULL;
			t = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
			fresh = TRUE;
			continue;
		}
		if (t - hd + need > SOFT_RING_BYTES) {
			if (fresh)
				return SOFT_RING_FULL;
			fresh = TRUE;
			continue;
		}
		/* Sequentially consistent: see the load of `sleeping` below. */
		if (__atomic_compare_exchange_n(&h->tail, &t, t + need, TRUE, __ATOMIC_SEQ_CST,
						__ATOMIC_ACQUIRE))
			break;
	}
	/*
	 * Pairs with soft_ring_arm, which sets `sleeping` and then reads the
	 * tail: either it sees our claim (and polls on instead of sleeping) or
	 * we see it asleep, and the caller rings it once the record is
	 * published. Read here, right after the claim, the check needs no fence
	 * of its own (the claim is one), so the record's stores below never
	 * wait on one.
	 */
	*p_ring = __atomic_load_n(&h->sleeping, __ATOMIC_SEQ_CST) &&
		  __atomic_exchange_n(&h->sleeping, 0, __ATOMIC_ACQ_REL);
	if (p_count && !*p_ring)
		__atomic_fetch_add(p_count, 1, __ATOMIC_RELAXED);
	r = rec_at(ring, t);
	/*
	 * The room we claimed may hold a record another thread of this process
	 * put there; we may write over it because a consumer, perhaps in another
	 * process, read it and moved the head. ThreadSanitizer cannot see that
	 * order through another process: each put tells it, acquiring the ring
	 * before it writes and releasing it before it publishes.
	 */
	IBAL_TSAN_ANNOTATE(__tsan_acquire(h));
	__atomic_store_n(&r->len, (uint32_t)len, __ATOMIC_RELAXED);
	__atomic_store_n(&r->flags, flags, __ATOMIC_RELAXED);
	memcpy((uint8_t *)r + SOFT_RING_REC_HDR, pkt, len);
	IBAL_TSAN_ANNOTATE(__tsan_release(h));
	__atomic_store_n(&r->stamp, t + 1, __ATOMIC_RELEASE);
	return SOFT_RING_OK;
}

boolean_t soft_ring_room(const soft_ring_t *ring, size_t len)
{
	uint64_t t = __atomic_load_n(&ring->hdr->tail, __ATOMIC_ACQUIRE);
	uint64_t hd = __atomic_load_n(&ring->hdr->head, __ATOMIC_ACQUIRE);

	/* A head past the tail is stale or bogus: let the put decide. */
	return hd > t || t - hd + rec_bytes(len) <= SOFT_RING_BYTES;
}

/*
 * Tells producers how far the consumer has read. Done when the ring is
 * found empty (or about to be slept on) and every SOFT_RING_PUBLISH_BYTES
 * meanwhile, not for every record: the line holding the published head
 * then stays in the producers' caches instead of moving between processors
 * twice per packet. Producers see a little less room than there is.
 */
static void publish_head(soft_ring_t *ring)
{
	if (ring->published == ring->head)
		return;
	ring->published = ring->head;
	__atomic_store_n(&ring->hdr->head, ring->head, __ATOMIC_RELEASE);
}

/* Drops everything up to the tail as it is now (a bad or abandoned record). */
static void skip_to_tail(soft_ring_t *ring)
{
	uint64_t t = __atomic_load_n(&ring->hdr->tail, __ATOMIC_ACQUIRE);

	ring->dropped++;
	__atomic_store_n(&ring->head, t, __ATOMIC_RELAXED); /* soft_ring_ready reads it */
	ring->stuck_pos = UINT64_MAX;
	publish_head(ring);
}

static inline __attribute__((always_inline)) void advance(soft_ring_t *ring, size_t len)
{
	__atomic_store_n(&ring->head, ring->head + rec_bytes(len), __ATOMIC_RELAXED);
	ring->stuck_pos = UINT64_MAX;
	if (ring->head - ring->published >= SOFT_RING_PUBLISH_BYTES)
		publish_head(ring);
}

/*
 * The head record is not published: empty, or claimed and not yet written.
 * The shared tail is not read on every such poll: producers claim space by
 * writing it, so a consumer that read it while caught up would pull its line
 * away from the next producer on every poll. It is read once STUCK_POLLS
 * polls found the same position unpublished, to tell an empty ring (start
 * counting again) from a record claimed and never published (skipped after
 * SOFT_RING_STUCK_MS) or a tail no producer could have made.
 */
static soft_ring_get_t not_ready(soft_ring_t *ring)
{
	uint64_t t, now_ns;

	publish_head(ring); /* caught up (or waiting on a producer): all the room is theirs */
	if (ring->stuck_pos != ring->head) {
		ring->stuck_pos = ring->head;
		ring->stuck_polls = 0;
		ring->stuck_ns = 0;
		return SOFT_RING_EMPTY;
	}
	if (++ring->stuck_polls < STUCK_POLLS)
		return SOFT_RING_EMPTY;
	t = __atomic_load_n(&ring->hdr->tail, __ATOMIC_ACQUIRE);
	if (t == ring->head) {
		ring->stuck_polls = 0;
		return SOFT_RING_EMPTY;
	}
	if (t < ring->head || t - ring->head > SOFT_RING_BYTES) {
		skip_to_tail(ring); /* a tail no producer could have made */
		return SOFT_RING_EMPTY;
	}
	ring->stuck_polls = STUCK_POLLS; /* from now on, the clock on every poll */
	now_ns = soft_mono_ns();
	if (!ring->stuck_ns)
		ring->stuck_ns = now_ns;
	if (now_ns - ring->stuck_ns < (uint64_t)SOFT_RING_STUCK_MS * 1000000u)
		return SOFT_RING_WAIT;
	skip_to_tail(ring);
	return SOFT_RING_EMPTY;
}

soft_ring_get_t soft_ring_get(soft_ring_t *ring, void *buf, size_t cap, size_t *p_len,
			      uint32_t *p_flags)
{
	for (;;) {
		uint64_t pos = ring->head;
		ring_rec_t *r = rec_at(ring, pos);
		uint32_t len;

		if (!soft_ring_rec_published(r, pos))
			return not_ready(ring);
		len = rec_len(r);
		if (!len) {
			skip_to_tail(ring);
			continue;
		}
		*p_len = len;
		*p_flags = __atomic_load_n(&r->flags, __ATOMIC_RELAXED);
		if (len > cap) {
			advance(ring, len);
			return SOFT_RING_BIG;
		}
		memcpy(buf, (const uint8_t *)r + SOFT_RING_REC_HDR, len);
		/* A record rewritten while we copied it (it cannot be, unless a
		 * producer went astray) is dropped. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->stamp, __ATOMIC_RELAXED) != pos + 1) {
			ring->dropped++;
			advance(ring, len);
			continue;
		}
		advance(ring, len);
		return SOFT_RING_GOT;
	}
}

size_t soft_ring_peek(const soft_ring_t *ring, void *dst, size_t n)
{
	uint64_t pos = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
	const ring_rec_t *r = rec_at(ring, pos);
	uint32_t len;

	if (!soft_ring_rec_published(r, pos))
		return 0;
	len = rec_len(r);
	if (!len)
		return 0; /* soft_ring_get drops it */
	if (n > len)
		n = len;
	memcpy(dst, (const uint8_t *)r + SOFT_RING_REC_HDR, n);
	return n;
}

soft_ring_get_t soft_ring_arm(soft_ring_t *ring)
{
	soft_ring_hdr_t *h = ring->hdr;
	uint64_t pos = ring->head;

	publish_head(ring);
	__atomic_store_n(&h->sleeping, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (soft_ring_rec_published(rec_at(ring, pos), pos)) {
		soft_ring_disarm(ring);
		return SOFT_RING_GOT;
	}
	if (__atomic_load_n(&h->tail, __ATOMIC_ACQUIRE) != pos) {
		soft_ring_disarm(ring);
		return SOFT_RING_WAIT;
	}
	return SOFT_RING_EMPTY;
}
