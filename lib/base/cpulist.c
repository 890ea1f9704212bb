#include "cpulist.h"
#include "error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_MAX 8192

static int parse_number(const char **p, long *out)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out >= CPU_MAX)
		return -1;
	*p = end;
	return 0;
}

int px_cpulist_parse(const char *list, int **cpus, size_t *n)
{
	bool *seen = calloc(CPU_MAX, sizeof(bool));
	const char *p = list;
	size_t count = 0;

	if (!seen)
		return px_fail(ENOMEM, "out of memory");
	while (*p) {
		long lo, hi;

		if (parse_number(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_number(&p, &hi) || hi < lo)
				goto bad;
		}
		for (long c = lo; c <= hi; c++)
			seen[c] = true;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	for (int c = 0; c < CPU_MAX; c++)
		count += seen[c];
	if (!count)
		goto bad;
	*cpus = malloc(count * sizeof(int));
	if (!*cpus) {
		free(seen);
		return px_fail(ENOMEM, "out of memory");
	}
	*n = 0;
	for (int c = 0; c < CPU_MAX; c++)
		if (seen[c])
			(*cpus)[(*n)++] = c;
	free(seen);
	return 0;
bad:
	free(seen);
	return px_fail(EINVAL, "bad CPU list '%s': use numbers and ranges such as 0,2-3", list);
}

int px_cpulist_online(int **cpus, size_t *n)
{
	char buf[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return px_fail(ENOENT, "cannot read the online CPUs from /sys/devices/system/cpu/online");
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return px_cpulist_parse(buf, cpus, n);
}
