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
#include <sys/mman.h>
#include <unistd.h>

#define SUGGESTIONS_MAX 4
#define FORCE_VAR "LIBPFM_FORCE_PMU"

/*
 * libpfm4 loads its tables in pfm_initialize(), chosen by LIBPFM_FORCE_PMU:
 * unset, every PMU model it detects (on x86 each model's probe runs cpuid,
 * which traps to the hypervisor in a virtual machine: most of perfex's
 * start-up there) and the perf_events tables every machine has, perf
 * (perf's generic and software names) and perf_raw (rHEX); set, that one
 * table and nothing else.  pfm_terminate() and pfm_initialize() load
 * another set.  Names are looked up in these sets, in order, the first
 * that knows a name encoding it:
 *
 *   a LIBPFM_FORCE_PMU of the user   that model's table, then perf, then
 *                                    perf_raw: the model's names, and the
 *                                    others meaning what they mean without
 *                                    the variable (libpfm4's own order:
 *                                    the model before perf)
 *   no hardware PMU in the kernel    perf alone, then every detected
 *                                    table for a name perf does not have
 *                                    (a raw code, a model's event): the
 *                                    meaning is the same, the common names
 *                                    are found sooner
 *   otherwise                        every detected table
 *
 * Listings and suggestions go over the same sets (without the variable:
 * every detected table).
 *
 * Which libpfm4 runs matters for the first case.  Since 2023 (Debian 13's
 * 4.13.0+git) a pfm_initialize() replaces the tables loaded before.  Its
 * 4.13.0 release (Debian 12) keeps every PMU it ever loaded searched, and
 * its pfm_terminate() frees the tables of some (perf's when they hold
 * tracepoints, ix86arch's) that stay searched: switching back and forth
 * there crashes.  So where tables add up, perf_raw's, the forced model's
 * and perf's are loaded once, in an order that terminates no PMU that
 * frees its tables, and stay.  (A forced ix86arch frees its own: perf's
 * names cannot join it there.)
 */
enum pfm_tables {
	TABLES_NONE,
	TABLES_DETECTED,	/* every detected model, perf and perf_raw */
	TABLES_PERF,		/* perf alone */
	TABLES_PERF_RAW,	/* perf_raw alone */
	TABLES_FORCED,		/* the user's LIBPFM_FORCE_PMU alone */
	TABLES_NOTHING,		/* no PMU at all */
	TABLES_ADDED_UP,	/* libpfm4 4.13.0's sum of the above: stays */
};
#define TABLE_SETS_MAX 3
#define NO_PMU "px-no-pmu"	/* a LIBPFM_FORCE_PMU naming no PMU */

static pthread_mutex_t pfm_lock = PTHREAD_MUTEX_INITIALIZER;
static enum pfm_tables pfm_loaded;	/* what pfm_initialize() loaded */
static int pfm_init_status;		/* ... and what it returned */
static bool user_env_read;
static char *user_env;		/* the user's LIBPFM_FORCE_PMU, NULL: unset */
static const char *user_force;	/* the same when not empty, else NULL */
static bool forced_setup;	/* setup_forced() ran ... */
static int forced_status;	/* ... with this libpfm4 status */
static enum pfm_tables forced_failed;	/* ... and these tables failed */
static bool forced_pmus[PFM_PMU_MAX];	/* the PMUs TABLES_FORCED loads */
static bool ever_present[PFM_PMU_MAX];	/* loaded by any pfm_initialize() */
static bool perf_missing;	/* perf's tables could not join the model's */
static int no_hardware_pmu = -1;	/* kernel_has_no_hardware_pmu(), once */

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

/* The user's LIBPFM_FORCE_PMU, read once as libpfm4 reads it once (its
 * value changes for a moment while tables are loaded). */
static int read_user_env(void)
{
	const char *v;

	if (user_env_read)
		return 0;
	v = getenv(FORCE_VAR);
	if (v && !(user_env = strdup(v)))
		return px_fail(ENOMEM, "out of memory");
	user_force = user_env && *user_env ? user_env : NULL;
	user_env_read = true;
	return 0;
}

/* The executable's initialised data: glibc's start files and the linker
 * define these (weak: libpx's shared library has no such symbols) */
extern char __data_start[] __attribute__((weak)), _edata[] __attribute__((weak));

/*
 * Every pfm_initialize() reads and writes the description of each of
 * libpfm4's ~380 PMU models, whatever it loads, and these lie all over
 * the executable's data: the first time, a page fault for nearly every
 * page of it.  In a virtual machine a fault costs tens of microseconds
 * (perfex -e task-clock true: 60 faults, 2-3 ms); one madvise() that
 * populates the pages costs 0.2-0.4 ms.  It is only a hint: a kernel
 * without MADV_POPULATE_WRITE (before 5.14) takes the faults as before.
 */
static void populate_data(void)
{
	static bool done;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)__data_start + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)_edata + page - 1) & ~(page - 1);

	if (!done && __data_start && _edata && end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
	done = true;
}

/* pfm_initialize() with LIBPFM_FORCE_PMU set to force (NULL: unset), then
 * the user's value put back: libpfm4 reads the variable there only, and
 * the commands perfex starts inherit the environment it was given. */
static int pfm_initialize_with(const char *force)
{
	int ret;

	populate_data();
	if (force ? setenv(FORCE_VAR, force, 1) : unsetenv(FORCE_VAR))
		return PFM_ERR_NOMEM;
	ret = pfm_initialize();
	if (user_env ? setenv(FORCE_VAR, user_env, 1) : unsetenv(FORCE_VAR))
		return PFM_ERR_NOMEM;
	return ret;
}

/* Load tables t, unless they are what is loaded; with a LIBPFM_FORCE_PMU,
 * note the PMUs that are new (libpfm4 keeps a PMU marked present once it
 * was loaded, so those are what this load brought, or nothing when it
 * brought a PMU again).  Under pfm_lock. */
static int load_tables(enum pfm_tables t, bool new_pmus[PFM_PMU_MAX])
{
	static const char *const force[] = {
		[TABLES_PERF] = "perf",
		[TABLES_PERF_RAW] = "perf_raw",
		[TABLES_NOTHING] = NO_PMU,
	};
	pfm_pmu_info_t pinfo;
	int pmu;

	if (pfm_loaded == t)
		return pfm_init_status;
	if (pfm_loaded != TABLES_NONE)
		pfm_terminate();
	pfm_init_status = pfm_initialize_with(t == TABLES_FORCED ? user_force :
					      force[t]);
	pfm_loaded = t;
	/* which PMUs a load brought matters to setup_forced() alone, and the
	 * scan is not free: pfm_get_pmu_info() walks the event table of every
	 * model libpfm4 has, present or not (0.4 ms of perfex's start-up) */
	if (pfm_init_status != PFM_SUCCESS || !user_force)
		return pfm_init_status;
	pfm_for_all_pmus(pmu) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS ||
		    !pinfo.is_present || ever_present[pmu])
			continue;
		ever_present[pmu] = true;
		if (new_pmus)
			new_pmus[pmu] = true;
	}
	return PFM_SUCCESS;
}

/* libpfm4 4.13.0's pfm_terminate() frees these PMUs' tables. */
static bool frees_tables(int pmu)
{
	return pmu == PFM_PMU_PERF_EVENT || pmu == PFM_PMU_INTEL_X86_ARCH ||
	       pmu == PFM_PMU_S390X_CPUM_CF;
}

/* Does the loaded libpfm4 know name? */
static bool pfm_knows(const char *name)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	return pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
					 &arg) == PFM_SUCCESS;
}

/*
 * First use with a LIBPFM_FORCE_PMU: find out whether tables add up (load
 * perf_raw, then no PMU: is a raw code still known?), load the forced
 * model and note its PMUs, and where tables add up, load perf's last,
 * unless the model's tables would be freed.  A libpfm4 status, *failed
 * the tables that did not load.  Under pfm_lock.
 */
static int setup_forced(enum pfm_tables *failed)
{
	bool adds_up;
	int ret;

	if ((ret = load_tables(TABLES_PERF_RAW, NULL)) != PFM_SUCCESS ||
	    (ret = load_tables(TABLES_NOTHING, NULL)) != PFM_SUCCESS)
		goto out_failed;
	adds_up = pfm_knows("r1");
	ret = load_tables(TABLES_FORCED, forced_pmus);
	if (ret != PFM_SUCCESS)
		goto out_failed;
	if (!adds_up)
		return PFM_SUCCESS;	/* switch between the tables */
	for (int pmu = 0; pmu < PFM_PMU_MAX; pmu++)
		if (forced_pmus[pmu] && frees_tables(pmu) &&
		    pmu != PFM_PMU_PERF_EVENT)
			perf_missing = true;
	if (!perf_missing && !forced_pmus[PFM_PMU_PERF_EVENT] &&
	    (ret = load_tables(TABLES_PERF, NULL)) != PFM_SUCCESS)
		goto out_failed;
	pfm_loaded = TABLES_ADDED_UP;
	return PFM_SUCCESS;

out_failed:
	*failed = pfm_loaded;
	return ret;
}

/* Whether the loaded tables t hold pmu.  is_present alone is not enough:
 * libpfm4 leaves the mark on a PMU it loaded before, its tables freed. */
static bool tables_hold(enum pfm_tables t, const pfm_pmu_info_t *pinfo)
{
	if (!pinfo->is_present)
		return false;
	switch (t) {
	case TABLES_PERF:
		return pinfo->pmu == PFM_PMU_PERF_EVENT;
	case TABLES_PERF_RAW:
		return pinfo->pmu == PFM_PMU_PERF_EVENT_RAW;
	case TABLES_FORCED:
		return forced_pmus[pinfo->pmu];
	default:
		return true;
	}
}

static int init_failed(enum pfm_tables t, int status)
{
	if (t == TABLES_FORCED)
		return px_fail(EIO, "libpfm4 failed to initialise with "
			       FORCE_VAR "=%s: %s", user_force,
			       pfm_strerror(status));
	return px_fail(EIO, "libpfm4 failed to initialise: %s",
		       pfm_strerror(status));
}

/*
 * The sets of tables to look a name up in (all: to list every name), in
 * order, ended by TABLES_NONE.  Returns 0 or -errno.  Under pfm_lock.
 */
static int table_sets(bool all, enum pfm_tables sets[TABLE_SETS_MAX + 1])
{
	int ret = read_user_env(), n = 0;

	if (ret)
		return ret;
	if (user_force && !forced_setup) {
		forced_setup = true;
		forced_status = setup_forced(&forced_failed);
	}
	if (user_force && forced_status != PFM_SUCCESS)
		return init_failed(forced_failed, forced_status);
	if (pfm_loaded == TABLES_ADDED_UP) {
		sets[n++] = TABLES_ADDED_UP;
	} else if (user_force) {
		sets[n++] = TABLES_FORCED;
		sets[n++] = TABLES_PERF;
		sets[n++] = TABLES_PERF_RAW;
	} else {
		if (no_hardware_pmu < 0)
			no_hardware_pmu = kernel_has_no_hardware_pmu();
		/* once every table is loaded, perf's names are there too */
		if (!all && no_hardware_pmu && pfm_loaded != TABLES_DETECTED)
			sets[n++] = TABLES_PERF;
		sets[n++] = TABLES_DETECTED;
	}
	sets[n] = TABLES_NONE;
	return 0;
}

/* Why a name may be unknown beyond a typo, for the message. */
static void unknown_hint(char *buf, size_t len)
{
	if (perf_missing)
		snprintf(buf, len, "; this libpfm4 cannot load perf's names beside "
			 FORCE_VAR "=%.64s", user_force);
	else if (user_force)
		snprintf(buf, len, "; " FORCE_VAR "=%.64s is set", user_force);
	else
		buf[0] = '\0';
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

/* hint: why a name may be unknown beyond a typo, or "". */
static int unknown_event(const char *spec, const char *hint)
{
	struct suggestion_search s = { .wanted = spec };
	char matches[SUGGESTIONS_MAX * (PX_EVENT_NAME_MAX + 2) + 64] = "";
	const char *bare = strstr(spec, "::");

	if (bare)
		s.wanted = bare + 2;
	s.limit = strlen(s.wanted) / 3 + 1;
	px_event_foreach(NULL, consider_suggestion, &s);
	for (int i = 0; i < s.count; i++) {
		strcat(matches, i ? ", " : "; did you mean: ");
		strcat(matches, s.names[i]);
	}
	return px_fail(ENOENT, "unknown event '%s'%s (list them with -l%s)",
		       spec, matches, hint);
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

/* Look name up in each set of tables in turn, the first that knows it
 * encoding it.  Returns 0 with libpfm4's answer in *status, or -errno.
 * Under pfm_lock. */
static int encode_in_tables(const char *name, const enum pfm_tables *sets,
			    struct perf_event_attr *attr, char **fstr,
			    int *status)
{
	pfm_perf_encode_arg_t arg;

	*status = PFM_ERR_NOTFOUND;
	for (; *sets != TABLES_NONE && *status == PFM_ERR_NOTFOUND; sets++) {
		int ret = load_tables(*sets, NULL);

		if (ret != PFM_SUCCESS)
			return init_failed(*sets, ret);
		memset(attr, 0, sizeof(*attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = attr;
		arg.size = sizeof(arg);
		arg.fstr = fstr;
		*status = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
						    PFM_OS_PERF_EVENT_EXT, &arg);
	}
	return 0;
}

static int encode_with_pfm(const char *spec, struct px_event *ev)
{
	enum pfm_tables sets[TABLE_SETS_MAX + 1];
	struct perf_event_attr attr;
	char raw[PX_EVENT_NAME_MAX + 2], hint[160];
	char *fstr = NULL;
	const char *name = raw_to_pfm(spec, raw, sizeof(raw));
	int ret, status = PFM_ERR_NOTFOUND;

	pthread_mutex_lock(&pfm_lock);
	ret = table_sets(false, sets);
	if (!ret)
		ret = encode_in_tables(name, sets, &attr, &fstr, &status);
	unknown_hint(hint, sizeof(hint));
	pthread_mutex_unlock(&pfm_lock);
	if (ret)
		return ret;
	if (status == PFM_ERR_NOTFOUND)
		return unknown_event(spec, hint);
	if (status != PFM_SUCCESS)
		return px_fail(EINVAL, "bad event '%s': %s", spec,
			       pfm_strerror(status));
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

bool px_event_is_clock(const struct px_event *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_TASK_CLOCK ||
						  ev->config == PERF_COUNT_SW_CPU_CLOCK);
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

/*
 * Call visit for every PMU of the tables names are looked up in, each
 * once, in lookup order, and under pfm_lock: the tables stay loaded while
 * visit runs.  Returns 0 or -errno.
 */
static int foreach_pmu(void (*visit)(const pfm_pmu_info_t *pinfo, void *arg),
		       void *arg)
{
	enum pfm_tables sets[TABLE_SETS_MAX + 1];
	bool seen[PFM_PMU_MAX] = { false };
	pfm_pmu_info_t pinfo;
	int pmu, ret;

	pthread_mutex_lock(&pfm_lock);
	ret = table_sets(true, sets);
	for (int i = 0; !ret && sets[i] != TABLES_NONE; i++) {
		int status = load_tables(sets[i], NULL);

		if (status != PFM_SUCCESS) {
			ret = init_failed(sets[i], status);
			break;
		}
		pfm_for_all_pmus(pmu) {
			memset(&pinfo, 0, sizeof(pinfo));
			pinfo.size = sizeof(pinfo);
			if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS ||
			    !tables_hold(sets[i], &pinfo) || seen[pmu])
				continue;
			seen[pmu] = true;
			visit(&pinfo, arg);
		}
	}
	pthread_mutex_unlock(&pfm_lock);
	return ret;
}

struct event_visit {
	const char *pattern;
	void (*fn)(const struct px_event_desc *d, void *arg);
	void *arg;
	int visited;
};

static void visit_events(const pfm_pmu_info_t *pinfo, void *arg)
{
	struct event_visit *v = arg;
	pfm_event_info_t einfo;

	for (int i = pinfo->first_event; i != -1; i = pfm_get_event_next(i)) {
		struct px_event_desc d;

		memset(&einfo, 0, sizeof(einfo));
		einfo.size = sizeof(einfo);
		if (pfm_get_event_info(i, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
			continue;
		if (!name_matches(v->pattern, pinfo->name, einfo.name))
			continue;
		d.pmu = pinfo->name;
		d.name = einfo.name;
		d.equiv = einfo.equiv;
		d.desc = einfo.desc ? einfo.desc : "";
		v->fn(&d, v->arg);
		v->visited++;
	}
}

int px_event_foreach(const char *pattern,
		     void (*fn)(const struct px_event_desc *d, void *arg),
		     void *arg)
{
	struct event_visit v = { pattern, fn, arg, 0 };

	foreach_pmu(visit_events, &v);
	return v.visited;
}

struct pmu_visit {
	void (*fn)(const struct px_pmu_desc *d, void *arg);
	void *arg;
	int visited;
};

static void visit_pmu(const pfm_pmu_info_t *pinfo, void *arg)
{
	struct pmu_visit *v = arg;
	struct px_pmu_desc d;

	d.name = pinfo->name;
	d.desc = pinfo->desc ? pinfo->desc : "";
	d.nevents = pinfo->nevents;
	d.counters = pinfo->num_cntrs;
	d.fixed_counters = pinfo->num_fixed_cntrs;
	v->fn(&d, v->arg);
	v->visited++;
}

int px_pmu_foreach(void (*fn)(const struct px_pmu_desc *d, void *arg),
		   void *arg)
{
	struct pmu_visit v = { fn, arg, 0 };
	int ret = foreach_pmu(visit_pmu, &v);

	return ret ? ret : v.visited;
}
