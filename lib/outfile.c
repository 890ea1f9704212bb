#include "outfile.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_existing(const char *path, FILE *to)
{
	char buf[8192];
	size_t got;
	FILE *from = fopen(path, "r");

	if (!from)
		return errno == ENOENT ? 0 : -errno;
	while ((got = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, got, to) != got)
			break;
	fclose(from);
	return ferror(to) ? -EIO : 0;
}

int px_outfile_open(struct px_outfile *o, const char *path, bool append)
{
	struct stat st;
	int fd, ret;

	memset(o, 0, sizeof(*o));
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return px_fail(EISDIR, "cannot write '%s': it is a directory", path);
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp_path, "%s.XXXXXX", path) < 0) {
		free(o->path);
		return px_fail(ENOMEM, "out of memory");
	}
	fd = mkstemp(o->tmp_path);
	if (fd < 0) {
		ret = px_fail(errno, "cannot open '%s': %s", path, strerror(errno));
		free(o->tmp_path);
		free(o->path);
		return ret;
	}
	/* keep the mode a plain create would have given */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, (!stat(path, &st) ? st.st_mode : 0666) & ~mask & 07777);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		ret = px_fail(errno, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		px_outfile_discard(o);
		return ret;
	}
	o->append = append;
	if (append && (ret = copy_existing(path, o->f)) < 0) {
		px_outfile_discard(o);
		return px_fail(-ret, "cannot read '%s' to append to it: %s",
			       path, strerror(-ret));
	}
	return 0;
}

int px_outfile_commit(struct px_outfile *o)
{
	int ret = 0;

	if (fflush(o->f) || fsync(fileno(o->f)) || ferror(o->f))
		ret = px_fail(errno ? errno : EIO, "cannot write '%s': %s",
			      o->path, strerror(errno ? errno : EIO));
	if (fclose(o->f) && !ret)
		ret = px_fail(errno, "cannot write '%s': %s", o->path, strerror(errno));
	o->f = NULL;
	if (!ret && rename(o->tmp_path, o->path))
		ret = px_fail(errno, "cannot replace '%s': %s", o->path, strerror(errno));
	if (ret)
		unlink(o->tmp_path);
	free(o->tmp_path);
	free(o->path);
	o->tmp_path = o->path = NULL;
	return ret;
}

void px_outfile_discard(struct px_outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp_path)
		unlink(o->tmp_path);
	free(o->tmp_path);
	free(o->path);
	memset(o, 0, sizeof(*o));
}
