/* libpx's code-region markers: count events over named regions of a
 * program, per thread.
 *
 *     #include <px_region.h>
 *     PX_REGION_BEGIN("solve");
 *     ...
 *     PX_REGION_END("solve");
 *
 * The macros call px_region_begin()/px_region_end() when PX_REGIONS is
 * defined (cc -DPX_REGIONS ... `pkg-config --libs libpx`) and compile to
 * nothing otherwise.  Outside a measuring run the functions do nothing
 * and return 0; a run measures when PX_REGIONS_EVENTS names the events
 * (perfex --regions sets it): each thread that marks a region counts
 * them on its own counters (include/px_counters.h), from its first
 * marker.  Regions nest and end in the reverse order they began; a
 * region counts the thread that marks it, not the threads it starts.
 * Per region and thread: calls, and per event the sum, min, mean and max
 * per call, written when the program exits (docs/libpx.md, "Code regions").
 *
 * Both return 0 or -errno (an end that does not match the innermost open
 * region, nesting deeper than 64, a name longer than 63 bytes, counters
 * that cannot be opened); the message is px_counters_error()'s.  The
 * markers allocate nothing inside a region (up to 64 regions a thread),
 * so that their own page faults do not count in it. */
#ifndef PX_REGION_H
#define PX_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

int px_region_begin(const char *name);
int px_region_end(const char *name);

#ifdef PX_REGIONS
#define PX_REGION_BEGIN(name) px_region_begin(name)
#define PX_REGION_END(name) px_region_end(name)
#else
#define PX_REGION_BEGIN(name) ((void)0)
#define PX_REGION_END(name) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
