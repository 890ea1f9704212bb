/* Sample files: writer and strict reader. */
#include "smpl_output.h"
#include "error.h"
#include "emit.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAGIC "# pfmon samples v1\n"
#define RUN_PREFIX "# run "
#define JSON_RUN_PREFIX "{\"run\":"

int px_smpl_out_open(struct px_smpl_out *o, const char *path, bool json)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->json = json;
	ret = px_outfile_open(&o->of, path, false);
	if (ret)
		return ret;
	if (!json && fputs(TEXT_MAGIC, o->of.f) == EOF)
		return px_fail(EIO, "cannot write '%s'", path);
	/* where the samples come from in a parallel job: one line, the
	 * same JSON in both kinds (after "# " in text) */
	fputs(json ? "{\"run\":{" : RUN_PREFIX "{", o->of.f);
	px_run_json(o->of.f);
	if (fputs(json ? "}}\n" : "}\n", o->of.f) == EOF)
		return px_fail(EIO, "cannot write '%s'", path);
	return 0;
}

/* --resolve-addresses: the sample's place after its values */
static void write_location(struct px_smpl_out *o, const struct px_location *loc)
{
	FILE *f = o->of.f;
	char func[512], line[PATH_MAX + 32];

	px_location_format_func(loc, func, sizeof(func));
	px_location_format_line(loc, line, sizeof(line));
	if (!o->json) {
		fprintf(f, " | %s %s %s", loc->module, func, line);
		for (size_t i = 0; i < loc->n_inline; i++)
			fprintf(f, " %s %s %s:%d", i ? "<-" : "inlined:",
				loc->inlines[i].func, loc->inlines[i].call_file,
				loc->inlines[i].call_line);
		return;
	}
	fputs(",\"module\":", f);
	px_json_string(f, loc->module);
	fputs(",\"func\":", f);
	px_json_string(f, loc->func);
	fprintf(f, ",\"offset\":%" PRIu64 ",\"file\":", loc->offset);
	px_json_string(f, loc->file);
	fprintf(f, ",\"line\":%d,\"inlines\":[", loc->line);
	for (size_t i = 0; i < loc->n_inline; i++) {
		fputs(i ? ",{\"func\":" : "{\"func\":", f);
		px_json_string(f, loc->inlines[i].func);
		fputs(",\"call_file\":", f);
		px_json_string(f, loc->inlines[i].call_file);
		fprintf(f, ",\"call_line\":%d}", loc->inlines[i].call_line);
	}
	fputc(']', f);
}

static void write_addresses(struct px_smpl_out *o, const struct px_smpl_out_chain *ch)
{
	FILE *f = o->of.f;
	size_t n = ch->nkernel + ch->nuser;

	fputs(o->json ? ",\"chain\":[" : " chain ", f);
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = i < ch->nkernel ? ch->kernel[i] : ch->user[i - ch->nkernel];

		fprintf(f, o->json ? "%s\"0x%" PRIx64 "\"" : "%s0x%" PRIx64, i ? "," : "", ip);
	}
	if (o->json)
		fprintf(f, "],\"chain_cut\":%s", ch->cut ? "true" : "false");
	else if (ch->cut)
		fputs(n ? ",[truncated]" : "[truncated]", f);
}

static void write_names(struct px_smpl_out *o, const struct px_smpl_out_chain *ch)
{
	FILE *f = o->of.f;

	fputs(o->json ? ",\"frames\":[" : " | chain:", f);
	for (size_t i = 0; i < ch->nnames; i++) {
		if (o->json) {
			if (i)
				fputc(',', f);
			px_json_string(f, ch->names[i]);
		} else {
			fprintf(f, "%s%s", i ? " <- " : " ", ch->names[i]);
		}
	}
	if (o->json)
		fputc(']', f);
}

int px_smpl_out_write_resolved(struct px_smpl_out *o, const struct px_sample *s,
			       const struct px_location *loc)
{
	return px_smpl_out_write_chain(o, s, loc, NULL);
}

int px_smpl_out_write_chain(struct px_smpl_out *o, const struct px_sample *s,
			    const struct px_location *loc,
			    const struct px_smpl_out_chain *ch)
{
	FILE *f = o->of.f;

	if (o->json)
		fprintf(f, "{\"index\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"set\":%u,\"pmd\":%u,\"last_reset\":\"0x%016" PRIx64 "\",\"tstamp\":%" PRIu64 ",\"ip\":\"0x%" PRIx64 "\",\"values\":[",
			o->index, s->pid, s->tid, s->cpu, s->set, s->ovfl_pmd,
			s->last_reset_val, s->tstamp, s->ip);
	else
		fprintf(f, "%" PRIu64 " %u %u %u %u %u 0x%016" PRIx64 " %" PRIu64 " 0x%" PRIx64,
			o->index, s->pid, s->tid, s->cpu, s->set, s->ovfl_pmd,
			s->last_reset_val, s->tstamp, s->ip);
	for (unsigned i = 0; i < s->nvalues; i++)
		fprintf(f, o->json ? "%s%" PRIu64 : "%s%" PRIu64,
			o->json ? (i ? "," : "") : " ", s->values[i]);
	if (o->json)
		fputc(']', f);
	if (ch)
		write_addresses(o, ch);
	if (loc)
		write_location(o, loc);
	if (ch && ch->names)
		write_names(o, ch);
	if (fputs(o->json ? "}\n" : "\n", f) == EOF)
		return px_fail(errno ? errno : EIO, "cannot write '%s': %s", o->of.path,
			       strerror(errno ? errno : EIO));
	o->index++;
	return 0;
}

int px_smpl_out_write(void *arg, const struct px_sample *s)
{
	return px_smpl_out_write_resolved(arg, s, NULL);
}

int px_smpl_out_commit(struct px_smpl_out *o)
{
	if (o->json)
		fprintf(o->of.f, "{\"end\":%" PRIu64 "}\n", o->index);
	else
		fprintf(o->of.f, "# end %" PRIu64 " samples\n", o->index);
	return px_outfile_commit(&o->of);
}

void px_smpl_out_discard(struct px_smpl_out *o)
{
	px_outfile_discard(&o->of);
}

/* A text line's chain: addresses "0x...,0x...", maybe "[truncated]",
 * then the end or a resolved part. */
static int parse_chain(const char *p)
{
	for (;;) {
		char *end;

		if (!strncmp(p, "[truncated]", 11)) {
			p += 11;
			break;
		}
		if (p[0] != '0' || p[1] != 'x')
			break;
		strtoull(p, &end, 16);
		if (end == p + 2)
			return -1;
		p = end;
		if (*p != ',')
			break;
		p++;
	}
	return *p == '\n' || (p[0] == ' ' && p[1] == '|') ? 0 : -1;
}

static int parse_values(char *p, struct px_sample *s, char sep, char close)
{
	while (*p == ' ' || *p == sep)
		p++;
	while (*p && *p != close && *p != '\n') {
		char *end;

		if (!close && *p == '|')	/* a resolved location follows */
			return p[1] == ' ' ? 0 : -1;
		if (!close && !strncmp(p, "chain ", 6))
			return parse_chain(p + 6);

		if (s->nvalues >= PX_SMPL_MAX_PMDS || *p < '0' || *p > '9')
			return -1;
		s->values[s->nvalues++] = strtoull(p, &end, 10);
		p = end;
		if (*p == sep || *p == ' ')
			p++;
		else if (*p != close && *p != '\n')
			return -1;
	}
	if (close && *p++ != close)
		return -1;
	if (close && (!strncmp(p, ",\"module\":", 10) || !strncmp(p, ",\"chain\":[", 10))) {
		size_t len = strlen(p);

		return len > 2 && !strcmp(p + len - 2, "}\n") ? 0 : -1;
	}
	if (close && *p++ != '}')
		return -1;
	return *p == '\n' ? 0 : -1;
}

static int parse_line(char *line, bool json, uint64_t want, struct px_sample *s)
{
	unsigned long long idx, lr, ts, ip;
	unsigned pid, tid, cpu, set, pmd;
	int n = 0;

	memset(s, 0, sizeof(*s));
	if (json) {
		if (sscanf(line, "{\"index\":%llu,\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"set\":%u,\"pmd\":%u,\"last_reset\":\"%llx\",\"tstamp\":%llu,\"ip\":\"%llx\",\"values\":[%n",
			   &idx, &pid, &tid, &cpu, &set, &pmd, &lr, &ts, &ip, &n) != 9 || !n)
			return -1;
	} else if (sscanf(line, "%llu %u %u %u %u %u %llx %llu %llx%n",
			  &idx, &pid, &tid, &cpu, &set, &pmd, &lr, &ts, &ip, &n) != 9) {
		return -1;
	}
	if (idx != want || cpu > 0xffff || set > 0xffff || pmd >= PX_SMPL_MAX_PMDS)
		return -1;
	s->pid = pid;
	s->tid = tid;
	s->cpu = (uint16_t)cpu;
	s->set = (uint16_t)set;
	s->ovfl_pmd = (uint16_t)pmd;
	s->last_reset_val = lr;
	s->tstamp = ts;
	s->ip = ip;
	return parse_values(line + n, s, json ? ',' : ' ', json ? ']' : 0);
}

int px_smpl_file_read(const char *path, px_sample_fn fn, void *arg)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t n = 0, lineno = 0, end;
	bool json = false, ended = false;
	struct px_sample s;
	int ret = 0;

	if (!f)
		return px_fail(errno, "cannot open '%s': %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] != '\n' || ended) {
			ret = px_fail(EPROTO, "%s:%llu: %s", path,
				      (unsigned long long)lineno,
				      ended ? "data after the end line" : "truncated line");
			goto out;
		}
		if (lineno == 1) {
			json = line[0] == '{';
			if (!json && strcmp(line, TEXT_MAGIC)) {
				ret = px_fail(EPROTO, "%s: not a sample file (no \"# pfmon samples v1\" line)", path);
				goto out;
			}
			if (!json)
				continue;
		}
		/* the run line (rank, host, job): the reader has no use for it */
		if (lineno == (json ? 1 : 2) &&
		    !strncmp(line, json ? JSON_RUN_PREFIX : RUN_PREFIX,
			     strlen(json ? JSON_RUN_PREFIX : RUN_PREFIX)))
			continue;
		if ((json && sscanf(line, "{\"end\":%" SCNu64 "}", &end) == 1) ||
		    (!json && sscanf(line, "# end %" SCNu64 " samples", &end) == 1)) {
			if (end != n) {
				ret = px_fail(EPROTO, "%s:%llu: the end line counts %llu samples, the file has %llu",
					      path, (unsigned long long)lineno,
					      (unsigned long long)end, (unsigned long long)n);
				goto out;
			}
			ended = true;
			continue;
		}
		if (parse_line(line, json, n, &s)) {
			ret = px_fail(EPROTO, "%s:%llu: corrupt sample line", path,
				      (unsigned long long)lineno);
			goto out;
		}
		n++;
		if (fn && (ret = fn(arg, &s)))
			goto out;
	}
	if (!ended)
		ret = px_fail(EPROTO, "%s: truncated: no end line after %llu samples",
			      path, (unsigned long long)n);
out:
	free(line);
	fclose(f);
	return ret;
}
