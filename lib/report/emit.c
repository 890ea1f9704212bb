#include "emit.h"
#include "runctx.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void px_out_init(struct px_out *o, const char *csv_sep, bool json)
{
	memset(o, 0, sizeof(*o));
	o->kind = json ? PX_OUT_JSON : csv_sep ? PX_OUT_CSV : PX_OUT_TEXT;
	o->sep = csv_sep;
}

void px_csv_field(FILE *f, const char *s, const char *sep)
{
	if (!strstr(s, sep) && !strpbrk(s, "\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void px_csv_number(FILE *f, const char *sep, const char *fmt, double v)
{
	fputs(sep, f);
	if (isfinite(v))
		fprintf(f, fmt, v);
}

void px_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void px_json_number(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

void px_run_json(FILE *f)
{
	const struct px_runctx *c = px_runctx();

	fprintf(f, "\"rank\":%ld,\"size\":%ld,\"host\":", c->rank, c->size);
	px_json_string(f, c->host);
	fputs(",\"job\":", f);
	if (*c->job)
		px_json_string(f, c->job);
	else
		fputs("null", f);
}

void px_run_csv_columns(FILE *f, const char *sep)
{
	fprintf(f, "%srank%ssize%shost%sjob", sep, sep, sep, sep);
}

void px_run_csv_values(FILE *f, const char *sep, const struct px_runctx *c)
{
	if (!c)
		c = px_runctx();
	fputs(sep, f);
	if (c->rank >= 0)
		fprintf(f, "%ld", c->rank);
	fprintf(f, "%s%ld%s", sep, c->size, sep);
	px_csv_field(f, c->host, sep);
	fputs(sep, f);
	px_csv_field(f, c->job, sep);
}

void px_run_describe(char *buf, size_t len)
{
	const struct px_runctx *c = px_runctx();

	if (!c->launched)
		snprintf(buf, len, "%s", "");
	else if (*c->job)
		snprintf(buf, len, "rank %ld of %ld on %s, job %s", c->rank, c->size, c->host, c->job);
	else
		snprintf(buf, len, "rank %ld of %ld on %s", c->rank, c->size, c->host);
}

void px_run_text(FILE *f)
{
	char run[400];

	px_run_describe(run, sizeof(run));
	if (*run)
		fprintf(f, "# %s\n", run);
}

static void group_digits(char *buf, size_t len, uint64_t v, char sep)
{
	char digits[32];
	size_t n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v), o = 0;

	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = sep;
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

void px_format_value(char *buf, size_t len, double v, bool msec, enum px_counter_format f)
{
	if (msec)
		snprintf(buf, len, "%.2f msec", v / 1e6);
	else
		px_format_count(buf, len, (uint64_t)(v > 0 ? v + 0.5 : 0), f);
}

void px_format_count(char *buf, size_t len, uint64_t v, enum px_counter_format f)
{
	switch (f) {
	case PX_FMT_US: group_digits(buf, len, v, ','); break;
	case PX_FMT_EU: group_digits(buf, len, v, '.'); break;
	case PX_FMT_HEX: snprintf(buf, len, "0x%" PRIx64, v); break;
	default: snprintf(buf, len, "%" PRIu64, v); break;
	}
}
