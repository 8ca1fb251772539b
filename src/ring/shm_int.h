/* SPDX-License-Identifier: MIT */
/*
 * Internal: the shared-memory object under a ring (src/ring/ring.c), a shared
 * ring (src/writers/mpsc.c) and a group (src/writers/group.c): its POSIX name, its
 * creation (shm_open, memfd or anonymous), and attachment's first look at
 * it and mapping.  What the object holds is each file's own: the caller
 * reads and validates its header between pfr__shm_peek() and
 * pfr__shm_map().  Static inline, so that the programs that compile one of
 * those files alone (the Relacy models, the fuzzers) need no other object.
 */
#ifndef PFR_SRC_SHM_INT_H
#define PFR_SRC_SHM_INT_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/ring.h>

/* "/name" for shm_open() from a caller's name (a leading '/' optional, no
 * other '/') in buf of len bytes: 0, or -PFR_E_INVAL. */
static inline int pfr__shm_path(char *buf, size_t len, const char *name)
{
	if (!name || !*name || strchr(name + 1, '/') ||
	    strlen(name) + 2 > len || strlen(name) > NAME_MAX - 1)
		return -PFR_E_INVAL;
	buf[0] = '/';
	strcpy(buf + 1, name[0] == '/' ? name + 1 : name);
	return 0;
}

/* Opens the POSIX shared-memory object `name`, read-write and
 * close-on-exec.  create: a new one (it must not exist), with the
 * permission bits mode (0: 0600) applied past the umask.  Returns the
 * descriptor, -PFR_E_INVAL (a bad name) or -PFR_E_SYSTEM (errno). */
static inline int pfr__shm_open(const char *name, int create, uint32_t mode)
{
	char path[NAME_MAX + 1];
	int err = pfr__shm_path(path, sizeof(path), name), fd;

	if (err)
		return err;
	if (create)
		fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			      mode ? (mode_t)mode : 0600);
	else
		fd = shm_open(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return -PFR_E_SYSTEM;
	if (create && mode)
		(void)fchmod(fd, (mode_t)mode); /* past the umask */
	return fd;
}

/* A new memfd that can be sealed: the descriptor or -PFR_E_SYSTEM. */
static inline int pfr__shm_memfd(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	return fd < 0 ? -PFR_E_SYSTEM : fd;
}

/* A new object's descriptor: a memfd called memfd_name that can be sealed
 * or, memfd_name NULL, the new POSIX shared-memory object `name` (mode: as
 * for pfr__shm_open()).  The descriptor, -PFR_E_INVAL or -PFR_E_SYSTEM. */
static inline int pfr__shm_create(const char *name, uint32_t mode,
				  const char *memfd_name)
{
	return memfd_name ? pfr__shm_memfd(memfd_name)
			  : pfr__shm_open(name, 1, mode);
}

/* Removes the POSIX shared-memory object `name`: 0, -PFR_E_INVAL or
 * -PFR_E_SYSTEM. */
static inline int pfr__shm_unlink(const char *name)
{
	char path[NAME_MAX + 1];
	int err = pfr__shm_path(path, sizeof(path), name);

	if (err)
		return err;
	return shm_unlink(path) < 0 ? -PFR_E_SYSTEM : 0;
}

/* The end of a creation or an attachment on fd: err 0 keeps fd; an error
 * closes fd and, when unlink_name is not NULL, removes the object this
 * call created under that (valid) name.  errno is kept for the caller.
 * Returns err. */
static inline int pfr__shm_done(int err, int fd, const char *unlink_name)
{
	int e = errno;

	if (!err)
		return 0;
	close(fd);
	if (unlink_name)
		(void)pfr__shm_unlink(unlink_name);
	errno = e;
	return err;
}

/* Seals a new memfd against any change of size (and further seals): an
 * attacher that finds the seals knows no peer can shrink the object under
 * its mapping (which would turn reads into SIGBUS).  1 when sealed. */
static inline int pfr__shm_seal(int fd)
{
	return fcntl(fd, F_ADD_SEALS,
		     F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0;
}

/*
 * A peer that shrinks the object under our mapping turns every access past
 * the new end into SIGBUS.  A memfd can be sealed against that: if it is
 * not sealed yet and still allows sealing, the attacher seals it itself
 * (before it looks at the size).  POSIX shared-memory objects cannot be
 * sealed: attaching one trusts the peers not to truncate it.  Returns 1
 * when the object can no longer shrink.
 */
static inline int pfr__shm_seal_shrink(int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals < 0)
		return 0;
	if (seals & F_SEAL_SHRINK)
		return 1;
	return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0;
}

/* How every object's header starts (struct pfr_ring_ctl, struct
 * pfr_mpsc_ctl, the group's header): PFR__SHM_HEAD_OF() checks it. */
struct pfr__shm_head {
	uint64_t magic; /* stored last by the creator */
	uint32_t version;
	uint32_t size; /* the header's own size */
};

#define PFR__SHM_HEAD_OF(type, size_field)                                     \
	_Static_assert(offsetof(type, magic) == 0 &&                           \
			       offsetof(type, version) == 8 &&                 \
			       offsetof(type, size_field) == 12,               \
		       #type " starts as struct pfr__shm_head")

/* Attachment's first look at an object: what the caller expects (in) and
 * what pfr__shm_peek() found (out). */
struct pfr__shm_peek {
	size_t hdr_len; /* in: the header's size, struct pfr__shm_head first */
	uint64_t magic; /* in: the magic and version the header must hold */
	uint32_t version;
	uint32_t hdr_size; /* out: the header's size, as the header states */
	int sealed; /* out: 1 when the object can no longer shrink */
	uint64_t file_size; /* out: the object's size */
	void *hdr; /* out: the header, mapped read-only */
};

/*
 * Attachment's first look at the object on fd: seals it against shrinking
 * when it can, reads its size, maps its header read-only and checks the
 * header's magic and version (pk: see struct pfr__shm_peek).  On 0 the
 * caller loads each other field of pk->hdr once (they are ordered after
 * the magic here), then munmap(pk->hdr, pk->hdr_len).  Returns 0,
 * -PFR_E_MAPPING (smaller than the header), -PFR_E_MAGIC, -PFR_E_VERSION
 * or -PFR_E_SYSTEM.
 */
static inline int pfr__shm_peek(int fd, struct pfr__shm_peek *pk)
{
	const struct pfr__shm_head *h;
	struct stat st;
	uint64_t magic;
	uint32_t version;
	void *p;

	pk->sealed = pfr__shm_seal_shrink(fd);
	if (fstat(fd, &st) < 0)
		return -PFR_E_SYSTEM;
	pk->file_size = (uint64_t)st.st_size;
	if (pk->file_size < pk->hdr_len)
		return -PFR_E_MAPPING;
	p = mmap(NULL, pk->hdr_len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -PFR_E_SYSTEM;
	h = (const struct pfr__shm_head *)p;
	magic = PFR_READ_ONCE(h->magic);
	/* purpose: read the header only after its magic; pairs with the
	 * smp_wmb() before the magic's store in pfr__ring_new(),
	 * pfr__mpsc_new() and pfr__group_new() */
	pfr_smp_rmb();
	version = PFR_READ_ONCE(h->version);
	pk->hdr_size = PFR_READ_ONCE(h->size);
	if (magic != pk->magic || version != pk->version) {
		munmap(p, pk->hdr_len);
		return magic != pk->magic ? -PFR_E_MAGIC : -PFR_E_VERSION;
	}
	pk->hdr = p;
	return 0;
}

/* Maps the first len bytes of fd shared, read-write (fd -1: anonymous
 * shared memory, inherited across fork).  The mapping, or NULL: errno
 * ENOMEM when len is more than the address space holds (32-bit targets),
 * else mmap()'s.  An attacher calls it once it has validated the header
 * and checked len against the object's size. */
static inline void *pfr__shm_map(int fd, uint64_t len)
{
	void *p;

	if (len > (uint64_t)SIZE_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE,
		 fd >= 0 ? MAP_SHARED : MAP_SHARED | MAP_ANONYMOUS, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* A creator's mapping: sizes fd to len bytes (fd -1: anonymous shared
 * memory) and maps it as pfr__shm_map() does.  The mapping, or NULL. */
static inline void *pfr__shm_alloc(int fd, uint64_t len)
{
	if (fd >= 0 && ftruncate(fd, (off_t)len) < 0)
		return NULL;
	return pfr__shm_map(fd, len);
}

#endif
