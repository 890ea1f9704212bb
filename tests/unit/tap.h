/* A tiny TAP producer for the C unit tests.
 *
 *	ok(cond, "what is checked")          one test point
 *	is_int(got, want, "name")            integers, both shown on failure
 *	is_str(got, want, "name")            strings (NULL allowed)
 *	is_num(got, want, tolerance, "name") doubles, |got - want| <= tolerance
 *	diag("fmt", ...)                     a "# " comment line
 *	return done_testing();               prints the plan, returns the status
 *
 * Table-driven tests (libpfm4's style): every row records its own source
 * line with ROW, and the _at variants report that line, so a failure
 * points at the row that failed, not at the loop that checked it:
 *
 *	static const struct { int line; const char *in; int want; } rows[] = {
 *		{ ROW, "page-faults", 0 },
 *	};
 *	for (...) is_int_at(rows[i].line, parse(rows[i].in), rows[i].want, "%s", rows[i].in);
 *
 * A failing point prints "not ok N - name" and then "#   at FILE:LINE"
 * with the values it compared. */
#ifndef PX_TAP_H
#define PX_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define ROW __LINE__

static int tap_run, tap_failed;

static inline __attribute__((format(printf, 4, 0)))
bool tap_vcheck(bool pass, const char *file, int line, const char *fmt,
		va_list ap)
{
	tap_run++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	putchar('\n');
	if (!pass) {
		tap_failed++;
		printf("#   Failed test at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

static inline __attribute__((format(printf, 4, 5)))
bool tap_check(bool pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vcheck(pass, file, line, fmt, ap);
	va_end(ap);
	return r;
}

static inline __attribute__((format(printf, 5, 6)))
bool tap_is_int(long long got, long long want, const char *file, int line,
		const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vcheck(got == want, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#          got: %lld (0x%llx)\n#     expected: %lld (0x%llx)\n",
		       got, got, want, want);
	return r;
}

static inline __attribute__((format(printf, 5, 6)))
bool tap_is_str(const char *got, const char *want, const char *file, int line,
		const char *fmt, ...)
{
	va_list ap;
	bool same = got == want || (got && want && !strcmp(got, want));
	bool r;

	va_start(ap, fmt);
	r = tap_vcheck(same, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#          got: '%s'\n#     expected: '%s'\n",
		       got ? got : "(null)", want ? want : "(null)");
	return r;
}

static inline __attribute__((format(printf, 6, 7)))
bool tap_is_num(double got, double want, double tol, const char *file,
		int line, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vcheck(fabs(got - want) <= tol, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#          got: %.17g\n#     expected: %.17g (+- %g)\n",
		       got, want, tol);
	return r;
}

#define ok(c, ...) tap_check(!!(c), __FILE__, __LINE__, __VA_ARGS__)
#define ok_at(ln, c, ...) tap_check(!!(c), __FILE__, (ln), __VA_ARGS__)
#define is_int(g, w, ...) \
	tap_is_int((long long)(g), (long long)(w), __FILE__, __LINE__, __VA_ARGS__)
#define is_int_at(ln, g, w, ...) \
	tap_is_int((long long)(g), (long long)(w), __FILE__, (ln), __VA_ARGS__)
#define is_str(g, w, ...) tap_is_str((g), (w), __FILE__, __LINE__, __VA_ARGS__)
#define is_str_at(ln, g, w, ...) tap_is_str((g), (w), __FILE__, (ln), __VA_ARGS__)
#define is_num(g, w, t, ...) \
	tap_is_num((g), (w), (t), __FILE__, __LINE__, __VA_ARGS__)
#define is_num_at(ln, g, w, t, ...) \
	tap_is_num((g), (w), (t), __FILE__, (ln), __VA_ARGS__)
#define diag(...) (printf("# " __VA_ARGS__), putchar('\n'))

/* Print the plan (at the end, as TAP allows) and return the exit status. */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_run);
	if (tap_failed)
		printf("# failed %d of %d\n", tap_failed, tap_run);
	return tap_failed ? 1 : 0;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
