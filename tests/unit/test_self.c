/* libpx for programs (include/px_counters.h, include/px_region.h) on
 * this machine's software events: what a thread counts of its own work,
 * exactly where the work is exact (a page fault per fresh page touched),
 * the read path each counter took, preserved sums, a stopped traced
 * thread counted from outside, and the region markers: per thread and
 * region, calls and per-call figures, nesting errors, nothing outside a
 * measuring run.  The user-space read path needs a hardware counter: the
 * arm64 guest's suite tests it (tests/hw). */
#include "tap.h"
#include "px_counters.h"
#include "px_region.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static long page;

/* Touch n fresh pages: n page faults.  Not instrumented: AddressSanitizer
 * would check each store in shadow memory, whose own fresh pages fault
 * too (tests/run-all.sh san). */
__attribute__((no_sanitize_address)) static void touch(long n)
{
	char *mem = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return;
	for (long i = 0; i < n; i++)
		mem[i * page] = 1;
	munmap(mem, (size_t)(n * page));
}

static void counting(void)
{
	struct px_counters_control ctl = { .events = "page-faults,task-clock" };
	struct px_counters *c;
	struct px_counters_sums s, again;

	is_int(px_counters_open(&c), 0, "open the thread's counters");
	is_int(px_counters_start(c), -EINVAL, "start before any control: refused");
	ok(strstr(px_counters_error(), "px_counters_control first") != NULL, "saying what to do: %s",
	   px_counters_error());
	is_int(px_counters_control(c, &ctl), 0, "program page-faults and task-clock");
	is_str(px_counters_name(c, 0), "page-faults", "counter 0's event");
	{
		struct px_counters_control got;

		is_int(px_counters_read_control(c, &got), 0, "read the control back");
		ok(got.events != ctl.events && !strcmp(got.events, "page-faults,task-clock") &&
		   !got.inherit && !strcmp(got.backend, "perf"),
		   "its events (a copy), inherit and the backend in use");
		is_int(px_counters_control(c, &got), 0, "and programmed with it again");
		ok(!strcmp(px_counters_name(c, 1), "task-clock"), "the same events");
	}
	is_int(px_counters_read_path(c, 0), PX_READ_NONE, "not read yet");
	is_int(px_counters_start(c), 0, "start");
	touch(500);
	is_int(px_counters_stop(c), 0, "stop");
	is_int(px_counters_read(c, &s), 0, "read");
	is_int(s.n, 2, "two sums");
	is_int(s.value[0], 500, "500 fresh pages: 500 page faults");
	ok(s.value[1] > 0 && s.enabled[1] > 0 && s.running[1] == s.enabled[1],
	   "task-clock counted, the whole time (%llu ns)", (unsigned long long)s.value[1]);
	is_int(px_counters_read_path(c, 0), PX_READ_SYSCALL,
	       "a software event is read with read(2): no counter to read in user space");
	{
		uint64_t v = 0;

		ok(px_counters_read_value(c, 0, &v) == 0 && v == 500,
		   "the count alone, stopped: the same 500");
		is_int(px_counters_read_value(c, 2, &v), -EINVAL, "a counter that is not there refused");
	}
	touch(100);
	is_int(px_counters_read(c, &again), 0, "read again while stopped");
	ok(!memcmp(&s, &again, sizeof(s)), "stopped: the same sums");
	is_num(px_counters_scaled(&s, 0), 500, 0, "counted whole: scaled is the count");

	/* preserved across a new control: counter 0 keeps its 500 */
	ctl.preserve = 1;
	is_int(px_counters_control(c, &ctl), 0, "program again, preserving counter 0");
	is_int(px_counters_start(c), 0, "start again");
	touch(200);
	is_int(px_counters_stop(c), 0, "stop again");
	px_counters_read(c, &s);
	is_int(s.value[0], 700, "counter 0 preserved: 500 + 200");
	ok(s.value[1] < again.value[1] + 50000000, "counter 1 not preserved: it starts again");
	ctl.preserve = 0;
	ctl.events = "task-clock,page-faults";
	px_counters_control(c, &ctl);
	px_counters_start(c);
	touch(10);
	{
		uint64_t v = 0;

		ok(px_counters_read_value(c, 1, &v) == 0 && v == 10,
		   "the count alone while running, with read(2) here: 10");
	}
	px_counters_stop(c);
	px_counters_read(c, &s);
	is_int(s.value[1], 10, "another event in a slot: its sum starts from 0");

	is_int(px_counters_unlink(c), 0, "unlink");
	is_int(px_counters_read(c, &s), 0, "read after unlink");
	is_int(s.n, 0, "no counters");
	px_counters_close(c);
}

static void errors(void)
{
	struct px_counters *c;
	struct px_counters_control ctl = { .events = "page-faults,no-such-event" };
	char many[1024] = "page-faults";

	px_counters_open(&c);
	ok(px_counters_control(c, &ctl) < 0, "an unknown event is refused");
	ok(strstr(px_counters_error(), "no-such-event") != NULL, "naming it: %s",
	   px_counters_error());
	ctl.events = "";
	is_int(px_counters_control(c, &ctl), -EINVAL, "no events refused");
	for (int i = 0; i < PX_COUNTERS_MAX; i++)
		strcat(many, ",page-faults");
	ctl.events = many;
	is_int(px_counters_control(c, &ctl), -EINVAL, "more than PX_COUNTERS_MAX events refused");
	ok(strstr(px_counters_error(), "at most 16") != NULL, "saying the limit: %s",
	   px_counters_error());
	ctl.events = "page-faults";
	ctl.backend = "module";
	ok(px_counters_control(c, &ctl) < 0 && strstr(px_counters_error(), "/dev/perfmon") != NULL,
	   "the module asked for where it is not loaded: refused, saying so: %s", px_counters_error());
	ctl.backend = "perfmon2";
	is_int(px_counters_control(c, &ctl), -EINVAL, "an unknown backend refused");
	ok(strstr(px_counters_error(), "'perf' (the default) or 'module'") != NULL, "naming both: %s",
	   px_counters_error());
	ctl.backend = NULL;
	is_int(px_counters_attach(&c, 0), -EINVAL, "attach to no thread refused");
	px_counters_close(c);
	px_counters_close(NULL);
}

/* A stopped, traced child counted from outside: it touches 300 pages
 * between two stops. */
static void attached(void)
{
	struct px_counters_control ctl = { .events = "page-faults" };
	struct px_counters *c;
	struct px_counters_sums s;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		/* once before: a forked child's first writes to the stack
		 * pages and data it shares with its parent fault too (copy
		 * on write), and where the stack lies varies from run to run */
		touch(1);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		touch(300);
		raise(SIGSTOP);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	is_int(px_counters_attach(&c, pid), 0, "attach to a stopped, traced child");
	is_int(px_counters_control(c, &ctl), 0, "program it");
	px_counters_start(c);
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	px_counters_read(c, &s);
	is_int(s.value[0], 300, "its 300 page faults");
	is_int(px_counters_read_path(c, 0), PX_READ_SYSCALL, "another thread's: read(2)");
	px_counters_close(c);
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
}

/* Interrupt mode: the handler learns which counter overflowed. */
static struct px_counters *ovf_state;
static volatile uint32_t ovf_mask;
static volatile int ovf_signals;

static void on_overflow(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	ovf_mask |= px_counters_overflowed(ovf_state, info);
	ovf_signals++;
}

/* page-faults every 100 in interrupt mode: the signal names it, counting
 * stops at the overflow, resume restarts it for 100 more. */
static void interrupts(void)
{
	struct px_counters_control ctl = { .events = "task-clock,page-faults", .signo = SIGRTMIN + 1 };
	struct sigaction sa = { .sa_sigaction = on_overflow, .sa_flags = SA_SIGINFO };
	struct px_counters_sums s, again;

	sigaction(ctl.signo, &sa, NULL);
	ctl.overflow[1] = 100;
	px_counters_open(&ovf_state);
	is_int(px_counters_control(ovf_state, &ctl), 0, "page-faults in interrupt mode, every 100");
	touch(1);	/* the handler's code and stack, before */
	px_counters_start(ovf_state);
	touch(250);
	is_int(ovf_signals, 1, "one signal: counting suspended at the overflow");
	is_int(ovf_mask, 2, "naming counter 1");
	px_counters_read(ovf_state, &s);
	is_int(s.value[1], 100, "suspended at the overflow: 100 faults of the 250");
	touch(10);
	px_counters_read(ovf_state, &again);
	ok(again.value[0] == s.value[0] && again.value[1] == 100,
	   "the whole state is suspended: task-clock stopped with it");
	ovf_mask = 0;
	is_int(px_counters_resume(ovf_state), 0, "resume");
	touch(150);
	px_counters_read(ovf_state, &s);
	ok(ovf_signals == 2 && ovf_mask == 2 && s.value[1] == 200,
	   "resumed: 100 more faults, a second signal, suspended at 200 (%d signals, %llu faults)",
	   ovf_signals, (unsigned long long)s.value[1]);
	ok(s.value[0] > again.value[0], "task-clock counted again meanwhile");
	px_counters_resume(ovf_state);
	touch(30);
	px_counters_stop(ovf_state);
	px_counters_read(ovf_state, &s);
	ok(ovf_signals == 2 && s.value[1] == 230, "and counts on after a resume: 230, no signal");

	/* two counters in interrupt mode: the second overflows first */
	ctl.events = "page-faults,page-faults";
	ctl.overflow[0] = 100;
	ctl.overflow[1] = 30;
	ovf_mask = 0;
	ovf_signals = 0;
	is_int(px_counters_control(ovf_state, &ctl), 0, "two counters in interrupt mode");
	px_counters_start(ovf_state);
	touch(50);
	px_counters_read(ovf_state, &s);
	ok(ovf_signals == 1 && ovf_mask == 2 && s.value[1] == 30,
	   "counter 1 overflows first: named, stopped at its 30 (%llu)",
	   (unsigned long long)s.value[1]);
	ok(s.value[0] >= 30 && s.value[0] < 50,
	   "counter 0 suspended by the handler, soon after (%llu)", (unsigned long long)s.value[0]);
	px_counters_close(ovf_state);

	px_counters_open(&ovf_state);
	ctl.signo = 0;
	is_int(px_counters_control(ovf_state, &ctl), -EINVAL, "interrupt mode without a signal refused");
	ok(strstr(px_counters_error(), "ctl.signo") != NULL, "saying so: %s", px_counters_error());
	ctl.signo = SIGRTMIN + 1;
	ctl.inherit = 1;
	is_int(px_counters_control(ovf_state, &ctl), -EINVAL, "with inherit refused");
	ctl.inherit = 0;
	ctl.events = "page-faults";
	is_int(px_counters_control(ovf_state, &ctl), -EINVAL,
	       "a period for a counter that is not there refused");
	is_int(px_counters_resume(ovf_state), -EINVAL, "resume with nothing programmed refused");
	px_counters_close(ovf_state);
	signal(SIGRTMIN + 1, SIG_DFL);
}

/* A function a uprobe counts: each call one event, exactly. */
__attribute__((noinline)) void counted_call(void)
{
	__asm__ volatile("" ::: "memory");
}

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		counted_call();
}

static void *thread_calls(void *arg)
{
	calls((int)(long)arg);
	return NULL;
}

/* With inherit, the children's and threads' final counts, apart from the
 * thread's own: the calls of a function each makes, counted by a uprobe. */
static void children(void)
{
	char exe[4096], events[4200];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct px_counters_control ctl = { .events = events, .inherit = 1 };
	struct px_counters_sums s, kids;
	struct px_counters *c;
	pthread_t t;

	exe[len > 0 ? len : 0] = 0;
	snprintf(events, sizeof(events), "uprobe:%s:counted_call,page-faults", exe);
	px_counters_open(&c);
	is_int(px_counters_control(c, &ctl), 0, "a uprobe on counted_call, inherited: %s",
	       px_counters_error());
	is_int(px_counters_read_children(c, &kids), 0, "the children's sums before any child");
	ok(kids.n == 2 && kids.value[0] == 0, "none yet");
	px_counters_start(c);
	calls(10);
	for (int i = 1; i <= 3; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			calls(100 * i);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	pthread_create(&t, NULL, thread_calls, (void *)50L);
	pthread_join(t, NULL);
	calls(5);
	px_counters_stop(c);
	px_counters_read(c, &s);
	is_int(px_counters_read_children(c, &kids), 0, "read the children's sums");
	is_int(s.value[0], 15, "the thread's own sum: its own 15 calls");
	is_int(kids.value[0], 650, "the children's: 100 + 200 + 300 calls, and the thread's 50");
	ok(kids.value[1] > 0 && kids.enabled[0] > 0, "their other counter and times too");
	px_counters_close(c);
}

/* The markers outside a measuring run: nothing, 0. */
static void markers_off(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		unsetenv("PX_REGIONS_EVENTS");
		_exit(px_region_begin("a") || px_region_end("b") || px_region_end("c") ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "outside a measuring run the markers do nothing and return 0, even unmatched");
}

static void *thread_regions(void *arg)
{
	(void)arg;
	for (int i = 0; i < 4; i++) {
		px_region_begin("worker");
		touch(20);
		px_region_end("worker");
	}
	return NULL;
}

static void *thread_touch(void *arg)
{
	touch((long)arg);
	return NULL;
}

/* The stack's pages faulted in before the counting: the markers' calls
 * reach deeper into it with the sanitizers' red zones around each frame
 * (tests/run-all.sh san) than the program went before. */
static void warm_stack(void)
{
	volatile char deep[64 * 1024];

	memset((char *)deep, 0, sizeof(deep));
}

/* A measuring run in a child, its report read back (CSV): per thread and
 * region, calls, sum, min and max per call. */
static void markers_on(void)
{
	char path[] = "/tmp/test_self.XXXXXX", line[512];
	int fd = mkstemp(path), status, rows = 0, outer = 0, inner = 0, worker = 0;
	long spawn = -1;
	pid_t pid;
	FILE *f;

	close(fd);
	pid = fork();
	if (pid == 0) {
		pthread_t t;
		int bad;

		setenv("PX_REGIONS_EVENTS", "page-faults", 1);
		setenv("PX_REGIONS_OUTPUT", path, 1);
		setenv("PX_REGIONS_FORMAT", "csv", 1);
		setenv("PX_REGIONS_HEADER", "0", 1);
		touch(1);	/* the copy-on-write faults of a forked child, before */
		warm_stack();
		for (int i = 0; i < 3; i++) {
			px_region_begin("outer");
			touch(10);
			px_region_begin("inner");
			touch(5 + i);
			px_region_end("inner");
			px_region_end("outer");
		}
		px_region_begin("outer");
		bad = px_region_end("inner") == -EINVAL &&
		      strstr(px_counters_error(), "'inner' ends while 'outer' is open") != NULL;
		px_region_end("outer");
		bad = !bad || px_region_end("outer") != -EINVAL ||
		      px_region_begin("a-name-of-sixty-four-bytes-is-one-too-many-for-a-region-marker!!") !=
			      -ENAMETOOLONG;
		pthread_create(&t, NULL, thread_regions, NULL);
		pthread_join(t, NULL);
		/* a region open while a thread starts and works: it counts
		 * the thread that marks it, not the one it starts */
		px_region_begin("spawn");
		pthread_create(&t, NULL, thread_touch, (void *)100L);
		pthread_join(t, NULL);
		px_region_end("spawn");
		exit(bad ? 3 : 0);	/* exit(): the report is written */
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "mismatched and unopened ends and too long names are refused, saying which region is open");
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *col[40] = { 0 };
		int n = 0;

		for (char *p = line; n < 40 && (col[n] = strsep(&p, ",\n")); n++)
			;
		/* schema,record,unit,pid,tid,cpu,set,name,value,raw,active_pct,
		 * status,ci95_pct,runs,stddev,min,max,...,symbol (24) */
		if (n < 25 || strcmp(col[1], "region"))
			continue;
		rows++;
		if (!strcmp(col[24], "outer"))
			outer = !strcmp(col[13], "4") && !strcmp(col[8], "48") &&
				!strcmp(col[15], "0") && !strcmp(col[16], "17");
		if (!strcmp(col[24], "inner"))
			inner = !strcmp(col[13], "3") && !strcmp(col[8], "18") &&
				!strcmp(col[15], "5") && !strcmp(col[16], "7");
		if (!strcmp(col[24], "worker"))
			worker = !strcmp(col[13], "4") && !strcmp(col[8], "80") &&
				 !strcmp(col[15], "20") && !strcmp(col[16], "20") &&
				 strcmp(col[4], "") != 0;
		if (!strcmp(col[24], "spawn") && !strcmp(col[13], "1"))
			spawn = atol(col[8]);
	}
	if (f)
		fclose(f);
	unlink(path);
	is_int(rows, 4, "four region rows: outer, inner and spawn of the main thread, worker of the other");
	ok(outer, "outer: 4 calls (the last one empty), 48 faults, 0 to 17 a call");
	ok(inner, "inner, nested: 3 calls, 18 faults, 5 to 7 a call");
	ok(worker, "worker, on its own thread and counters: 4 calls of 20 faults");
	ok(spawn >= 0 && spawn < 100,
	   "spawn, open while a thread it started touched 100 pages: the marking thread's own %ld faults",
	   spawn);
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	counting();
	errors();
	attached();
	interrupts();
	children();
	markers_off();
	markers_on();
	return done_testing();
}
