/* symresolve: the benchmark driver for the symbol resolver.
 *
 *   perf script -F pid,ip --show-mmap-events -i perf.data |
 *       symresolve [-e EVENT] [-n SAMPLES] [-l] [-f] [-q]
 *
 * Mappings (PERF_RECORD_MMAP/MMAP2 lines, files and the [vdso]) go into
 * one resolver per pid; each sample line "PID IP" is resolved and counted
 * into a profile, as pfmon does with its sample records: one
 * px_symbols_resolve and one px_profile_add_location per sample.  The
 * profile is printed at the end like perf report (-l: by source line).
 * -n N feeds N samples, cycling through the input's samples when it has
 * fewer (or stopping early when it has more).  -f: functions only (no
 * DWARF), as perf report's default sort.  Timing goes to stderr: reading
 * and parsing the text, and resolve+count alone. */
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

/* "PID PERF_RECORD_MMAP2 pid/tid: [0xSTART(0xLEN) @ 0xPGOFF ...]: PERMS PATH" */
static void mmap_line(int pid, const char *p)
{
	uint64_t start, len, pgoff;
	const char *path;
	struct proc *pr;
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
	path++;
	pr = proc_get(pid);
	if (pr->res)
		px_symbols_add_map(pr->res, start, len, pgoff, path);
	else
		px_maps_add(&pr->maps, start, len, pgoff, path);
}

/* All of stdin: mapped when it is a file (no copy), read otherwise. */
static const char *input(size_t *len, bool *mapped)
{
	size_t cap = 1 << 20, n = 0;
	struct stat st;
	char *buf;

	*mapped = false;
	if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, 0, 0);
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

int main(int argc, char **argv)
{
	const char *event = "cpu-clock";
	enum px_profile_by by = PX_PROFILE_FUNCTIONS;
	long want = 0;
	bool quiet = false;
	struct sample *s = NULL;
	size_t ns = 0, cap = 0, len;
	struct px_profile *prof;
	double t0 = now(), t1, t2;
	long done = 0;
	const char *text, *line, *end;
	bool mapped;
	int c;

	struct px_symbols_opts opts = { 0 };

	while ((c = getopt(argc, argv, "e:n:lqf")) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'n': want = atol(optarg); break;
		case 'l': by = PX_PROFILE_LINES; break;
		case 'q': quiet = true; break;
		case 'f': opts.functions_only = true; break;
		default:
			fprintf(stderr, "usage: symresolve [-e EVENT] [-n SAMPLES] [-l] [-f] [-q]\n");
			return 2;
		}
	}
	unsetenv("DEBUGINFOD_URLS");
	text = input(&len, &mapped);
	if (!text) {
		fprintf(stderr, "symresolve: cannot read stdin\n");
		return 1;
	}
	end = text + len;
	/* the input is not written to: numbers end at the first non-digit */
	for (line = text; line < end;) {
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
		if (ns == cap) {
			cap = cap ? cap * 2 : 65536;
			s = realloc(s, cap * sizeof(*s));
			if (!s)
				return 1;
		}
		s[ns++] = (struct sample){ (int)pid, ip };
	}
	if (mapped)
		munmap((void *)text, len);
	else
		free((void *)text);
	if (!ns) {
		fprintf(stderr, "symresolve: no samples on stdin\n");
		return 1;
	}
	if (want <= 0)
		want = (long)ns;
	if (px_profile_new(&prof, by))
		return 1;

	t1 = now();
	for (size_t i = 0; done < want; done++) {
		struct proc *pr = proc_get(s[i].pid);
		const struct px_location *loc;

		if (!pr->res && px_symbols_open_maps(&pr->res, &pr->maps, &opts)) {
			fprintf(stderr, "symresolve: %s\n", px_last_error());
			return 1;
		}
		if (px_symbols_resolve(pr->res, s[i].ip, &loc) ||
		    px_profile_add_location(prof, event, loc, 1)) {
			fprintf(stderr, "symresolve: %s\n", px_last_error());
			return 1;
		}
		if (++i == ns)
			i = 0;
	}
	t2 = now();

	if (!quiet) {
		for (size_t ev = 0; ev < px_profile_events(prof); ev++) {
			struct px_profile_entry *v;
			size_t n;

			if (px_profile_rank(prof, ev, &v, &n))
				return 1;
			printf("# %s: %" PRIu64 " samples\n", px_profile_event(prof, ev),
			       px_profile_total(prof, ev));
			for (size_t i = 0; i < n; i++)
				printf("%8.2f%%  %-24s %s\n", v[i].pct, strrchr(v[i].module, '/') ?
				       strrchr(v[i].module, '/') + 1 : v[i].module, v[i].name);
			free(v);
		}
	}
	fprintf(stderr, "symresolve: %ld samples (%zu read), %zu processes; "
		"read+parse %.3f s, resolve+count %.3f s (%.0f samples/s), total %.3f s\n",
		done, ns, nprocs, t1 - t0, t2 - t1, done / (t2 - t1 > 0 ? t2 - t1 : 1e-9),
		now() - t0);
	for (size_t i = 0; i < nprocs; i++) {
		px_symbols_free(procs[i].res);
		px_maps_free(&procs[i].maps);
	}
	free(procs);
	free(s);
	px_profile_free(prof);
	return 0;
}
