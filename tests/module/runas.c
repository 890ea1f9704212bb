/* runas [-n NSGID] UID GID command [args]: drop every privilege and run
 * command.  The guest has no su/setpriv that clears capabilities as we
 * need.  With -n, the command runs in a user namespace of its own where
 * its group GID is seen as NSGID (an unprivileged user may map its own
 * group to any id there): what a user does to pass a group check that
 * reads ids in the caller's namespace. */
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)strlen(text)) {
		perror(path);
		return -1;
	}
	return 0;
}

/* A user namespace where uid maps to itself and gid is seen as nsgid. */
static int enter_userns(uid_t uid, gid_t gid, long nsgid)
{
	char map[64];

	/* the uid change made us undumpable: /proc/self would be root's */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		perror("runas: PR_SET_DUMPABLE");
		return -1;
	}
	if (unshare(CLONE_NEWUSER)) {
		perror("runas: unshare(CLONE_NEWUSER)");
		return -1;
	}
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
	if (write_file("/proc/self/uid_map", map) ||
	    write_file("/proc/self/setgroups", "deny"))
		return -1;
	snprintf(map, sizeof(map), "%ld %lu 1\n", nsgid, (unsigned long)gid);
	return write_file("/proc/self/gid_map", map);
}

int main(int argc, char **argv)
{
	long nsgid = -1;
	uid_t uid;
	gid_t gid;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		nsgid = atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: runas [-n NSGID] UID GID command [args]\n");
		return 2;
	}
	uid = (uid_t)atol(argv[1]);
	gid = (gid_t)atol(argv[2]);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 1;
	}
	if (nsgid >= 0 && enter_userns(uid, gid, nsgid))
		return 1;
	execvp(argv[3], argv + 3);
	perror("runas: exec");
	return 127;
}
