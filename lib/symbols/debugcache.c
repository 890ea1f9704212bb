/* Inflated copies of compressed debug files (debugcache.h).  The copy is
 * the same ELF file with each compressed section replaced by its inflated
 * contents (libelf's elf_compress undoes the compression): sections laid
 * out again one after the other, the section headers last, program headers
 * kept, a note segment pointed at its section's new place. */
#include "debugcache.h"

#include <errno.h>
#include <fcntl.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct copy {
	unsigned char id[PX_DEBUGCACHE_MAX_ID];	/* the build-id */
	size_t idlen;
	char *path;		/* the file inflated */
	struct stat st;		/* as it was then */
	int fd;			/* the memory file */
	size_t bytes;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct copy *copies;
static size_t ncopies, held_bytes, handed;

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The copy of the build-id; lock held. */
static const struct copy *find_copy(const void *id, size_t len)
{
	for (size_t i = 0; i < ncopies; i++)
		if (copies[i].idlen == len && !memcmp(copies[i].id, id, len))
			return &copies[i];
	return NULL;
}

static bool native_elf64(Elf *e)
{
	const char *id = elf_getident(e, NULL);

	return id && id[EI_CLASS] == ELFCLASS64 &&
	       id[EI_DATA] == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB :
								    ELFDATA2MSB);
}

/* Inflate every compressed section of e in place (in libelf's memory);
 * 1 when there was one, 0 when none, -1 when one cannot be inflated. */
static int inflate_sections(Elf *e)
{
	Elf_Scn *scn = NULL;
	int any = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -1;
		if (!(sh.sh_flags & SHF_COMPRESSED))
			continue;
		if (elf_compress(scn, 0, 0) < 0)
			return -1;
		any = 1;
	}
	return any;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* The new file offset of each section, and the file's size: the ELF
 * header, the program headers, the sections in order, then the section
 * headers.  off[0] is unused. */
static int lay_out(Elf *e, size_t shnum, size_t phnum, uint64_t *off, uint64_t *shoff,
		   uint64_t *size)
{
	uint64_t at = sizeof(Elf64_Ehdr) + phnum * sizeof(Elf64_Phdr);

	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(e, i), &sh))
			return -1;
		at = align_up(at, sh.sh_addralign);
		off[i] = at;
		if (sh.sh_type != SHT_NOBITS)
			at += sh.sh_size;
	}
	*shoff = align_up(at, 8);
	*size = *shoff + shnum * sizeof(Elf64_Shdr);
	return 0;
}

/* A program header's offset in the copy: its section's new one when a
 * section starts where it did (a note segment), else as it was (a debug
 * file's loadable segments hold nothing anyone reads). */
static uint64_t segment_offset(Elf *e, size_t shnum, const uint64_t *off, uint64_t old)
{
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;

		if (gelf_getshdr(elf_getscn(e, i), &sh) && sh.sh_type != SHT_NOBITS &&
		    sh.sh_offset == old && sh.sh_size)
			return off[i];
	}
	return old;
}

static int write_copy(Elf *e, unsigned char *out, size_t shnum, size_t phnum,
		      const uint64_t *off, uint64_t shoff)
{
	GElf_Ehdr eh;
	Elf64_Ehdr *oe = (Elf64_Ehdr *)out;
	Elf64_Shdr *osh = (Elf64_Shdr *)(out + shoff);

	if (!gelf_getehdr(e, &eh))
		return -1;
	memcpy(oe, &eh, sizeof(*oe));	/* GElf_Ehdr is Elf64_Ehdr */
	oe->e_phoff = phnum ? sizeof(Elf64_Ehdr) : 0;
	oe->e_shoff = shoff;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			return -1;
		ph.p_offset = segment_offset(e, shnum, off, ph.p_offset);
		memcpy(out + sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr), &ph, sizeof(ph));
	}
	for (size_t i = 0; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		Elf_Data *d = NULL;

		if (!gelf_getshdr(scn, &sh))
			return -1;
		if (i && sh.sh_type != SHT_NOBITS) {
			/* a section's data come in pieces at their d_off */
			while ((d = elf_getdata(scn, d)))
				if (d->d_buf && d->d_size) {
					if ((uint64_t)d->d_off + d->d_size > sh.sh_size)
						return -1;
					memcpy(out + off[i] + d->d_off, d->d_buf, d->d_size);
				}
		}
		if (i)
			sh.sh_offset = off[i];
		memcpy(&osh[i], &sh, sizeof(osh[i]));	/* GElf_Shdr is Elf64_Shdr */
	}
	return 0;
}

/* The inflated copy of e in a new memory file; -1 when there is nothing
 * to inflate or it cannot be done, *bytes its size. */
static int inflate_copy(Elf *e, size_t *bytes)
{
	size_t shnum, phnum;
	uint64_t *off = NULL, shoff, size;
	unsigned char *out = MAP_FAILED;
	int fd = -1, ok = 0;

	if (!native_elf64(e) || elf_getshdrnum(e, &shnum) || elf_getphdrnum(e, &phnum) ||
	    inflate_sections(e) != 1)
		return -1;
	off = calloc(shnum ? shnum : 1, sizeof(*off));
	if (!off || lay_out(e, shnum, phnum, off, &shoff, &size) ||
	    size > PX_DEBUGCACHE_MAX_BYTES)
		goto out;
	fd = memfd_create("pfmon-debuginfo", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size))
		goto out;
	out = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (out == MAP_FAILED)
		goto out;
	ok = !write_copy(e, out, shnum, phnum, off, shoff);
	*bytes = size;
out:
	if (out != MAP_FAILED)
		munmap(out, size);
	free(off);
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int keep_copy(const void *id, size_t idlen, const char *path, const struct stat *st,
		     int fd, size_t bytes)
{
	struct copy *v;
	char *name;

	pthread_mutex_lock(&lock);
	if (find_copy(id, idlen) || held_bytes + bytes > PX_DEBUGCACHE_MAX_BYTES) {
		pthread_mutex_unlock(&lock);
		close(fd);
		return 0;
	}
	v = realloc(copies, (ncopies + 1) * sizeof(*v));
	if (v)
		copies = v;
	name = v ? strdup(path) : NULL;
	if (!name) {
		pthread_mutex_unlock(&lock);
		close(fd);
		return -ENOMEM;
	}
	v = &copies[ncopies++];
	*v = (struct copy){ .idlen = idlen, .path = name, .st = *st, .fd = fd, .bytes = bytes };
	memcpy(v->id, id, idlen);
	held_bytes += bytes;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* The file's build-id, which must be one the cache can key. */
static ssize_t build_id(Elf *e, const void **id)
{
	ssize_t n = dwelf_elf_gnu_build_id(e, id);

	return n > 0 && n <= PX_DEBUGCACHE_MAX_ID ? n : -1;
}

int px_debugcache_add(const char *path)
{
	struct stat st;
	size_t bytes = 0;
	const void *id;
	ssize_t idlen;
	bool known;
	Elf *e;
	int fd, copy = -1, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == EACCES ? 0 : -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	elf_version(EV_CURRENT);
	/* private: elf_compress rewrites the section headers in place */
	e = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	idlen = e ? build_id(e, &id) : -1;
	if (idlen > 0) {
		pthread_mutex_lock(&lock);
		known = find_copy(id, (size_t)idlen) || held_bytes >= PX_DEBUGCACHE_MAX_BYTES;
		pthread_mutex_unlock(&lock);
		if (!known)
			copy = inflate_copy(e, &bytes);
		/* the build-id note is in e's memory: keep it before elf_end */
		if (copy >= 0)
			ret = keep_copy(id, (size_t)idlen, path, &st, copy, bytes);
	}
	elf_end(e);
	close(fd);
	return ret;
}

int px_debugcache_find(const void *id, size_t len, char **path)
{
	const struct copy *c;
	struct stat st;
	int fd = -1;

	pthread_mutex_lock(&lock);
	c = find_copy(id, len);
	/* a file changed since it was inflated is read from its new self */
	if (c && !stat(c->path, &st) && same_file(&st, &c->st) &&
	    (*path = strdup(c->path)) != NULL) {
		fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			free(*path);
			*path = NULL;
		} else {
			handed++;
		}
	}
	pthread_mutex_unlock(&lock);
	return fd;
}

void px_debugcache_clear(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ncopies; i++) {
		close(copies[i].fd);
		free(copies[i].path);
	}
	free(copies);
	copies = NULL;
	ncopies = 0;
	held_bytes = 0;
	pthread_mutex_unlock(&lock);
}

size_t px_debugcache_bytes(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = held_bytes;
	pthread_mutex_unlock(&lock);
	return n;
}

size_t px_debugcache_handed(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = handed;
	pthread_mutex_unlock(&lock);
	return n;
}
