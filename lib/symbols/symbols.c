/* Symbol resolution through libdwfl: with lib/symbols/symindex.c (which caches
 * libdwfl's symbol answers) and lib/symbols/unwind.c (which unwinds sampled
 * stacks with the same Dwfl), the only files of the project that use it.
 * Follows elfutils' addr2line: dwfl_module_addrinfo for the symbol,
 * dwfl_module_getsrc for the line, dwarf_getscopes then dwarf_getscopes_die
 * on the innermost scope for the inline chain. */
#include "symbols.h"
#include "symbols_int.h"
#include "heldfiles.h"
#include "cfifuncs.h"
#include "debugcache.h"
#include "error.h"
#include "grow.h"
#include "ipcache.h"
#include "ksyms.h"
#include "plt.h"
#include "symindex.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static const char unknown[] = "??";

/* ---- a bump allocator: locations, inline frames and strings live until
 * the resolver is freed, so the pointers handed out stay valid ---- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct arena {
	struct arena_chunk *head;
};

static void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!c || c->size - c->used < n) {
		size_t size = n > 65536 ? n : 65536;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = a->head;
		a->head = c;
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}

/* ---- interned strings: each distinct name is stored once ---- */

struct strtab {
	const char **slot;
	size_t n, cap;		/* cap is a power of two */
};

static uint64_t hash_mem(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	const char **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		const char *s = t->slot[i];
		size_t j;

		if (!s)
			continue;
		for (j = hash_mem(s, strlen(s)) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = s;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

/* s[0, len) stored once; NULL when out of memory. */
static const char *intern_n(struct strtab *t, struct arena *a, const char *s, size_t len)
{
	size_t j;
	char *copy;

	if (!len)
		return unknown;
	if ((t->n + 1) * 2 > t->cap && strtab_grow(t))
		return NULL;
	for (j = hash_mem(s, len) & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1))
		if (!strncmp(t->slot[j], s, len) && !t->slot[j][len])
			return t->slot[j];
	copy = arena_alloc(a, len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->slot[j] = copy;
	t->n++;
	return copy;
}

static const char *intern(struct strtab *t, struct arena *a, const char *s)
{
	return s ? intern_n(t, a, s, strlen(s)) : unknown;
}

/* ---- the kernel's table: /proc/kallsyms is shared by every resolver
 * that uses it, loaded on the first kernel address ---- */

static pthread_mutex_t kdefault_lock = PTHREAD_MUTEX_INITIALIZER;
static struct px_ksyms *kdefault;
static int kdefault_refs;

/* The shared table with one more reference, loaded if it was not; NULL
 * when /proc/kallsyms cannot be read.  A caller that comes while another
 * loads it waits for that load. */
static struct px_ksyms *kdefault_get(void)
{
	struct px_ksyms *k;

	pthread_mutex_lock(&kdefault_lock);
	if (!kdefault)
		kdefault = px_ksyms_load("/proc/kallsyms");
	if (kdefault)
		kdefault_refs++;
	k = kdefault;
	pthread_mutex_unlock(&kdefault_lock);
	return k;
}

static void kdefault_put(void)
{
	pthread_mutex_lock(&kdefault_lock);
	if (--kdefault_refs == 0) {
		px_ksyms_free(kdefault);
		kdefault = NULL;
	}
	pthread_mutex_unlock(&kdefault_lock);
}

/* PX_KALLSYMS: another kernel symbol table than /proc/kallsyms, for tests
 * of the fallback to [kernel] (an empty or zeroed file). */
static const char *kallsyms_path(const char *opt)
{
	const char *path = opt ? opt : getenv("PX_KALLSYMS");

	return path && *path ? path : NULL;
}

bool px_symbols_kernel_hold(const char *kallsyms)
{
	return !kallsyms_path(kallsyms) && kdefault_get();
}

void px_symbols_kernel_release(void)
{
	kdefault_put();
}

/* ---- the resolver ---- */

struct px_symbols {
	Dwfl_Callbacks callbacks;	/* must outlive dwfl */
	char *debuginfo_path;
	Dwfl *dwfl;
	pid_t pid;			/* > 0: live resolver */
	bool live;
	struct px_maps maps;		/* recorded mappings (not live) */
	struct ipcache cache;
	struct strtab strings;
	struct arena arena;
	char *kallsyms_path;		/* NULL: the shared default */
	struct px_ksyms *ksyms;
	bool ksyms_tried;
	bool functions_only;
	bool dirty;			/* maps added since the last report */
	struct px_location *last;	/* the last address resolved */
	struct px_unwinder *unwinder;	/* attached to dwfl: freed after it */
};

static uint64_t next_serial;

/* ---- the vdso: after the process has exited, its [vdso] is read from
 * this process's own, the same image for every native process on this
 * kernel (a mapping of another size, e.g. a 32-bit process's, is not) ---- */

static pthread_once_t vdso_once = PTHREAD_ONCE_INIT;
static char *vdso_image;
static size_t vdso_size;	/* the ELF file's size */
static size_t vdso_span;	/* the size of its mapping */

static void vdso_init(void)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	Elf64_Ehdr eh;
	size_t size, page = (size_t)sysconf(_SC_PAGESIZE);

	if (!base || memcmp(base, ELFMAG, SELFMAG) || base[EI_CLASS] != ELFCLASS64)
		return;
	memcpy(&eh, base, sizeof(eh));
	/* the section headers come last in the kernel's vdso images */
	size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, base + eh.e_phoff + (size_t)i * eh.e_phentsize, sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size)
			size = ph.p_offset + ph.p_filesz;
	}
	if (size < sizeof(eh) || size > (64u << 20))
		return;
	vdso_image = malloc(size);
	if (!vdso_image)
		return;
	memcpy(vdso_image, base, size);
	vdso_size = size;
	vdso_span = (size + page - 1) & ~(page - 1);
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	Dwarf_Addr start, end;

	int fd;

	if (!px_map_is_vdso(name)) {	/* files, and a live process's "[vdso: PID]" */
		/* the file held since it was mapped, not whatever is at its
		 * path now; none for one found replaced (heldfiles.h) */
		if ((fd = px_held_open(name)) != -1) {
			*file_name = fd >= 0 ? strdup(name) : NULL;
			*elfp = NULL;
			return fd >= 0 ? fd : -1;
		}
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	}
	pthread_once(&vdso_once, vdso_init);
	dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	*file_name = NULL;
	*elfp = NULL;
	if (vdso_image && end - start == vdso_span)
		*elfp = elf_memory(vdso_image, vdso_size);
	return -1;
}

/* The inflated copy of the module's separate debug file, when a sampling
 * session made one during the run (debugcache.h).  Not for a dwz
 * supplementary file, which libdwfl asks for with the alternate file's
 * name as the debuglink and no CRC: that is another file than the
 * module's build-id names.  libdwfl's own search cannot be given the copy
 * afterwards: dwfl_build_id_find_debuginfo keeps the Elf it opened. */
static int find_inflated(Dwfl_Module *mod, const char *debuglink_file,
			 GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int len;

	if (debuglink_file && !debuglink_crc)
		return -1;
	len = dwfl_module_build_id(mod, &id, &vaddr);
	return len > 0 ? px_debugcache_find(id, (size_t)len, debuginfo_file_name) : -1;
}

/* Separate debug files: inflated during the run, by build-id, then by
 * .gnu_debuglink, on this machine.  libdwfl's standard search then asks
 * debuginfod, and starting its client (libcurl) costs 20 to 40 ms per
 * process even when DEBUGINFOD_URLS is unset and it can find nothing: it
 * is asked only when DEBUGINFOD_URLS names a server. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name,
			  const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd = find_inflated(mod, debuglink_file, debuglink_crc, debuginfo_file_name);

	if (fd >= 0)
		return fd;
	if (urls && *urls)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
						    file_name, debuglink_file,
						    debuglink_crc, debuginfo_file_name);
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc,
					  debuginfo_file_name);
	if (fd >= 0 || !debuglink_file)
		return fd;
	/* the path search by debuglink name is not exported on its own */
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc,
					    debuginfo_file_name);
}

static int symbols_new(struct px_symbols **out, const struct px_symbols_opts *opts)
{
	struct px_symbols *res = calloc(1, sizeof(*res));
	const char *kallsyms;

	*out = NULL;
	if (!res)
		return px_fail(ENOMEM, "symbols: out of memory");
	if (opts && opts->debuginfo_path &&
	    !(res->debuginfo_path = strdup(opts->debuginfo_path)))
		goto out_nomem;
	kallsyms = kallsyms_path(opts ? opts->kallsyms : NULL);
	if (kallsyms && !(res->kallsyms_path = strdup(kallsyms)))
		goto out_nomem;
	res->functions_only = opts && opts->functions_only;
	res->callbacks.find_elf = find_elf;
	res->callbacks.find_debuginfo = find_debuginfo;
	res->callbacks.debuginfo_path = res->debuginfo_path ? &res->debuginfo_path : NULL;
	res->dwfl = dwfl_begin(&res->callbacks);
	if (!res->dwfl) {
		int err = px_fail(ENOMEM, "symbols: %s", dwfl_errmsg(-1));

		px_symbols_free(res);
		return err;
	}
	*out = res;
	return 0;

out_nomem:
	px_symbols_free(res);
	return px_fail(ENOMEM, "symbols: out of memory");
}

/* Each module's symbol lookups hang on its libdwfl userdata: its symbol
 * index (lib/symbols/symindex.c), built on the module's first address,
 * the names of its PLT stubs (lib/symbols/plt.c), read on its first
 * address no symbol covers, and the functions its CFI describes
 * (lib/symbols/cfifuncs.c), read on its first address neither covers;
 * all freed with the module, when a new report drops it, and at the end. */
struct modsyms {
	struct px_symindex *ix;	/* NULL: libdwfl is asked directly */
	struct px_plt *plt;
	struct px_cfifuncs *cfi;
	bool ix_tried, plt_read, cfi_read;
};

static void modsyms_drop(void *userdata)
{
	struct modsyms *ms = userdata;

	if (!ms)
		return;
	px_symindex_free(ms->ix);
	px_plt_free(ms->plt);
	px_cfifuncs_free(ms->cfi);
	free(ms);
}

static int module_removed(Dwfl_Module *mod, void *userdata, const char *name,
			  Dwarf_Addr base, void *arg)
{
	(void)mod, (void)name, (void)base, (void)arg;
	modsyms_drop(userdata);
	return DWARF_CB_OK;
}

static int module_free_syms(Dwfl_Module *mod, void **userdata, const char *name,
			     Dwarf_Addr base, void *arg)
{
	(void)mod, (void)name, (void)base, (void)arg;
	modsyms_drop(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

static int report_pid(struct px_symbols *res)
{
	int rc;

	dwfl_report_begin_add(res->dwfl);
	rc = dwfl_linux_proc_report(res->dwfl, res->pid);
	dwfl_report_end(res->dwfl, module_removed, NULL);
	if (rc > 0)
		return px_fail(rc, "symbols: cannot read the mappings of process %d: %s",
			       (int)res->pid, strerror(rc));
	if (rc < 0)
		return px_fail(EINVAL, "symbols: process %d: %s", (int)res->pid,
			       dwfl_errmsg(-1));
	return 0;
}

int px_symbols_open_pid(struct px_symbols **out, pid_t pid,
			const struct px_symbols_opts *opts)
{
	struct px_symbols *res;
	int rc = symbols_new(&res, opts);

	if (rc)
		return rc;
	res->pid = pid;
	res->live = true;
	rc = report_pid(res);
	if (rc) {
		px_symbols_free(res);
		return rc;
	}
	*out = res;
	return 0;
}

int px_symbols_refresh(struct px_symbols *res)
{
	int rc;

	if (!res->live)
		return 0;
	rc = report_pid(res);
	if (rc == -ENOENT || rc == -ESRCH)
		res->live = false;	/* exited: keep what was reported */
	if (rc)
		return rc;
	ipcache_clear(&res->cache);
	res->last = NULL;
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct px_map *x = *(const struct px_map *const *)a;
	const struct px_map *y = *(const struct px_map *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* One module per run of mappings of the same file.  Its range starts
 * where the file's offset 0 is (start - pgoff of its first mapping), as
 * libdwfl computes the load bias from the module's low address and the
 * first PT_LOAD: that also holds when only the executable mapping was
 * recorded, as perf MMAP records give it. */
static int report_maps(struct px_symbols *res, struct px_map *const *v, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const char *path = v[i]->path;
		uint64_t low = v[i]->start - v[i]->pgoff, high = v[i]->start + v[i]->len;
		size_t j;

		for (j = i + 1; j < n && !strcmp(v[j]->path, path); j++) {
			if (v[j]->start - v[j]->pgoff < low)
				low = v[j]->start - v[j]->pgoff;
			if (v[j]->start + v[j]->len > high)
				high = v[j]->start + v[j]->len;
		}
		/* Overlaps (a stale record) are left out, not fatal. */
		dwfl_report_module(res->dwfl, path, low, high);
		i = j;
	}
	return 0;
}

/* Re-report every recorded mapping: a module whose range did not change
 * is kept as it is, one that grew (a later mapping of the same file) is
 * replaced. */
static int report_all_maps(struct px_symbols *res)
{
	struct px_map **v = NULL;
	size_t n = 0;

	if (res->maps.n) {
		v = malloc(res->maps.n * sizeof(*v));
		if (!v)
			return px_fail(ENOMEM, "symbols: out of memory");
		for (size_t i = 0; i < res->maps.n; i++)
			v[n++] = &res->maps.v[i];
		qsort(v, n, sizeof(*v), map_cmp);
	}
	dwfl_report_begin(res->dwfl);
	report_maps(res, v, n);
	dwfl_report_end(res->dwfl, module_removed, NULL);
	free(v);
	ipcache_clear(&res->cache);
	res->last = NULL;
	res->dirty = false;
	return 0;
}

int px_symbols_open_maps(struct px_symbols **out, const struct px_maps *maps,
			 const struct px_symbols_opts *opts)
{
	struct px_symbols *res;
	int rc = symbols_new(&res, opts);

	if (rc)
		return rc;
	for (size_t i = 0; maps && i < maps->n && !rc; i++) {
		const struct px_map *m = &maps->v[i];

		if (m->path && (m->path[0] == '/' || px_map_is_vdso(m->path)) && m->len)
			rc = px_maps_add(&res->maps, m->start, m->len, m->pgoff, m->path);
	}
	if (!rc)
		rc = report_all_maps(res);
	if (rc) {
		px_symbols_free(res);
		return rc;
	}
	*out = res;
	return 0;
}

int px_symbols_add_map(struct px_symbols *res, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *path)
{
	int rc;

	if (!path || (path[0] != '/' && !px_map_is_vdso(path)) || !len)
		return px_fail(EINVAL, "symbols: not a file mapping: '%s'",
			       path ? path : "(null)");
	if (res->live)
		return px_symbols_refresh(res);
	/* reported at the next resolve: a burst of mappings costs one */
	rc = px_maps_insert(&res->maps, start, len, pgoff, path);
	if (!rc)
		res->dirty = true;
	return rc;
}

void px_symbols_free(struct px_symbols *res)
{
	if (!res)
		return;
	if (res->dwfl) {
		dwfl_getmodules(res->dwfl, module_free_syms, NULL, 0);
		dwfl_end(res->dwfl);
	}
	px_unwinder_free(res->unwinder);
	if (res->ksyms && res->kallsyms_path) {
		px_ksyms_free(res->ksyms);
	} else if (res->ksyms) {
		kdefault_put();
	}
	px_maps_free(&res->maps);
	ipcache_free(&res->cache);
	free(res->strings.slot);
	arena_free(&res->arena);
	free(res->kallsyms_path);
	free(res->debuginfo_path);
	free(res);
}

int px_symbols_dwfl(struct px_symbols *res, Dwfl **out)
{
	int rc = res->dirty ? report_all_maps(res) : 0;

	*out = res->dwfl;
	return rc;
}

struct px_unwinder **px_symbols_unwinder(struct px_symbols *res)
{
	return &res->unwinder;
}

size_t px_symbols_cached(const struct px_symbols *res)
{
	return res->cache.n;
}

static struct px_ksyms *kernel_table(struct px_symbols *res)
{
	if (res->ksyms_tried)
		return res->ksyms;
	res->ksyms_tried = true;
	if (res->kallsyms_path) {
		res->ksyms = px_ksyms_load(res->kallsyms_path);
		return res->ksyms;
	}
	res->ksyms = kdefault_get();
	return res->ksyms;
}

static int resolve_kernel(struct px_symbols *res, struct px_location *loc)
{
	struct px_ksyms *k = kernel_table(res);
	struct px_ksym sym;

	loc->kernel = true;
	loc->module = "[kernel]";
	if (!k || !px_ksyms_find(k, loc->ip, &sym))
		return 0;
	if (sym.module)
		loc->module = intern_n(&res->strings, &res->arena, sym.module, sym.module_len);
	loc->func = intern_n(&res->strings, &res->arena, sym.name, sym.name_len);
	if (!loc->module || !loc->func)
		return -ENOMEM;
	loc->offset = loc->ip - sym.addr;
	return 0;
}

/* The name of a subprogram or inlined instance; dwarf_diename follows
 * DW_AT_abstract_origin and DW_AT_specification. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	return name ? name : dwarf_diename(die);
}

static int resolve_inlines(struct px_symbols *res, Dwfl_Module *mod,
			   struct px_location *loc)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, loc->ip, &bias);
	Dwarf_Die *scopes = NULL, die;
	Dwarf_Files *files = NULL;
	struct px_inline_frame frames[64];
	size_t n = 0;
	int nscopes;

	if (!cu)
		return 0;
	nscopes = dwarf_getscopes(cu, loc->ip - bias, &scopes);
	if (nscopes <= 0)
		return 0;
	/* dwarf_getscopes follows the abstract origin of an inlined instance;
	 * the physical nesting (the callers) comes from re-walking the DIE. */
	if (!dwarf_offdie(dwarf_cu_getdwarf(cu->cu), dwarf_dieoffset(&scopes[0]), &die)) {
		free(scopes);
		return 0;
	}
	free(scopes);
	nscopes = dwarf_getscopes_die(&die, &scopes);
	if (nscopes <= 0)
		return 0;
	if (dwarf_getsrcfiles(cu, &files, NULL))
		files = NULL;
	for (int i = 0; i < nscopes && n < 64; i++) {
		Dwarf_Die *scope = &scopes[i];
		int tag = dwarf_tag(scope);
		Dwarf_Attribute attr;
		Dwarf_Word val;
		const char *file = NULL;
		struct px_inline_frame *f;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		f = &frames[n++];
		f->func = intern(&res->strings, &res->arena, die_name(scope));
		f->call_line = 0;
		f->call_column = 0;
		if (dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attr), &val) == 0)
			f->call_line = (int)val;
		if (dwarf_formudata(dwarf_attr(scope, DW_AT_call_column, &attr), &val) == 0)
			f->call_column = (int)val;
		if (files && dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &attr), &val) == 0)
			file = dwarf_filesrc(files, val, NULL, NULL);
		f->call_file = intern(&res->strings, &res->arena, file);
		if (!f->func || !f->call_file) {
			free(scopes);
			return -ENOMEM;
		}
	}
	free(scopes);
	if (!n)
		return 0;
	loc->inlines = arena_alloc(&res->arena, n * sizeof(*frames));
	if (!loc->inlines)
		return -ENOMEM;
	memcpy((void *)loc->inlines, frames, n * sizeof(*frames));
	loc->n_inline = n;
	return 0;
}

/* The symbol of ip in mod, through the module's index, built on its
 * first address; a PLT stub's name where no symbol covers ip; else, in a
 * stripped file, "MODULE+0xSTART" for the function its CFI places ip in
 * (module: the module's path).  NULL when ip has none of them. */
static const char *symbol_of(Dwfl_Module *mod, void **userdata, const char *module,
			     uint64_t ip, uint64_t *offset)
{
	struct modsyms *ms = *userdata;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name;

	/* without memory for the index or the PLT's names, libdwfl is
	 * asked directly, and the PLT's addresses read "??" */
	if (!ms && (ms = calloc(1, sizeof(*ms))))
		*userdata = ms;
	if (ms && !ms->ix_tried) {
		ms->ix = px_symindex_new(mod);
		ms->ix_tried = true;
	}
	if (ms && ms->ix) {
		name = px_symindex_lookup(ms->ix, mod, ip, offset);
	} else {
		name = dwfl_module_addrinfo(mod, ip, &off, &sym, NULL, NULL, NULL);
		*offset = off;
	}
	if (name || !ms)
		return name;
	if (!ms->plt_read) {
		ms->plt = px_plt_new(mod);
		ms->plt_read = true;
	}
	name = px_plt_lookup(ms->plt, ip, offset);
	if (name)
		return name;
	if (!ms->cfi_read && module) {
		ms->cfi = px_cfifuncs_new(mod, module);
		ms->cfi_read = true;
	}
	return px_cfifuncs_lookup(ms->cfi, ip, offset);
}

static int resolve_user(struct px_symbols *res, struct px_location *loc)
{
	Dwfl_Module *mod = dwfl_addrmodule(res->dwfl, loc->ip);
	const char *name, *file;
	uint64_t off = 0;
	void **userdata;
	Dwfl_Line *line;
	int l = 0, c = 0;

	if (!mod && res->live && px_symbols_refresh(res) == 0)
		mod = dwfl_addrmodule(res->dwfl, loc->ip);
	if (!mod)
		return 0;
	name = dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	/* a live process's vdso is "[vdso: PID]" to libdwfl */
	if (name && !strncmp(name, "[vdso", 5))
		name = "[vdso]";
	loc->module = intern(&res->strings, &res->arena, name);
	name = symbol_of(mod, userdata, loc->module, loc->ip, &off);
	loc->func = intern(&res->strings, &res->arena, name);
	if (!loc->module || !loc->func)
		return -ENOMEM;
	if (name)
		loc->offset = off;
	if (res->functions_only)
		return 0;
	line = dwfl_module_getsrc(mod, loc->ip);
	file = line ? dwfl_lineinfo(line, NULL, &l, &c, NULL, NULL) : NULL;
	if (file) {
		loc->file = intern(&res->strings, &res->arena, file);
		if (!loc->file)
			return -ENOMEM;
		loc->line = l;
		loc->column = c;
	}
	return resolve_inlines(res, mod, loc);
}

/* The upper half of the address space is the kernel's on the 64-bit
 * architectures this runs on. */
bool px_symbols_is_kernel_ip(uint64_t ip)
{
	return sizeof(void *) == 8 ? (ip >> 63) != 0 : ip >= 0xc0000000u;
}

int px_symbols_resolve(struct px_symbols *res, uint64_t ip,
		       const struct px_location **out)
{
	struct px_location *loc;
	int rc;

	/* samples come in runs of the same address */
	if (res->last && res->last->ip == ip && !res->dirty) {
		*out = res->last;
		return 0;
	}
	if (res->dirty && (rc = report_all_maps(res)))
		return rc;
	loc = ipcache_find(&res->cache, ip);
	if (loc) {
		*out = res->last = loc;
		return 0;
	}
	loc = arena_alloc(&res->arena, sizeof(*loc));
	if (!loc)
		return px_fail(ENOMEM, "symbols: out of memory");
	*loc = (struct px_location){
		.ip = ip, .module = unknown, .func = unknown, .file = unknown,
		.serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED),
	};
	rc = px_symbols_is_kernel_ip(ip) ? resolve_kernel(res, loc) : resolve_user(res, loc);
	if (rc || ipcache_insert(&res->cache, loc))
		return px_fail(ENOMEM, "symbols: out of memory");
	*out = res->last = loc;
	return 0;
}

int px_location_format_func(const struct px_location *loc, char *buf, size_t len)
{
	if (loc->func == unknown || !strcmp(loc->func, unknown))
		return snprintf(buf, len, "??");
	if (!loc->offset)
		return snprintf(buf, len, "%s", loc->func);
	return snprintf(buf, len, "%s+0x%" PRIx64, loc->func, loc->offset);
}

int px_location_format_line(const struct px_location *loc, char *buf, size_t len)
{
	if (!loc->line)
		return snprintf(buf, len, "%s:0", loc->file);
	if (loc->column)
		return snprintf(buf, len, "%s:%d:%d", loc->file, loc->line, loc->column);
	return snprintf(buf, len, "%s:%d", loc->file, loc->line);
}
