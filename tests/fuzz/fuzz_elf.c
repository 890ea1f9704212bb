/* Symbol resolution of an arbitrary file mapped as a program: its ELF
 * symbol tables, PLT, call frame information (stripped code's function
 * ranges), DWARF lines and inlined functions, through libelf and libdw
 * and this project's indexes.  Addresses spread over the mapping, and
 * some taken from the input, are resolved. */
#include "fuzz.h"
#include "maps.h"
#include "symbols.h"

#include <string.h>

#define LOAD 0x400000ull
#define SPAN 0x100000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct px_maps maps = { 0 };
	struct px_symbols *res = NULL;
	const struct px_location *loc;

	if (!px_maps_add(&maps, LOAD, SPAN, 0, path) &&
	    !px_symbols_open_maps(&res, &maps, &(struct px_symbols_opts){
			.debuginfo_path = "/nonexistent" })) {
		for (uint64_t off = 0; off < SPAN; off += SPAN / 61)
			(void)px_symbols_resolve(res, LOAD + off, &loc);
		for (size_t i = 0; i + 4 <= size && i < 64; i += 4) {
			uint32_t v;

			memcpy(&v, data + i, 4);
			(void)px_symbols_resolve(res, LOAD + v % SPAN, &loc);
		}
	}
	px_symbols_free(res);
	px_maps_free(&maps);
	fuzz_file_close(fd);
	return 0;
}
