/* The kernel symbol table reader (lib/symbols.c), white-box: this file
 * includes symbols.c with its read buffer shrunk to 61 bytes, so that
 * lines cross reads at every position, a line longer than the buffer
 * comes up, and the last line has no newline.  The table it builds is
 * checked entry by entry against what the test wrote. */
#include "tap.h"

#define KSYMS_CHUNK 61
#include "symbols.c"

#include <inttypes.h>

enum { NSYMS = 3000 };

struct want {
	uint64_t addr;
	char name[48];
	const char *module;	/* NULL: the kernel itself */
};

static struct want want[NSYMS];
static size_t nwant;

static void put(FILE *f, uint64_t addr, char type, const char *name, const char *module)
{
	if (module)
		fprintf(f, "%016" PRIx64 " %c %s\t[%s]\n", addr, type, name, module);
	else
		fprintf(f, "%016" PRIx64 " %c %s\n", addr, type, name);
	if (!strchr("tTwW", type))
		return;
	want[nwant].addr = addr;
	snprintf(want[nwant].name, sizeof(want[nwant].name), "%s", name);
	want[nwant].module = module;
	nwant++;
}

/* Core symbols of names from 7 to 36 characters, data symbols in
 * between, runs of module symbols, one symbol out of order, one line
 * longer than the buffer, and a last line without its newline. */
static void write_table(FILE *f)
{
	static const char *const modules[] = { "ext4", "ext4", "kvm", "ext4", "x" };
	char name[48], longname[200];
	uint64_t addr = 0xffffffff81000000ULL;
	size_t i;

	for (i = 0; i < NSYMS - 200; i++) {
		size_t len = 1 + i % 30;	/* lines of up to 55 bytes */

		snprintf(name, sizeof(name), "f%zu_%.*s", i, (int)len, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
		put(f, addr, "tTwW"[i % 4], name, NULL);
		if (i % 7 == 0)
			put(f, addr + 1, "dDbBrR"[i % 6], "some_data", NULL);
		addr += 0x10 + i % 13;
	}
	memset(longname, 'L', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	fprintf(f, "%016" PRIx64 " t %s\n", addr + 5, longname);	/* skipped */
	addr = 0xffffffffc0000000ULL;
	for (i = 0; i < 150; i++) {
		snprintf(name, sizeof(name), "m%zu", i);
		put(f, addr, 't', name, modules[i / 30]);
		addr += 0x20;
	}
	put(f, 0xffffffff80000100ULL, 'T', "early", NULL);	/* out of order */
	fprintf(f, "%016" PRIx64 " T last_no_newline", addr + 0x40);
	want[nwant].addr = addr + 0x40;
	snprintf(want[nwant].name, sizeof(want[nwant].name), "last_no_newline");
	want[nwant].module = NULL;
	nwant++;
}

static int want_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int main(void)
{
	char path[] = "/tmp/px-ksyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct ksyms *k;
	size_t bad = 0, i;

	if (!ok(f != NULL, "table file created"))
		return done_testing();
	write_table(f);
	fclose(f);
	k = ksyms_load(path);
	unlink(path);
	if (!ok(k != NULL, "table loaded through a %d-byte buffer", KSYMS_CHUNK))
		return done_testing();
	qsort(want, nwant, sizeof(*want), want_cmp);
	is_int(k->n, nwant, "every text symbol kept, data symbols and the overlong line left out");
	for (i = 0; i < k->n && i < nwant; i++) {
		const char *module = k->v[i].module == KCORE ? "-" : k->names.p + k->v[i].module;
		char bracketed[32] = "-";
		bool same;

		if (want[i].module)
			snprintf(bracketed, sizeof(bracketed), "[%s]", want[i].module);
		same = k->v[i].addr == want[i].addr &&
		       !strcmp(k->names.p + k->v[i].name, want[i].name) &&
		       !strcmp(module, bracketed);

		if (!same && bad++ < 5)
			diag("entry %zu: %#" PRIx64 " %s %s, wanted %#" PRIx64 " %s %s", i,
			     k->v[i].addr, k->names.p + k->v[i].name, module,
			     want[i].addr, want[i].name, bracketed);
	}
	is_int(bad, 0, "every entry has its address, name and module, in address order");
	ok(ksyms_find(k, 0xffffffff80000100ULL + 3) &&
	   !strcmp(k->names.p + ksyms_find(k, 0xffffffff80000100ULL + 3)->name, "early"),
	   "the symbol out of order is found after sorting");
	ok(ksyms_find(k, 0xffffffff80000000ULL) == NULL, "below the first symbol: none");
	ksyms_free(k);

	ok(ksyms_load("/nonexistent/kallsyms") == NULL, "a missing file: no table");
	return done_testing();
}
