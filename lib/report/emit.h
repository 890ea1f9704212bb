/* What every printer of lib/report shares: the output's settings (text,
 * CSV or JSON; the separator; how text counts are grouped; how many
 * profile rows) and the primitives that write fields, so that perfex's
 * counts, pfmon's counts per thread, CPU or in aggregate, the intervals,
 * the sampling summary and the profiles are written alike. */
#ifndef PX_EMIT_H
#define PX_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum px_out_kind { PX_OUT_TEXT, PX_OUT_CSV, PX_OUT_JSON };

enum px_counter_format {
	PX_FMT_PLAIN,	/* 1234567 */
	PX_FMT_US,	/* 1,234,567 */
	PX_FMT_EU,	/* 1.234.567 */
	PX_FMT_HEX,	/* 0x12d687 */
};

struct px_out {
	enum px_out_kind kind;
	const char *sep;		/* CSV: between fields */
	enum px_counter_format format;	/* text: counts */
	bool aggregate;			/* pfmon: the sum over units only */
	size_t top;			/* profiles: rows per event; 0: all */
	bool callers;			/* call graphs: the caller and callee
					 * trees of the top functions */
	bool full_paths;		/* text: modules by their full path
					 * (pfmon -v); else their file name */
	bool csv_header_done;		/* the CSV header is out (intervals
					 * and the final rows share it) */
};

/* The settings of -x SEP / --json / neither. */
void px_out_init(struct px_out *o, const char *csv_sep, bool json);

/* A CSV field, quoted when it holds the separator, a quote or a line end. */
void px_csv_field(FILE *f, const char *s, const char *sep);
/* A CSV number by fmt, after sep; NaN and infinity (no value: an
 * undefined spread, a statistic of no runs) as an empty field. */
void px_csv_number(FILE *f, const char *sep, const char *fmt, double v);
/* A JSON string with its quotes and escapes. */
void px_json_string(FILE *f, const char *s);
/* A JSON number by fmt; NaN and infinity, which JSON lacks, as null. */
void px_json_number(FILE *f, const char *fmt, double v);

/* The run's place in a parallel job (lib/base/runctx.h), in every output:
 * JSON keys "rank":R,"size":N,"host":"H","job":"J" (null when none),
 * written without braces or commas around them; */
void px_run_json(FILE *f);
/* CSV: the header's last columns ",rank,size,host,job" and a row's values
 * for them (c: another run's, NULL: this one's; a rank < 0 and an empty
 * host are left empty), each with its leading separator; */
void px_run_csv_columns(FILE *f, const char *sep);
struct px_runctx;
void px_run_csv_values(FILE *f, const char *sep, const struct px_runctx *c);
/* text: "# rank R of N on HOST, job J" when a launcher started the run; */
void px_run_text(FILE *f);
/* the same words without "# " into buf ("" when no launcher started the
 * run), for titles such as the flame graph's. */
void px_run_describe(char *buf, size_t len);

/* A count for text, grouped as the format says. */
void px_format_count(char *buf, size_t len, uint64_t v, enum px_counter_format f);
/* A value for text: nanoseconds of a clock event (msec) as perf stat
 * shows them, "1.57 msec"; any other count as px_format_count(). */
void px_format_value(char *buf, size_t len, double v, bool msec, enum px_counter_format f);

#endif
