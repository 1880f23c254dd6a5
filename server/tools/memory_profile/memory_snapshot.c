/* memory_snapshot: what a kept snapshot says, read back from the model
 * when the answer is written (memory_profile_json.c): its stats, its
 * op, region, shape and type, and the row of the table at the peak it
 * stands for. */
#include "tools/memory_profile/memory_profile_priv.h"
#include "util/bsearch.h"

pv_memory_stats pv_memory_snapshot_stats(const pv_model *m, const pv_memory_snapshot *s)
{
    (void)m;
    const pv_memory_details *md = &s->details;
    pv_memory_stats st = {0};
    st.stack_reserved_bytes = md->bytes_reserved;
    st.heap_allocated_bytes = md->bytes_allocated;
    st.free_memory_bytes = md->bytes_available;
    st.fragmentation = md->fragmentation;
    st.peak_bytes_in_use = md->peak_bytes_in_use;
    return st;
}

/* Names from TensorFlow's DataType enum (types.proto), indexed by value. */
static const char *const dtype_names[] = {
    "INVALID", "float", "double", "int32", "uint8", "int16", "int8", "string",
    "complex64", "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16",
    "quint16", "uint16", "complex128", "half", "resource", "variant", "uint32", "uint64",
    "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
    "float8_e5m2fnuz", "int4", "uint4",
};
#define N_DTYPES ((int32_t)(sizeof dtype_names / sizeof dtype_names[0]))
#define DTYPE_REF_OFFSET 100   /* TF marks reference types as value + 100 */

const char *pv_memory_data_type_name(int32_t dtype, pv_arena *a)
{
    if (dtype > DTYPE_REF_OFFSET && dtype - DTYPE_REF_OFFSET < N_DTYPES)
        return pv_arena_printf(a, "%s_ref", dtype_names[dtype - DTYPE_REF_OFFSET]);
    if (dtype > DTYPE_REF_OFFSET)
        return pv_arena_printf(a, "unknown dtype enum (%d)_ref", (int)(dtype - DTYPE_REF_OFFSET));
    if (dtype >= 0 && dtype < N_DTYPES)
        return dtype_names[dtype];
    return pv_arena_printf(a, "unknown dtype enum (%d)", (int)dtype);
}

pv_memory_meta pv_memory_snapshot_meta(const pv_model *m, const pv_memory_snapshot *s,
                                       pv_arena *a)
{
    pv_memory_meta mt = {0};
    pv_memory_details src_md = s->details;
    const pv_event_extra *src = pv_model_event_extra(m, s->meta_event);
    if (s->meta_event != s->event)
        details_of(m, s->meta_event, &src_md);
    mt.activity = activity_of(m, s->event);
    mt.step_id = s->step_id;
    mt.requested_bytes = s->details.requested_bytes;
    mt.allocation_bytes = s->details.allocation_bytes;
    mt.address = s->details.address;
    mt.tf_op_name = pv_model_str(m, src != NULL ? src->tf_op : 0);
    mt.region_type = pv_model_str(m, src_md.region_type);
    mt.tensor_shape = pv_model_str(m, src_md.shape);
    mt.data_type = pv_memory_data_type_name(src_md.data_type, a);
    return mt;
}

const pv_memory_snapshot *pv_memory_snapshot_at(const pv_memory_allocator *al, size_t position)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, al->n_kept, mid, al->kept[mid].position < position);
    return lo < al->n_kept && al->kept[lo].position == position ? &al->kept[lo] : NULL;
}

pv_memory_meta pv_memory_active_meta(const pv_model *m, const pv_memory_allocator *al,
                                     const pv_memory_active *row, pv_arena *a)
{
    if (row->snapshot < 0)
        return al->special[-row->snapshot - 1];
    return pv_memory_snapshot_meta(m, pv_memory_snapshot_at(al, (size_t)row->snapshot), a);
}
