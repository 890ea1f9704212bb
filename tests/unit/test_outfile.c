/* Result files: written whole or not at all. */
#include "tap.h"

#include "error.h"
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/px-outfile-XXXXXX";

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void test_commit(void)
{
	char path[256];
	struct px_outfile o;

	snprintf(path, sizeof(path), "%s/out.txt", dir);
	if (!is_int(px_outfile_open(&o, path, false), 0, "open a new file"))
		return;
	ok(access(path, F_OK) != 0, "nothing at the target before commit");
	/* /tmp is a file system with O_TMPFILE (tmpfs or ext4): a tool
	 * killed now leaves nothing */
	is_int(entries(), 0, "nor a temporary file's name while writing");
	ok(o.anonymous && !o.tmp_path, "the temporary file is unnamed");
	fputs("first\n", o.f);
	is_int(px_outfile_commit(&o), 0, "commit");
	is_str(slurp(path), "first\n", "the content is in place");
	is_int(entries(), 1, "no temporary file left");

	/* replace: the old content stays whole until the commit */
	is_int(px_outfile_open(&o, path, false), 0, "open an existing file");
	fputs("second\n", o.f);
	fflush(o.f);
	is_str(slurp(path), "first\n", "old content intact while writing");
	is_int(px_outfile_commit(&o), 0, "commit the replacement");
	is_str(slurp(path), "second\n", "replaced whole");
	is_int(entries(), 1, "still one file");

	is_int(px_outfile_open(&o, path, true), 0, "open to append");
	fputs("third\n", o.f);
	is_int(px_outfile_commit(&o), 0, "commit the append");
	is_str(slurp(path), "second\nthird\n", "appended after the old content");
	unlink(path);
}

static void test_mode(void)
{
	char path[256];
	struct px_outfile o;
	struct stat st;
	mode_t old = umask(022);

	snprintf(path, sizeof(path), "%s/mode.txt", dir);
	if (is_int(px_outfile_open(&o, path, false), 0, "open for mode") &&
	    is_int(px_outfile_commit(&o), 0, "commit for mode") &&
	    is_int(stat(path, &st), 0, "stat"))
		is_int(st.st_mode & 0777, 0644, "mode is 0666 & ~umask, as a plain create");
	umask(old);
	unlink(path);
}

static void test_discard(void)
{
	char path[256];
	struct px_outfile o;

	snprintf(path, sizeof(path), "%s/gone.txt", dir);
	if (!is_int(px_outfile_open(&o, path, false), 0, "open to discard"))
		return;
	fputs("partial", o.f);
	px_outfile_discard(&o);
	ok(access(path, F_OK) != 0, "discard leaves no file");
	is_int(entries(), 0, "and no temporary file");

	/* discarding a replacement keeps the old file */
	FILE *f = fopen(path, "w");

	fputs("keep\n", f);
	fclose(f);
	is_int(px_outfile_open(&o, path, false), 0, "open over an existing file");
	fputs("partial", o.f);
	px_outfile_discard(&o);
	is_str(slurp(path), "keep\n", "discard leaves the old file as it was");
	is_int(entries(), 1, "no temporary file beside it");
	unlink(path);
}

static void test_unwritable(void)
{
	char path[256];
	struct px_outfile o;

	snprintf(path, sizeof(path), "%s/no/such/dir/out.txt", dir);
	is_int(px_outfile_open(&o, path, false), -ENOENT, "missing directory fails at open");
	ok(strstr(px_last_error(), "cannot open"), "message: %s", px_last_error());
	ok(strstr(px_last_error(), path), "the message names the file");

	is_int(px_outfile_open(&o, dir, false), -EISDIR, "a directory fails at open");
	ok(strstr(px_last_error(), "is a directory"), "message: %s", px_last_error());

	/* root writes anywhere a mode allows; /proc refuses everyone */
	is_int(px_outfile_open(&o, "/proc/px-outfile-test", false) < 0, 1,
	       "a directory nobody may create in fails at open");
	is_int(entries(), 0, "nothing created by the failures");
}

/* A device or a pipe is written in place, never renamed over: a pipe's
 * /proc/self/fd path stands in for /dev/null, so a regression cannot
 * replace a real device node. */
static void test_special_files(void)
{
	char path[64], buf[32] = "";
	struct px_outfile o;
	struct stat st;
	int fds[2];
	ssize_t got;

	if (pipe2(fds, O_NONBLOCK)) {
		ok(0, "pipe: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
	if (is_int(px_outfile_open(&o, path, false), 0, "open a pipe")) {
		ok(o.tmp_path == NULL, "no temporary file for a pipe");
		fputs("piped\n", o.f);
		is_int(px_outfile_commit(&o), 0, "commit to a pipe");
	}
	got = read(fds[0], buf, sizeof(buf) - 1);
	is_int((int)got, 6, "the pipe got the output");
	is_str(buf, "piped\n", "and it is whole");
	ok(fstat(fds[0], &st) == 0 && S_ISFIFO(st.st_mode), "the pipe is still a pipe");
	close(fds[0]);
	close(fds[1]);
	is_int(entries(), 0, "nothing created beside it");
}

/* Through a symbolic link the linked file is replaced, the link kept. */
static void test_symlink(void)
{
	char target[256], link[256];
	struct px_outfile o;
	struct stat st;

	snprintf(target, sizeof(target), "%s/target.txt", dir);
	snprintf(link, sizeof(link), "%s/link.txt", dir);
	if (symlink(target, link)) {
		ok(0, "symlink: %s", strerror(errno));
		return;
	}
	if (is_int(px_outfile_open(&o, link, false), 0, "open through a link")) {
		fputs("linked\n", o.f);
		is_int(px_outfile_commit(&o), 0, "commit through a link");
	}
	ok(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
	is_str(slurp(target), "linked\n", "the linked file has the output");
	unlink(link);
	unlink(target);
}

/* A write that fails midway (/dev/full: ENOSPC at the first buffer's
 * flush) is reported by px_outfile_close with the file's name, whatever
 * the writer said; a writer's failure that was no write keeps its own
 * message. */
static void test_close_names_the_file(void)
{
	struct px_outfile o;
	char big[3 * BUFSIZ];
	int ret;

	memset(big, 'x', sizeof(big));
	ok(px_outfile_open(&o, "/dev/full", false) == 0, "/dev/full opens");
	fwrite(big, 1, sizeof(big), o.f);
	ret = px_outfile_close(&o, px_fail(ENOSPC, "cannot write folded stacks"));
	is_int(ret, -ENOSPC, "the write's error");
	is_str(px_last_error(), "cannot write '/dev/full': No space left on device",
	       "the message names the file");
	ok(o.f == NULL && o.path == NULL, "the file is closed and forgotten");

	ok(px_outfile_open(&o, "/dev/null", false) == 0, "/dev/null opens");
	ret = px_outfile_close(&o, px_fail(ENOMEM, "call graph: out of memory"));
	is_int(ret, -ENOMEM, "the writer's error");
	is_str(px_last_error(), "call graph: out of memory", "its own message kept");
	ok(px_outfile_open(&o, "/dev/null", false) == 0 && px_outfile_close(&o, 0) == 0,
	   "a file written whole is committed");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_commit();
	test_mode();
	test_discard();
	test_unwritable();
	test_special_files();
	test_symlink();
	test_close_names_the_file();
	rmdir(dir);
	return done_testing();
}
