/* Lists of a process's file mappings, and /proc/PID/maps read into them. */
#include "maps.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

bool px_map_is_vdso(const char *path)
{
	return !strcmp(path, "[vdso]");
}

const struct px_map *px_maps_find(const struct px_maps *m, uint64_t ip)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (ip >= m->v[i].start && ip - m->v[i].start < m->v[i].len)
			return &m->v[i];
	return NULL;
}

int px_maps_add(struct px_maps *m, uint64_t start, uint64_t len,
		uint64_t pgoff, const char *path)
{
	char *copy;

	if (px_grow((void **)&m->v, &m->cap, m->n, 1, sizeof(*m->v), 32))
		return px_fail(ENOMEM, "maps: out of memory");
	copy = strdup(path ? path : "");
	if (!copy)
		return px_fail(ENOMEM, "maps: out of memory");
	m->v[m->n++] = (struct px_map){ start, len, pgoff, copy };
	return 0;
}

int px_maps_insert(struct px_maps *m, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *path)
{
	uint64_t end = start + len;

	for (size_t i = 0; i < m->n;) {
		struct px_map *y = &m->v[i];
		uint64_t y_end = y->start + y->len;

		if (y_end <= start || end <= y->start) {
			i++;
		} else if (y->start < start) {
			/* its part before the new one stays, and after it */
			if (y_end > end) {
				int rc = px_maps_add(m, end, y_end - end,
						     y->pgoff + (end - y->start), y->path);

				if (rc)
					return rc;
				y = &m->v[i];
			}
			y->len = start - y->start;
			i++;
		} else if (y_end > end) {
			/* its part after the new one stays */
			y->pgoff += end - y->start;
			y->len = y_end - end;
			y->start = end;
			i++;
		} else {
			free(y->path);
			m->v[i] = m->v[--m->n];
		}
	}
	return px_maps_add(m, start, len, pgoff, path);
}

int px_maps_parse(struct px_maps *m, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	while (getline(&line, &cap, f) > 0) {
		uint64_t start, end, pgoff;
		int pos = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*u %n",
			   &start, &end, &pgoff, &pos) < 3 || !pos)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if ((line[pos] != '/' && !px_map_is_vdso(line + pos)) || end <= start)
			continue;	/* anonymous, [heap], [stack], ... */
		rc = px_maps_add(m, start, end - start, pgoff, line + pos);
		if (rc)
			break;
	}
	free(line);
	return rc;
}

int px_maps_snapshot(struct px_maps *m, pid_t pid)
{
	char path[64];
	FILE *f;
	int rc;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "re");
	if (!f)
		return px_fail(errno, "maps: cannot open '%s': %s", path, strerror(errno));
	rc = px_maps_parse(m, f);
	fclose(f);
	return rc;
}

void px_maps_free(struct px_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}
