/* Kernel text symbols from a kallsyms file.
 *
 * /proc/kallsyms has no size and cannot be mapped: it is read through one
 * small reused buffer and every text symbol parsed into a sorted table.
 *
 * A copy in a regular file (made when the samples were taken, as perf
 * keeps one in its build-id cache) is mapped and searched in place.  The
 * kernel writes kallsyms with its own symbols first, in address order
 * (scripts/kallsyms sorts them when the kernel is built), then those of
 * modules, bpf programs and trampolines, each line ending in its
 * "\t[module]".  So a lookup in the kernel's part is a binary search over
 * its lines (some 17 lines read for 120,000 symbols) and only the module
 * part is parsed into the table.  Parsing all 120,000 lines costs ~10 ms
 * here, more than resolving a million samples.
 *
 * The search gives the answer of a full parse, the last text symbol at or
 * below the address (the last in file order among equal addresses), on a
 * file laid out as the kernel writes it.  That layout is checked on a few
 * hundred lines spread over the kernel part, and every line the search
 * reads must be a symbol line; when either check fails the whole file is
 * parsed and sorted as /proc/kallsyms is.  Disorder that neither check
 * meets is not seen: such a file is read as if it were the kernel's. */
#include "ksyms_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Lines of a mapped file checked for the kernel's layout. */
#define KSYMS_SAMPLES 256

/* One line, split into its fields. */
enum line_kind { LINE_BAD, LINE_OTHER, LINE_TEXT };

struct line {
	uint64_t addr;
	const char *name, *mod;
	size_t name_len, mod_len;
};

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "ADDR TYPE NAME[\t[MODULE]]" without its newline.  LINE_TEXT for a text
 * symbol with a name (types t, T, w, W), LINE_OTHER for any other symbol
 * (its address still places it), LINE_BAD for what is not a symbol line. */
static enum line_kind parse_line(const char *p, const char *end, size_t max_line,
				  struct line *l)
{
	const char *start = p;
	int h;

	l->addr = 0;
	while (p < end && (h = hexval((unsigned char)*p)) >= 0) {
		l->addr = l->addr << 4 | (unsigned)h;
		p++;
	}
	if (p == start || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return LINE_BAD;
	l->name = p + 3;
	p = memchr(l->name, '\t', (size_t)(end - l->name));
	if (!p)
		p = end;
	l->name_len = (size_t)(p - l->name);
	l->mod = NULL;
	l->mod_len = 0;
	if (end - p > 1 && p[1] == '[') {
		l->mod = p + 1;
		for (p = l->mod; p < end && *p != ' ' && *p != '\t'; p++)
			;
		l->mod_len = (size_t)(p - l->mod);
	}
	/* a line too long for the read buffer is left out either way */
	if (!memchr("tTwW", l->name[-2], 4) || !l->name_len || (size_t)(end - start) >= max_line)
		return LINE_OTHER;
	return LINE_TEXT;
}

/* ---- the parsed table ---- */

/* State of one parse: the module name of the previous line, stored once
 * per run of lines of the same module, and whether the table is sorted. */
struct table_parse {
	struct px_ksyms *k;
	uint32_t module;
	uint64_t prev;
	bool sorted, nonzero;
};

/* A parse that appends the text symbols of the lines it is given to k's table. */
static struct table_parse table_parse_of(struct px_ksyms *k)
{
	return (struct table_parse){ .k = k, .module = KCORE, .sorted = true };
}

/* s[0..n) into the names, NUL-terminated; its offset, or -1. */
static int64_t add_name(struct px_ksyms *k, const char *s, size_t n)
{
	size_t at = k->names.len;
	char *p;

	if (at + n + 1 > UINT32_MAX - 1)
		return -1;
	p = px_bigbuf_append(&k->names, n + 1);
	if (!p)
		return -1;
	memcpy(p, s, n);
	p[n] = '\0';
	return (int64_t)at;
}

/* A line into the table if it is a text symbol.  -ENOMEM on failure. */
static int table_add_line(struct table_parse *st, const char *p, const char *end)
{
	struct px_ksyms *k = st->k;
	struct line l;
	int64_t name_at;
	struct ksym *s;

	if (parse_line(p, end, k->chunk, &l) != LINE_TEXT)
		return 0;
	name_at = add_name(k, l.name, l.name_len);
	if (name_at < 0)
		return -ENOMEM;
	if (!l.mod) {
		st->module = KCORE;
	} else if (st->module == KCORE ||
		   strncmp(k->names.p + st->module, l.mod, l.mod_len) ||
		   k->names.p[st->module + l.mod_len]) {
		int64_t at = add_name(k, l.mod, l.mod_len);

		if (at < 0)
			return -ENOMEM;
		st->module = (uint32_t)at;
	}
	s = px_bigbuf_append(&k->syms, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct ksym){ l.addr, (uint32_t)name_at, st->module };
	k->n++;
	st->nonzero |= l.addr != 0;
	st->sorted &= l.addr >= st->prev;
	st->prev = l.addr;
	return 0;
}

/* Every line of buf[0, len) that ends in a newline; the offset after the
 * last newline.  The end of a file is not a newline: the caller adds the
 * last line when the file has ended. */
static int table_add_lines(struct table_parse *st, const char *buf, size_t len,
			   size_t *used)
{
	const char *p = buf, *end = buf + len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (table_add_line(st, p, nl))
			return -ENOMEM;
		p = nl + 1;
	}
	*used = (size_t)(p - buf);
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	/* names are stored in file order: ties keep it */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static void table_finish(struct table_parse *st)
{
	if (!st->sorted)
		qsort(table(st->k), st->k->n, sizeof(struct ksym), ksym_cmp);
}

/* The lines of text[0, len) into the table, as a file read whole. */
static int table_add_text(struct table_parse *st, const char *text, size_t len)
{
	size_t used;

	if (table_add_lines(st, text, len, &used))
		return -ENOMEM;
	if (used < len && table_add_line(st, text + used, text + len))
		return -ENOMEM;
	table_finish(st);
	return 0;
}

static void table_clear(struct px_ksyms *k)
{
	px_bigbuf_free(&k->syms);
	px_bigbuf_free(&k->names);
	k->n = 0;
}

/* Read fd through one reused buffer, so that its pages stay mapped. */
static int table_read(struct table_parse *st, int fd)
{
	size_t chunk = st->k->chunk;
	char *buf = malloc(chunk);
	size_t have = 0, used;
	bool skipping = false;	/* inside a line longer than the buffer */
	int rc = -ENOMEM;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + have, chunk - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			goto out;
		}
		if (r == 0)
			break;
		have += (size_t)r;
		if (skipping) {
			char *nl = memchr(buf, '\n', have);

			if (!nl) {
				have = 0;
				continue;
			}
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have);
			skipping = false;
		}
		if (table_add_lines(st, buf, have, &used))
			goto out;
		have -= used;
		memmove(buf, buf + used, have);
		if (have == chunk) {
			have = 0;
			skipping = true;
		}
	}
	if (have && !skipping && table_add_line(st, buf, buf + have))
		goto out;
	table_finish(st);
	rc = 0;
out:
	free(buf);
	return rc;
}

/* The index of the last entry at or below ip; n when there is none. */
static size_t table_find(const struct px_ksyms *k, uint64_t ip)
{
	const struct ksym *v = table(k);
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : k->n;
}

/* ---- the kernel part of a mapped file, searched in place ---- */

/* The start of the line holding text[pos]. */
static size_t line_start(const struct px_ksyms *k, size_t pos)
{
	const char *nl = memrchr(k->text, '\n', pos);

	return nl ? (size_t)(nl - k->text) + 1 : 0;
}

static size_t line_end(const struct px_ksyms *k, size_t pos)
{
	const char *nl = memchr(k->text + pos, '\n', k->text_len - pos);

	return nl ? (size_t)(nl - k->text) : k->text_len;
}

static enum line_kind line_at(const struct px_ksyms *k, size_t pos, struct line *l)
{
	return parse_line(k->text + pos, k->text + line_end(k, pos), k->chunk, l);
}

/* What a search asks of a line: false for every line before the answer,
 * true from it on. */
typedef int (*line_test)(const struct line *l, void *arg);

/* The first line start in [lo, hi) (both line starts) whose line passes
 * the test; hi when none does; -1 on a line that is not a symbol. */
static ssize_t search_lines(const struct px_ksyms *k, size_t lo, size_t hi,
			    line_test test, void *arg)
{
	while (lo < hi) {
		size_t mid = line_start(k, lo + (hi - lo) / 2);
		struct line l;

		if (line_at(k, mid, &l) == LINE_BAD)
			return -1;
		if (test(&l, arg)) {
			hi = mid;
		} else {
			size_t end = line_end(k, mid);

			lo = end < hi ? end + 1 : hi;
		}
	}
	return (ssize_t)lo;
}

/* The module part starts at the first line with a [module]. */
static int is_module_line(const struct line *l, void *arg)
{
	(void)arg;
	return l->mod != NULL;
}

static int is_above(const struct line *l, void *arg)
{
	return l->addr > *(const uint64_t *)arg;
}

/* The last text line of the kernel part before pos: its start, or -1. */
static ssize_t text_line_before(const struct px_ksyms *k, size_t pos, struct line *l)
{
	while (pos > 0) {
		pos = line_start(k, pos - 1);
		if (line_at(k, pos, l) == LINE_TEXT)
			return (ssize_t)pos;
	}
	return -1;
}

/* Give up searching in place: parse the whole file. */
static int parse_whole(struct px_ksyms *k)
{
	struct table_parse st = table_parse_of(k);
	int rc;

	table_clear(k);
	rc = table_add_text(&st, k->text, k->text_len);
	munmap((void *)k->text, k->text_len);
	k->text = NULL;
	k->core_end = k->text_len = 0;
	k->core_has_text = false;
	return rc;
}

/* Whether the kernel part looks as the kernel writes it: KSYMS_SAMPLES
 * lines spread over it are symbol lines without a [module], in address
 * order.  (A file sorted by name, say, fails at once.) */
static bool core_looks_sorted(const struct px_ksyms *k)
{
	uint64_t prev = 0;

	for (size_t i = 0; i < KSYMS_SAMPLES && k->core_end; i++) {
		struct line l;

		if (line_at(k, line_start(k, k->core_end / KSYMS_SAMPLES * i), &l) == LINE_BAD ||
		    l.mod || l.addr < prev)
			return false;
		prev = l.addr;
	}
	return true;
}

/* Map a regular file and parse its module part; -1 when the file is not
 * one to search in place (nothing is then kept). */
static int map_file(struct px_ksyms *k, int fd)
{
	struct table_parse st = table_parse_of(k);
	struct stat sb;
	struct line l;
	ssize_t core_end;
	void *p;

	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
		return -1;
	p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	k->text = p;
	k->text_len = (size_t)sb.st_size;
	core_end = search_lines(k, 0, k->text_len, is_module_line, NULL);
	if (core_end < 0)
		return parse_whole(k);
	k->core_end = (size_t)core_end;
	if (!core_looks_sorted(k))
		return parse_whole(k);
	if (table_add_text(&st, k->text + k->core_end, k->text_len - k->core_end))
		return -ENOMEM;
	k->core_has_text = text_line_before(k, k->core_end, &l) >= 0;
	k->core_last = k->core_has_text ? l.addr : 0;
	return 0;
}

static bool has_nonzero(const struct px_ksyms *k)
{
	if (k->core_has_text && k->core_last)
		return true;
	for (size_t i = 0; i < k->n; i++)
		if (table(k)[i].addr)
			return true;
	return false;
}

struct px_ksyms *px_ksyms_load(const char *path)
{
	return px_ksyms_load_chunked(path, KSYMS_CHUNK);
}

struct px_ksyms *px_ksyms_load_chunked(const char *path, size_t chunk)
{
	struct px_ksyms *k = calloc(1, sizeof(*k));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = -1;

	if (k)
		k->chunk = chunk;
	if (k && fd >= 0) {
		rc = map_file(k, fd);
		if (rc == -1) {
			struct table_parse st = table_parse_of(k);

			rc = table_read(&st, fd);
		}
	}
	if (fd >= 0)
		close(fd);
	if (rc || !has_nonzero(k)) {
		px_ksyms_free(k);
		return NULL;
	}
	return k;
}

void px_ksyms_free(struct px_ksyms *k)
{
	if (!k)
		return;
	table_clear(k);
	if (k->text)
		munmap((void *)k->text, k->text_len);
	free(k);
}

/* The kernel part's answer for ip: false when it has none; -1 on a line
 * that is not a symbol (the file is then parsed whole). */
static int core_find(const struct px_ksyms *k, uint64_t ip, struct line *l)
{
	ssize_t pos = search_lines(k, 0, k->core_end, is_above, &ip);

	if (pos < 0)
		return -1;
	return text_line_before(k, (size_t)pos, l) >= 0;
}

bool px_ksyms_find(struct px_ksyms *k, uint64_t ip, struct px_ksym *sym)
{
	struct line l;
	int in_core = 0;
	size_t i;
	uint64_t last = 0;

	if (k->text) {
		in_core = core_find(k, ip, &l);
		if (in_core < 0) {
			if (parse_whole(k))
				return false;
			in_core = 0;
		}
	}
	i = table_find(k, ip);
	/* the module part comes later in the file: it wins a tie */
	if (i < k->n && (!in_core || table(k)[i].addr >= l.addr)) {
		const struct ksym *s = &table(k)[i];

		*sym = (struct px_ksym){ .addr = s->addr, .name = k->names.p + s->name };
		sym->name_len = strlen(sym->name);
		if (s->module != KCORE) {
			sym->module = k->names.p + s->module;
			sym->module_len = strlen(sym->module);
		}
	} else if (in_core) {
		*sym = (struct px_ksym){ .addr = l.addr, .name = l.name, .name_len = l.name_len };
	} else {
		return false;
	}
	if (k->n)
		last = table(k)[k->n - 1].addr;
	if (k->core_has_text && k->core_last > last)
		last = k->core_last;
	return !(ip >= last && ip - sym->addr > KSYMS_LAST_REACH);
}
