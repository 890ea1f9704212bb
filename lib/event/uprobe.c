/* uprobe events: "uprobe:PATH:SYMBOL" through perf's uprobe PMU. */
#include "uprobe.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UPROBE_PREFIX "uprobe:"
#define UPROBE_TYPE "/sys/bus/event_source/devices/uprobe/type"

int px_uprobe_is(const char *spec)
{
	return !strncmp(spec, UPROBE_PREFIX, strlen(UPROBE_PREFIX));
}

static int find_symbol(Elf *elf, const char *sym, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	/* .symtab first (it has static functions), then .dynsym */
	for (int pass = 0; pass < 2; pass++) {
		Elf64_Word want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *name;

				if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
				    GELF_ST_TYPE(s.st_info) != STT_FUNC)
					continue;
				name = elf_strptr(elf, sh.sh_link, s.st_name);
				if (name && !strcmp(name, sym)) {
					*addr = s.st_value;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

int px_elf_func_offset(const char *path, const char *sym, uint64_t *off)
{
	Elf *elf = NULL;
	uint64_t addr;
	size_t nph;
	int fd, ret;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return px_fail(errno, "cannot open '%s': %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph)) {
		ret = px_fail(ENOEXEC, "'%s' is not an ELF file", path);
		goto out;
	}
	if (find_symbol(elf, sym, &addr)) {
		ret = px_fail(ENOENT, "no function '%s' in '%s'", sym, path);
		goto out;
	}
	ret = px_fail(ENOENT, "function '%s' of '%s' lies in no loadable segment",
		      sym, path);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			ret = 0;
			break;
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* The uprobe paths, kept as long as the process lives: perf reads
 * attr.uprobe_path at each open, and events are copied around. */
static char **paths;
static size_t npaths;

static const char *keep_path(const char *p)
{
	char **grown;

	for (size_t i = 0; i < npaths; i++)
		if (!strcmp(paths[i], p))
			return paths[i];
	grown = realloc(paths, (npaths + 1) * sizeof(*paths));
	if (!grown)
		return NULL;
	paths = grown;
	paths[npaths] = strdup(p);
	return paths[npaths] ? paths[npaths++] : NULL;
}

int px_uprobe_parse(const char *spec, struct px_event *ev)
{
	char path[PATH_MAX], abs[PATH_MAX];
	const char *rest = spec + strlen(UPROBE_PREFIX), *colon;
	const char *kept;
	uint64_t off;
	int type = -1, ret;
	FILE *f;

	colon = strrchr(rest, ':');
	if (!px_uprobe_is(spec) || !colon || colon == rest || !colon[1] ||
	    (size_t)(colon - rest) >= sizeof(path))
		return px_fail(EINVAL, "bad uprobe event '%s': write uprobe:PATH:FUNCTION or uprobe:PATH:0xOFFSET",
			       spec);
	if (strlen(spec) >= PX_EVENT_NAME_MAX)
		return px_fail(EINVAL, "uprobe event '%.40s...' is too long", spec);
	memcpy(path, rest, (size_t)(colon - rest));
	path[colon - rest] = '\0';
	if (!realpath(path, abs))
		return px_fail(errno, "uprobe event '%s': cannot find '%s': %s", spec, path,
			       strerror(errno));
	if (!strncmp(colon + 1, "0x", 2)) {
		char *end;

		errno = 0;
		off = strtoull(colon + 3, &end, 16);
		if (errno || *end || end == colon + 3)
			return px_fail(EINVAL, "uprobe event '%s': bad offset '%s'", spec, colon + 1);
	} else if ((ret = px_elf_func_offset(abs, colon + 1, &off))) {
		return ret;
	}
	f = fopen(UPROBE_TYPE, "r");
	if (!f || fscanf(f, "%d", &type) != 1 || type < 0) {
		if (f)
			fclose(f);
		return px_fail(EOPNOTSUPP, "uprobe event '%s': this kernel has no uprobe PMU (%s)",
			       spec, UPROBE_TYPE);
	}
	fclose(f);
	kept = keep_path(abs);
	if (!kept)
		return px_fail(ENOMEM, "out of memory");
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	snprintf(ev->encoded, sizeof(ev->encoded), "uprobe:%.200s+0x%llx", abs,
		 (unsigned long long)off);
	ev->kind = PX_EVENT_GENERIC;
	ev->type = (uint32_t)type;
	ev->config = 0;
	ev->config1 = (uint64_t)(uintptr_t)kept;
	ev->config2 = off;
	return 0;
}
