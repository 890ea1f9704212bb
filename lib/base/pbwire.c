/* The protobuf wire format, written (pbwire.h). */
#include "pbwire.h"
#include "grow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* Room for more bytes; false (and err set) when there is none. */
static bool room(struct px_pb *b, size_t more)
{
	if (b->err)
		return false;
	if (px_grow((void **)&b->p, &b->cap, b->n, more, 1, 4096)) {
		b->err = -ENOMEM;
		return false;
	}
	return true;
}

void px_pb_varint(struct px_pb *b, uint64_t v)
{
	if (!room(b, 10))	/* 64 bits in 7-bit groups */
		return;
	while (v >= 0x80) {
		b->p[b->n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->p[b->n++] = (unsigned char)v;
}

static void key(struct px_pb *b, unsigned field, unsigned wire)
{
	px_pb_varint(b, (uint64_t)field << 3 | wire);
}

void px_pb_uint(struct px_pb *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	key(b, field, WIRE_VARINT);
	px_pb_varint(b, v);
}

void px_pb_raw(struct px_pb *b, const void *p, size_t len)
{
	if (!len || !room(b, len))
		return;
	memcpy(b->p + b->n, p, len);
	b->n += len;
}

void px_pb_bytes(struct px_pb *b, unsigned field, const void *p, size_t len)
{
	key(b, field, WIRE_LEN);
	px_pb_varint(b, len);
	px_pb_raw(b, p, len);
}

void px_pb_string(struct px_pb *b, unsigned field, const char *s)
{
	px_pb_bytes(b, field, s, strlen(s));
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void px_pb_packed(struct px_pb *b, unsigned field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	key(b, field, WIRE_LEN);
	px_pb_varint(b, len);
	for (size_t i = 0; i < n; i++)
		px_pb_varint(b, v[i]);
}

void px_pb_free(struct px_pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
