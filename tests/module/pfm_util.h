/* Helpers shared by the /dev/perfmon test programs of tests/module/. */
#ifndef PFM_UTIL_H
#define PFM_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfmon.h"

/* virtual event select values of the software events the tests use */
#define EV_TASK_CLOCK	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, 1, PFM_PMC_USR)
#define EV_PAGE_FAULTS	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, 2, PFM_PMC_USR)
#define EV_CPU_CLOCK	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, 0, PFM_PMC_USR)
#define EV_CYCLES	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_HARDWARE, 0, PFM_PMC_USR)
#define EV_INSTRUCTIONS	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_HARDWARE, 1, PFM_PMC_USR)
#define EV_BP_X(len)	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_BREAKPOINT, \
					   4 | ((len) << PFM_PMC_BP_LEN_SHIFT), PFM_PMC_USR)

static inline const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case ENOSPC: return "ENOSPC";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(3);
}

/* ioctl returning 0 or the errno */
static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static inline int pfm_vec_call(int fd, unsigned long cmd, void *elems,
			       size_t n, size_t esize)
{
	struct pfarg_vec v;

	memset(&v, 0, sizeof(v));
	v.vec_addr = (uintptr_t)elems;
	v.vec_size = (uint32_t)(n * esize);
	v.vec_elem_size = (uint32_t)esize;
	return xioctl(fd, cmd, &v);
}

static inline int pfm_open(void)
{
	int fd = open(PFM_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open " PFM_DEVICE);
	return fd;
}

/* open + create; exits on failure */
static inline int pfm_context(uint32_t flags)
{
	struct pfarg_ctx c;
	int fd = pfm_open();

	memset(&c, 0, sizeof(c));
	c.ctx_flags = flags;
	if (ioctl(fd, PFM_CREATE_CONTEXT, &c))
		die("PFM_CREATE_CONTEXT");
	return fd;
}

static inline int pfm_pmc(int fd, unsigned int num, uint64_t value)
{
	struct pfarg_pmc p;

	memset(&p, 0, sizeof(p));
	p.reg_num = (uint16_t)num;
	p.reg_value = value;
	return pfm_vec_call(fd, PFM_WRITE_PMCS, &p, 1, sizeof(p));
}

static inline int pfm_load_pid(int fd, pid_t pid, uint32_t flags)
{
	struct pfarg_load l;

	memset(&l, 0, sizeof(l));
	l.load_pid = (uint32_t)pid;
	l.load_flags = flags;
	return xioctl(fd, PFM_LOAD_CONTEXT, &l);
}

static inline int pfm_start(int fd)
{
	struct pfarg_start s;

	memset(&s, 0, sizeof(s));
	return xioctl(fd, PFM_START, &s);
}

static inline int pfm_flags_cmd(int fd, unsigned long cmd)
{
	struct pfarg_flags f;

	memset(&f, 0, sizeof(f));
	return xioctl(fd, cmd, &f);
}

static inline int pfm_read_pmd(int fd, unsigned int num, uint64_t *value)
{
	struct pfarg_pmd p;
	int e;

	memset(&p, 0, sizeof(p));
	p.reg_num = (uint16_t)num;
	e = pfm_vec_call(fd, PFM_READ_PMDS, &p, 1, sizeof(p));
	*value = p.reg_value;
	return e;
}

/* Fork a child that stops under ptrace before running fn(arg); the
 * caller attaches, then releases it with PTRACE_DETACH. */
static inline pid_t spawn_traced(void (*fn)(long), long arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(120);
		raise(SIGSTOP);
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		die("waitpid (traced child)");
	return pid;
}

static inline void release_traced(pid_t pid)
{
	if (ptrace(PTRACE_DETACH, pid, NULL, NULL))
		die("PTRACE_DETACH");
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The functions the breakpoint tests count (in the test program, so that
 * a context can monitor itself exactly), and a child that calls both. */
static __attribute__((noinline, used)) void counted(void)
{
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline, used)) void counted2(void)
{
	__asm__ volatile("" ::: "memory");
}

static inline void call_both(long n)
{
	for (long i = 0; i < n; i++) {
		counted();
		counted2();
	}
}

/*
 * The samples of `calls` call_both() iterations sampled with two sets:
 * set 0 samples every counted() call and switches after n0 of them, its
 * PMD1 counting counted2() in its samples' bodies; set 1 samples every
 * counted2() call and switches after n1.  want[] gets them in order (the
 * set in bit 63, set 0's body value below), *pmd1 set 0's final count of
 * counted2(), runs[] the sets' activations (LOAD counts one for set 0).
 * Returns how many samples.
 */
static inline size_t pfm_switch_expect(uint64_t *want, long calls, long n0,
				       long n1, uint64_t *pmd1, uint64_t *runs)
{
	long left = n0;
	int set = 0;
	size_t n = 0;

	*pmd1 = 0;
	runs[0] = 1;
	runs[1] = 0;
	for (long i = 0; i < calls; i++) {
		if (set == 0) {		/* counted(): set 0 samples */
			want[n++] = *pmd1;
			if (!--left) {
				set = 1;
				left = n1;
				runs[1]++;
			}
		}
		if (set == 0) {		/* counted2(): set 0 counts it */
			(*pmd1)++;
		} else {		/* set 1 samples */
			want[n++] = 1ull << 63;
			if (!--left) {
				set = 0;
				left = n0;
				runs[0]++;
			}
		}
	}
	return n;
}

#endif
