#include "outfile.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* Devices, FIFOs and sockets (/dev/null, a pipe) are written in place:
 * renaming over them would replace the node itself. */
static int open_in_place(struct px_outfile *o, const char *path, bool append)
{
	o->f = fopen(path, append ? "a" : "w");
	if (!o->f)
		return px_fail(errno, "cannot open '%s': %s", path, strerror(errno));
	o->append = append;
	return 0;
}

/* The mode a plain create of path would give it (or path's own mode
 * when it exists). */
static mode_t target_mode(const char *path)
{
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	return (!stat(path, &st) ? st.st_mode : 0666) & ~mask & 07777;
}

/* An unnamed file in path's folder (O_TMPFILE), or -1 with errno. */
static int open_anonymous(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	int fd;

	if (!dir) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	free(dir);
	return fd;
}

/* A fresh temporary file beside path, unnamed where the file system
 * allows, else path.XXXXXX. */
static int open_temporary(struct px_outfile *o, const char *path)
{
	int fd = open_anonymous(path), err;

	if (fd >= 0) {
		o->anonymous = true;
	} else if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
		/* no O_TMPFILE in this file system (or kernel) */
		if (asprintf(&o->tmp_path, "%s.XXXXXX", path) < 0) {
			o->tmp_path = NULL;
			return px_fail(ENOMEM, "out of memory");
		}
		fd = mkstemp(o->tmp_path);
	}
	if (fd < 0) {
		err = errno;
		free(o->tmp_path);
		o->tmp_path = NULL;
		return px_fail(err, "cannot open '%s': %s", path, strerror(err));
	}
	fchmod(fd, target_mode(path));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = errno;
		close(fd);
		return px_fail(err, "cannot open '%s': %s", path, strerror(err));
	}
	return 0;
}

/* The unnamed file, complete, linked in beside the target under a fresh
 * name (o->tmp_path) for the rename over it: linkat cannot replace. */
static int name_anonymous(struct px_outfile *o)
{
	char proc[64];
	int err;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(o->f));
	for (int tries = 0; tries < 100; tries++) {
		free(o->tmp_path);
		if (asprintf(&o->tmp_path, "%s.%06lx", o->path,
			     (unsigned long)random() & 0xffffff) < 0) {
			o->tmp_path = NULL;
			return -ENOMEM;
		}
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp_path, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			break;
	}
	err = errno;
	free(o->tmp_path);
	o->tmp_path = NULL;
	return -err;
}

/* The file a symbolic link names, existing or not (malloc'ed). */
static char *link_target(const char *link)
{
	char target[PATH_MAX], *joined = NULL;
	const char *slash = strrchr(link, '/');
	ssize_t n = readlink(link, target, sizeof(target) - 1);

	if (n < 0)
		return NULL;
	target[n] = '\0';
	if (target[0] == '/' || !slash)
		return strdup(target);
	if (asprintf(&joined, "%.*s/%s", (int)(slash - link), link, target) < 0)
		return NULL;
	return joined;
}

int px_outfile_open(struct px_outfile *o, const char *path, bool append)
{
	struct stat st;
	int ret;

	memset(o, 0, sizeof(*o));
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return px_fail(EISDIR, "cannot write '%s': it is a directory", path);
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->path = strdup(path);
		ret = o->path ? open_in_place(o, path, append)
			      : px_fail(ENOMEM, "out of memory");
		if (ret)
			px_outfile_discard(o);
		return ret;
	}
	/* through a symbolic link, replace the file it names, not the link */
	errno = 0;
	o->path = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? link_target(path)
								: strdup(path);
	if (!o->path)
		return px_fail(errno ? errno : ENOMEM, "cannot open '%s': %s", path,
			       strerror(errno ? errno : ENOMEM));
	path = o->path;
	ret = open_temporary(o, path);
	if (ret) {
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
	bool temporary = o->tmp_path || o->anonymous;
	int ret = 0, err;

	if (fflush(o->f) || ferror(o->f) || (temporary && fsync(fileno(o->f))))
		ret = px_fail(errno ? errno : EIO, "cannot write '%s': %s",
			      o->path, strerror(errno ? errno : EIO));
	/* naming it is the first half of putting it in place */
	if (!ret && o->anonymous && (err = name_anonymous(o)))
		ret = px_fail(-err, "cannot replace '%s': %s", o->path, strerror(-err));
	if (fclose(o->f) && !ret)
		ret = px_fail(errno, "cannot write '%s': %s", o->path, strerror(errno));
	o->f = NULL;
	if (!ret && o->tmp_path && rename(o->tmp_path, o->path))
		ret = px_fail(errno, "cannot replace '%s': %s", o->path, strerror(errno));
	if (ret && o->tmp_path)
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

int px_outfile_close(struct px_outfile *o, int ret)
{
	if (!ret)
		return px_outfile_commit(o);
	if (o->f && ferror(o->f))
		ret = px_fail(-ret, "cannot write '%s': %s", o->path, strerror(-ret));
	px_outfile_discard(o);
	return ret;
}
