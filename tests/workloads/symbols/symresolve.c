/* symresolve: the benchmark driver for the symbol resolver.
 *
 *   perf script -F pid,ip --show-mmap-events -i perf.data |
 *       symresolve [-e EVENT] [-n SAMPLES] [-l] [-q]
 *
 * Mappings (PERF_RECORD_MMAP/MMAP2 lines) go into one resolver per pid;
 * each sample line "PID IP" is resolved and counted into a profile, which
 * is printed at the end like perf report (-l: by source line).  -n N
 * feeds N samples, cycling through the input's samples when it has fewer.
 * -f: functions only (no DWARF), as perf report's default sort.
 * Timing goes to stderr: the whole run and the resolve+count part alone. */
#include "error.h"
#include "profile.h"
#include "symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	procs = realloc(procs, (nprocs + 1) * sizeof(*procs));
	if (!procs)
		exit(1);
	memset(&procs[nprocs], 0, sizeof(*procs));
	procs[nprocs].pid = pid;
	return &procs[nprocs++];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "PID PERF_RECORD_MMAP2 pid/tid: [0xSTART(0xLEN) @ 0xPGOFF ...]: PERMS PATH" */
static void mmap_line(const char *line)
{
	unsigned long long start, len, pgoff;
	const char *p = strchr(line, '['), *path;
	int pid;
	struct proc *pr;

	if (sscanf(line, "%d", &pid) != 1 || !p ||
	    sscanf(p, "[%llx(%llx) @ %llx", &start, &len, &pgoff) != 3)
		return;
	p = strstr(p, "]: ");
	if (!p)
		return;
	path = strchr(p + 3, ' ');
	if (!path || path[1] != '/')
		return;
	path++;
	pr = proc_get(pid);
	if (pr->res)
		px_symbols_add_map(pr->res, start, len, pgoff, path);
	else
		px_maps_add(&pr->maps, start, len, pgoff, path);
}

int main(int argc, char **argv)
{
	const char *event = "cpu-clock";
	enum px_profile_by by = PX_PROFILE_FUNCTIONS;
	long want = 0;
	bool quiet = false;
	struct sample *s = NULL;
	size_t ns = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	struct px_profile *prof;
	double t0 = now(), t1, t2;
	long done = 0;
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
	while (getline(&line, &lcap, stdin) > 0) {
		unsigned long long ip;
		int pid;

		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "PERF_RECORD_MMAP")) {
			/* a mapping seen after samples: the order matters for
			 * dlopen, so resolve what came before first */
			mmap_line(line);
			continue;
		}
		if (sscanf(line, "%d %llx", &pid, &ip) != 2)
			continue;
		if (ns == cap) {
			cap = cap ? cap * 2 : 65536;
			s = realloc(s, cap * sizeof(*s));
			if (!s)
				return 1;
		}
		s[ns++] = (struct sample){ pid, ip };
	}
	free(line);
	if (!ns) {
		fprintf(stderr, "symresolve: no samples on stdin\n");
		return 1;
	}
	if (want <= 0)
		want = (long)ns;
	if (px_profile_new(&prof, by))
		return 1;

	t1 = now();
	for (size_t i = 0; done < want; i = (i + 1) % ns, done++) {
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
		"resolve+count %.3f s (%.0f samples/s), total %.3f s\n",
		done, ns, nprocs, t2 - t1, done / (t2 - t1 > 0 ? t2 - t1 : 1e-9), now() - t0);
	for (size_t i = 0; i < nprocs; i++) {
		px_symbols_free(procs[i].res);
		px_maps_free(&procs[i].maps);
	}
	free(procs);
	free(s);
	px_profile_free(prof);
	return 0;
}
