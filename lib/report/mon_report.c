/* pfmon's counts per thread, per CPU or in aggregate, and its intervals,
 * in text, CSV and JSON on the primitives of emit.h. */
#include "mon_report.h"
#include "interval.h"
#include "row.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Text: "+- X%" of a scaled value, "+- ?" when it cannot be told. */
static void text_ci(FILE *f, const struct px_value *v)
{
	if (isnan(v->ci95_pct))
		fputs("  +- ?", f);
	else
		fprintf(f, "  +- %.2f%%", v->ci95_pct);
}

/* ---- text ---- */

static void text_unit(FILE *f, const struct px_monitor *m, const struct px_unit *u,
		      const struct px_out *o)
{
	bool sets = m->opts.nsets > 1;

	if (!u)
		fprintf(f, "# aggregate of %zu %s\n", m->nunits,
			m->opts.system_wide ? "CPUs" : "threads");
	else if (u->tid < 0)
		fprintf(f, "# CPU%d\n", u->cpu);
	else
		fprintf(f, "# pid %d tid %d (%s)\n", (int)u->pid, (int)u->tid, u->comm);
	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			const char *name = m->opts.sets[s].events[i].name;
			bool msec = px_event_is_clock(&m->opts.sets[s].events[i]);
			struct px_value v;
			char num[48];

			px_mon_value(m, u, s, i, &v);
			if (v.state < PX_SCALED) {
				fprintf(f, "%20s  %s", v.state == PX_NOT_SUPPORTED ?
					"<not supported>" : "<not counted>", name);
			} else {
				px_format_value(num, sizeof(num), v.value, msec, o->format);
				fprintf(f, "%20s  %s", num, name);
				if (v.state == PX_SCALED)
					text_ci(f, &v);
				if (sets || v.state == PX_SCALED) {
					px_format_value(num, sizeof(num), (double)v.raw, msec,
							o->format);
					fprintf(f, "  (set %zu, raw %s, active %.2f%%)", s, num,
						v.active_pct);
				}
			}
			fputc('\n', f);
		}
	}
}

static void print_text(FILE *f, const struct px_monitor *m, const struct px_out *o)
{
	px_run_text(f);
	fprintf(f, "# pfmon: backend %s, %zu set%s", m->opts.backend->name,
		m->opts.nsets, m->opts.nsets > 1 ? "s" : "");
	if (m->opts.nsets > 1) {
		fprintf(f, " switched every %.3f ms, runs", m->opts.switch_ns / 1e6);
		for (size_t s = 0; s < m->opts.nsets; s++)
			fprintf(f, " %" PRIu64, m->set_runs[s]);
	}
	fprintf(f, ", %.6f s elapsed\n", m->elapsed_ns / 1e9);
	if (o->aggregate) {
		text_unit(f, m, NULL, o);
		return;
	}
	for (size_t k = 0; k < m->nunits; k++)
		text_unit(f, m, &m->units[k], o);
}

/* ---- CSV and JSON: the rows of row.h ---- */

/* Event i of set s, counted by unit u (NULL: all of them). */
static struct px_row count_row(const struct px_monitor *m, const struct px_unit *u,
			       size_t s, size_t i)
{
	struct px_value v;
	struct px_row row;

	px_mon_value(m, u, s, i, &v);
	row = px_row_count(m->opts.sets[s].events[i].name, (long)s, &v);
	row.unit = !u ? "all" : u->tid < 0 ? "cpu" : "thread";
	if (u && u->tid < 0) {
		row.cpu = u->cpu;
	} else if (u) {
		row.pid = (long)u->pid;
		row.tid = (long)u->tid;
	}
	row.seconds = m->elapsed_ns / 1e9;
	return row;
}

static void csv_unit(FILE *f, const struct px_monitor *m, const struct px_unit *u,
		     const char *sep)
{
	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			struct px_row row = count_row(m, u, s, i);

			px_row_csv(f, sep, &row);
		}
	}
}

static void print_csv(FILE *f, const struct px_monitor *m, struct px_out *o)
{
	const char *sep = o->sep;

	struct px_row end = px_row_elapsed(m->elapsed_ns / 1e9);

	px_out_csv_header(f, o);
	for (size_t k = 0; k < m->nunits; k++)
		csv_unit(f, m, &m->units[k], sep);
	csv_unit(f, m, NULL, sep);
	px_row_csv(f, sep, &end);
}

/* ---- JSON ---- */

static void json_values(FILE *f, const struct px_monitor *m, const struct px_unit *u)
{
	bool first = true;

	fputs("\"events\":[", f);
	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			struct px_row row = count_row(m, u, s, i);

			row.seconds = NAN;	/* the document's elapsed_seconds */
			row.pid = row.tid = row.cpu = -1;	/* the unit's */
			fputs(first ? "" : ",", f);
			px_row_json(f, &row);
			first = false;
		}
	}
	fputc(']', f);
}

static void print_json(FILE *f, const struct px_monitor *m)
{
	fprintf(f, "{\"schema\":%d,\"tool\":\"pfmon\",", PX_SCHEMA);
	px_run_json(f);
	fputs(",\"command\":[", f);
	for (size_t i = 0; m->opts.argv && m->opts.argv[i]; i++) {
		fputs(i ? "," : "", f);
		px_json_string(f, m->opts.argv[i]);
	}
	fprintf(f, "],\"backend\":\"%s\",\"exit_status\":%d,\"elapsed_seconds\":%.9f",
		m->opts.backend->name, m->exit_code, m->elapsed_ns / 1e9);
	fprintf(f, ",\"switch_ms\":%.3f,\"sets\":[", m->opts.switch_ns / 1e6);
	for (size_t s = 0; s < m->opts.nsets; s++)
		fprintf(f, "%s{\"id\":%zu,\"runs\":%" PRIu64 "}", s ? "," : "", s,
			m->set_runs[s]);
	fputs("],\"units\":[", f);
	for (size_t k = 0; k < m->nunits; k++) {
		const struct px_unit *u = &m->units[k];

		if (u->tid < 0)
			fprintf(f, "%s{\"kind\":\"cpu\",\"cpu\":%d,", k ? "," : "", u->cpu);
		else {
			fprintf(f, "%s{\"kind\":\"thread\",\"pid\":%d,\"tid\":%d,\"comm\":",
				k ? "," : "", (int)u->pid, (int)u->tid);
			px_json_string(f, u->comm);
			fputc(',', f);
		}
		json_values(f, m, u);
		fputc('}', f);
	}
	/* the aggregate over the units: the document's own events */
	fputs("],", f);
	json_values(f, m, NULL);
	fputs("}\n", f);
}

void px_mon_print(FILE *f, const struct px_monitor *m, struct px_out *o)
{
	if (o->kind == PX_OUT_JSON)
		print_json(f, m);
	else if (o->kind == PX_OUT_CSV)
		print_csv(f, m, o);
	else
		print_text(f, m, o);
}

int px_mon_interval_init(struct px_mon_interval *iv, FILE *f,
			 struct px_out *o, size_t nevents)
{
	iv->f = f;
	iv->out = o;
	iv->prev = calloc(nevents ? nevents : 1, sizeof(double));
	return iv->prev ? 0 : -1;
}

void px_mon_interval_print(const struct px_monitor *m, void *arg)
{
	struct px_mon_interval *iv = arg;
	double t = m->elapsed_ns / 1e9;

	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			size_t k = px_monitor_index(m, s, i);
			struct px_value v;
			double delta;

			px_mon_value(m, NULL, s, i, &v);
			if (v.state < PX_SCALED)
				continue;
			delta = v.value - iv->prev[k];
			iv->prev[k] = v.value;
			px_interval_row(iv->f, iv->out, t, (long)s,
					m->opts.sets[s].events[i].name,
					px_event_is_clock(&m->opts.sets[s].events[i]), delta);
		}
	}
	fflush(iv->f);
}

void px_mon_interval_free(struct px_mon_interval *iv)
{
	free(iv->prev);
	iv->prev = NULL;
}
