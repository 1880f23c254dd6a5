/* memory_viewer_json: the memory viewer's answer as XProf writes it, its
 * PreprocessResult proto printed as proto3 JSON: camelCase names, fields
 * at their default (0, "", false, empty) left out, 64-bit integers as
 * strings, sizes in MiB. */
#include "tools/memory_viewer/memory_viewer.h"

#include <stdio.h>

static double mib(int64_t bytes)
{
    return (double)bytes / (double)(1u << 20);
}

static void put_num(json_t *o, const char *k, double v)
{
    if (v != 0)
        json_object_set_new(o, k, json_real(v));
}

static void put_int(json_t *o, const char *k, int64_t v)
{
    if (v != 0)
        json_object_set_new(o, k, json_integer(v));
}

static void put_i64(json_t *o, const char *k, int64_t v)
{
    if (v != 0) {
        char s[32];
        snprintf(s, sizeof s, "%lld", (long long)v);
        json_object_set_new(o, k, json_string(s));
    }
}

static void put_str(json_t *o, const char *k, const char *v)
{
    if (v != NULL && v[0] != '\0')
        json_object_set_new(o, k, json_string(v));
}

static void put_array(json_t *o, const char *k, json_t *a)
{
    if (json_array_size(a) > 0)
        json_object_set_new(o, k, a);
    else
        json_decref(a);
}

static void put_source(json_t *o, const char *k, const pv_mv_source *s)
{
    if (s->file[0] == '\0')
        return;
    json_t *j = json_object();
    put_str(j, "fileName", s->file);
    put_int(j, "lineNumber", s->line);
    put_str(j, "stackFrame", s->stack);
    json_object_set_new(o, k, j);
}

static json_t *heap_object(const pv_mv_heap_object *h)
{
    json_t *o = json_object();
    /* "numbered" is one of a oneof: printed even when 0 */
    json_object_set_new(o, "numbered", json_integer(h->color));
    put_str(o, "label", h->label);
    put_int(o, "logicalBufferId", h->logical_buffer_id);
    put_num(o, "logicalBufferSizeMib", mib(h->size_bytes));
    put_num(o, "unpaddedShapeMib", mib(h->unpadded_bytes));
    put_str(o, "instructionName", h->instruction_name);
    put_str(o, "shapeString", h->shape);
    put_str(o, "tfOpName", h->tf_op_name);
    put_str(o, "groupName", h->group);
    put_str(o, "opCode", h->opcode);
    put_source(o, "sourceInfo", &h->source);
    return o;
}

static json_t *allocation(const pv_mv_allocation *al)
{
    json_t *o = json_object();
    put_i64(o, "id", al->id);
    put_num(o, "sizeMib", mib(al->size_bytes));
    json_t *attrs = json_array();
    if (al->parameter)
        json_array_append_new(attrs, json_string("entry computation parameter"));
    if (al->live_out)
        json_array_append_new(attrs, json_string("may-be live out"));
    if (al->reusable)
        json_array_append_new(attrs, json_string("reusable"));
    put_array(o, "attributes", attrs);
    json_t *bufs = json_array();
    for (size_t i = 0; i < al->n_buffers; i++) {
        const pv_mv_buffer_ref *b = &al->buffers[i];
        json_t *j = json_object();
        put_i64(j, "id", b->id);
        put_str(j, "shape", b->shape);
        put_num(j, "sizeMib", mib(b->size_bytes));
        put_str(j, "hloName", b->hlo_name);
        json_t *ix = json_array();
        for (uint32_t k = 0; k < b->n_shape_index; k++) {
            char s[32];
            snprintf(s, sizeof s, "%lld", (long long)b->shape_index[k]);
            json_array_append_new(ix, json_string(s));
        }
        put_array(j, "shapeIndex", ix);
        json_array_append_new(bufs, j);
    }
    put_array(o, "logicalBuffers", bufs);
    put_str(o, "commonShape", al->common_shape);
    return o;
}

/* Colors of the allocation chart's blocks: a block live at the peak takes
 * the color of its place there (as the peak's bar chart), the others go
 * round the palette. profview's own palette (colorblind-safe hues). */
static const char *const palette[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9",
                                      "#d55e00", "#f0e442", "#999999", "#332288", "#88ccee",
                                      "#44aa99", "#117733", "#ddcc77", "#aa4499", "#882255"};
#define N_PALETTE (sizeof palette / sizeof palette[0])

static json_t *block(const pv_mv_block *b, size_t i)
{
    json_t *o = json_object();
    put_int(o, "logicalBufferId", b->logical_buffer_id);
    put_str(o, "name", b->name);
    put_num(o, "offset", (double)b->offset);
    put_num(o, "size", (double)b->size);
    put_int(o, "startStep", b->start_step);
    put_int(o, "endStep", b->end_step);
    put_str(o, "tfOpName", b->tf_op_name);
    put_str(o, "category", b->category);
    put_source(o, "sourceInfo", &b->source);
    put_str(o, "shapeString", b->shape);
    put_num(o, "unpaddedSize", (double)b->unpadded_size);
    const char *color = b->logical_buffer_id < 0 ? "#ffffff"
                        : b->peak                ? palette[(size_t)b->peak_color % N_PALETTE]
                                                 : palette[i % N_PALETTE];
    put_str(o, "color", color);
    return o;
}

json_t *pv_memory_viewer_json(const pv_memory_viewer *mv)
{
    json_t *o = json_object();
    json_t *sizes = json_array(), *unpadded = json_array(), *names = json_array();
    for (size_t i = 0; i < mv->n_steps; i++) {
        json_array_append_new(sizes, json_real(mib(mv->heap_bytes[i] + mv->indefinite_bytes)));
        json_array_append_new(unpadded,
                              json_real(mib(mv->unpadded_heap_bytes[i] + mv->indefinite_bytes)));
        json_array_append_new(names, json_string(mv->step_instruction[i]));
    }
    put_array(o, "heapSizes", sizes);
    put_array(o, "unpaddedHeapSizes", unpadded);
    json_t *heap = json_array(), *by_size = json_array(), *to_by = json_array(),
           *from_by = json_array();
    for (size_t i = 0; i < mv->n_max_heap; i++) {
        json_array_append_new(heap, heap_object(&mv->max_heap[i]));
        json_array_append_new(by_size, heap_object(&mv->max_heap[mv->by_size[i]]));
        json_array_append_new(from_by, json_integer(mv->by_size[i]));
        json_array_append_new(to_by, json_integer(0));
    }
    for (size_t i = 0; i < mv->n_max_heap; i++)
        json_array_set_new(to_by, mv->by_size[i], json_integer((json_int_t)i));
    put_array(o, "maxHeap", heap);
    put_array(o, "maxHeapBySize", by_size);
    json_t *spans = json_object();
    for (size_t i = 0; i < mv->n_spans; i++) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)mv->spans[i].id);
        json_t *sp = json_object();
        put_int(sp, "start", mv->spans[i].start);
        put_int(sp, "limit", mv->spans[i].limit);
        json_object_set_new(spans, key, sp);
    }
    if (json_object_size(spans) > 0)
        json_object_set_new(o, "logicalBufferSpans", spans);
    else
        json_decref(spans);
    put_array(o, "maxHeapToBySize", to_by);
    put_array(o, "bySizeToMaxHeap", from_by);
    put_str(o, "moduleName", mv->module_name);
    put_str(o, "entryComputationName", mv->entry_computation_name);
    put_num(o, "peakHeapMib", mib(mv->peak_bytes + mv->indefinite_bytes));
    put_num(o, "peakUnpaddedHeapMib", mib(mv->peak_unpadded_bytes + mv->indefinite_bytes));
    put_int(o, "peakHeapSizePosition", mv->peak_step);
    put_num(o, "entryComputationParametersMib", mib(mv->parameter_bytes));
    put_num(o, "nonReusableMib", mib(mv->non_reusable_bytes));
    put_num(o, "maybeLiveOutMib", mib(mv->live_out_bytes));
    json_t *ind = json_array();
    for (size_t i = 0; i < mv->n_indefinite; i++)
        json_array_append_new(ind, allocation(&mv->indefinite[i]));
    put_array(o, "indefiniteLifetimes", ind);
    put_num(o, "totalBufferAllocationMib", mib(mv->total_allocation_bytes));
    put_num(o, "indefiniteBufferAllocationMib", mib(mv->indefinite_allocation_bytes));
    put_array(o, "hloInstructionNames", names);
    json_t *blocks = json_array();
    for (size_t i = 0; i < mv->n_blocks; i++)
        json_array_append_new(blocks, block(&mv->blocks[i], i));
    put_array(o, "bufferBlocks", blocks);
    return o;
}
