/* runas UID GID command [args]: drop every privilege and run command.
 * The guest has no su/setpriv that clears capabilities as we need. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID command [args]\n");
		return 2;
	}
	uid = (uid_t)atol(argv[1]);
	gid = (gid_t)atol(argv[2]);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror("runas: exec");
	return 127;
}
