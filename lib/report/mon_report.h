/* Printing a pfmon session: per thread or per CPU, or aggregated, with each
 * count's raw value, its scaled estimate and the time its set was active. */
#ifndef PX_MON_REPORT_H
#define PX_MON_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "monitor.h"

enum px_counter_format {
	PX_FMT_PLAIN,	/* 1234567 */
	PX_FMT_US,	/* 1,234,567 */
	PX_FMT_EU,	/* 1.234.567 */
	PX_FMT_HEX,	/* 0x12d687 */
};

struct px_mon_print {
	bool aggregate;
	enum px_counter_format format;
	const char *separator;	/* CSV when set */
	bool json;
	bool csv_header_done;	/* set once the CSV header is out */
};

/* One event's result in one unit (or the aggregate). */
struct px_mon_value {
	enum { PX_MV_NOT_SUPPORTED, PX_MV_NOT_COUNTED, PX_MV_COUNTED } state;
	uint64_t raw;
	double scaled;
	double active_pct;	/* share of the unit's time its set ran */
};

/* The value of set s, event i over unit u (NULL: aggregate of all). */
void px_mon_value(const struct px_monitor *m, const struct px_unit *u,
		  size_t s, size_t i, struct px_mon_value *v);

void px_format_count(char *buf, size_t len, uint64_t v, enum px_counter_format f);

/* CSV has one header for the interval rows and the final rows:
 * unit,pid,tid,cpu,set,event,value,raw,active_pct,status,seconds */
void px_mon_print(FILE *f, const struct px_monitor *m, struct px_mon_print *p);

/* --print-interval: one line per event at each interval with the change
 * of its (aggregate, scaled) count since the previous line. */
struct px_mon_interval {
	FILE *f;
	struct px_mon_print *print;
	double *prev;		/* [events over all sets] */
};
int px_mon_interval_init(struct px_mon_interval *iv, FILE *f,
			 struct px_mon_print *p, size_t nevents);
void px_mon_interval_print(const struct px_monitor *m, void *iv);
void px_mon_interval_free(struct px_mon_interval *iv);

#endif
