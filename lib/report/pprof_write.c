/* --pprof: the profile serialised (profile.proto's field numbers, below)
 * and gzipped into its file (pprof.h). */
#include "pprof_int.h"
#include "error.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

/* profile.proto (github.com/google/pprof, proto/profile.proto) */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT,
	SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_START, MAPPING_LIMIT, MAPPING_OFFSET, MAPPING_FILENAME,
	MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS, MAPPING_HAS_FILENAMES,
	MAPPING_HAS_LINE_NUMBERS, MAPPING_HAS_INLINE_FRAMES,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1, LINE_LINE,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
};

/* Message m as field `field` of b; m emptied for the next one. */
static void nested(struct px_pb *b, unsigned field, struct px_pb *m)
{
	px_pb_bytes(b, field, m->p, m->n);
	if (m->err)
		b->err = m->err;
	px_pb_reset(m);
}

static void value_types(const struct px_pprof *p, struct px_pb *b, struct px_pb *m)
{
	for (size_t c = 0; c < p->ncolumns; c++) {
		px_pb_uint(m, VALUE_TYPE_TYPE, p->type[c]);
		px_pb_uint(m, VALUE_TYPE_UNIT, p->unit[c]);
		nested(b, PROFILE_SAMPLE_TYPE, m);
	}
	/* one sampling event: its period, the events a sample stands for */
	if (p->ncolumns == 2) {
		const struct px_smpl_session_opts *o = &p->session->o;

		for (size_t s = 0; s < o->mon.nsets; s++)
			for (size_t i = 0; i < o->mon.sets[s].n; i++)
				px_pb_uint(b, PROFILE_PERIOD, o->pmds[s][i].long_period);
		px_pb_uint(m, VALUE_TYPE_TYPE, p->type[1]);
		px_pb_uint(m, VALUE_TYPE_UNIT, p->unit[1]);
		nested(b, PROFILE_PERIOD_TYPE, m);
	}
}

/* Each merged sample: its key (locations, labels), then its values. */
static void samples(const struct px_pprof *p, struct px_pb *b, struct px_pb *m)
{
	for (size_t i = 0; i < p->nsamples; i++) {
		px_pb_raw(m, p->keys + p->samples[i].off, p->samples[i].len);
		px_pb_packed(m, SAMPLE_VALUE, p->values + i * p->ncolumns, p->ncolumns);
		nested(b, PROFILE_SAMPLE, m);
	}
}

/* Every mapping holds functions, and, where DWARF was read, files and
 * lines: told so, pprof does not look for the files to symbolise them
 * itself.  The main binary's first. */
static void mappings(const struct px_pprof *p, struct px_pb *b, struct px_pb *m)
{
	size_t first = pp_main_mapping(p);

	for (size_t k = 0; k < p->nmappings; k++) {
		size_t i = !k ? first : k <= first ? k - 1 : k;
		const struct pp_mapping *e = &p->mappings[i];

		px_pb_uint(m, MAPPING_ID, i + 1);
		px_pb_uint(m, MAPPING_START, e->start);
		px_pb_uint(m, MAPPING_LIMIT, e->limit);
		px_pb_uint(m, MAPPING_OFFSET, e->offset);
		px_pb_uint(m, MAPPING_FILENAME, e->file);
		px_pb_uint(m, MAPPING_BUILD_ID, e->build_id);
		px_pb_uint(m, MAPPING_HAS_FUNCTIONS, 1);
		px_pb_uint(m, MAPPING_HAS_FILENAMES, 1);
		px_pb_uint(m, MAPPING_HAS_LINE_NUMBERS, 1);
		px_pb_uint(m, MAPPING_HAS_INLINE_FRAMES, 1);
		nested(b, PROFILE_MAPPING, m);
	}
}

static void locations(const struct px_pprof *p, struct px_pb *b, struct px_pb *m,
		      struct px_pb *line)
{
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct pp_location *l = &p->locations[i];

		px_pb_uint(m, LOCATION_ID, i + 1);
		px_pb_uint(m, LOCATION_MAPPING_ID, l->mapping);
		px_pb_uint(m, LOCATION_ADDRESS, l->address);
		for (size_t k = 0; k < l->nlines; k++) {
			px_pb_uint(line, LINE_FUNCTION_ID, p->lines[l->line + k].function);
			px_pb_uint(line, LINE_LINE, (uint64_t)p->lines[l->line + k].line);
			nested(m, LOCATION_LINE, line);
		}
		nested(b, PROFILE_LOCATION, m);
	}
}

static void functions(const struct px_pprof *p, struct px_pb *b, struct px_pb *m)
{
	for (size_t i = 0; i < p->nfunctions; i++) {
		px_pb_uint(m, FUNCTION_ID, i + 1);
		px_pb_uint(m, FUNCTION_NAME, p->functions[i].name);
		px_pb_uint(m, FUNCTION_SYSTEM_NAME, p->functions[i].name);
		px_pb_uint(m, FUNCTION_FILENAME, p->functions[i].file);
		nested(b, PROFILE_FUNCTION, m);
	}
}

static void strings(const struct px_pprof *p, struct px_pb *b)
{
	for (size_t i = 0; i < p->nstrings; i++)
		px_pb_bytes(b, PROFILE_STRING_TABLE, p->chars + p->strings[i].off,
			    p->strings[i].len);
}

/* The buffer gzipped into f (zlib's deflate with gzip's header and
 * trailer, as pprof reads it). */
static int gzip_write(const struct px_pb *b, FILE *f)
{
	unsigned char out[65536];
	z_stream z = { 0 };
	size_t left = b->n, got;
	int ret = Z_OK, err = 0;

	/* 15 + 16: a window of 2^15, written as gzip */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return px_fail(ENOMEM, "out of memory");
	z.next_in = b->p;
	while (ret == Z_OK && !err) {
		/* avail_in is 32 bits wide */
		size_t chunk = left < (1u << 30) ? left : (1u << 30);

		z.avail_in = (uInt)chunk;
		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = deflate(&z, chunk == left ? Z_FINISH : Z_NO_FLUSH);
		left -= chunk - z.avail_in;
		got = sizeof(out) - z.avail_out;
		if (fwrite(out, 1, got, f) != got)
			err = errno ? errno : EIO;
	}
	deflateEnd(&z);
	if (err)
		return px_fail(err, "cannot write the pprof profile: %s", strerror(err));
	return ret == Z_STREAM_END ? 0 : px_fail(EIO, "cannot compress the pprof profile");
}

int px_pprof_write(struct px_pprof *p, FILE *f)
{
	struct px_pb b = { 0 }, m = { 0 }, line = { 0 };
	int ret;

	if ((ret = pp_mappings_complete(p)))
		return px_fail(ENOMEM, "out of memory");
	value_types(p, &b, &m);
	samples(p, &b, &m);
	mappings(p, &b, &m);
	locations(p, &b, &m, &line);
	functions(p, &b, &m);
	strings(p, &b);
	px_pb_uint(&b, PROFILE_DURATION_NANOS, p->session->run.elapsed_ns);
	if (line.err)
		b.err = line.err;
	ret = b.err ? px_fail(ENOMEM, "out of memory") : gzip_write(&b, f);
	px_pb_free(&b);
	px_pb_free(&m);
	px_pb_free(&line);
	return ret;
}
