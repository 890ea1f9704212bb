#include "scale.h"

void px_value_of(const struct px_count *c, uint64_t total, struct px_value *v)
{
	v->raw = c->value;
	if (c->running == 0 || total == 0) {
		/* enabled but never scheduled, or never enabled at all */
		v->state = PX_NOT_COUNTED;
		v->value = 0;
		v->active_pct = 0;
		return;
	}
	if (c->running >= total) {
		v->state = PX_COUNTED;
		v->value = (double)c->value;
		v->active_pct = 100.0;
		return;
	}
	v->value = (double)c->value * ((double)total / (double)c->running);
	v->active_pct = 100.0 * (double)c->running / (double)total;
	/* a count short of the whole by less than the printed precision
	 * (the enabled times of a set's counters differ by nanoseconds) */
	v->state = v->active_pct < 99.995 ? PX_SCALED : PX_COUNTED;
}

void px_scale(const struct px_count *c, struct px_value *v)
{
	px_value_of(c, c->enabled, v);
}

const char *px_state_name(enum px_state s)
{
	static const char *const names[] = {
		[PX_NOT_SUPPORTED] = "not-supported",
		[PX_NOT_COUNTED] = "not-counted",
		[PX_SCALED] = "scaled",
		[PX_COUNTED] = "counted",
	};

	return s <= PX_COUNTED ? names[s] : "?";
}
