/* Unwinding a copied user stack with CFI (px_symbols_unwind): this
 * program captures its own registers and stack in f3 of a chain
 * main -> f1 -> f2 -> f3, and in a qsort comparator called from libc,
 * as a sample of the perf backend records them (17 registers in DWARF
 * order, the stack from rsp up), then unwinds the copy after the
 * functions have returned, with a resolver on its own live process and
 * one on its recorded mappings.  The file is built without frame
 * pointers (Makefile: -fomit-frame-pointer), so only the CFI unwinds
 * f1..f3; a garbage rbp must not change their chain. */
#include "tap.h"

#include "error.h"
#include "symbols.h"
#include "callchain/perfmon_cc_smpl.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES 64

/* One captured sample: registers and a copy of the stack. */
struct capture {
	uint64_t regs[PFM_CC_NREGS];
	unsigned char stack[PFM_CC_MAX_STACK];
	size_t len;
};

static struct capture chain_cap, sort_cap;
static uint64_t stack_end;	/* the end of [stack] */

/* The registers in DWARF order (rax rdx rcx rbx rsi rdi rbp rsp r8..r15
 * rip), rip that of the label in the middle: rsp does not move in the
 * asm, so the CFI at that label describes the state captured. */
#define CAPTURE_REGS(r) __asm__ volatile(			\
	"movq %%rax, 0(%0)\n\t"  "movq %%rdx, 8(%0)\n\t"	\
	"movq %%rcx, 16(%0)\n\t" "movq %%rbx, 24(%0)\n\t"	\
	"movq %%rsi, 32(%0)\n\t" "movq %%rdi, 40(%0)\n\t"	\
	"movq %%rbp, 48(%0)\n\t" "movq %%rsp, 56(%0)\n\t"	\
	"movq %%r8, 64(%0)\n\t"  "movq %%r9, 72(%0)\n\t"	\
	"movq %%r10, 80(%0)\n\t" "movq %%r11, 88(%0)\n\t"	\
	"movq %%r12, 96(%0)\n\t" "movq %%r13, 104(%0)\n\t"	\
	"movq %%r14, 112(%0)\n\t" "movq %%r15, 120(%0)\n\t"	\
	"1: leaq 1b(%%rip), %%rax\n\t"				\
	"movq %%rax, 128(%0)\n\t"				\
	: : "r"(r) : "rax", "memory")

/* The stack from the captured rsp up, as much as the format allows and
 * the stack holds (the frames of _start lie within it).  Word by word
 * through a volatile pointer, outside AddressSanitizer's view: a copy of
 * raw stack crosses the redzones of the frames in it, as the kernel's
 * copy does. */
static __attribute__((noinline, no_sanitize_address)) void capture_stack(struct capture *c)
{
	const volatile uint64_t *sp = (const volatile uint64_t *)(uintptr_t)c->regs[7];
	size_t words;

	c->len = stack_end - c->regs[7] < sizeof(c->stack) ? stack_end - c->regs[7]
							    : sizeof(c->stack);
	words = c->len / 8;
	c->len = words * 8;
	for (size_t i = 0; i < words; i++) {
		uint64_t w = sp[i];

		memcpy(c->stack + i * 8, &w, 8);
	}
}

/* The chain: noinline and noclone keep the names, the work after each
 * call keeps the calls from being tail calls. */
__attribute__((noinline, noclone)) int f3(int x)
{
	CAPTURE_REGS(chain_cap.regs);
	capture_stack(&chain_cap);
	return x + 3;
}

__attribute__((noinline, noclone)) int f2(int x)
{
	return f3(x + 2) * 5;
}

__attribute__((noinline, noclone)) int f1(int x)
{
	return f2(x + 1) * 7;
}

static bool sort_captured;

__attribute__((noinline, noclone)) int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!sort_captured) {
		sort_captured = true;
		CAPTURE_REGS(sort_cap.regs);
		capture_stack(&sort_cap);
	}
	return (x > y) - (x < y);
}

__attribute__((noinline, noclone)) int sort_some(void)
{
	int v[] = { 5, 3, 9, 1, 7, 2 };

	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), compare_ints);
	return v[0] * 3;
}

static uint64_t find_stack_end(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned long long start, end;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			found = end;
	fclose(f);
	return found;
}

/* ---- checking chains ---- */

struct chain {
	uint64_t ips[MAX_FRAMES];
	size_t n;
	unsigned flags;
	const struct px_location *loc[MAX_FRAMES];
};

/* Unwind c (its first len bytes of stack) and resolve each frame: the
 * pc for frame 0, pc - 1 (the call) for the others. */
static int unwind(struct px_symbols *res, const struct capture *c, const uint64_t *regs,
		  size_t len, size_t max, struct chain *ch)
{
	int rc = px_symbols_unwind(res, (uint32_t)getpid(), regs, c->stack, len,
				   ch->ips, max, &ch->n, &ch->flags);

	for (size_t i = 0; !rc && i < ch->n; i++)
		rc = px_symbols_resolve(res, i ? ch->ips[i] - 1 : ch->ips[i], &ch->loc[i]);
	return rc;
}

static void show(const struct chain *ch)
{
	for (size_t i = 0; i < ch->n; i++)
		diag("  #%zu %#" PRIx64 " %s (%s)", i, ch->ips[i], ch->loc[i]->func,
		     ch->loc[i]->module);
	diag("  flags %#x", ch->flags);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool in_library(const struct px_location *loc)
{
	return strstr(base(loc->module), ".so") != NULL;
}

static bool in_libc(const struct px_location *loc)
{
	return !strncmp(base(loc->module), "libc.so", 7) ||
	       !strncmp(base(loc->module), "libc-", 5);
}

/* f3 f2 f1 main, then libc, then _start of this program, outermost. */
static void check_full_chain(struct px_symbols *res, const char *label)
{
	static const char *const want[] = { "f3", "f2", "f1", "main" };
	struct chain ch = { .n = 0 };
	size_t i, libc = 0;
	int failed = tap_failed;

	if (!ok(unwind(res, &chain_cap, chain_cap.regs, chain_cap.len, MAX_FRAMES, &ch) == 0,
		"%s: unwind the whole copy", label)) {
		diag("%s", px_last_error());
		return;
	}
	if (!ok(ch.n >= 6, "%s: %zu frames", label, ch.n)) {
		show(&ch);
		return;
	}
	is_int(ch.ips[0], chain_cap.regs[16], "%s: frame 0 is the sampled pc", label);
	for (i = 0; i < 4; i++)
		is_str(ch.loc[i]->func, want[i], "%s: frame %zu is %s", label, i, want[i]);
	for (i = 4; i < ch.n - 1; i++)
		libc += in_libc(ch.loc[i]);
	ok(libc >= 1 && libc == ch.n - 5, "%s: the frames between main and _start are libc's (%zu)",
	   label, libc);
	is_str(ch.loc[ch.n - 1]->func, "_start", "%s: the outermost frame is _start", label);
	is_int(ch.flags, 0, "%s: a natural end: neither cut nor truncated", label);
	if (tap_failed > failed)
		show(&ch);
}

static void check_cut_and_truncated(struct px_symbols *res, const char *label)
{
	struct chain ch = { .n = 0 }, full = { .n = 0 };

	/* the copy cut short: the first frames of the chain, then a cut */
	if (ok(unwind(res, &chain_cap, chain_cap.regs, chain_cap.len, MAX_FRAMES, &full) == 0 &&
	       unwind(res, &chain_cap, chain_cap.regs, 64, MAX_FRAMES, &ch) == 0,
	       "%s: unwind 64 bytes", label)) {
		ok(ch.n >= 1 && ch.n < full.n && !memcmp(ch.ips, full.ips, ch.n * sizeof(ch.ips[0])),
		   "%s: 64 bytes give the first %zu of %zu frames", label, ch.n, full.n);
		is_int(ch.flags, PX_UNWIND_CUT, "%s: 64 bytes: cut", label);
	}
	if (ok(unwind(res, &chain_cap, chain_cap.regs, 0, MAX_FRAMES, &ch) == 0,
	       "%s: unwind no stack", label)) {
		is_int(ch.n, 1, "%s: no stack: the pc alone", label);
		is_int(ch.flags, PX_UNWIND_CUT, "%s: no stack: cut", label);
	}
	if (ok(unwind(res, &chain_cap, chain_cap.regs, chain_cap.len, 2, &ch) == 0,
	       "%s: unwind max 2", label)) {
		is_int(ch.n, 2, "%s: max 2: 2 frames", label);
		is_str(ch.loc[1]->func, "f2", "%s: max 2: f3 then f2", label);
		is_int(ch.flags, PX_UNWIND_TRUNCATED, "%s: max 2: truncated", label);
	}
	/* max exactly the depth: every frame found, nothing more to report */
	if (unwind(res, &chain_cap, chain_cap.regs, chain_cap.len, full.n, &ch) == 0) {
		is_int(ch.n, full.n, "%s: max = depth: every frame", label);
		is_int(ch.flags, 0, "%s: max = depth: not truncated", label);
	}
}

/* rbp is no frame pointer in f1..f3: a garbage one leaves their chain. */
static void check_cfi_only(struct px_symbols *res, const char *label)
{
	static const char *const want[] = { "f3", "f2", "f1", "main" };
	uint64_t regs[PFM_CC_NREGS];
	struct chain ch = { .n = 0 };
	int rc;

	memcpy(regs, chain_cap.regs, sizeof(regs));
	regs[6] = 0x5a5a5a5a5a5a5a5aULL;
	rc = unwind(res, &chain_cap, regs, chain_cap.len, MAX_FRAMES, &ch);

	if (!ok(rc == 0 && ch.n >= 4, "%s: garbage rbp: %zu frames", label, ch.n))
		return;
	for (size_t i = 0; i < 4; i++)
		is_str(ch.loc[i]->func, want[i], "%s: garbage rbp: frame %zu is %s", label, i,
		       want[i]);
}

/* compare_ints, the frames of qsort in libc (in libasan, which has its
 * own, under AddressSanitizer), sort_some, main. */
static void check_through_libc(struct px_symbols *res, const char *label)
{
	struct chain ch = { .n = 0 };
	size_t i, caller = 0;
	int failed = tap_failed;

	if (!ok(unwind(res, &sort_cap, sort_cap.regs, sort_cap.len, MAX_FRAMES, &ch) == 0,
		"%s: unwind from the comparator", label))
		return;
	if (!ok(ch.n >= 4, "%s: comparator: %zu frames", label, ch.n)) {
		show(&ch);
		return;
	}
	is_str(ch.loc[0]->func, "compare_ints", "%s: frame 0 is the comparator", label);
	ok(in_library(ch.loc[1]), "%s: frame 1 is in a library (%s in %s)", label,
	   ch.loc[1]->func, ch.loc[1]->module);
	for (i = 1; i < ch.n && !caller; i++)
		if (!strcmp(ch.loc[i]->func, "sort_some"))
			caller = i;
	ok(caller >= 2, "%s: sort_some after qsort's frames (frame %zu)", label, caller);
	for (i = 1; caller && i < caller; i++)
		ok(in_library(ch.loc[i]), "%s: frame %zu in a library (%s)", label, i,
		   ch.loc[i]->func);
	ok(caller && caller + 1 < ch.n && !strcmp(ch.loc[caller + 1]->func, "main"),
	   "%s: then main", label);
	is_int(ch.flags, 0, "%s: comparator: a natural end", label);
	if (tap_failed > failed)
		show(&ch);
}

/* Nothing crashes on registers and stacks of noise: the chain is the
 * pc alone or more, never more than max, empty for pc 0. */
static void check_garbage(struct px_symbols *res)
{
	static unsigned char noise[4096];
	uint64_t regs[PFM_CC_NREGS], ips[8], x = 88172645463325252ULL;
	size_t n, bad = 0;
	unsigned flags;
	int rc = 0;

	for (int round = 0; round < 2000 && !rc; round++) {
		size_t len = 0;

		for (size_t i = 0; i < sizeof(noise); i += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(noise + i, &x, 8);
		}
		for (int i = 0; i < PFM_CC_NREGS; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			regs[i] = x;
		}
		switch (round % 4) {
		case 0:		/* noise everywhere */
			len = x % sizeof(noise);
			break;
		case 1:		/* a real pc over a noisy, misaligned stack */
			regs[16] = chain_cap.regs[16];
			regs[7] |= 3;
			len = sizeof(noise);
			break;
		case 2:		/* a real pc and sp, no stack at all */
			regs[16] = chain_cap.regs[16];
			regs[7] = chain_cap.regs[7];
			break;
		case 3:		/* a libc pc, a noisy stack */
			regs[16] = sort_cap.regs[16];
			regs[7] = (uint64_t)(uintptr_t)noise;
			len = sizeof(noise);
			break;
		}
		rc = px_symbols_unwind(res, 1, regs, noise, len, ips, 8, &n, &flags);
		if (rc || n < 1 || n > 8 || ips[0] != regs[16] ||
		    (n < 8 && !(flags & (PX_UNWIND_CUT))) ||
		    (round % 4 == 2 && (n != 1 || flags != PX_UNWIND_CUT)))
			bad++;
	}
	is_int(rc, 0, "garbage: no error");
	is_int(bad, 0, "garbage: 2000 rounds, each the pc then a cut (or 8 frames)");
	memset(regs, 0, sizeof(regs));
	rc = px_symbols_unwind(res, 1, regs, noise, sizeof(noise), ips, 8, &n, &flags);
	ok(rc == 0 && n == 0 && flags == PX_UNWIND_CUT, "all registers zero: empty, cut");
	rc = px_symbols_unwind(res, 1, chain_cap.regs, NULL, 0, ips, 0, &n, &flags);
	ok(rc == 0 && n == 0 && flags == PX_UNWIND_TRUNCATED, "max 0: empty, truncated");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The resolver's Dwfl and its CFI serve every call: print the rate. */
static void check_rate(struct px_symbols *res, const char *label)
{
	enum { N = 10000 };
	uint64_t ips[MAX_FRAMES];
	size_t n, frames = 0;
	unsigned flags;
	int rc = 0;
	double t = now();

	for (int i = 0; i < N && !rc; i++) {
		rc = px_symbols_unwind(res, 1, chain_cap.regs, chain_cap.stack, chain_cap.len,
				       ips, MAX_FRAMES, &n, &flags);
		frames += n;
	}
	t = now() - t;
	is_int(rc, 0, "%s: %d unwinds", label, N);
	diag("%s: %d unwinds of %zu frames in %.3f s: %.0f unwinds/s, %.0f frames/s", label,
	     N, frames / N, t, N / t, frames / t);
}

/* A resolver that learns libc's mappings only later: the chain is cut
 * in libc, then whole once they are added (the attached state survives
 * the new report). */
static void check_later_maps(const struct px_maps *all)
{
	struct px_maps some = { 0 };
	struct px_symbols *res = NULL;
	struct chain ch = { .n = 0 };

	for (size_t i = 0; i < all->n; i++)
		if (!strstr(all->v[i].path, "/libc.so") && !strstr(all->v[i].path, "/libc-"))
			px_maps_add(&some, all->v[i].start, all->v[i].len, all->v[i].pgoff,
				    all->v[i].path);
	if (!ok(px_symbols_open_maps(&res, &some, NULL) == 0, "maps without libc: open"))
		goto out;
	if (ok(unwind(res, &chain_cap, chain_cap.regs, chain_cap.len, MAX_FRAMES, &ch) == 0,
	       "maps without libc: unwind")) {
		ok(ch.n >= 4 && !strcmp(ch.loc[3]->func, "main"), "maps without libc: up to main");
		ok(ch.flags & PX_UNWIND_CUT, "maps without libc: cut after main (%zu frames)", ch.n);
	}
	for (size_t i = 0; i < all->n; i++)
		if (strstr(all->v[i].path, "/libc.so") || strstr(all->v[i].path, "/libc-"))
			px_symbols_add_map(res, all->v[i].start, all->v[i].len, all->v[i].pgoff,
					   all->v[i].path);
	check_full_chain(res, "libc added later");
out:
	px_symbols_free(res);
	px_maps_free(&some);
}

int main(void)
{
	struct px_symbols *live = NULL, *rec = NULL;
	struct px_maps maps = { 0 };

	unsetenv("DEBUGINFOD_URLS");
	stack_end = find_stack_end();
	if (!ok(stack_end != 0, "[stack] found in /proc/self/maps"))
		return done_testing();
	ok(f1(1) == ((1 + 1 + 2 + 3) * 5) * 7, "the chain ran");
	ok(sort_some() == 3 && sort_captured, "the sort ran");
	diag("stack copies: %zu and %zu bytes", chain_cap.len, sort_cap.len);

	if (ok(px_symbols_open_pid(&live, getpid(), NULL) == 0, "live resolver")) {
		check_full_chain(live, "live");
		check_cut_and_truncated(live, "live");
		check_cfi_only(live, "live");
		check_through_libc(live, "live");
		ok(px_symbols_refresh(live) == 0, "live: refresh the mappings");
		check_full_chain(live, "live after refresh");
		check_rate(live, "live");
	}
	if (ok(px_maps_snapshot(&maps, 0) == 0 && px_symbols_open_maps(&rec, &maps, NULL) == 0,
	       "resolver on recorded mappings")) {
		check_full_chain(rec, "maps");
		check_cut_and_truncated(rec, "maps");
		check_cfi_only(rec, "maps");
		check_through_libc(rec, "maps");
		check_garbage(rec);
		check_rate(rec, "maps");
		check_later_maps(&maps);
	}
	px_symbols_free(live);
	px_symbols_free(rec);
	px_maps_free(&maps);
	return done_testing();
}
