/* --smpl-outfile files: round trip, truncation and corruption refused,
 * random bytes fed to the reader. */
#include "tap.h"
#include "error.h"
#include "smpl_output.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

struct got { unsigned n; struct px_sample last; };

static int keep(void *arg, const struct px_sample *s)
{
	struct got *g = arg;

	g->n++;
	g->last = *s;
	return 0;
}

static char dir[] = "/tmp/px-smpl-XXXXXX";

static void write_file(const char *path, bool json, unsigned n)
{
	struct px_smpl_out o;

	if (px_smpl_out_open(&o, path, json)) {
		diag("%s", px_last_error());
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct px_sample s = {
			.pid = 100, .tid = 101 + i, .cpu = 3, .set = 1, .ovfl_pmd = 2,
			.last_reset_val = (uint64_t)-1000, .tstamp = 5000 + i,
			.ip = 0x401136, .nvalues = i % 3,
			.values = { 7, 8 },
		};
		px_smpl_out_write(&o, &s);
	}
	px_smpl_out_commit(&o);
}

static void cut(const char *from, const char *to, long drop, long flip)
{
	FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
	char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf), f);

	if (flip >= 0 && (size_t)flip < n)
		buf[flip] = 'Z';
	fwrite(buf, 1, n - (size_t)drop, g);
	fclose(f);
	fclose(g);
}

/* Where the first sample's line starts: after the magic (text) and the
 * run line. */
static long first_sample(const char *path, bool json)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	long off = 0;

	for (int i = 0; i < (json ? 1 : 2) && fgets(line, sizeof(line), f); i++)
		off += (long)strlen(line);
	fclose(f);
	return off;
}

int main(void)
{
	char path[64], bad[64];
	struct got g;
	unsigned seed = 7;
	int crashes = 0, rejected = 0;

	if (!mkdtemp(dir))
		return 1;
	for (int json = 0; json < 2; json++) {
		const char *kind = json ? "JSON Lines" : "text";

		snprintf(path, sizeof(path), "%s/s.%d", dir, json);
		snprintf(bad, sizeof(bad), "%s/bad", dir);
		write_file(path, json, 5);
		memset(&g, 0, sizeof(g));
		is_int(px_smpl_file_read(path, keep, &g), 0, "%s file reads back", kind);
		is_int(g.n, 5, "%s: 5 samples", kind);
		ok(g.last.tid == 105 && g.last.tstamp == 5004 && g.last.ip == 0x401136 &&
		   g.last.last_reset_val == (uint64_t)-1000 && g.last.cpu == 3 &&
		   g.last.set == 1 && g.last.ovfl_pmd == 2, "%s: fields kept", kind);
		ok(g.last.nvalues == 1 && g.last.values[0] == 7, "%s: values kept", kind);
		cut(path, bad, 1, -1);
		is_int(px_smpl_file_read(bad, NULL, NULL), -EPROTO, "%s: cut by one byte refused", kind);
		diag("%s", px_last_error());
		cut(path, bad, 30, -1);
		is_int(px_smpl_file_read(bad, NULL, NULL), -EPROTO, "%s: cut mid-file refused", kind);
		{
			FILE *f = fopen(path, "r");
			char line[1024] = "";

			for (int i = 0; i < (json ? 1 : 2); i++)
				if (!fgets(line, sizeof(line), f))
					line[0] = '\0';
			fclose(f);
			ok(strstr(line, "\"rank\":0,\"size\":1,\"host\":") != NULL,
			   "%s: the run line says rank, size and host: %s", kind, line);
		}
		cut(path, bad, 0, first_sample(path, json) + 10);
		is_int(px_smpl_file_read(bad, NULL, NULL), -EPROTO, "%s: corrupt byte refused", kind);
		diag("%s", px_last_error());
	}
	write_file(path, false, 0);
	is_int(px_smpl_file_read(path, NULL, NULL), 0, "empty run: a valid file with no sample");
	is_int(px_smpl_file_read("/nonexistent/x", NULL, NULL), -ENOENT, "missing file");

	/* random bytes, and valid files with random bytes changed */
	snprintf(path, sizeof(path), "%s/s.0", dir);
	write_file(path, false, 20);
	for (int it = 0; it < 2000; it++) {
		FILE *f;
		char buf[1024];
		size_t n = (size_t)rand_r(&seed) % sizeof(buf);
		int r;

		if (it % 2) {
			f = fopen(path, "rb");
			n = fread(buf, 1, sizeof(buf), f);
			fclose(f);
			buf[(size_t)rand_r(&seed) % n] = (char)rand_r(&seed);
		} else {
			for (size_t i = 0; i < n; i++)
				buf[i] = (char)rand_r(&seed);
		}
		f = fopen(bad, "wb");
		fwrite(buf, 1, n, f);
		fclose(f);
		r = px_smpl_file_read(bad, NULL, NULL);
		crashes += r != 0 && r != -EPROTO;
		rejected += r == -EPROTO;
	}
	is_int(crashes, 0, "fuzz: 2000 files, only 0 or -EPROTO (%d rejected)", rejected);
	unlink(bad);
	snprintf(path, sizeof(path), "%s/s.0", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/s.1", dir);
	unlink(path);
	rmdir(dir);
	return done_testing();
}
