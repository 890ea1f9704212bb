#include "mon_report.h"
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The time unit u was measured: the sum over sets of the time each set was
 * enabled (exactly one set is enabled at a time). */
static uint64_t unit_total(const struct px_monitor *m, const struct px_unit *u)
{
	uint64_t total = 0;

	for (size_t s = 0; s < m->opts.nsets; s++) {
		uint64_t best = 0;

		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			const struct px_count *c = &u->counts[px_monitor_index(m, s, i)];

			if (c->enabled > best)
				best = c->enabled;
		}
		total += best;
	}
	return total;
}

static void unit_value(const struct px_monitor *m, const struct px_unit *u,
		       size_t s, size_t i, struct px_mon_value *v, uint64_t *enabled,
		       uint64_t *total)
{
	size_t k = px_monitor_index(m, s, i);
	const struct px_count *c = &u->counts[k];

	*total = unit_total(m, u);
	*enabled = c->enabled;
	memset(v, 0, sizeof(*v));
	if (u->status[k]) {
		v->state = PX_MV_NOT_SUPPORTED;
		return;
	}
	if (c->running == 0 || c->enabled == 0 || *total == 0) {
		v->state = PX_MV_NOT_COUNTED;
		return;
	}
	v->state = PX_MV_COUNTED;
	v->raw = c->value;
	/* multiplexed by the kernel inside the set as well: running < enabled */
	v->scaled = (double)c->value * ((double)*total / (double)c->running);
	v->active_pct = 100.0 * (double)c->running / (double)*total;
}

void px_mon_value(const struct px_monitor *m, const struct px_unit *u,
		  size_t s, size_t i, struct px_mon_value *v)
{
	uint64_t enabled, total, sum_running = 0, sum_total = 0;
	bool any_supported = false;

	if (u) {
		unit_value(m, u, s, i, v, &enabled, &total);
		return;
	}
	memset(v, 0, sizeof(*v));
	v->state = PX_MV_NOT_COUNTED;
	for (size_t k = 0; k < m->nunits; k++) {
		struct px_mon_value one;

		unit_value(m, &m->units[k], s, i, &one, &enabled, &total);
		if (one.state != PX_MV_NOT_SUPPORTED)
			any_supported = true;
		sum_total += total;
		if (one.state != PX_MV_COUNTED)
			continue;
		v->state = PX_MV_COUNTED;
		v->raw += one.raw;
		v->scaled += one.scaled;
		sum_running += m->units[k].counts[px_monitor_index(m, s, i)].running;
	}
	if (!any_supported && m->nunits)
		v->state = PX_MV_NOT_SUPPORTED;
	if (sum_total)
		v->active_pct = 100.0 * (double)sum_running / (double)sum_total;
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

void px_format_count(char *buf, size_t len, uint64_t v, enum px_counter_format f)
{
	switch (f) {
	case PX_FMT_US: group_digits(buf, len, v, ','); break;
	case PX_FMT_EU: group_digits(buf, len, v, '.'); break;
	case PX_FMT_HEX: snprintf(buf, len, "0x%" PRIx64, v); break;
	default: snprintf(buf, len, "%" PRIu64, v); break;
	}
}

static const char *state_name(const struct px_mon_value *v)
{
	return v->state == PX_MV_NOT_SUPPORTED ? "not-supported" :
	       v->state == PX_MV_NOT_COUNTED ? "not-counted" :
	       v->active_pct < 99.995 ? "scaled" : "counted";
}

/* ---- text ---- */

static void text_unit(FILE *f, const struct px_monitor *m, const struct px_unit *u,
		      const struct px_mon_print *p)
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
			struct px_mon_value v;
			char num[48];

			px_mon_value(m, u, s, i, &v);
			if (v.state != PX_MV_COUNTED) {
				fprintf(f, "%20s  %s", v.state == PX_MV_NOT_SUPPORTED ?
					"<not supported>" : "<not counted>", name);
			} else {
				px_format_count(num, sizeof(num), (uint64_t)(v.scaled + 0.5),
						p->format);
				fprintf(f, "%20s  %s", num, name);
				if (sets || v.active_pct < 99.995) {
					px_format_count(num, sizeof(num), v.raw, p->format);
					fprintf(f, "  (set %zu, raw %s, active %.2f%%)", s, num,
						v.active_pct);
				}
			}
			fputc('\n', f);
		}
	}
}

static void print_text(FILE *f, const struct px_monitor *m, const struct px_mon_print *p)
{
	fprintf(f, "# pfmon: backend %s, %zu set%s", m->opts.backend->name,
		m->opts.nsets, m->opts.nsets > 1 ? "s" : "");
	if (m->opts.nsets > 1) {
		fprintf(f, " switched every %.3f ms, runs", m->opts.switch_ns / 1e6);
		for (size_t s = 0; s < m->opts.nsets; s++)
			fprintf(f, " %" PRIu64, m->set_runs[s]);
	}
	fprintf(f, ", %.6f s elapsed\n", m->elapsed_ns / 1e9);
	if (p->aggregate) {
		text_unit(f, m, NULL, p);
		return;
	}
	for (size_t k = 0; k < m->nunits; k++)
		text_unit(f, m, &m->units[k], p);
}

/* ---- CSV ---- */

static void csv_header(FILE *f, struct px_mon_print *p)
{
	const char *cols[] = { "unit", "pid", "tid", "cpu", "set", "event",
			       "value", "raw", "active_pct", "status", "seconds" };

	if (p->csv_header_done)
		return;
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fprintf(f, "%s%s", c ? p->separator : "", cols[c]);
	fputc('\n', f);
	p->csv_header_done = true;
}

static void csv_unit(FILE *f, const struct px_monitor *m, const struct px_unit *u,
		     const char *sep)
{
	double secs = m->elapsed_ns / 1e9;

	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			struct px_mon_value v;

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
			if (v.state == PX_MV_COUNTED)
				fprintf(f, "%s%.0f%s%" PRIu64 "%s%.2f%s%s", sep, v.scaled,
					sep, v.raw, sep, v.active_pct, sep, state_name(&v));
			else
				fprintf(f, "%s%s%s%s%s", sep, sep, sep, sep, state_name(&v));
			fprintf(f, "%s%.6f\n", sep, secs);
		}
	}
}

static void print_csv(FILE *f, const struct px_monitor *m, struct px_mon_print *p)
{
	const char *sep = p->separator;

	csv_header(f, p);
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
			struct px_mon_value v;

			px_mon_value(m, u, s, i, &v);
			fprintf(f, "%s{\"set\":%zu,\"name\":", first ? "" : ",", s);
			px_json_string(f, m->opts.sets[s].events[i].name);
			fprintf(f, ",\"status\":\"%s\"", state_name(&v));
			if (v.state == PX_MV_COUNTED)
				fprintf(f, ",\"value\":%.0f,\"raw\":%" PRIu64 ",\"active_pct\":%.2f}",
					v.scaled, v.raw, v.active_pct);
			else
				fputs(",\"value\":null}", f);
			first = false;
		}
	}
	fputc(']', f);
}

static void print_json(FILE *f, const struct px_monitor *m)
{
	fputs("{\"tool\":\"pfmon\",\"command\":[", f);
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

void px_mon_print(FILE *f, const struct px_monitor *m, struct px_mon_print *p)
{
	if (p->json)
		print_json(f, m);
	else if (p->separator)
		print_csv(f, m, p);
	else
		print_text(f, m, p);
}

int px_mon_interval_init(struct px_mon_interval *iv, FILE *f,
			 struct px_mon_print *p, size_t nevents)
{
	iv->f = f;
	iv->print = p;
	iv->prev = calloc(nevents ? nevents : 1, sizeof(double));
	return iv->prev ? 0 : -1;
}

void px_mon_interval_print(const struct px_monitor *m, void *arg)
{
	struct px_mon_interval *iv = arg;
	const char *sep = iv->print->separator;
	double t = m->elapsed_ns / 1e9;

	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			const char *name = m->opts.sets[s].events[i].name;
			size_t k = px_monitor_index(m, s, i);
			struct px_mon_value v;
			double delta;
			char num[48];

			px_mon_value(m, NULL, s, i, &v);
			if (v.state != PX_MV_COUNTED)
				continue;
			delta = v.scaled - iv->prev[k];
			iv->prev[k] = v.scaled;
			if (iv->print->json) {
				fprintf(iv->f, "{\"interval_seconds\":%.6f,\"set\":%zu,\"name\":", t, s);
				px_json_string(iv->f, name);
				fprintf(iv->f, ",\"delta\":%.0f,\"value\":%.0f}\n", delta, v.scaled);
			} else if (sep) {
				/* value is the change; raw, active_pct stay empty */
				csv_header(iv->f, iv->print);
				fprintf(iv->f, "interval%s%s%s%s%zu%s", sep, sep, sep, sep, s, sep);
				px_csv_field(iv->f, name, sep);
				fprintf(iv->f, "%s%.0f%s%s%sinterval%s%.6f\n", sep, delta,
					sep, sep, sep, sep, t);
			} else {
				px_format_count(num, sizeof(num), (uint64_t)(delta > 0 ? delta + 0.5 : 0),
						iv->print->format);
				fprintf(iv->f, "%12.6f %20s  %s\n", t, num, name);
			}
		}
	}
	fflush(iv->f);
}

void px_mon_interval_free(struct px_mon_interval *iv)
{
	free(iv->prev);
	iv->prev = NULL;
}
