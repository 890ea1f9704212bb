/* uprobe events: "uprobe:PATH:SYMBOL" through a tracefs uprobe. */
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
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#define UPROBE_PREFIX "uprobe:"

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

/*
 * The probes live in tracefs, as perf probe makes them: "p:GROUP/uN
 * PATH:0xOFFSET" in uprobe_events gives a tracepoint whose perf events
 * inherit into threads and children.  The uprobe PMU cannot serve a
 * command that forks: it reads attr.uprobe_path, a pointer into this
 * process, again for every inherited copy of the event, and a copy is made
 * in the forking task, where that pointer means nothing (fork and
 * pthread_create then fail with EFAULT).  The group is px_PID, so probes
 * of concurrent runs (the ranks of an MPI job) never meet; this process
 * removes its own at exit, and the probes of runs that died unremoved
 * (killed) on its first probe.
 */
#define TRACEFS_MOUNT "/sys/kernel/tracing"
static const char *const tracefs_dirs[] = { TRACEFS_MOUNT, "/sys/kernel/debug/tracing" };
#define GROUP_PREFIX "px_"

struct probe {
	char path[PATH_MAX];
	uint64_t off;
	uint64_t id;	/* the tracepoint's id: perf_event_attr.config */
};

static struct probe *probes;
static size_t nprobes;
static pid_t probes_owner;	/* a forked child never removes its parent's */
static char tracefs[64];

static const char *tracefs_dir(void)
{
	char f[128];

	if (tracefs[0])
		return tracefs;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs); i++) {
			snprintf(f, sizeof(f), "%s/uprobe_events", tracefs_dirs[i]);
			if (!access(f, F_OK)) {
				snprintf(tracefs, sizeof(tracefs), "%s", tracefs_dirs[i]);
				return tracefs;
			}
		}
		/* not mounted: mount it where the kernel offers it, as perf does */
		if (pass || mount("nodev", TRACEFS_MOUNT, "tracefs", 0, NULL))
			break;
	}
	return NULL;
}

static int write_probe_events(const char *line)
{
	char f[128];
	int fd, err = 0;

	snprintf(f, sizeof(f), "%s/uprobe_events", tracefs);
	fd = open(f, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		err = -errno;
	close(fd);
	return err;
}

static void remove_probe(pid_t group, size_t n)
{
	char line[64];

	snprintf(line, sizeof(line), "-:" GROUP_PREFIX "%d/u%zu\n", (int)group, n);
	write_probe_events(line);
}

static void remove_own_probes(void)
{
	if (getpid() != probes_owner)
		return;
	for (size_t i = 0; i < nprobes; i++)
		remove_probe(probes_owner, i);
	free(probes);
	probes = NULL;
	nprobes = 0;
}

/* Probes of px_PID groups whose process is gone (a run killed by
 * SIGKILL): removed, so they neither pile up nor slow the program down. */
static void remove_dead_probes(void)
{
	char f[128], line[PATH_MAX + 64];
	FILE *in;

	snprintf(f, sizeof(f), "%s/uprobe_events", tracefs);
	in = fopen(f, "re");
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		int pid;
		size_t n;

		if (sscanf(line, "p:" GROUP_PREFIX "%d/u%zu ", &pid, &n) == 2 &&
		    pid > 0 && kill(pid, 0) && errno == ESRCH)
			remove_probe(pid, n);
	}
	fclose(in);
}

static int read_probe_id(size_t n, uint64_t *id)
{
	char f[192];
	unsigned long long v;
	FILE *in;
	int ok;

	snprintf(f, sizeof(f), "%s/events/" GROUP_PREFIX "%d/u%zu/id", tracefs,
		 (int)probes_owner, n);
	in = fopen(f, "re");
	if (!in)
		return -errno;
	ok = fscanf(in, "%llu", &v) == 1;
	fclose(in);
	if (!ok)
		return -EIO;
	*id = v;
	return 0;
}

/* The tracepoint of a probe at off in path: made on first use, shared by
 * every event on the same place. */
static int probe_id(const char *spec, const char *path, uint64_t off, uint64_t *id)
{
	char line[PATH_MAX + 64];
	struct probe *grown;
	int err;

	for (size_t i = 0; i < nprobes; i++)
		if (probes[i].off == off && !strcmp(probes[i].path, path)) {
			*id = probes[i].id;
			return 0;
		}
	if (strpbrk(path, " \t\n"))
		return px_fail(EINVAL, "uprobe event '%s': tracefs takes no path with white space ('%s'): use a link to it",
			       spec, path);
	if (!tracefs_dir())
		return px_fail(EOPNOTSUPP, "uprobe event '%s': no tracefs here (" TRACEFS_MOUNT " is not mounted and cannot be: %s); mount it, or run as root",
			       spec, strerror(errno));
	if (!nprobes) {
		if (probes_owner != getpid()) {
			probes_owner = getpid();
			atexit(remove_own_probes);
		}
		remove_dead_probes();
	}
	grown = realloc(probes, (nprobes + 1) * sizeof(*probes));
	if (!grown)
		return px_fail(ENOMEM, "out of memory");
	probes = grown;
	snprintf(line, sizeof(line), "p:" GROUP_PREFIX "%d/u%zu %s:0x%llx\n",
		 (int)probes_owner, nprobes, path, (unsigned long long)off);
	err = write_probe_events(line);
	if (err)
		return px_fail(-err, "uprobe event '%s': cannot make the probe in %s/uprobe_events: %s%s",
			       spec, tracefs, strerror(-err),
			       err == -EACCES || err == -EPERM ?
			       " (uprobes need root, as perf probe does)" :
			       err == -EINVAL ? " (the offset is no instruction the kernel can probe)" : "");
	err = read_probe_id(nprobes, id);
	if (err) {
		remove_probe(probes_owner, nprobes);
		return px_fail(-err, "uprobe event '%s': the probe made in %s has no readable id: %s",
			       spec, tracefs, strerror(-err));
	}
	snprintf(probes[nprobes].path, sizeof(probes[nprobes].path), "%s", path);
	probes[nprobes].off = off;
	probes[nprobes].id = *id;
	nprobes++;
	return 0;
}

int px_uprobe_parse(const char *spec, struct px_event *ev)
{
	char path[PATH_MAX], abs[PATH_MAX];
	const char *rest = spec + strlen(UPROBE_PREFIX), *colon;
	uint64_t off, id = 0;
	int ret;

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
	ret = probe_id(spec, abs, off, &id);
	if (ret)
		return ret;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	snprintf(ev->encoded, sizeof(ev->encoded), "uprobe:%.200s+0x%llx", abs,
		 (unsigned long long)off);
	ev->kind = PX_EVENT_GENERIC;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	return 0;
}
