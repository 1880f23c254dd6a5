/* pb_arena: protobuf-c's allocator over a capped pv_arena (pb_arena.h). */
#include "ingest/pb_arena.h"

/* The arena hands out 16-byte multiples (util/arena.c); the cap counts
 * what it really takes. */
#define ARENA_ROUND 16u

static void *pb_alloc(void *data, size_t size)
{
    pv_pb_arena *pa = data;
    size_t left = pa->cap_bytes - pa->used_bytes;
    if (size > left || (size + ARENA_ROUND - 1) / ARENA_ROUND * ARENA_ROUND > left) {
        pa->refused = true;
        return NULL;
    }
    pa->used_bytes += (size + ARENA_ROUND - 1) / ARENA_ROUND * ARENA_ROUND;
    return pv_arena_alloc(pa->arena, size);
}

/* The arena frees everything at once. */
static void pb_free(void *data, void *p)
{
    (void)data;
    (void)p;
}

size_t pv_pb_arena_cap(size_t input_bytes)
{
    if (input_bytes > (SIZE_MAX - PV_PB_SLACK_BYTES) / PV_PB_BYTES_PER_INPUT_BYTE)
        return SIZE_MAX;
    return input_bytes * PV_PB_BYTES_PER_INPUT_BYTE + PV_PB_SLACK_BYTES;
}

void pv_pb_arena_init(pv_pb_arena *pa, pv_arena *a, size_t cap_bytes)
{
    pa->alloc.alloc = pb_alloc;
    pa->alloc.free = pb_free;
    pa->alloc.allocator_data = pa;
    pa->arena = a;
    pa->used_bytes = 0;
    pa->cap_bytes = cap_bytes;
    pa->refused = false;
}

int pv_pb_unpack(pv_pb_arena *pa, const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                 size_t len, const char *path, ProtobufCMessage **out, pv_error *err)
{
    pa->refused = false;
    *out = protobuf_c_message_unpack(desc, &pa->alloc, len, data);
    if (*out != NULL)
        return 0;
    if (pa->refused)
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "unpacking this %s would take more than the %zu bytes allowed "
                            "for its size: too many tiny messages", desc->short_name,
                            pa->cap_bytes);
    return pv_error_set(err, PV_EFORMAT, path, PV_NO_OFFSET,
                        "not a %s: the protobuf does not parse (cut short, a length past "
                        "its end, or a field of the wrong wire type)", desc->name);
}
