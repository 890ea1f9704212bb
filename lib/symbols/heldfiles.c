/* Files held from their mapping to the resolution (heldfiles.h). */
#include "heldfiles.h"
#include "grow.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* a program maps tens of files; a thousand would exhaust the default
 * limit of open files the command's tool also needs */
#define MAX_HELD 512

struct held {
	char *path;
	int fd;			/* -1: replaced before it could be held */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct held *held;
static size_t nheld, cap;
static const char **replaced;
static size_t nreplaced, replaced_cap;

static struct held *find(const char *path)
{
	for (size_t i = 0; i < nheld; i++)
		if (!strcmp(held[i].path, path))
			return &held[i];
	return NULL;
}

void px_held_add(const char *path, uint64_t ino)
{
	struct stat st;
	char *copy;
	int fd;

	if (path[0] != '/')
		return;
	pthread_mutex_lock(&lock);
	if (find(path) || nheld == MAX_HELD ||
	    px_grow((void **)&held, &cap, nheld, 1, sizeof(*held), 16) ||
	    !(copy = strdup(path))) {
		pthread_mutex_unlock(&lock);
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && ino && (fstat(fd, &st) || (uint64_t)st.st_ino != ino)) {
		close(fd);
		fd = -1;
		if (!px_grow((void **)&replaced, &replaced_cap, nreplaced, 1, sizeof(*replaced), 8))
			replaced[nreplaced++] = copy;
	} else if (fd < 0) {
		/* gone, or not readable: the resolvers find out as before */
		free(copy);
		pthread_mutex_unlock(&lock);
		return;
	}
	held[nheld++] = (struct held){ copy, fd };
	pthread_mutex_unlock(&lock);
}

int px_held_open(const char *path)
{
	struct held *h;
	int fd = -1;

	pthread_mutex_lock(&lock);
	if ((h = find(path)))
		fd = h->fd >= 0 ? fcntl(h->fd, F_DUPFD_CLOEXEC, 0) : -2;
	pthread_mutex_unlock(&lock);
	return fd;
}

size_t px_held_replaced(const char ***paths)
{
	*paths = replaced;
	return nreplaced;
}

void px_held_release(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nheld; i++) {
		if (held[i].fd >= 0)
			close(held[i].fd);
		free(held[i].path);
	}
	free(held);
	free(replaced);		/* its strings were held[]'s */
	held = NULL;
	replaced = NULL;
	nheld = cap = nreplaced = replaced_cap = 0;
	pthread_mutex_unlock(&lock);
}
