/* What /proc tells of a task. */
#ifndef PX_PROCFS_H
#define PX_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A process and its name (the kernel's comm). */
struct px_proc_name {
	uint32_t pid;
	char comm[16];
};

/* The kernel's name of task pid (its comm) into comm[len]; false, with
 * comm empty, when the task is gone. */
bool px_proc_comm(pid_t pid, char *comm, size_t len);

#endif
