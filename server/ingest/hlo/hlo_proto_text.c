/* hlo_proto_text: the parts of an instruction's text that the decoder writes
 * from the proto, as XLA prints them (hlo_priv.h): shapes with their
 * layouts, constants' values and replica groups. Everything else of an
 * instruction's text is the tools' (tools/hlo/hlo_text.c) from the
 * table's plain fields. */
#include "ingest/hlo/hlo_priv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tuple prints "/\*index=N*\/" before every fifth element, as XLA does
 * to keep long tuples readable. */
#define TUPLE_INDEX_EVERY 5
/* XLA prints a constant's elements up to this many, "{...}" past it. */
#define LITERAL_MAX_ELEMENTS 10

/* ---- shapes ---------------------------------------------------------------------- */

/* The element type as XLA writes it in a shape: its name in lower case. */
static bool add_type(pv_buf *t, int value)
{
    const ProtobufCEnumValue *ev =
        protobuf_c_enum_descriptor_get_value(&xla__primitive_type__descriptor, value);
    if (ev == NULL)
        return pv_buf_addf(t, "type%d", value) == 0;
    if (value == XLA__PRIMITIVE_TYPE__OPAQUE_TYPE)
        return pv_buf_adds(t, "opaque") == 0;
    if (value == XLA__PRIMITIVE_TYPE__PRIMITIVE_TYPE_INVALID)
        return pv_buf_adds(t, "invalid") == 0;
    for (const char *c = ev->name; *c != '\0'; c++) {
        char lower = (char)tolower((unsigned char)*c);
        if (pv_buf_add(t, &lower, 1) != 0)
            return false;
    }
    return true;
}

static bool add_ints(pv_buf *t, const int64_t *v, size_t n, const char *sep)
{
    for (size_t i = 0; i < n; i++)
        if (pv_buf_addf(t, "%s%lld", i > 0 ? sep : "", (long long)v[i]) != 0)
            return false;
    return true;
}

/* The part of a layout after its minor-to-major order that XLA prints
 * behind a colon: tiles T(8,128)(2,1), tail padding L(n), element size
 * E(bits), memory space S(n), in that order. */
static bool add_layout_extras(pv_buf *t, const Xla__LayoutProto *l)
{
    for (size_t i = 0; i < l->n_tiles; i++) {
        const Xla__TileProto *tile = l->tiles[i];
        if (pv_buf_adds(t, i == 0 ? "T(" : "(") != 0 ||
            !add_ints(t, tile->dimensions, tile->n_dimensions, ",") || pv_buf_adds(t, ")") != 0)
            return false;
    }
    if (l->tail_padding_alignment_in_elements > 1 &&
        pv_buf_addf(t, "L(%lld)", (long long)l->tail_padding_alignment_in_elements) != 0)
        return false;
    if (l->element_size_in_bits != 0 &&
        pv_buf_addf(t, "E(%lld)", (long long)l->element_size_in_bits) != 0)
        return false;
    return l->memory_space == 0 || pv_buf_addf(t, "S(%lld)", (long long)l->memory_space) == 0;
}

static bool layout_has_extras(const Xla__LayoutProto *l)
{
    return l->n_tiles > 0 || l->tail_padding_alignment_in_elements > 1 ||
           l->element_size_in_bits != 0 || l->memory_space != 0;
}

bool pv__hlo_shape_text(pv_buf *t, pv_pb_arena *pa, const Xla__ShapeProto *s, int depth)
{
    if (s->element_type == XLA__PRIMITIVE_TYPE__TUPLE) {
        if (depth >= PV__HLO_SHAPE_MAX_DEPTH || pv_buf_adds(t, "(") != 0)
            return false;
        for (size_t i = 0; i < s->n_tuple_shapes; i++) {
            ProtobufCMessage *e;
            if ((i > 0 && pv_buf_adds(t, ", ") != 0) ||
                (i > 0 && i % TUPLE_INDEX_EVERY == 0 &&
                 pv_buf_addf(t, "/*index=%zu*/", i) != 0) ||
                pv_pb_unpack(pa, &xla__shape_proto__descriptor, s->tuple_shapes[i].data,
                             s->tuple_shapes[i].len, "", &e, NULL) != 0 ||
                !pv__hlo_shape_text(t, pa, (const Xla__ShapeProto *)(const void *)e, depth + 1))
                return false;
        }
        return pv_buf_adds(t, ")") == 0;
    }
    if (!add_type(t, s->element_type) || pv_buf_adds(t, "[") != 0)
        return false;
    for (size_t i = 0; i < s->n_dimensions; i++) {
        bool dynamic = i < s->n_is_dynamic_dimension && s->is_dynamic_dimension[i];
        if (pv_buf_addf(t, "%s%s%lld", i > 0 ? "," : "", dynamic ? "<=" : "",
                        (long long)s->dimensions[i]) != 0)
            return false;
    }
    if (pv_buf_adds(t, "]") != 0)
        return false;
    const Xla__LayoutProto *l = s->layout;
    /* A scalar's layout prints only when it says more than its (empty)
     * dimension order, as on a TPU ("f32[]{:T(128)}"). */
    if (l == NULL || (l->n_minor_to_major == 0 && !layout_has_extras(l)) ||
        (s->n_dimensions > 0 && l->n_minor_to_major == 0))
        return true;
    if (pv_buf_adds(t, "{") != 0 || !add_ints(t, l->minor_to_major, l->n_minor_to_major, ","))
        return false;
    if (layout_has_extras(l) && (pv_buf_adds(t, ":") != 0 || !add_layout_extras(t, l)))
        return false;
    return pv_buf_adds(t, "}") == 0;
}

/* ---- constants ------------------------------------------------------------------- */

/* IEEE half and bfloat16 bits as a float. */
static float half_to_float(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)mant, -24);
    else if (exp == 31)
        v = mant != 0 ? NAN : INFINITY;
    else
        v = ldexpf((float)(mant | 0x400), exp - 25);
    return (h & 0x8000) != 0 ? -v : v;
}

static float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* A float rounded to bfloat16's bits (to nearest, ties to even). */
static uint16_t float_to_bf16(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (isnan(v))
        return (uint16_t)(bits >> 16 | 0x40);
    bits += 0x7fff + ((bits >> 16) & 1);
    return (uint16_t)(bits >> 16);
}

/* A float rounded to IEEE half's bits (to nearest, ties to even). */
static uint16_t float_to_half(float v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    float a = fabsf(v);
    if (isnan(v))
        return (uint16_t)(sign | 0x7e00);
    if (a >= 65520.0f)
        return (uint16_t)(sign | 0x7c00);
    if (a < ldexpf(1.0f, -14)) {
        /* subnormal: units of 2^-24 */
        return (uint16_t)(sign | (uint16_t)lrintf(ldexpf(a, 24)));
    }
    int e;
    float m = frexpf(a, &e);            /* a = m * 2^e, m in [0.5, 1) */
    long q = lrintf(ldexpf(m, 11));     /* 11 significant bits, rounded */
    if (q == 2048) {
        q = 1024;
        e++;
    }
    if (e + 14 > 30)
        return (uint16_t)(sign | 0x7c00);
    return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)(q & 0x3ff));
}

/* The kinds of floats a constant holds, for the round trip below. */
typedef enum fp_kind { FP_F64, FP_F32, FP_F16, FP_BF16 } fp_kind;

/* Whether the text s reads back as the value v of kind k. */
static bool round_trips(const char *s, double v, fp_kind k)
{
    switch (k) {
    case FP_F64:
        return strtod(s, NULL) == v;
    case FP_F32:
        return (double)strtof(s, NULL) == v;
    case FP_F16:
        return float_to_half(strtof(s, NULL)) == float_to_half((float)v);
    case FP_BF16:
        return float_to_bf16(strtof(s, NULL)) == float_to_bf16((float)v);
    }
    return false;
}

/* A floating-point value as XLA prints it: "inf", "-inf", "nan", else
 * with the type's guaranteed decimal digits (6 for f32, 2 for bf16) when
 * that reads back as the same value of its type, and with its
 * round-trip digits (9 for f32, 4 for bf16) when it does not. */
static bool add_float(pv_buf *t, double v, fp_kind k, int digits, int round_trip_digits)
{
    if (isnan(v))
        return pv_buf_adds(t, "nan") == 0;
    if (isinf(v))
        return pv_buf_adds(t, v < 0 ? "-inf" : "inf") == 0;
    char s[64];
    snprintf(s, sizeof s, "%.*g", digits, v);
    if (!round_trips(s, v, k))
        snprintf(s, sizeof s, "%.*g", round_trip_digits, v);
    return pv_buf_adds(t, s) == 0;
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Element i of l, whose element type is type, appended; false when l
 * holds fewer. */
static bool add_element(pv_buf *t, const Xla__LiteralProto *l, int type, size_t i)
{
    switch (type) {
    case XLA__PRIMITIVE_TYPE__PRED:
        return i < l->n_preds && pv_buf_adds(t, l->preds[i] ? "true" : "false") == 0;
    case XLA__PRIMITIVE_TYPE__S8:
        return i < l->s8s.len && pv_buf_addf(t, "%d", (int)(int8_t)l->s8s.data[i]) == 0;
    case XLA__PRIMITIVE_TYPE__U8:
        return i < l->u8s.len && pv_buf_addf(t, "%u", (unsigned)l->u8s.data[i]) == 0;
    case XLA__PRIMITIVE_TYPE__S16:
        return 2 * i + 1 < l->s16s.len &&
               pv_buf_addf(t, "%d", (int)(int16_t)le16(l->s16s.data + 2 * i)) == 0;
    case XLA__PRIMITIVE_TYPE__U16:
        return 2 * i + 1 < l->u16s.len &&
               pv_buf_addf(t, "%u", (unsigned)le16(l->u16s.data + 2 * i)) == 0;
    case XLA__PRIMITIVE_TYPE__S32:
        return i < l->n_s32s && pv_buf_addf(t, "%d", (int)l->s32s[i]) == 0;
    case XLA__PRIMITIVE_TYPE__U32:
        return i < l->n_u32s && pv_buf_addf(t, "%u", (unsigned)l->u32s[i]) == 0;
    case XLA__PRIMITIVE_TYPE__S64:
        return i < l->n_s64s && pv_buf_addf(t, "%lld", (long long)l->s64s[i]) == 0;
    case XLA__PRIMITIVE_TYPE__U64:
        return i < l->n_u64s && pv_buf_addf(t, "%llu", (unsigned long long)l->u64s[i]) == 0;
    case XLA__PRIMITIVE_TYPE__F32:
        return i < l->n_f32s && add_float(t, (double)l->f32s[i], FP_F32, 6, 9);
    case XLA__PRIMITIVE_TYPE__F64:
        return i < l->n_f64s && add_float(t, l->f64s[i], FP_F64, 15, 17);
    case XLA__PRIMITIVE_TYPE__F16:
        return 2 * i + 1 < l->f16s.len &&
               add_float(t, (double)half_to_float(le16(l->f16s.data + 2 * i)), FP_F16, 3, 5);
    case XLA__PRIMITIVE_TYPE__BF16:
        return 2 * i + 1 < l->bf16s.len &&
               add_float(t, (double)bf16_to_float(le16(l->bf16s.data + 2 * i)), FP_BF16, 2, 4);
    default:
        /* a type whose values this schema does not declare */
        return pv_buf_adds(t, "?") == 0;
    }
}

bool pv__hlo_literal_text(pv_buf *t, const Xla__LiteralProto *l)
{
    const Xla__ShapeProto *s = l->shape;
    if (s == NULL || s->element_type == XLA__PRIMITIVE_TYPE__TUPLE)
        return pv_buf_adds(t, "{...}") == 0;
    uint64_t n = 1;
    for (size_t i = 0; i < s->n_dimensions; i++) {
        if (s->dimensions[i] < 0)
            return false;
        n = n * (uint64_t)s->dimensions[i];
        if (n > LITERAL_MAX_ELEMENTS)
            return pv_buf_adds(t, "{...}") == 0;
    }
    if (s->n_dimensions == 0)
        return add_element(t, l, s->element_type, 0);
    /* Nested braces per dimension, as XLA's one-line form: "{ {1, 2}, {3, 4} }". */
    if (s->n_dimensions > 1)
        return pv_buf_adds(t, "{...}") == 0;
    if (pv_buf_adds(t, "{") != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((i > 0 && pv_buf_adds(t, ", ") != 0) || !add_element(t, l, s->element_type, i))
            return false;
    return pv_buf_adds(t, "}") == 0;
}

/* ---- replica groups --------------------------------------------------------------- */

static bool add_groups(pv_buf *t, Xla__ReplicaGroup *const *g, size_t n)
{
    if (pv_buf_adds(t, "{") != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((i > 0 && pv_buf_adds(t, ",") != 0) || pv_buf_adds(t, "{") != 0 ||
            !add_ints(t, g[i]->replica_ids, g[i]->n_replica_ids, ",") ||
            pv_buf_adds(t, "}") != 0)
            return false;
    return pv_buf_adds(t, "}") == 0;
}

bool pv__hlo_replica_groups_text(pv_buf *t, const Xla__HloInstructionProto *r)
{
    const Xla__CollectiveDeviceListProto *dl = r->collective_device_list;
    if (dl != NULL && dl->iota_replica_group_list != NULL) {
        const Xla__IotaReplicaGroupListProto *io = dl->iota_replica_group_list;
        if (pv_buf_addf(t, "[%lld,%lld]<=[", (long long)io->num_replica_groups,
                        (long long)io->num_devices_per_group) != 0 ||
            !add_ints(t, io->iota_reshape_dims, io->n_iota_reshape_dims, ",") ||
            pv_buf_adds(t, "]") != 0)
            return false;
        bool identity = true;
        for (size_t i = 0; i < io->n_iota_transpose_perm; i++)
            identity = identity && io->iota_transpose_perm[i] == (int32_t)i;
        if (identity)
            return true;
        if (pv_buf_adds(t, "T(") != 0)
            return false;
        for (size_t i = 0; i < io->n_iota_transpose_perm; i++)
            if (pv_buf_addf(t, "%s%d", i > 0 ? "," : "", (int)io->iota_transpose_perm[i]) != 0)
                return false;
        return pv_buf_adds(t, ")") == 0;
    }
    if (dl != NULL && dl->n_replica_groups > 0)
        return add_groups(t, dl->replica_groups, dl->n_replica_groups);
    return add_groups(t, r->replica_groups, r->n_replica_groups);
}
