/* pfm_bench [ITER]: the cost of reading counters and of a start/stop pair
 * through /dev/perfmon against perf_event fds for the same events, on the
 * calling thread.  Prints one line per figure, times in ns per operation
 * and the ratio module / perf. */
#include "pfm_util.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>

#define NEV 4

static const uint64_t sw_config[NEV] = {
	1,	/* task-clock */
	2,	/* page-faults */
	0,	/* cpu-clock */
	3,	/* context-switches */
};

static int perf_open(uint64_t config, int group)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group >= 0)
		a.read_format = PERF_FORMAT_GROUP;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
	if (fd < 0)
		die("perf_event_open");
	return fd;
}

static double per_op(uint64_t t0, long iter)
{
	return (double)(now_ns() - t0) / (double)iter;
}

static void report(const char *what, double module, double perf, const char *perf_how)
{
	printf("%-28s module %8.0f ns  perf %8.0f ns (%s)  ratio %.2f\n",
	       what, module, perf, perf_how, module / perf);
}

int main(int argc, char **argv)
{
	long iter = argc > 1 ? atol(argv[1]) : 20000;
	struct pfarg_pmd pmds[NEV];
	int pfd[NEV], gfd[NEV];
	uint64_t buf[8], t0;
	double m_read, p_read, g_read, m_ss, p_ss, g_ss;
	int fd = pfm_context(0);

	for (int i = 0; i < NEV; i++)
		if (pfm_pmc(fd, (unsigned int)i,
			    PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, sw_config[i],
					       PFM_PMC_USR)))
			die("PFM_WRITE_PMCS");
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	for (int i = 0; i < NEV; i++) {
		pfd[i] = perf_open(sw_config[i], -1);
		gfd[i] = perf_open(sw_config[i], i ? gfd[0] : -1);
	}
	memset(pmds, 0, sizeof(pmds));
	for (int i = 0; i < NEV; i++)
		pmds[i].reg_num = (uint16_t)i;

	t0 = now_ns();
	for (long k = 0; k < iter; k++)
		if (pfm_vec_call(fd, PFM_READ_PMDS, pmds, NEV, sizeof(pmds[0])))
			die("PFM_READ_PMDS");
	m_read = per_op(t0, iter);
	t0 = now_ns();
	for (long k = 0; k < iter; k++)
		for (int i = 0; i < NEV; i++)
			if (read(pfd[i], buf, 3 * sizeof(uint64_t)) <= 0)
				die("read");
	p_read = per_op(t0, iter);
	t0 = now_ns();
	for (long k = 0; k < iter; k++)
		if (read(gfd[0], buf, sizeof(buf)) <= 0)
			die("read group");
	g_read = per_op(t0, iter);

	t0 = now_ns();
	for (long k = 0; k < iter; k++)
		if (pfm_flags_cmd(fd, PFM_STOP) || pfm_start(fd))
			die("stop/start");
	m_ss = per_op(t0, iter);
	t0 = now_ns();
	for (long k = 0; k < iter; k++)
		for (int i = 0; i < NEV; i++)
			if (ioctl(pfd[i], PERF_EVENT_IOC_DISABLE, 0) ||
			    ioctl(pfd[i], PERF_EVENT_IOC_ENABLE, 0))
				die("perf ioctl");
	p_ss = per_op(t0, iter);
	t0 = now_ns();
	for (long k = 0; k < iter; k++)
		if (ioctl(gfd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) ||
		    ioctl(gfd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP))
			die("perf group ioctl");
	g_ss = per_op(t0, iter);

	printf("# %d software events on the calling thread, %ld iterations\n",
	       NEV, iter);
	report("read 4 counters", m_read, p_read, "4 x read(2)");
	report("read 4 counters", m_read, g_read, "1 group read(2)");
	report("stop+start pair", m_ss, p_ss, "4 x 2 ioctls");
	report("stop+start pair", m_ss, g_ss, "2 group ioctls");
	return 0;
}
