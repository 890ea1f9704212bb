/* The one file of the project that talks to libpfm4. */
#include "events.h"
#include "error.h"
#include "uprobe.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SUGGESTIONS_MAX 4

static pthread_mutex_t pfm_lock = PTHREAD_MUTEX_INITIALIZER;
static bool pfm_ready;		/* pfm_initialize() was called */
static bool pfm_all_tables;	/* ... with every PMU model libpfm4 detects */
static int pfm_init_status;

/* The kernel's perf PMUs that count without any hardware PMU. */
static bool is_software_pmu(const char *name)
{
	static const char *const soft[] = {
		"software", "tracepoint", "breakpoint", "kprobe", "uprobe", "msr",
	};

	for (size_t i = 0; i < sizeof(soft) / sizeof(soft[0]); i++)
		if (!strcmp(name, soft[i]))
			return true;
	return false;
}

/* True when the kernel lists perf PMUs and none of them is a hardware one
 * (no cpu, cpu_core, armv8_*, uncore_*, power, ...). */
static bool kernel_has_no_hardware_pmu(void)
{
	DIR *dir = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	bool any = false, hardware = false;

	if (!dir)
		return false;
	while (!hardware && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		any = true;
		hardware = !is_software_pmu(de->d_name);
	}
	closedir(dir);
	return any && !hardware;
}

/* Load libpfm4's perf_events generic table alone (LIBPFM_FORCE_PMU, a
 * libpfm4 setting read only by pfm_initialize; removed again so that
 * commands started later do not inherit it). */
static int pfm_init_perf_only(void)
{
	int ret;

	if (setenv("LIBPFM_FORCE_PMU", "perf", 1))
		return PFM_ERR_NOMEM;
	ret = pfm_initialize();
	unsetenv("LIBPFM_FORCE_PMU");
	return ret;
}

/*
 * Initialise libpfm4 once, with all tables when all is true.
 *
 * libpfm4 probes every PMU model it knows, and on x86 each model's probe
 * runs cpuid, which traps to the hypervisor in a virtual machine: most of
 * perfex's start-up there.  When the kernel exposes no hardware PMU no
 * model-specific event can be counted, so event encoding first tries
 * libpfm4's perf_events table alone (perf's generic and software names);
 * a name it does not know (a raw code, a model's event, a typo) brings
 * the full initialisation and is looked up again, so what a name means
 * never changes, only how soon the common ones are found.  Listings and
 * suggestions always use the full tables.  A LIBPFM_FORCE_PMU of the user
 * is left to libpfm4.
 */
static int ensure_pfm_tables(bool all)
{
	pthread_mutex_lock(&pfm_lock);
	if (pfm_ready && !pfm_all_tables && all) {
		pfm_terminate();
		pfm_ready = false;
	}
	if (!pfm_ready) {
		bool perf_only = !all && !getenv("LIBPFM_FORCE_PMU") &&
				 kernel_has_no_hardware_pmu();

		pfm_init_status = perf_only ? pfm_init_perf_only() : pfm_initialize();
		pfm_all_tables = !perf_only;
		pfm_ready = true;
	}
	pthread_mutex_unlock(&pfm_lock);
	if (pfm_init_status != PFM_SUCCESS)
		return px_fail(EIO, "libpfm4 failed to initialise: %s",
			       pfm_strerror(pfm_init_status));
	return 0;
}

static int ensure_pfm(void)
{
	return ensure_pfm_tables(true);
}

/* Case-insensitive edit distance, bounded to short names. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[PX_EVENT_NAME_MAX + 1];

	if (la > PX_EVENT_NAME_MAX || lb > PX_EVENT_NAME_MAX)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct suggestion_search {
	const char *wanted;
	size_t limit;
	char names[SUGGESTIONS_MAX][PX_EVENT_NAME_MAX];
	size_t dist[SUGGESTIONS_MAX];
	int count;
};

static void consider_suggestion(const struct px_event_desc *d, void *arg)
{
	struct suggestion_search *s = arg;
	size_t dist = edit_distance(s->wanted, d->name);
	int slot;

	if (strcasestr(d->name, s->wanted) && strlen(s->wanted) >= 3)
		dist = 1;	/* a part of a long name is a good hint */
	if (dist > s->limit)
		return;
	if (s->count < SUGGESTIONS_MAX) {
		slot = s->count++;
	} else {
		slot = 0;
		for (int i = 1; i < SUGGESTIONS_MAX; i++)
			if (s->dist[i] > s->dist[slot])
				slot = i;
		if (s->dist[slot] <= dist)
			return;
	}
	s->dist[slot] = dist;
	snprintf(s->names[slot], sizeof(s->names[slot]), "%s", d->name);
}

static int unknown_event(const char *spec)
{
	struct suggestion_search s = { .wanted = spec };
	char hint[SUGGESTIONS_MAX * (PX_EVENT_NAME_MAX + 2) + 64] = "";
	const char *bare = strstr(spec, "::");

	if (bare)
		s.wanted = bare + 2;
	s.limit = strlen(s.wanted) / 3 + 1;
	px_event_foreach(NULL, consider_suggestion, &s);
	for (int i = 0; i < s.count; i++) {
		strcat(hint, i ? ", " : "; did you mean: ");
		strcat(hint, s.names[i]);
	}
	return px_fail(ENOENT, "unknown event '%s'%s (list them with -l)",
		       spec, hint);
}

static int parse_bp_access(const char *s, uint32_t *type)
{
	*type = 0;
	for (; *s; s++) {
		switch (*s) {
		case 'r': *type |= PX_BP_R; break;
		case 'w': *type |= PX_BP_W; break;
		case 'x': *type |= PX_BP_X; break;
		default: return -1;
		}
	}
	/* perf accepts r, w, rw and x; an execute breakpoint cannot watch data */
	if (*type == 0 || ((*type & PX_BP_X) && *type != PX_BP_X))
		return -1;
	return 0;
}

/* mem:ADDR[/LEN][:access], perf's breakpoint syntax. */
static int parse_breakpoint(const char *spec, struct px_event *ev)
{
	const char *p = spec + 4;
	char *end;

	errno = 0;
	ev->bp_addr = strtoull(p, &end, 0);
	if (end == p || errno)
		return px_fail(EINVAL,
			       "bad breakpoint '%s': expected mem:ADDR[/LEN][:r|w|rw|x] with a numeric address",
			       spec);
	ev->bp_len = 0;
	if (*end == '/') {
		p = end + 1;
		ev->bp_len = strtoull(p, &end, 0);
		if (end == p || (ev->bp_len != 1 && ev->bp_len != 2 &&
				 ev->bp_len != 4 && ev->bp_len != 8))
			return px_fail(EINVAL,
				       "bad breakpoint length in '%s': use 1, 2, 4 or 8",
				       spec);
	}
	ev->bp_type = PX_BP_R | PX_BP_W;
	if (*end == ':') {
		if (parse_bp_access(end + 1, &ev->bp_type))
			return px_fail(EINVAL,
				       "bad breakpoint access in '%s': use r, w, rw or x",
				       spec);
	} else if (*end) {
		return px_fail(EINVAL,
			       "bad breakpoint '%s': expected mem:ADDR[/LEN][:r|w|rw|x]",
			       spec);
	}
	if (ev->bp_len == 0)
		ev->bp_len = (ev->bp_type & PX_BP_X) ? sizeof(long) : 4;
	ev->kind = PX_EVENT_BREAKPOINT;
	ev->type = 5;	/* PERF_TYPE_BREAKPOINT */
	snprintf(ev->encoded, sizeof(ev->encoded), "mem:0x%llx/%llu:%s%s%s",
		 (unsigned long long)ev->bp_addr,
		 (unsigned long long)ev->bp_len,
		 ev->bp_type & PX_BP_R ? "r" : "",
		 ev->bp_type & PX_BP_W ? "w" : "",
		 ev->bp_type & PX_BP_X ? "x" : "");
	return 0;
}

/* perfex took raw selectors as hex numbers; libpfm4 spells them rHEX. */
static const char *raw_to_pfm(const char *spec, char *buf, size_t len)
{
	const char *p = spec;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2]))
		return spec;
	p += 2;
	while (isxdigit((unsigned char)*p))
		p++;
	if (*p && *p != ':')
		return spec;
	snprintf(buf, len, "r%s", spec + 2);
	return buf;
}

static bool has_priv_modifier(const char *spec)
{
	const char *m = strchr(spec, ':');

	while (m && m[1] == ':')	/* skip the pmu:: prefix */
		m = strchr(m + 2, ':');
	for (; m; m = strchr(m + 1, ':')) {
		if (!strncmp(m, ":u", 2) || !strncmp(m, ":k", 2))
			return true;
	}
	return false;
}

static int encode_with_pfm(const char *spec, struct px_event *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char raw[PX_EVENT_NAME_MAX + 2];
	char *fstr = NULL;
	const char *name = raw_to_pfm(spec, raw, sizeof(raw));
	bool all = false;
	int ret;

	for (;;) {
		ret = ensure_pfm_tables(all);
		if (ret)
			return ret;
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &attr;
		arg.size = sizeof(arg);
		arg.fstr = &fstr;
		ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
						PFM_OS_PERF_EVENT_EXT, &arg);
		if (ret != PFM_ERR_NOTFOUND || pfm_all_tables)
			break;
		all = true;	/* not a perf_events name: look everywhere */
	}
	if (ret == PFM_ERR_NOTFOUND)
		return unknown_event(spec);
	if (ret != PFM_SUCCESS)
		return px_fail(EINVAL, "bad event '%s': %s", spec,
			       pfm_strerror(ret));
	ev->kind = PX_EVENT_GENERIC;
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->exclude_user = attr.exclude_user;
	ev->exclude_kernel = attr.exclude_kernel;
	ev->exclude_hv = attr.exclude_hv;
	ev->priv_explicit = has_priv_modifier(spec);
	snprintf(ev->encoded, sizeof(ev->encoded), "%.*s",
		 (int)sizeof(ev->encoded) - 1, fstr ? fstr : name);
	free(fstr);
	return 0;
}

int px_event_parse(const char *spec, struct px_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!spec || !*spec)
		return px_fail(EINVAL, "empty event name");
	if (strlen(spec) >= PX_EVENT_NAME_MAX)
		return px_fail(EINVAL, "event name too long: '%.40s...'", spec);
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	if (!strncmp(spec, "mem:", 4))
		return parse_breakpoint(spec, ev);
	if (px_uprobe_is(spec))
		return px_uprobe_parse(spec, ev);
	return encode_with_pfm(spec, ev);
}

int px_event_parse_list(const char *list, struct px_event **evs, size_t *n)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return px_fail(ENOMEM, "out of memory");
	if (!*copy || copy[strlen(copy) - 1] == ',' || copy[0] == ',' ||
	    strstr(copy, ",,")) {
		free(copy);
		return px_fail(EINVAL, "empty event name in list '%s'", list);
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		struct px_event *grown = realloc(*evs, (*n + 1) * sizeof(**evs));

		if (!grown) {
			ret = px_fail(ENOMEM, "out of memory");
			break;
		}
		*evs = grown;
		ret = px_event_parse(tok, &grown[*n]);
		if (!ret)
			(*n)++;
	}
	free(copy);
	return ret;
}

static bool name_matches(const char *pattern, const char *pmu, const char *name)
{
	char full[PX_EVENT_NAME_MAX * 2];

	if (!pattern || !*pattern)
		return true;
	snprintf(full, sizeof(full), "%s::%s", pmu, name);
	if (strpbrk(pattern, "*?["))
		return !fnmatch(pattern, name, FNM_CASEFOLD) ||
		       !fnmatch(pattern, full, FNM_CASEFOLD);
	return strcasestr(full, pattern) != NULL;
}

int px_event_foreach(const char *pattern,
		     void (*fn)(const struct px_event_desc *d, void *arg),
		     void *arg)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	int pmu, visited = 0;

	if (ensure_pfm())
		return 0;
	pfm_for_all_pmus(pmu) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS ||
		    !pinfo.is_present)
			continue;
		for (int i = pinfo.first_event; i != -1;
		     i = pfm_get_event_next(i)) {
			struct px_event_desc d;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(i, PFM_OS_NONE, &einfo) !=
			    PFM_SUCCESS)
				continue;
			if (!name_matches(pattern, pinfo.name, einfo.name))
				continue;
			d.pmu = pinfo.name;
			d.name = einfo.name;
			d.equiv = einfo.equiv;
			d.desc = einfo.desc ? einfo.desc : "";
			fn(&d, arg);
			visited++;
		}
	}
	return visited;
}

int px_pmu_foreach(void (*fn)(const struct px_pmu_desc *d, void *arg),
		   void *arg)
{
	pfm_pmu_info_t pinfo;
	int pmu, visited = 0;

	if (ensure_pfm())
		return -EIO;
	pfm_for_all_pmus(pmu) {
		struct px_pmu_desc d;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS ||
		    !pinfo.is_present)
			continue;
		d.name = pinfo.name;
		d.desc = pinfo.desc ? pinfo.desc : "";
		d.nevents = pinfo.nevents;
		d.counters = pinfo.num_cntrs;
		d.fixed_counters = pinfo.num_fixed_cntrs;
		fn(&d, arg);
		visited++;
	}
	return visited;
}
