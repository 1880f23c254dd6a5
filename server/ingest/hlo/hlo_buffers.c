/* hlo_buffers: one program's buffer assignment (model/hlo_table.h), read from
 * its HloProto on request. The bytes are unpacked as
 * HloBufferAssignmentView (proto/hlo.proto), which declares field 3 only,
 * so the module (field 1, most of the bytes) is skipped unread and the
 * table pv_model_hlo decoded is not decoded again.
 *
 * Fields read: LogicalBufferProto id, size, color, defined_at
 * (instruction_id, shape_index); BufferAllocationProto index, size, color,
 * the five flags, assigned (logical_buffer_id, offset, size);
 * HeapSimulatorTrace events (kind, buffer_id, instruction_name,
 * share_with_canonical_id). */
#include "ingest/hlo/hlo_priv.h"
#include "ingest/ingest.h"
#include "util/sort.h"

#include <string.h>

static const char *keep(pv_arena *a, const char *s)
{
    return s != NULL && s[0] != '\0' ? pv_arena_strdup(a, s) : "";
}

static int cmp_buffer(const void *pa, const void *pb)
{
    const pv_hlo_logical_buffer *x = pa, *y = pb;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void copy_buffers(const Xla__BufferAssignmentProto *ba, pv_arena *a, pv_hlo_buffers *out)
{
    pv_hlo_logical_buffer *lb = pv_arena_zalloc(a, (ba->n_logical_buffers + 1) * sizeof *lb);
    for (size_t i = 0; i < ba->n_logical_buffers; i++) {
        const Xla__LogicalBufferProto *p = ba->logical_buffers[i];
        lb[i] = (pv_hlo_logical_buffer){p->id, p->size, p->color, 0, NULL, 0};
        if (p->defined_at != NULL) {
            lb[i].instruction_id = p->defined_at->instruction_id;
            size_t n = p->defined_at->n_shape_index;
            if (n > 0 && n <= UINT32_MAX) {
                int64_t *ix = pv_arena_alloc(a, n * sizeof *ix);
                memcpy(ix, p->defined_at->shape_index, n * sizeof *ix);
                lb[i].shape_index = ix;
                lb[i].n_shape_index = (uint32_t)n;
            }
        }
    }
    pv_sort(lb, ba->n_logical_buffers, sizeof *lb, cmp_buffer);
    out->logical_buffers = lb;
    out->n_logical_buffers = ba->n_logical_buffers;

    pv_hlo_allocation *al = pv_arena_zalloc(a, (ba->n_buffer_allocations + 1) * sizeof *al);
    for (size_t i = 0; i < ba->n_buffer_allocations; i++) {
        const Xla__BufferAllocationProto *p = ba->buffer_allocations[i];
        pv_hlo_assigned *as = pv_arena_zalloc(a, (p->n_assigned + 1) * sizeof *as);
        for (size_t k = 0; k < p->n_assigned; k++)
            as[k] = (pv_hlo_assigned){p->assigned[k]->logical_buffer_id,
                                      p->assigned[k]->offset, p->assigned[k]->size};
        al[i] = (pv_hlo_allocation){p->index, p->size, p->color, p->is_thread_local,
                                    p->is_tuple, p->is_entry_computation_parameter,
                                    p->is_constant, p->maybe_live_out, as,
                                    p->n_assigned <= UINT32_MAX ? (uint32_t)p->n_assigned : 0};
    }
    out->allocations = al;
    out->n_allocations = ba->n_buffer_allocations;

    pv_hlo_heap_trace *tr = pv_arena_zalloc(a, (ba->n_heap_simulator_traces + 1) * sizeof *tr);
    for (size_t i = 0; i < ba->n_heap_simulator_traces; i++) {
        const Xla__HeapSimulatorTrace *p = ba->heap_simulator_traces[i];
        pv_hlo_heap_event *ev = pv_arena_zalloc(a, (p->n_events + 1) * sizeof *ev);
        for (size_t k = 0; k < p->n_events; k++) {
            const Xla__HeapSimulatorTrace__Event *e = p->events[k];
            pv_hlo_heap_kind kind = e->kind == XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__FREE
                                        ? PV_HEAP_FREE
                                    : e->kind == XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__SHARE_WITH
                                        ? PV_HEAP_SHARE_WITH
                                        : PV_HEAP_ALLOC;
            ev[k] = (pv_hlo_heap_event){kind, e->buffer_id, e->share_with_canonical_id,
                                        keep(a, e->instruction_name)};
        }
        tr[i] = (pv_hlo_heap_trace){ev, p->n_events};
    }
    out->traces = tr;
    out->n_traces = ba->n_heap_simulator_traces;
}

int pv_ingest_hlo_buffers(const pv_model *m, uint64_t program_id, pv_arena *a,
                          pv_hlo_buffers *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    const pv_blob *blob = pv__hlo_proto_of(m, program_id);
    if (blob == NULL)
        return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                            "no HLO proto of program %llu", (unsigned long long)program_id);
    pv_arena scratch;
    pv_arena_init(&scratch, (size_t)64 << 10);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, &scratch, pv_pb_arena_cap(blob->len));
    ProtobufCMessage *msg;
    int rc = pv_pb_unpack(&pa, &xla__hlo_buffer_assignment_view__descriptor, blob->data,
                          blob->len, "Hlo Proto", &msg, err);
    if (rc == 0) {
        const Xla__HloBufferAssignmentView *v = (const void *)msg;
        if (v->buffer_assignment != NULL)
            copy_buffers(v->buffer_assignment, a, out);
    }
    pv_arena_fini(&scratch);
    return rc;
}
