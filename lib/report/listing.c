#include "listing.h"
#include "events.h"
#include "sysinfo.h"

struct list_ctx {
	FILE *f;
	bool long_list;
};

static void list_one(const struct px_event_desc *d, void *arg)
{
	struct list_ctx *c = arg;

	fprintf(c->f, "%s::%s\n", d->pmu, d->name);
	if (!c->long_list)
		return;
	if (d->equiv)
		fprintf(c->f, "\talias of %s\n", d->equiv);
	fprintf(c->f, "\t%s\n", d->desc);
}

int px_print_event_list(FILE *f, const char *pattern, bool long_list)
{
	struct list_ctx c = { f, long_list };

	return px_event_foreach(pattern, list_one, &c);
}

static void name_one(const struct px_event_desc *d, void *arg)
{
	fprintf(arg, "%s\n%s::%s\n", d->name, d->pmu, d->name);
}

void px_print_event_names(FILE *f)
{
	px_event_foreach(NULL, name_one, f);
}

static void info_one(const char *key, const char *value, void *arg)
{
	fprintf(arg, "%-28s %s\n", key, value);
}

void px_print_sysinfo(FILE *f)
{
	px_sysinfo_foreach(info_one, f);
}
