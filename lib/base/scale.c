#include "scale.h"

void px_scale(const struct px_count *c, struct px_scaled *out)
{
	out->raw = c->value;
	if (c->running == 0) {
		/* enabled but never scheduled, or never enabled at all */
		out->state = PX_NOT_COUNTED;
		out->value = 0;
		out->running_pct = 0;
		return;
	}
	if (c->running >= c->enabled) {
		out->state = PX_EXACT;
		out->value = (double)c->value;
		out->running_pct = 100.0;
		return;
	}
	out->state = PX_SCALED;
	out->value = (double)c->value * ((double)c->enabled / (double)c->running);
	out->running_pct = 100.0 * (double)c->running / (double)c->enabled;
}
