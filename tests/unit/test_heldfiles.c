/* Files held from their mapping to the resolution (heldfiles.h): a held
 * file is read as it was when held, after another was renamed over its
 * path; a file whose inode is not the mapping's is named replaced and
 * never read; release forgets them all. */
#include "tap.h"

#include "heldfiles.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static uint64_t inode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

static void first_line(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = 0;
}

int main(void)
{
	char dir[] = "/tmp/test_heldfiles.XXXXXX", lib[64], new[64], other[64], buf[32];
	const char **paths;
	int fd;

	if (!ok(mkdtemp(dir) != NULL, "a directory"))
		return done_testing();
	snprintf(lib, sizeof(lib), "%s/lib.so", dir);
	snprintf(new, sizeof(new), "%s/new.so", dir);
	snprintf(other, sizeof(other), "%s/other.so", dir);
	write_file(lib, "mapped");
	write_file(other, "other");

	px_held_add(lib, inode_of(lib));
	write_file(new, "upgraded");
	rename(new, lib);		/* the package upgrade */
	fd = px_held_open(lib);
	if (ok(fd >= 0, "the held file opens")) {
		first_line(fd, buf, sizeof(buf));
		is_str(buf, "mapped", "as it was mapped, not the file now at its path");
		close(fd);
	}
	is_int(px_held_open(new), -1, "a path never held: none");
	is_int((int)px_held_replaced(&paths), 0, "nothing replaced yet");

	/* its mapping named another inode: replaced before it was held */
	px_held_add(other, inode_of(other) + 1);
	is_int(px_held_open(other), -2, "a file found replaced is not read");
	if (is_int((int)px_held_replaced(&paths), 1, "and is named"))
		is_str(paths[0], other, "by its path");
	px_held_add("relative/path", 0);
	is_int(px_held_open("relative/path"), -1, "relative paths are not held");

	px_held_release();
	is_int(px_held_open(lib), -1, "released: none held");
	is_int((int)px_held_replaced(&paths), 0, "nor named");
	unlink(lib);
	unlink(other);
	rmdir(dir);
	return done_testing();
}
