/* The protobuf wire format pfmon's pprof profile is written in
 * (lib/base/pbwire.c), against encodings worked out from the protobuf
 * encoding guide: varints at their 7-bit boundaries and at 2^64 - 1, a
 * field's key (number << 3 | wire type), scalars of 0 left out, empty
 * strings kept, packed repeated integers, nested messages. */
#include "tap.h"
#include "pbwire.h"

#include <string.h>

static const struct {
	int line;
	uint64_t v;
	size_t n;
	unsigned char bytes[10];
} varints[] = {
	{ ROW, 0, 1, { 0x00 } },
	{ ROW, 1, 1, { 0x01 } },
	{ ROW, 127, 1, { 0x7f } },
	{ ROW, 128, 2, { 0x80, 0x01 } },
	{ ROW, 300, 2, { 0xac, 0x02 } },
	{ ROW, 16383, 2, { 0xff, 0x7f } },
	{ ROW, 16384, 3, { 0x80, 0x80, 0x01 } },
	{ ROW, UINT64_MAX, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
};

static void is_bytes(int line, const struct px_pb *b, const unsigned char *want, size_t n,
		     const char *what)
{
	ok_at(line, b->n == n && !memcmp(b->p, want, n) && !b->err, "%s: %zu bytes", what, n);
}

int main(void)
{
	struct px_pb b = { 0 }, m = { 0 };
	const uint64_t packed[] = { 3, 270, 86942 };

	for (size_t i = 0; i < ARRAY_SIZE(varints); i++) {
		px_pb_reset(&b);
		px_pb_varint(&b, varints[i].v);
		is_bytes(varints[i].line, &b, varints[i].bytes, varints[i].n, "varint");
	}

	/* field 1 = 150: the guide's first example */
	px_pb_reset(&b);
	px_pb_uint(&b, 1, 150);
	is_bytes(__LINE__, &b, (const unsigned char[]){ 0x08, 0x96, 0x01 }, 3, "field 1 = 150");
	px_pb_reset(&b);
	px_pb_uint(&b, 7, 0);
	ok(b.n == 0, "a scalar of 0 is not written");

	/* field 2 = "testing"; field 6 = "" (string_table[0]) */
	px_pb_reset(&b);
	px_pb_string(&b, 2, "testing");
	px_pb_string(&b, 6, "");
	is_bytes(__LINE__, &b, (const unsigned char[]){ 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
							0x32, 0x00 }, 11, "strings, the empty one kept");

	/* field 4 packed 3, 270, 86942: the guide's packed example */
	px_pb_reset(&b);
	px_pb_packed(&b, 4, packed, 3);
	is_bytes(__LINE__, &b, (const unsigned char[]){ 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 },
		 8, "packed repeated field");
	px_pb_reset(&b);
	px_pb_packed(&b, 4, packed, 0);
	ok(b.n == 0, "an empty packed field is not written");

	/* a nested message: field 3 holding field 1 = 150 */
	px_pb_reset(&b);
	px_pb_uint(&m, 1, 150);
	px_pb_bytes(&b, 3, m.p, m.n);
	is_bytes(__LINE__, &b, (const unsigned char[]){ 0x1a, 0x03, 0x08, 0x96, 0x01 }, 5,
		 "nested message");

	/* a key past the 4 bits of field number one byte holds */
	px_pb_reset(&b);
	px_pb_uint(&b, 16, 1);
	is_bytes(__LINE__, &b, (const unsigned char[]){ 0x80, 0x01, 0x01 }, 3, "field 16");

	px_pb_free(&b);
	px_pb_free(&m);
	return done_testing();
}
