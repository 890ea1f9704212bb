/* Result files: written whole or not at all. */
#include "tap.h"

#include "error.h"
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
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
	rmdir(dir);
	return done_testing();
}
