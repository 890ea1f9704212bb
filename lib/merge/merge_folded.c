/* Folded stacks (pfmon --folded, FlameGraph's stackcollapse format):
 * "frame;frame;...;frame COUNT" a line, read as a sampling report with
 * one profile, "stacks", whose rows are the stacks, so that
 * pfmon-report --diff compares runs stack by stack and draws their
 * differential flame graph. */
#include "merge.h"
#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Line's count, the number after its last space; false when it has none
 * or nothing before it. */
static bool folded_count(const char *line, size_t len, uint64_t *count)
{
	const char *sp = memrchr(line, ' ', len), *p;

	if (!sp || sp == line)
		return false;
	*count = 0;
	for (p = sp + 1; p < line + len; p++) {
		if (!isdigit((unsigned char)*p) || *count > UINT64_MAX / 10)
			return false;
		*count = *count * 10 + (uint64_t)(*p - '0');
	}
	return p > sp + 1;
}

bool px_merge_looks_folded(const char *text)
{
	size_t len = strcspn(text, "\n");
	uint64_t count;

	return *text != '#' && !isspace((unsigned char)*text) && folded_count(text, len, &count);
}

/* Every line checked, the samples summed: 0 or -EPROTO naming the line. */
static int scan(const char *path, const char *text, uint64_t *total, size_t *lines)
{
	unsigned long lineno = 0;

	*total = 0;
	*lines = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		uint64_t count;

		lineno++;
		if (len && !folded_count(p, len, &count))
			return px_fail(EPROTO, "%s:%lu: not a folded stack (frame;frame;... COUNT)",
				       path, lineno);
		/* every line ends with its newline: a file cut in a count
		 * ("a;b 12" of "a;b 123") would sum a wrong total */
		if (len && p[len] != '\n')
			return px_fail(EPROTO, "%s:%lu: truncated: the last line has no end",
				       path, lineno);
		if (len) {
			*total += count;
			(*lines)++;
		}
		p += len + (p[len] == '\n');
	}
	if (!*lines)
		return px_fail(EPROTO, "%s: no stacks", path);
	return 0;
}

int px_merge_read_folded(const char *path, char *text, struct px_merge_input *in)
{
	uint64_t total;
	size_t lines;
	int ret;

	if ((ret = scan(path, text, &total, &lines)))
		return ret;
	in->kind = PX_MERGE_SAMPLING;
	in->stacks = true;
	in->rank = 0;
	in->size = 1;
	if ((ret = px_merge_add_prof(in, "stacks", 0, total, lines)))
		return ret;
	for (char *p = text; *p && !ret;) {
		size_t len = strcspn(p, "\n");
		bool more = p[len] == '\n';
		uint64_t count;

		if (len) {
			char *sp = memrchr(p, ' ', len);

			folded_count(p, len, &count);
			*sp = '\0';
			ret = px_merge_add_row(in, p, "", count);
		}
		p += len + more;
	}
	return ret;
}
