/* CPU lists in the kernel's notation: "0,2-3". */
#ifndef PX_CPULIST_H
#define PX_CPULIST_H

#include <stddef.h>

/* Parse list into a sorted array without duplicates (malloc'ed). */
int px_cpulist_parse(const char *list, int **cpus, size_t *n);
/* The online CPUs, from /sys/devices/system/cpu/online. */
int px_cpulist_online(int **cpus, size_t *n);

#endif
