/* pfmon's counts per thread, per CPU or in aggregate, and its intervals,
 * in text, CSV and JSON on the primitives of emit.h. */
#include "mon_report.h"
#include "interval.h"

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

/* CSV and JSON: the number, or empty / null when unknown or counted. */
static void csv_ci(FILE *f, const char *sep, const struct px_value *v)
{
	fputs(sep, f);
	if (v->state >= PX_SCALED && isfinite(v->ci95_pct))
		fprintf(f, "%.2f", v->ci95_pct);
}

static void json_ci(FILE *f, const struct px_value *v)
{
	px_json_number(f, ",\"ci95_pct\":%.2f",
		       v->state >= PX_SCALED ? v->ci95_pct : NAN);
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
			struct px_value v;
			char num[48];

			px_mon_value(m, u, s, i, &v);
			if (v.state < PX_SCALED) {
				fprintf(f, "%20s  %s", v.state == PX_NOT_SUPPORTED ?
					"<not supported>" : "<not counted>", name);
			} else {
				px_format_count(num, sizeof(num), (uint64_t)(v.value + 0.5),
						o->format);
				fprintf(f, "%20s  %s", num, name);
				if (v.state == PX_SCALED)
					text_ci(f, &v);
				if (sets || v.state == PX_SCALED) {
					px_format_count(num, sizeof(num), v.raw, o->format);
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

/* ---- CSV ---- */

static void csv_header(FILE *f, struct px_out *o)
{
	const char *cols[] = { "unit", "pid", "tid", "cpu", "set", "event",
			       "value", "raw", "active_pct", "status", "seconds",
			       "ci95_pct" };

	if (o->csv_header_done)
		return;
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fprintf(f, "%s%s", c ? o->sep : "", cols[c]);
	px_run_csv_columns(f, o->sep);
	fputc('\n', f);
	o->csv_header_done = true;
}

static void csv_unit(FILE *f, const struct px_monitor *m, const struct px_unit *u,
		     const char *sep)
{
	double secs = m->elapsed_ns / 1e9;

	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			struct px_value v;

			px_mon_value(m, u, s, i, &v);
			if (!u)
				fprintf(f, "all%s%s%s%s", sep, sep, sep, sep);
			else if (u->tid < 0)
				fprintf(f, "cpu%s%s%s%d%s", sep, sep, sep, u->cpu, sep);
			else
				fprintf(f, "thread%s%d%s%d%s%s", sep, (int)u->pid, sep,
					(int)u->tid, sep, sep);
			fprintf(f, "%zu%s", s, sep);
			px_csv_field(f, m->opts.sets[s].events[i].name, sep);
			if (v.state >= PX_SCALED)
				fprintf(f, "%s%.0f%s%" PRIu64 "%s%.2f%s%s", sep, v.value,
					sep, v.raw, sep, v.active_pct, sep, px_state_name(v.state));
			else
				fprintf(f, "%s%s%s%s%s", sep, sep, sep, sep, px_state_name(v.state));
			fprintf(f, "%s%.6f", sep, secs);
			csv_ci(f, sep, &v);
			px_run_csv_values(f, sep);
			fputc('\n', f);
		}
	}
}

static void print_csv(FILE *f, const struct px_monitor *m, struct px_out *o)
{
	const char *sep = o->sep;

	csv_header(f, o);
	for (size_t k = 0; k < m->nunits; k++)
		csv_unit(f, m, &m->units[k], sep);
	csv_unit(f, m, NULL, sep);
}

/* ---- JSON ---- */

static void json_values(FILE *f, const struct px_monitor *m, const struct px_unit *u)
{
	bool first = true;

	fputs("\"events\":[", f);
	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			struct px_value v;

			px_mon_value(m, u, s, i, &v);
			fprintf(f, "%s{\"set\":%zu,\"name\":", first ? "" : ",", s);
			px_json_string(f, m->opts.sets[s].events[i].name);
			fprintf(f, ",\"status\":\"%s\"", px_state_name(v.state));
			if (v.state >= PX_SCALED) {
				fprintf(f, ",\"value\":%.0f,\"raw\":%" PRIu64 ",\"active_pct\":%.2f",
					v.value, v.raw, v.active_pct);
				json_ci(f, &v);
				fputc('}', f);
			} else {
				fputs(",\"value\":null}", f);
			}
			first = false;
		}
	}
	fputc(']', f);
}

static void print_json(FILE *f, const struct px_monitor *m)
{
	fputs("{\"tool\":\"pfmon\",", f);
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
	fputs("],\"aggregate\":{", f);
	json_values(f, m, NULL);
	fputs("}}\n", f);
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
			if (iv->out->kind == PX_OUT_CSV)
				csv_header(iv->f, iv->out);
			px_interval_row(iv->f, iv->out, t, (long)s,
					m->opts.sets[s].events[i].name, delta, v.value);
		}
	}
	fflush(iv->f);
}

void px_mon_interval_free(struct px_mon_interval *iv)
{
	free(iv->prev);
	iv->prev = NULL;
}
