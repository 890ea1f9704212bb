#include "region_run.h"
#include "error.h"
#include "row.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int px_region_run_prepare(struct px_region_run *rr, const char *events, const char *backend,
			  const struct px_out *o)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(rr->path, sizeof(rr->path), "%s/px-regions.XXXXXX",
		 tmp && *tmp && strlen(tmp) < sizeof(rr->path) - 20 ? tmp : "/tmp");
	fd = mkstemp(rr->path);
	if (fd < 0) {
		int err = errno;

		rr->path[0] = 0;
		return px_fail(err, "cannot create a file for the regions in %s: %s (set TMPDIR to a writable folder)",
			       tmp && *tmp ? tmp : "/tmp", strerror(err));
	}
	close(fd);
	if (setenv("PX_REGIONS_EVENTS", events, 1) || setenv("PX_COUNTERS_BACKEND", backend, 1) ||
	    setenv("PX_REGIONS_OUTPUT", rr->path, 1) ||
	    setenv("PX_REGIONS_FORMAT", o->kind == PX_OUT_JSON ? "json" :
					o->kind == PX_OUT_CSV ? "csv" : "text", 1) ||
	    setenv("PX_REGIONS_SEP", o->sep ? o->sep : ",", 1) ||
	    setenv("PX_REGIONS_HEADER", "0", 1))
		return px_fail(errno, "cannot set the command's environment: %s", strerror(errno));
	return 0;
}

long px_region_run_print(struct px_region_run *rr, FILE *f, struct px_out *o)
{
	FILE *in = fopen(rr->path, "r");
	char buf[8192];
	long total = 0;
	size_t n;

	if (!in)
		return px_fail(errno, "cannot read the regions' file %s: %s", rr->path,
			       strerror(errno));
	if (o->kind == PX_OUT_CSV)
		px_out_csv_header(f, o);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		fwrite(buf, 1, n, f);
		total += (long)n;
	}
	fclose(in);
	return total;
}

void px_region_run_end(struct px_region_run *rr)
{
	if (rr->path[0])
		unlink(rr->path);
	rr->path[0] = 0;
}
