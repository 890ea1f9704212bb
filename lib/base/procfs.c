#include "procfs.h"

#include <stdio.h>
#include <string.h>

bool px_proc_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	bool ok;
	FILE *f;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(comm, (int)len, f) != NULL;
	if (ok)
		comm[strcspn(comm, "\n")] = '\0';
	else
		comm[0] = '\0';
	fclose(f);
	return ok;
}
