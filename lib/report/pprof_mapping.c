/* The pprof profile's mappings (pprof_int.h): a place's is the
 * mapping the session recorded for its file around its address (the
 * kernel's records and the /proc reads, lib/session/smpl_session.h),
 * found once per place; a file no record holds (the kernel, a module of
 * a process read after it was gone) gets one mapping whose range is that
 * of its places.  Each file's build-id is read from it when the profile
 * is written, once per file. */
#include "pprof_int.h"
#include "error.h"
#include "grow.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

static int64_t mapping_new(struct px_pprof *p, const struct pp_mapping *m)
{
	if (px_grow((void **)&p->mappings, &p->mappings_cap, p->nmappings, 1,
		    sizeof(*p->mappings), 64))
		return -ENOMEM;
	p->mappings[p->nmappings] = *m;
	return (int64_t)++p->nmappings;
}

int64_t pp_mapping_of(struct px_pprof *p, uint32_t file, uint64_t ip)
{
	const struct px_smpl_session *s = p->session;
	const char *path = pp_string_at(p, file);
	struct pp_mapping m = { .file = file };

	for (size_t i = 0; i < p->nmappings; i++)	/* a few dozen */
		if (p->mappings[i].file == file && !p->mappings[i].derived &&
		    ip >= p->mappings[i].start && ip < p->mappings[i].limit)
			return (int64_t)i + 1;
	for (size_t i = 0; i < s->nmaps; i++) {
		const struct px_mapping *r = &s->maps[i];

		if (ip >= r->start && ip - r->start < r->len && !strcmp(r->path, path)) {
			m.start = r->start;
			m.limit = r->start + r->len;
			m.offset = r->pgoff;
			return mapping_new(p, &m);
		}
	}
	for (size_t i = 0; i < p->nmappings; i++)
		if (p->mappings[i].file == file && p->mappings[i].derived)
			return (int64_t)i + 1;
	m.derived = true;
	return mapping_new(p, &m);
}

/* The file's build-id (.note.gnu.build-id) in hex into buf; false when
 * it has none or cannot be read (it may have gone since the run). */
static bool read_build_id(const char *path, char *buf, size_t len)
{
	const unsigned char *id;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e)
		n = dwelf_elf_gnu_build_id(e, (const void **)&id);
	for (ssize_t i = 0; i < n && 2 * (size_t)i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	elf_end(e);
	close(fd);
	return n > 0;
}

/* Mapping i's build-id: another mapping's of the same file, or read. */
static int build_id(struct px_pprof *p, size_t i)
{
	struct pp_mapping *m = &p->mappings[i];
	const char *path = pp_string_at(p, m->file);
	char hex[2 * 64 + 1];
	int64_t id;

	for (size_t k = 0; k < i; k++)
		if (p->mappings[k].file == m->file) {
			m->build_id = p->mappings[k].build_id;
			return 0;
		}
	if (path[0] != '/' || !read_build_id(path, hex, sizeof(hex)))
		return 0;
	if ((id = pp_string(p, hex)) < 0)
		return (int)id;
	m->build_id = (uint32_t)id;
	return 0;
}

/* A frame of no place: the first mapping of its module's file, one made
 * for it when no place was in that file, none for the frames of no
 * module ("[truncated]", a process's name). */
static int frame_mapping(struct px_pprof *p, struct pp_location *l)
{
	struct pp_mapping m = { .file = l->module, .derived = true };
	int64_t id;

	if (!l->module || !*pp_string_at(p, l->module))
		return 0;
	for (size_t i = 0; i < p->nmappings; i++)
		if (p->mappings[i].file == l->module) {
			l->mapping = (uint32_t)i + 1;
			return 0;
		}
	if ((id = mapping_new(p, &m)) < 0)
		return (int)id;
	l->mapping = (uint32_t)id;
	return 0;
}

int pp_mappings_complete(struct px_pprof *p)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < p->nlocations; i++)
		if (p->locations[i].key & PP_FRAME_KEY)
			ret = frame_mapping(p, &p->locations[i]);
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct pp_location *l = &p->locations[i];
		struct pp_mapping *m = l->mapping ? &p->mappings[l->mapping - 1] : NULL;

		if (!m || !m->derived || !l->address)
			continue;
		if (!m->limit || l->address < m->start)
			m->start = l->address;
		if (l->address >= m->limit)
			m->limit = l->address + 1;
	}
	for (size_t i = 0; !ret && i < p->nmappings; i++)
		ret = build_id(p, i);
	return ret;
}

/* Whether a file is a program: a path (not "[kernel]", "[vdso]" or the
 * "??" of an address in no known file) that is no shared library
 * (NAME.so, NAME.so.N...), as pprof's own guess tells them apart. */
static bool program(const char *file)
{
	const char *so = strstr(file, ".so");

	if (file[0] != '/')
		return false;
	for (; so; so = strstr(so + 1, ".so"))
		if (!so[3] || ((so[3] == '.' || so[3] == '_') && so[4] >= '0' && so[4] <= '9'))
			return false;
	return true;
}

/* The profile's first mapping of the file at path, or -1. */
static ssize_t mapping_of_file(const struct px_pprof *p, const char *path)
{
	for (size_t i = 0; i < p->nmappings; i++)
		if (!strcmp(pp_string_at(p, p->mappings[i].file), path))
			return (ssize_t)i;
	return -1;
}

/* The command's program is the program mapped first: the kernel's
 * records carry the time of each mmap, and an exec maps the program
 * before its loader and libraries.  Mappings of no time (read from /proc
 * for an attached task, which lists the program before its libraries;
 * the module backend's) count in the order recorded.  Whichever of its
 * places the samples reached first; failing that, the first program the
 * samples reached, then the first mapping. */
size_t pp_main_mapping(const struct px_pprof *p)
{
	const struct px_smpl_session *s = p->session;
	ssize_t best = -1, i;
	uint64_t best_time = 0;

	for (size_t k = 0; k < s->nmaps; k++) {
		const struct px_mapping *m = &s->maps[k];

		if (!program(m->path) || (i = mapping_of_file(p, m->path)) < 0)
			continue;
		if (best < 0 || (m->time && (!best_time || m->time < best_time))) {
			best = i;
			best_time = m->time;
		}
	}
	if (best >= 0)
		return (size_t)best;
	for (size_t k = 0; k < p->nmappings; k++)
		if (program(pp_string_at(p, p->mappings[k].file)))
			return k;
	return 0;
}
