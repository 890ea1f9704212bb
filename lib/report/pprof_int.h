/* The pprof profile being built (lib/report/pprof.h): its tables, shared
 * by the files that fill them (pprof.c: the samples; pprof_tables.c:
 * strings, functions, locations; pprof_mapping.c: mappings) and the one
 * that writes them (pprof_write.c).  Ids are pprof's: an entry's index
 * + 1, 0 for none.  Internal to lib/report. */
#ifndef PX_PPROF_INT_H
#define PX_PPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hindex.h"
#include "pbwire.h"
#include "pprof.h"

struct pp_string {
	size_t off;		/* in chars, NUL-terminated */
	size_t len;
	uint64_t hash;
};

struct pp_function {
	uint32_t name, module;	/* strings: the key */
	uint32_t file;		/* the source file, once a place names it */
};

struct pp_mapping {
	uint64_t start, limit, offset;
	uint32_t file, build_id;	/* strings */
	/* no recorded mapping holds its places: its range is that of their
	 * addresses, completed when written */
	bool derived;
};

struct pp_line {
	uint32_t function;
	int64_t line;
};

/* A place (key: its serial, symbols.h) or a frame of no place (key:
 * PP_FRAME_KEY | its number in the call graph). */
#define PP_FRAME_KEY (1ull << 63)
struct pp_location {
	uint64_t key;
	uint64_t address;	/* 0: none (a frame of no place) */
	uint32_t mapping;
	uint32_t module;	/* a frame's module: its mapping is found by
				 * file name when written */
	size_t line, nlines;	/* in lines */
};

/* Samples alike but for their values, merged: the sample's message
 * without its values (locations and labels) is the key. */
struct pp_sample {
	size_t off, len;	/* in keys */
	uint64_t hash;
};

struct px_pprof {
	const struct px_smpl_session *session;
	char *chars;
	size_t nchars, chars_cap;
	struct pp_string *strings;
	size_t nstrings, strings_cap;
	struct px_hindex string_ix;
	struct pp_function *functions;
	size_t nfunctions, functions_cap;
	struct px_hindex function_ix;
	struct pp_mapping *mappings;
	size_t nmappings, mappings_cap;
	struct pp_location *locations;
	size_t nlocations, locations_cap;
	struct px_hindex location_ix;
	struct pp_line *lines;
	size_t nlines, lines_cap;
	/* value types: column 0 "samples", then each sampling event */
	size_t ncolumns;
	uint32_t *type, *unit;		/* [ncolumns] strings */
	size_t *column;			/* [session->nevents] an event's column,
					 * 0: it does not sample */
	uint32_t label_key[4], label_unit;	/* pid, tid, cpu, set; "id" */
	struct pp_sample *samples;
	size_t nsamples, samples_cap;
	struct px_hindex sample_ix;
	unsigned char *keys;		/* the samples' keys, back to back */
	size_t nkeys, keys_cap;
	uint64_t *values;		/* [nsamples * ncolumns] */
	size_t values_cap;
	/* scratch for one sample */
	struct px_pb key, label;
	uint64_t *ids;
	size_t ids_cap;
	const char **names;
	size_t names_cap;
};

/* The string's number in the string table (0 is "").  >= 0, or -ENOMEM. */
int64_t pp_string(struct px_pprof *p, const char *s);
static inline const char *pp_string_at(const struct px_pprof *p, uint32_t id)
{
	return p->chars + p->strings[id].off;
}

/* The function named name in module (strings), its file set when file
 * is not 0 and it has none yet.  Its id, or -ENOMEM. */
int64_t pp_function(struct px_pprof *p, uint32_t name, uint32_t module, uint32_t file);

/* The location of key, or 0 when there is none yet. */
uint32_t pp_location_find(struct px_pprof *p, uint64_t key);
/* A new location of key (not there yet) with n lines to fill in from
 * *lines: its id, or -ENOMEM. */
int64_t pp_location_new(struct px_pprof *p, uint64_t key, size_t n, struct pp_line **lines);

/* The profile's file written after the last sample: pprof_write.c.  0,
 * or -errno with px_last_error(). */
int px_pprof_write(struct px_pprof *p, FILE *f);

/* The mapping of a place at address ip in the file of that name
 * (a string): the recorded mapping that holds it, else the file's
 * derived one.  Its id, or -ENOMEM. */
int64_t pp_mapping_of(struct px_pprof *p, uint32_t file, uint64_t ip);
/* Before writing: the derived mappings' ranges, the callers' frames'
 * mappings (by file name), every file's build-id.  0 or -ENOMEM. */
int pp_mappings_complete(struct px_pprof *p);
/* The index of the mapping to write first, which pprof takes for the
 * main binary: the command's program, whatever order the samples came
 * in (pprof_mapping.c says how it is found). */
size_t pp_main_mapping(const struct px_pprof *p);

#endif
