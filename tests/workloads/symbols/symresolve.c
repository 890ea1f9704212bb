/* symresolve: the benchmark driver for the symbol resolver.
 *
 *   perf script -F pid,ip --show-mmap-events -i perf.data |
 *       symresolve [-e EVENT] [-n SAMPLES] [-l] [-f] [-q]
 *   perf script ... | symresolve -w FILE     (converts, resolves nothing)
 *   symresolve [...] <FILE
 *
 * Mappings (PERF_RECORD_MMAP/MMAP2 lines, files and the [vdso]) go into
 * one resolver per pid; each sample line "PID IP" is resolved and counted
 * into a profile, as pfmon does with its sample records: one
 * px_symbols_resolve and one px_profile_add_location per sample.  The
 * profile is printed at the end like perf report (-l: by source line).
 * -n N feeds N samples, cycling through the input's samples when it has
 * fewer (or stopping early when it has more).  -f: functions only (no
 * DWARF), as perf report's default sort.
 *
 * -w FILE writes the same mappings and samples in a binary form (below)
 * that is read without parsing, as perf report reads perf.data and pfmon
 * its sample buffer; a file in that form is told by its first bytes.
 * Without -n, samples are resolved as they are read.  Timing goes to
 * stderr. */
#include "error.h"
#include "profile.h"
#include "symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct proc {
	int pid;
	struct px_maps maps;
	struct px_symbols *res;	/* built on its first sample */
};

struct sample {
	int pid;
	uint64_t ip;
};

static struct proc *procs;
static size_t nprocs;

static struct proc *proc_get(int pid)
{
	static size_t last;

	if (last < nprocs && procs[last].pid == pid)
		return &procs[last];
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[last = i];
	procs = realloc(procs, (nprocs + 1) * sizeof(*procs));
	if (!procs)
		exit(1);
	memset(&procs[nprocs], 0, sizeof(*procs));
	procs[nprocs].pid = pid;
	return &procs[last = nprocs++];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A decimal (base 10) or hexadecimal (base 16) number, with or without
 * "0x"; *ok false when there is no digit. */
static uint64_t number(const char **pp, int base, bool *ok)
{
	const char *p = *pp;
	uint64_t v = 0;

	*ok = false;
	if (base == 16 && p[0] == '0' && p[1] == 'x')
		p += 2;
	for (;; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (unsigned)((*p | 0x20) - 'a' + 10);
		else
			break;
		v = v * (unsigned)base + d;
		*ok = true;
	}
	*pp = p;
	return v;
}

/* The binary form: MAGIC, then records, each starting with a struct rec;
 * a map record (kind MAP) is followed by a struct rec_map and the path,
 * NUL-padded to a multiple of 8 bytes. */
static const char MAGIC[8] = "PXSYMB01";

enum { SAMPLE = 0, MAP = 1 };

struct rec {
	uint32_t pid;
	uint16_t kind;
	uint16_t path_len;	/* MAP: bytes of path, padding excluded */
	uint64_t ip;		/* SAMPLE: the address; MAP: the start */
};

struct rec_map {
	uint64_t len, pgoff;
};

/* What is done with the input: resolved as read (resolve_now), or kept
 * to be fed -n times (s, ns), or written out in binary (out). */
static struct {
	bool resolve_now;
	FILE *out;
	struct sample *s;
	size_t ns, cap;
	long done;
	const char *event;
	ssize_t event_id;	/* its number in the profile */
	struct px_symbols_opts opts;
	struct px_profile *prof;
} run;

static void die(const char *what)
{
	fprintf(stderr, "symresolve: %s\n", what);
	exit(1);
}

static void resolve_count(int pid, uint64_t ip)
{
	struct proc *pr = proc_get(pid);
	const struct px_location *loc;

	if (!pr->res && px_symbols_open_maps(&pr->res, &pr->maps, &run.opts))
		die(px_last_error());
	if (px_symbols_resolve(pr->res, ip, &loc) ||
	    px_profile_count(run.prof, (size_t)run.event_id, loc, 1))
		die(px_last_error());
	run.done++;
}

static void on_map(int pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *path)
{
	struct proc *pr;

	if (run.out) {
		struct rec r = { (uint32_t)pid, MAP, (uint16_t)strlen(path), start };
		struct rec_map m = { len, pgoff };
		static const char pad[8];

		fwrite(&r, sizeof(r), 1, run.out);
		fwrite(&m, sizeof(m), 1, run.out);
		fwrite(path, 1, r.path_len, run.out);
		fwrite(pad, 1, (8 - r.path_len % 8) % 8, run.out);
		return;
	}
	pr = proc_get(pid);
	if (pr->res)
		px_symbols_add_map(pr->res, start, len, pgoff, path);
	else
		px_maps_add(&pr->maps, start, len, pgoff, path);
}

static void on_sample(int pid, uint64_t ip)
{
	if (run.out) {
		struct rec r = { (uint32_t)pid, SAMPLE, 0, ip };

		fwrite(&r, sizeof(r), 1, run.out);
	} else if (run.resolve_now) {
		resolve_count(pid, ip);
	} else {
		if (run.ns == run.cap) {
			run.cap = run.cap ? run.cap * 2 : 65536;
			run.s = realloc(run.s, run.cap * sizeof(*run.s));
			if (!run.s)
				die("out of memory");
		}
		run.s[run.ns++] = (struct sample){ pid, ip };
	}
}

/* "PID PERF_RECORD_MMAP2 pid/tid: [0xSTART(0xLEN) @ 0xPGOFF ...]: PERMS PATH" */
static void mmap_line(int pid, const char *p)
{
	uint64_t start, len, pgoff;
	const char *path;
	bool ok1, ok2, ok3;

	p = strchr(p, '[');
	if (!p)
		return;
	p++;
	start = number(&p, 16, &ok1);
	if (*p++ != '(')
		return;
	len = number(&p, 16, &ok2);
	if (strncmp(p, ") @ ", 4))
		return;
	p += 4;
	pgoff = number(&p, 16, &ok3);
	p = strstr(p, "]: ");
	if (!p || !ok1 || !ok2 || !ok3)
		return;
	path = strchr(p + 3, ' ');
	if (!path || (path[1] != '/' && strcmp(path + 1, "[vdso]")))
		return;
	on_map(pid, start, len, pgoff, path + 1);
}

/* perf script's text; the input is not written to: numbers end at the
 * first non-digit. */
static void read_text(const char *text, const char *end)
{
	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *p = skip_blanks(line), *eol = nl ? nl : end;
		uint64_t pid, ip;
		bool ok;

		line = nl ? nl + 1 : end;
		pid = number(&p, 10, &ok);
		if (!ok || p >= eol)
			continue;
		p = skip_blanks(p);
		if (eol - p > 16 && !strncmp(p, "PERF_RECORD_MMAP", 16)) {
			char copy[8192];
			size_t n = (size_t)(eol - p);

			if (n < sizeof(copy)) {
				memcpy(copy, p, n);
				copy[n] = '\0';
				mmap_line((int)pid, copy);
			}
			continue;
		}
		ip = number(&p, 16, &ok);
		if (!ok || (p < eol && *p != ' ' && *p != '\t'))
			continue;
		on_sample((int)pid, ip);
	}
}

/* Whole records of p[0..end); returns where the first incomplete one
 * starts. */
static const char *binary_records(const char *p, const char *end)
{
	while (end - p >= (ptrdiff_t)sizeof(struct rec)) {
		struct rec r;
		struct rec_map m;
		char path[65536 + 1];
		size_t pad;

		memcpy(&r, p, sizeof(r));
		if (r.kind == SAMPLE) {
			on_sample((int)r.pid, r.ip);
			p += sizeof(r);
			continue;
		}
		if (r.kind != MAP)
			die("a damaged binary input");
		pad = (8 - r.path_len % 8) % 8;
		if (end - p < (ptrdiff_t)(sizeof(r) + sizeof(m) + r.path_len + pad))
			break;
		memcpy(&m, p + sizeof(r), sizeof(m));
		memcpy(path, p + sizeof(r) + sizeof(m), r.path_len);
		path[r.path_len] = '\0';
		p += sizeof(r) + sizeof(m) + r.path_len + pad;
		on_map((int)r.pid, r.ip, m.len, m.pgoff, path);
	}
	return p;
}

/* The binary form from fd 0, past its magic, through one reused buffer:
 * a file mapped whole would have all its pages mapped, then unmapped. */
static void read_binary(void)
{
	enum { CHUNK = 256 << 10 };	/* more than the largest record */
	static char buf[CHUNK];
	size_t have = 0;

	for (;;) {
		ssize_t r = read(0, buf + have, CHUNK - have);
		const char *rest;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die(strerror(errno));
		if (r == 0)
			break;
		have += (size_t)r;
		rest = binary_records(buf, buf + have);
		have -= (size_t)(rest - buf);
		memmove(buf, rest, have);
	}
	if (have)
		die("a damaged binary input (cut short)");
}

/* Whether fd 0 is a file in the binary form; if so, it is left just past
 * the magic. */
static bool binary_input(void)
{
	char magic[sizeof(MAGIC)];

	if (pread(0, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, MAGIC, sizeof(MAGIC)))
		return false;
	return lseek(0, sizeof(MAGIC), SEEK_SET) == (off_t)sizeof(MAGIC);
}

/* All of stdin, as text: mapped when it is a file (no copy; populated at
 * once, as faulting it in page by page costs more than reading it here),
 * read otherwise. */
static const char *input(size_t *len, bool *mapped)
{
	size_t cap = 1 << 20, n = 0;
	struct stat st;
	char *buf;

	*mapped = false;
	if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, 0, 0);
		if (buf != MAP_FAILED) {
			*len = (size_t)st.st_size;
			*mapped = true;
			return buf;
		}
	}
	buf = malloc(cap);
	while (buf) {
		ssize_t r;

		if (cap - n < 65536) {
			char *p = realloc(buf, cap *= 2);

			if (!p)
				break;
			buf = p;
		}
		r = read(0, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			*len = n;
			return r < 0 ? (free(buf), NULL) : buf;
		}
		n += (size_t)r;
	}
	free(buf);
	return NULL;
}

static void print_profile(void)
{
	for (size_t ev = 0; ev < px_profile_events(run.prof); ev++) {
		struct px_profile_entry *v;
		size_t n;

		if (px_profile_rank(run.prof, ev, &v, &n))
			die(px_last_error());
		printf("# %s: %" PRIu64 " samples\n", px_profile_event(run.prof, ev),
		       px_profile_total(run.prof, ev));
		for (size_t i = 0; i < n; i++)
			printf("%8.2f%%  %-24s %s\n", v[i].pct, strrchr(v[i].module, '/') ?
			       strrchr(v[i].module, '/') + 1 : v[i].module, v[i].name);
		free(v);
	}
}

int main(int argc, char **argv)
{
	enum px_profile_by by = PX_PROFILE_FUNCTIONS;
	const char *text, *outfile = NULL;
	long want = 0;
	bool quiet = false, mapped;
	double t0 = now(), t1, t2;
	size_t len;
	int c;

	run.event = "cpu-clock";
	while ((c = getopt(argc, argv, "e:n:lqfw:")) != -1) {
		switch (c) {
		case 'e': run.event = optarg; break;
		case 'n': want = atol(optarg); break;
		case 'l': by = PX_PROFILE_LINES; break;
		case 'q': quiet = true; break;
		case 'f': run.opts.functions_only = true; break;
		case 'w': outfile = optarg; break;
		default:
			fprintf(stderr, "usage: symresolve [-e EVENT] [-n SAMPLES] [-l] [-f] [-q] [-w FILE]\n");
			return 2;
		}
	}
	unsetenv("DEBUGINFOD_URLS");
	if (px_profile_new(&run.prof, by) ||
	    (run.event_id = px_profile_event_id(run.prof, run.event)) < 0)
		die(px_last_error());
	if (outfile) {
		run.out = fopen(outfile, "we");
		if (!run.out)
			die(strerror(errno));
		fwrite(MAGIC, sizeof(MAGIC), 1, run.out);
	}
	run.resolve_now = want <= 0;
	if (binary_input()) {
		read_binary();
	} else {
		text = input(&len, &mapped);
		if (!text)
			die("cannot read stdin");
		if (len >= sizeof(MAGIC) && !memcmp(text, MAGIC, sizeof(MAGIC)))
			die("the binary form is read from a file (<FILE), not a pipe");
		read_text(text, text + len);
		if (mapped)
			munmap((void *)text, len);
		else
			free((void *)text);
	}
	if (run.out) {
		if (fclose(run.out))
			die(strerror(errno));
		return 0;
	}
	t1 = now();
	for (size_t i = 0; !run.resolve_now && run.ns && run.done < want;) {
		resolve_count(run.s[i].pid, run.s[i].ip);
		if (++i == run.ns)
			i = 0;
	}
	t2 = now();
	if (!run.done)
		die("no samples on stdin");
	if (!quiet)
		print_profile();
	if (run.resolve_now)
		fprintf(stderr, "symresolve: %ld samples, %zu processes; read+resolve+count %.3f s\n",
			run.done, nprocs, t2 - t0);
	else
		fprintf(stderr, "symresolve: %ld samples (%zu read), %zu processes; read %.3f s, "
			"resolve+count %.3f s (%.0f samples/s)\n", run.done, run.ns, nprocs,
			t1 - t0, t2 - t1, run.done / (t2 - t1 > 0 ? t2 - t1 : 1e-9));
	for (size_t i = 0; i < nprocs; i++) {
		px_symbols_free(procs[i].res);
		px_maps_free(&procs[i].maps);
	}
	free(procs);
	free(run.s);
	px_profile_free(run.prof);
	return 0;
}
