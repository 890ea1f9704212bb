/* The protobuf wire format, written (lib/base/pbwire.c): varints and the
 * fields of the two wire types a message of scalars, strings, nested
 * messages and packed repeated integers needs (0: varint, 2:
 * length-delimited), appended to a growing buffer.  A nested message is
 * written into a buffer of its own, then appended as one field's bytes.
 * No protobuf library is linked: pprof's profile.proto is the one
 * message written (lib/report/pprof_write.c).
 *
 * A failed allocation is kept in the buffer (err), as a FILE keeps its
 * error: the writes after it do nothing, and the writer checks err once
 * at the end instead of after every field. */
#ifndef PX_PBWIRE_H
#define PX_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

struct px_pb {
	unsigned char *p;
	size_t n, cap;
	int err;		/* 0, or -ENOMEM: a write failed */
};

/* A varint alone (a packed array's element). */
void px_pb_varint(struct px_pb *b, uint64_t v);

/* Field `field` as a varint (uint64, int64 two's complement, bool).  A
 * value of 0 is not written: proto3 reads a missing scalar as 0. */
void px_pb_uint(struct px_pb *b, unsigned field, uint64_t v);

/* Field `field` as len bytes (a string, or a nested message's buffer);
 * written even when empty (string_table[0] is ""). */
void px_pb_bytes(struct px_pb *b, unsigned field, const void *p, size_t len);
void px_pb_string(struct px_pb *b, unsigned field, const char *s);

/* len bytes as they are: fields already encoded (a message's part
 * kept apart, as a merged sample's locations and labels). */
void px_pb_raw(struct px_pb *b, const void *p, size_t len);

/* A repeated integer field, packed: one length-delimited field holding
 * the n varints (nothing when n is 0). */
void px_pb_packed(struct px_pb *b, unsigned field, const uint64_t *v, size_t n);

/* Empty the buffer for reuse (its room kept, its error not cleared). */
static inline void px_pb_reset(struct px_pb *b)
{
	b->n = 0;
}

void px_pb_free(struct px_pb *b);

#endif
