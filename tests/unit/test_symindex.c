/* The symbol index (lib/symbols/symindex.c) must give libdwfl's own answer for
 * every address.  Checked on this test's own modules (the executable,
 * libc, libdw, libelf, ...): at every symbol's first and last byte and
 * the bytes on either side, at section edges, and at a stride through
 * each module, against dwfl_module_addrinfo asked directly.  Addresses
 * are checked in a shuffled order, so the index's cached answers are
 * reused across stretches, not just filled in order. */
#include "tap.h"
#include "symindex.h"

#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

enum { MAX_CHECKS = 2500 };

struct addrs {
	uint64_t v[MAX_CHECKS];
	size_t n;
};

static void add(struct addrs *a, uint64_t x)
{
	if (a->n < MAX_CHECKS)
		a->v[a->n++] = x;
}

/* Addresses worth asking about in mod: symbol edges first (spread over
 * the whole table when it is big), then a stride over the module. */
static void pick(Dwfl_Module *mod, struct addrs *a)
{
	int nsyms = dwfl_module_getsymtab(mod);
	int step = nsyms > MAX_CHECKS / 8 ? nsyms / (MAX_CHECKS / 8) : 1;
	Dwarf_Addr low, high;

	for (int i = 1; i < nsyms; i += step) {
		GElf_Sym sym;
		GElf_Addr addr;

		if (!dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL))
			continue;
		add(a, addr - 1);
		add(a, addr);
		add(a, addr + 1);
		if (sym.st_size) {
			add(a, addr + sym.st_size - 1);
			add(a, addr + sym.st_size);
		}
	}
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	for (uint64_t x = low; x < high && a->n < MAX_CHECKS; x += (high - low) / 400 + 1)
		add(a, x);
}

static void shuffle(struct addrs *a, unsigned *seed)
{
	for (size_t i = a->n; i > 1; i--) {
		size_t j = (size_t)rand_r(seed) % i;
		uint64_t t = a->v[i - 1];

		a->v[i - 1] = a->v[j];
		a->v[j] = t;
	}
}

struct totals {
	size_t modules, checks, named, wrong;
};

static int check_module(Dwfl_Module *mod, void **userdata, const char *name,
			Dwarf_Addr base, void *arg)
{
	struct totals *t = arg;
	static struct addrs a;
	struct px_symindex *ix = px_symindex_new(mod);
	unsigned seed = 12345;

	(void)userdata, (void)base;
	if (!ix)
		return DWARF_CB_OK;	/* nothing to index: libdwfl is asked directly */
	a.n = 0;
	pick(mod, &a);
	shuffle(&a, &seed);
	for (size_t i = 0; i < a.n; i++) {
		GElf_Off want_off = 0;
		GElf_Sym sym;
		uint64_t got_off = 0;
		const char *want = dwfl_module_addrinfo(mod, a.v[i], &want_off, &sym,
							NULL, NULL, NULL);
		const char *got = px_symindex_lookup(ix, mod, a.v[i], &got_off);
		bool same = want == got && (!want || want_off == got_off);

		t->checks++;
		t->named += want != NULL;
		if (!same && t->wrong++ < 10)
			diag("%s %#" PRIx64 ": libdwfl %s+%#" PRIx64 ", index %s+%#" PRIx64,
			     name, a.v[i], want ? want : "(none)", (uint64_t)want_off,
			     got ? got : "(none)", got_off);
	}
	t->modules++;
	px_symindex_free(ix);
	return DWARF_CB_OK;
}

int main(void)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	Dwfl *dwfl;
	struct totals t = { 0 };

	unsetenv("DEBUGINFOD_URLS");
	dwfl = dwfl_begin(&cb);
	if (!ok(dwfl != NULL, "libdwfl session"))
		return done_testing();
	dwfl_report_begin(dwfl);
	ok(dwfl_linux_proc_report(dwfl, getpid()) == 0, "this process's modules reported");
	dwfl_report_end(dwfl, NULL, NULL);
	dwfl_getmodules(dwfl, check_module, &t, 0);
	ok(t.modules >= 3, "indexed %zu modules (the executable and its libraries)", t.modules);
	ok(t.named > t.checks / 2, "%zu of %zu addresses are in a symbol", t.named, t.checks);
	is_int(t.wrong, 0, "the index gives libdwfl's symbol and offset at all %zu addresses",
	       t.checks);
	dwfl_end(dwfl);
	return done_testing();
}
