/* The -l/-L event listings and the -i report, shared by both front ends. */
#ifndef PX_LISTING_H
#define PX_LISTING_H

#include <stdbool.h>
#include <stdio.h>

/* One event a line, "pmu::NAME" (with long, its description and alias).
 * Returns the number listed. */
int px_print_event_list(FILE *f, const char *pattern, bool long_list);
/* Every name an event can be given by, one a line, for completion. */
void px_print_event_names(FILE *f);
void px_print_sysinfo(FILE *f);

#endif
