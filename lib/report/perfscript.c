/* --perf-script: resolved samples as `perf script` text (perfscript.h).
 * Each sample's text is built by hand in one buffer and written at once:
 * printf's parsing and stdio's calls, piece by piece, were most of the
 * export's time, for a text that runs to megabytes. */
#include "perfscript.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct px_perfscript {
	const struct px_smpl_session *session;
	FILE *f;
	char *text;		/* the sample's */
	size_t len, cap;
	bool nomem;
};

static void put(struct px_perfscript *p, const char *s, size_t n)
{
	if (!n)		/* text may not be allocated yet */
		return;
	if (px_grow((void **)&p->text, &p->cap, p->len, n, 1, 4096)) {
		p->nomem = true;
		return;
	}
	memcpy(p->text + p->len, s, n);
	p->len += n;
}

static void put_str(struct px_perfscript *p, const char *s)
{
	put(p, s, strlen(s));
}

/* Digits at the end of buf[64], padded to `width` columns with `pad` on
 * the left, or with blanks on the right when left-aligned (printf's
 * "%5u", "%03u", "%-5u", "%16lx"). */
static void put_digits(struct px_perfscript *p, char *buf, char *s, size_t width, char pad,
		       bool left)
{
	size_t n = (size_t)(buf + 64 - s);

	while (!left && n < width) {
		*--s = pad;
		n++;
	}
	put(p, s, n);
	for (; left && n < width; n++)
		put(p, " ", 1);
}

/* (the bases are constants: a division by a variable costs more than
 * the rest of the line) */
static void put_dec(struct px_perfscript *p, uint64_t v, size_t width, char pad, bool left)
{
	char buf[64], *s = buf + sizeof(buf);

	do {
		*--s = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_digits(p, buf, s, width, pad, left);
}

static void put_hex(struct px_perfscript *p, uint64_t v, size_t width)
{
	char buf[64], *s = buf + sizeof(buf);

	do {
		*--s = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	put_digits(p, buf, s, width, ' ', false);
}

/* perf's names for what has no file: the importers match "(\S*)" */
static const char *module_name(const char *module)
{
	if (!module || !*module)
		return "[unknown]";
	return strcmp(module, "[kernel]") ? module : "[kernel.kallsyms]";
}

/* perf's "%s %5d/%-5d [%03d] %5lu.%06lu: %10lu %s:" */
static void header(struct px_perfscript *p, const struct px_sample *x, const char *comm)
{
	const struct px_smpl_session_opts *o = &p->session->o;
	bool known = x->set < o->mon.nsets && x->ovfl_pmd < o->mon.sets[x->set].n;

	put_str(p, comm);
	put(p, " ", 1);
	put_dec(p, x->pid, 5, ' ', false);
	put(p, "/", 1);
	put_dec(p, x->tid, 5, ' ', true);
	put(p, " [", 2);
	put_dec(p, x->cpu, 3, '0', false);
	put(p, "] ", 2);
	put_dec(p, x->tstamp / 1000000000, 5, ' ', false);
	put(p, ".", 1);
	put_dec(p, x->tstamp % 1000000000 / 1000, 6, '0', false);
	put(p, ": ", 2);
	/* perfmon's reset value is 2^64 - period (sampler_perf.h) */
	put_dec(p, -x->last_reset_val, 10, ' ', false);
	put(p, " ", 1);
	put_str(p, known ? o->mon.sets[x->set].events[x->ovfl_pmd].name : "?");
	if (o->mon.nsets > 1) {
		put(p, "/set", 4);
		put_dec(p, x->set, 0, ' ', false);
	}
	put(p, ":\n", 2);
}

/* perf's "\t%16lx %s+0x%lx (%s)\n" */
static void frame_line(struct px_perfscript *p, uint64_t addr, const char *name, bool offset,
		       uint64_t off, const char *module)
{
	put(p, "\t", 1);
	put_hex(p, addr, 16);
	put(p, " ", 1);
	put_str(p, name);
	if (offset) {
		put(p, "+0x", 3);
		put_hex(p, off, 0);
	}
	put(p, " (", 2);
	put_str(p, module_name(module));
	put(p, ")\n", 2);
}

/* The stack's frames but its first `root` (the root frame, left out),
 * innermost first, each with the address that gave it. */
static void chain_lines(struct px_perfscript *p, const struct px_smpl_result *r,
			const struct px_chain_stack *st, size_t root)
{
	size_t left = st->n;	/* the frames not yet written, outermost */

	for (size_t i = 0; i < st->nplaces; i++) {
		const struct px_chain_place *pl = &st->places[i];
		const struct px_location *loc = pl->loc;

		for (size_t j = 0; j < pl->nframes; j++) {
			uint32_t fr = st->frames[--left];
			/* the function's frame: the place's last */
			bool offset = loc && j + 1 == pl->nframes && strcmp(loc->func, "??");

			frame_line(p, pl->ip, px_cg_frame_name(r->cg, fr), offset,
				   offset ? pl->ip - (loc->ip - loc->offset) : 0,
				   px_cg_frame_module(r->cg, fr));
		}
	}
	while (left > root) {
		uint32_t fr = st->frames[--left];

		frame_line(p, 0, px_cg_frame_name(r->cg, fr), false, 0,
			   px_cg_frame_module(r->cg, fr));
	}
}

static int export_open(void **state, const struct px_smpl_session *s, FILE *f)
{
	struct px_perfscript *p = calloc(1, sizeof(*p));

	*state = p;
	if (!p)
		return px_fail(ENOMEM, "out of memory");
	p->session = s;
	p->f = f;
	return 0;
}

static int export_add(void *state, const struct px_smpl_result *r,
		      const struct px_smpl_resolved *sr)
{
	struct px_perfscript *p = state;
	const struct px_location *loc = sr->loc;

	p->len = 0;
	header(p, sr->x, sr->comm);
	if (r->cg) {
		/* the root, system-wide: the process, which the header names */
		chain_lines(p, r, &sr->stack,
			    sr->stack.n && px_smpl_per_process(&r->session->o, &r->o));
	} else {
		frame_line(p, loc->ip, strcmp(loc->func, "??") ? loc->func : "[unknown]",
			   strcmp(loc->func, "??"), loc->offset, loc->module);
	}
	put(p, "\n", 1);
	if (p->nomem)
		return px_fail(ENOMEM, "out of memory");
	fwrite_unlocked(p->text, 1, p->len, p->f);
	return 0;
}

static int export_write(void *state, FILE *f)
{
	(void)state;	/* written as the samples came */
	(void)f;
	return 0;
}

static void export_free(void *state)
{
	struct px_perfscript *p = state;

	if (p)
		free(p->text);
	free(p);
}

const struct px_smpl_export px_export_perfscript = {
	export_open, export_add, export_write, export_free,
};
