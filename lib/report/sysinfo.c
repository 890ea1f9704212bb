#include "sysinfo.h"
#include "backend.h"
#include "error.h"
#include "events.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct emit {
	void (*fn)(const char *key, const char *value, void *arg);
	void *arg;
};

static void emit_file(struct emit *e, const char *key, const char *path)
{
	char buf[256] = "unavailable";
	FILE *f = fopen(path, "r");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	e->fn(key, buf, e->arg);
}

static void emit_pmu(const struct px_pmu_desc *d, void *arg)
{
	struct emit *e = arg;
	char buf[512];

	snprintf(buf, sizeof(buf), "%s (%s), %d events, %d generic and %d fixed counters",
		 d->name, d->desc, d->nevents, d->counters, d->fixed_counters);
	e->fn("libpfm4-pmu", buf, e->arg);
}

static void emit_kernel_pmus(struct emit *e)
{
	char buf[512] = "";
	DIR *dir = opendir("/sys/bus/event_source/devices");
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.' ||
		    strlen(buf) + strlen(de->d_name) + 2 >= sizeof(buf))
			continue;
		strcat(buf, *buf ? " " : "");
		strcat(buf, de->d_name);
	}
	if (dir)
		closedir(dir);
	e->fn("kernel-pmus", *buf ? buf : "none", e->arg);
}

static void emit_backend(struct emit *e, const struct px_backend *be)
{
	char key[64], value[600];
	int ret = be->probe();

	snprintf(key, sizeof(key), "backend-%s", be->name);
	snprintf(value, sizeof(value), "%s", ret ? px_last_error() : "available");
	e->fn(key, value, e->arg);
}

void px_sysinfo_foreach(void (*fn)(const char *key, const char *value, void *arg),
			void *arg)
{
	struct emit e = { fn, arg };
	struct utsname u;
	char buf[64];
	const struct px_backend *chosen;

	if (!uname(&u)) {
		char k[300];

		snprintf(k, sizeof(k), "%s %s %s", u.sysname, u.release, u.machine);
		fn("kernel", k, arg);
	}
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	fn("cpus-online", buf, arg);
	emit_backend(&e, &px_backend_perf);
	emit_backend(&e, &px_backend_module);
	fn("backend-auto", px_backend_select("auto", &chosen) ? "none" : chosen->name, arg);
	emit_kernel_pmus(&e);
	px_pmu_foreach(emit_pmu, &e);
	emit_file(&e, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid");
	emit_file(&e, "perf_event_max_sample_rate", "/proc/sys/kernel/perf_event_max_sample_rate");
	emit_file(&e, "perf_event_mlock_kb", "/proc/sys/kernel/perf_event_mlock_kb");
	emit_file(&e, "nmi_watchdog", "/proc/sys/kernel/nmi_watchdog");
}
