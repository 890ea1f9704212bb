/* The kernel symbol table (lib/symbols/ksyms.c), white-box through its
 * internal header: loaded with its read buffer shrunk to 61 bytes, so that lines cross
 * reads at every position, a line longer than the buffer comes up, and
 * the last line has no newline.
 *
 * The same table is loaded the two ways: through a FIFO (read and parsed
 * whole, as /proc/kallsyms is) and from a regular file (searched in
 * place).  The parsed table is checked entry by entry against what the
 * test wrote; then both answer ~20,000 addresses, compared with the
 * answer worked out here from what was written.  Files not in the
 * kernel's layout (the core's halves swapped, lines sorted by name) are
 * parsed whole and still answer right. */
#include "tap.h"

#include "ksyms_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

enum { MAXSYMS = 4000 };

/* the read buffer: lines cross reads at every position */
#define CHUNK 61

struct want {
	uint64_t addr;
	size_t order;		/* file order, breaks ties */
	char name[48];
	char module[16];	/* "": the kernel itself */
};

static struct want want[MAXSYMS];
static size_t nwant;

static void put(FILE *f, uint64_t addr, char type, const char *name, const char *module)
{
	if (*module)
		fprintf(f, "%016" PRIx64 " %c %s\t[%s]\n", addr, type, name, module);
	else
		fprintf(f, "%016" PRIx64 " %c %s\n", addr, type, name);
	if (!strchr("tTwW", type))
		return;
	want[nwant].addr = addr;
	want[nwant].order = nwant;
	snprintf(want[nwant].name, sizeof(want[nwant].name), "%s", name);
	snprintf(want[nwant].module, sizeof(want[nwant].module), "%s", module);
	nwant++;
}

enum layout { KERNEL, HALVES_SWAPPED, NO_MODULES };

/* The kernel's layout: core symbols in address order with names of 7 to
 * 36 characters, data symbols in between, runs of symbols at the same
 * address, one line longer than the read buffer; then runs of module
 * symbols (module order, not address order), the last line without its
 * newline.  HALVES_SWAPPED writes the upper half of the core symbols
 * before the lower half; NO_MODULES ends with the core, its last line
 * without a newline. */
static void write_table(FILE *f, enum layout layout)
{
	static const char *const modules[] = { "kvm", "ext4", "kvm", "ext4", "x" };
	static const uint64_t module_base[] = { 0xffffffffc0400000ULL, 0xffffffffc0100000ULL,
						0xffffffffc0480000ULL, 0xffffffffc0180000ULL,
						0xffffffffc0000000ULL };
	enum { NCORE = 3000 };
	static uint64_t core_addr[NCORE];
	char name[48], longname[200];
	uint64_t addr = 0xffffffff81000000ULL;
	size_t i, k;

	nwant = 0;
	for (i = 0; i < NCORE; i++) {
		core_addr[i] = addr;
		addr += 0x10 + i % 13;
	}
	for (k = 0; k < NCORE; k++) {
		size_t len;

		i = layout == HALVES_SWAPPED ? (k + NCORE / 2) % NCORE : k;
		len = 1 + i % 30;	/* lines of up to 55 bytes */
		snprintf(name, sizeof(name), "f%zu_%.*s", i, (int)len,
			 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
		put(f, core_addr[i], "tTwW"[i % 4], name, "");
		if (i % 11 == 0)
			put(f, core_addr[i], 'T', "same_address", "");
		if (i % 7 == 0)
			put(f, core_addr[i] + 1, "dDbBrR"[i % 6], "some_data", "");
		if (i == NCORE / 3) {
			memset(longname, 'L', sizeof(longname) - 1);
			longname[sizeof(longname) - 1] = '\0';
			fprintf(f, "%016" PRIx64 " t %s\n", core_addr[i] + 5, longname);	/* skipped */
		}
	}
	if (layout == NO_MODULES) {
		addr = core_addr[NCORE - 1] + 0x40;
		fprintf(f, "%016" PRIx64 " t last_no_newline", addr);
		want[nwant] = (struct want){ .addr = addr, .order = nwant, .name = "last_no_newline" };
		nwant++;
		return;
	}
	for (i = 0; i < 150; i++) {
		snprintf(name, sizeof(name), "m%zu", i);
		put(f, module_base[i / 30] + (i % 30) * 0x20, i % 9 ? 't' : 'd', name, modules[i / 30]);
	}
	/* a module symbol where the kernel's last one is: later in the file,
	 * it is the answer there */
	put(f, core_addr[NCORE - 1], 't', "module_tie", "x");
	addr = module_base[4] + 0x1000;
	fprintf(f, "%016" PRIx64 " t last_no_newline\t[x]", addr);
	want[nwant] = (struct want){ .addr = addr, .order = nwant, .name = "last_no_newline",
				     .module = "[x]" };
	nwant++;
	/* modules were written bare: the table keeps them bracketed */
	for (i = 0; i < nwant; i++)
		if (*want[i].module && want[i].module[0] != '[') {
			char b[16];

			snprintf(b, sizeof(b), "[%.13s]", want[i].module);
			strcpy(want[i].module, b);
		}
}

static int want_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* What a lookup of ip must give (want[] sorted): NULL for none. */
static const struct want *expected(uint64_t ip)
{
	size_t lo = 0, hi = nwant;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (want[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || (lo == nwant && ip - want[lo - 1].addr > KSYMS_LAST_REACH))
		return NULL;
	return &want[lo - 1];
}

static bool same(const struct px_ksym *got, bool found, const struct want *w)
{
	if (!found || !w)
		return !found && !w;
	return got->addr == w->addr && got->name_len == strlen(w->name) &&
	       !memcmp(got->name, w->name, got->name_len) &&
	       (got->module ? got->module_len == strlen(w->module) &&
				      !memcmp(got->module, w->module, got->module_len)
			    : !*w->module);
}

/* Load the table through a FIFO fed by a child: read, never mapped. */
static struct px_ksyms *load_through_fifo(const char *file)
{
	/* room for the folder's name and "/f" after it */
	char fifo[sizeof("/tmp/px-ksyms-fifo-XXXXXX/f")] = "/tmp/px-ksyms-fifo-XXXXXX";
	struct px_ksyms *k;
	pid_t pid;
	int st;

	if (!mkdtemp(fifo))
		return NULL;
	strcat(fifo, "/f");
	if (mkfifo(fifo, 0600))
		return NULL;
	pid = fork();
	if (pid == 0) {
		execlp("cp", "cp", file, fifo, (char *)NULL);
		_exit(127);
	}
	k = px_ksyms_load_chunked(fifo, CHUNK);
	waitpid(pid, &st, 0);
	unlink(fifo);
	*strrchr(fifo, '/') = '\0';
	rmdir(fifo);
	return k;
}

/* Every entry of a table parsed whole, against want[] (sorted). */
static void check_entries(const struct px_ksyms *k, const char *how)
{
	size_t bad = 0;

	is_int(k->n, nwant, "%s: every text symbol kept, data and the overlong line left out", how);
	for (size_t i = 0; i < k->n && i < nwant; i++) {
		const struct ksym *s = &table(k)[i];
		const char *module = s->module == KCORE ? "" : k->names.p + s->module;

		if ((s->addr != want[i].addr || strcmp(k->names.p + s->name, want[i].name) ||
		     strcmp(module, want[i].module)) && bad++ < 5)
			diag("entry %zu: %#" PRIx64 " %s %s, wanted %#" PRIx64 " %s %s", i,
			     s->addr, k->names.p + s->name, module, want[i].addr, want[i].name,
			     want[i].module);
	}
	is_int(bad, 0, "%s: every entry has its address, name and module, in order", how);
}

/* Lookups at every symbol, one byte either side, half-way to the next,
 * below the first and far past the last. */
static void check_lookups(struct px_ksyms *k, const char *how)
{
	size_t bad = 0, n = 0;

	for (size_t i = 0; i <= nwant; i++) {
		uint64_t base = i < nwant ? want[i].addr : want[nwant - 1].addr + 2 * KSYMS_LAST_REACH;
		uint64_t next = i + 1 < nwant ? want[i + 1].addr : base + KSYMS_LAST_REACH;
		uint64_t probe[] = { base - 1, base, base + 1, base + (next - base) / 2,
				     base + KSYMS_LAST_REACH + 1 };

		for (size_t j = 0; j < ARRAY_SIZE(probe); j++) {
			struct px_ksym got = { 0 };
			bool found = px_ksyms_find(k, probe[j], &got);
			const struct want *w = expected(probe[j]);

			n++;
			if (!same(&got, found, w) && bad++ < 5)
				diag("%s at %#" PRIx64 ": got %s %.*s, wanted %s", how, probe[j],
				     found ? "" : "none", found ? (int)got.name_len : 0,
				     found ? got.name : "", w ? w->name : "none");
		}
	}
	is_int(bad, 0, "%s: %zu lookups give the symbol at or below the address", how, n);
}

static void run(enum layout layout, const char *label)
{
	char path[] = "/tmp/px-ksyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct px_ksyms *fifo, *mapped;
	char how[64];

	if (!ok(f != NULL, "%s: table file created", label))
		return;
	write_table(f, layout);
	fclose(f);
	qsort(want, nwant, sizeof(*want), want_cmp);

	fifo = load_through_fifo(path);
	snprintf(how, sizeof(how), "%s, read through a FIFO", label);
	if (ok(fifo && !fifo->text, "%s: parsed whole", how)) {
		check_entries(fifo, how);
		check_lookups(fifo, how);
	}
	px_ksyms_free(fifo);

	mapped = px_ksyms_load_chunked(path, CHUNK);
	snprintf(how, sizeof(how), "%s, from a regular file", label);
	if (ok(mapped != NULL, "%s: loaded", how)) {
		size_t nmodule = 0;

		for (size_t i = 0; i < nwant; i++)
			nmodule += *want[i].module != '\0';
		if (layout != HALVES_SWAPPED)
			ok(mapped->text && mapped->core_end && mapped->n == nmodule,
			   "%s: mapped, only the %zu module symbols parsed", how, nmodule);
		else
			ok(!mapped->text && mapped->n == nwant, "%s: out of place, parsed whole", how);
		check_lookups(mapped, how);
	}
	px_ksyms_free(mapped);
	unlink(path);
}

/* A file sorted by name: the layout check sends it to a full parse. */
static void run_sorted_by_name(void)
{
	char path[] = "/tmp/px-ksyms-XXXXXX", cmd[128];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct px_ksyms *k;

	if (!ok(f != NULL, "by name: table file created"))
		return;
	write_table(f, KERNEL);
	fputc('\n', f);
	fclose(f);
	qsort(want, nwant, sizeof(*want), want_cmp);
	snprintf(cmd, sizeof(cmd), "LC_ALL=C sort -k3 -o %s %s", path, path);
	if (!ok(system(cmd) == 0, "by name: sorted with sort(1)"))
		return;
	k = px_ksyms_load_chunked(path, CHUNK);
	if (ok(k && !k->text && k->n == nwant, "by name: not the kernel's layout, parsed whole"))
		check_lookups(k, "by name");
	px_ksyms_free(k);
	unlink(path);
}

int main(void)
{
	char path[] = "/tmp/px-ksyms-XXXXXX";
	int fd;

	run(KERNEL, "kernel layout");
	run(HALVES_SWAPPED, "halves swapped");
	run(NO_MODULES, "no modules, no last newline");
	run_sorted_by_name();

	ok(px_ksyms_load("/nonexistent/kallsyms") == NULL, "a missing file: no table");
	fd = mkstemp(path);
	if (fd >= 0) {
		dprintf(fd, "0000000000000000 T _stext\n0000000000000000 t f\n");
		close(fd);
		ok(px_ksyms_load(path) == NULL, "only zero addresses (kptr_restrict): no table");
		unlink(path);
	}
	return done_testing();
}
