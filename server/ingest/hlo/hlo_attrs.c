/* hlo_attrs: an instruction's attributes (model/hlo_table.h, pv_hlo_attrs)
 * copied from its HloInstructionProto into the table's arena. Fields
 * read (proto/hlo.proto, HloInstructionProto): literal, parameter_number,
 * fusion_kind, tuple_index, dimensions, window, convolution_dimension_
 * numbers, slice_dimensions, dynamic_slice_sizes, padding_config,
 * channel_id, custom_call_target, dot_dimension_numbers,
 * control_predecessor_ids, replica_groups, feature_group_count,
 * batch_group_count, comparison_direction, use_global_device_ids,
 * comparison_type, collective_device_list. */
#include "ingest/hlo/hlo_priv.h"

#include <string.h>

static const char *keep(pv_arena *a, const char *s)
{
    return s != NULL && s[0] != '\0' ? pv_arena_strdup(a, s) : "";
}

static pv_hlo_ints keep_ints(pv_arena *a, const int64_t *v, size_t n)
{
    pv_hlo_ints out = {NULL, 0};
    if (n == 0 || n > UINT32_MAX)
        return out;
    int64_t *c = pv_arena_alloc(a, n * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    out.v = c;
    out.n = (uint32_t)n;
    return out;
}

/* Flattens a repeated message of three int64 fields (slices, padding). */
static pv_hlo_ints keep_triples(pv_arena *a, size_t n,
                                void (*at)(const void *, size_t, int64_t *), const void *msg)
{
    pv_hlo_ints out = {NULL, 0};
    if (n == 0 || n > UINT32_MAX / 3)
        return out;
    int64_t *c = pv_arena_alloc(a, 3 * n * sizeof *c);
    for (size_t i = 0; i < n; i++)
        at(msg, i, c + 3 * i);
    out.v = c;
    out.n = (uint32_t)(3 * n);
    return out;
}

static void slice_at(const void *msg, size_t i, int64_t *out)
{
    const Xla__HloInstructionProto *r = msg;
    const Xla__HloInstructionProto__SliceDimensions *d = r->slice_dimensions[i];
    out[0] = d->start;
    out[1] = d->limit;
    out[2] = d->stride;
}

static void padding_at(const void *msg, size_t i, int64_t *out)
{
    const Xla__PaddingConfig *p = msg;
    const Xla__PaddingConfig__PaddingConfigDimension *d = p->dimensions[i];
    out[0] = d->edge_padding_low;
    out[1] = d->edge_padding_high;
    out[2] = d->interior_padding;
}

/* Whether r carries anything pv_hlo_attrs holds. */
static bool has_attrs(const Xla__HloInstructionProto *r)
{
    return r->literal != NULL || r->parameter_number != 0 || r->fusion_kind[0] != '\0' ||
           r->tuple_index != 0 || r->n_dimensions > 0 || r->window != NULL ||
           r->convolution_dimension_numbers != NULL || r->n_slice_dimensions > 0 ||
           r->n_dynamic_slice_sizes > 0 || r->padding_config != NULL || r->channel_id > 0 ||
           r->custom_call_target[0] != '\0' || r->dot_dimension_numbers != NULL ||
           r->n_control_predecessor_ids > 0 || r->n_replica_groups > 0 ||
           r->feature_group_count != 0 || r->batch_group_count != 0 ||
           r->comparison_direction[0] != '\0' || r->use_global_device_ids ||
           r->comparison_type[0] != '\0' || r->collective_device_list != NULL ||
           strcmp(r->opcode, "parameter") == 0 || strcmp(r->opcode, "get-tuple-element") == 0;
}

/* The text pv__hlo_* wrote into t, kept; "" when t is empty. */
static const char *keep_text(pv_arena *a, const pv_buf *t)
{
    return t->len > 0 ? pv_arena_strndup(a, t->data, t->len) : "";
}

static void conv_dims(pv_arena *a, const Xla__ConvolutionDimensionNumbers *c,
                      pv_hlo_conv_dims *out)
{
    out->input_batch = c->input_batch_dimension;
    out->input_feature = c->input_feature_dimension;
    out->kernel_input_feature = c->kernel_input_feature_dimension;
    out->kernel_output_feature = c->kernel_output_feature_dimension;
    out->output_batch = c->output_batch_dimension;
    out->output_feature = c->output_feature_dimension;
    out->input_spatial = keep_ints(a, c->input_spatial_dimensions, c->n_input_spatial_dimensions);
    out->kernel_spatial =
        keep_ints(a, c->kernel_spatial_dimensions, c->n_kernel_spatial_dimensions);
    out->output_spatial =
        keep_ints(a, c->output_spatial_dimensions, c->n_output_spatial_dimensions);
}

const pv_hlo_attrs *pv__hlo_attrs(pv_arena *a, pv_buf *t, const Xla__HloInstructionProto *r,
                                  bool *ok)
{
    *ok = true;
    if (!has_attrs(r))
        return NULL;
    pv_hlo_attrs *x = pv_arena_zalloc(a, sizeof *x);
    x->fusion_kind = keep(a, r->fusion_kind);
    x->custom_call_target = keep(a, r->custom_call_target);
    x->comparison_direction = keep(a, r->comparison_direction);
    x->comparison_type = keep(a, r->comparison_type);
    x->literal = "";
    if (r->literal != NULL) {
        pv_buf_reset(t);
        *ok = pv__hlo_literal_text(t, r->literal);
        x->literal = keep_text(a, t);
    }
    x->replica_groups = "";
    if (r->n_replica_groups > 0 || r->collective_device_list != NULL) {
        pv_buf_reset(t);
        *ok = *ok && pv__hlo_replica_groups_text(t, r);
        x->replica_groups = keep_text(a, t);
    }
    x->dimensions = keep_ints(a, r->dimensions, r->n_dimensions);
    x->dynamic_slice_sizes = keep_ints(a, r->dynamic_slice_sizes, r->n_dynamic_slice_sizes);
    x->slices = keep_triples(a, r->n_slice_dimensions, slice_at, r);
    if (r->padding_config != NULL)
        x->padding = keep_triples(a, r->padding_config->n_dimensions, padding_at,
                                  r->padding_config);
    x->control_ids = keep_ints(a, r->control_predecessor_ids, r->n_control_predecessor_ids);
    if (r->window != NULL && r->window->n_dimensions > 0 &&
        r->window->n_dimensions <= UINT32_MAX) {
        pv_hlo_window_dim *w = pv_arena_alloc(a, r->window->n_dimensions * sizeof *w);
        for (size_t i = 0; i < r->window->n_dimensions; i++) {
            const Xla__WindowDimension *d = r->window->dimensions[i];
            w[i] = (pv_hlo_window_dim){d->size,         d->stride,          d->padding_low,
                                       d->padding_high, d->window_dilation, d->base_dilation,
                                       d->window_reversal};
        }
        x->window = w;
        x->n_window = (uint32_t)r->window->n_dimensions;
    }
    const Xla__DotDimensionNumbers *dd = r->dot_dimension_numbers;
    if (dd != NULL) {
        x->has_dot_dims = true;
        x->dot_dims[0] = keep_ints(a, dd->lhs_contracting_dimensions,
                                   dd->n_lhs_contracting_dimensions);
        x->dot_dims[1] = keep_ints(a, dd->rhs_contracting_dimensions,
                                   dd->n_rhs_contracting_dimensions);
        x->dot_dims[2] = keep_ints(a, dd->lhs_batch_dimensions, dd->n_lhs_batch_dimensions);
        x->dot_dims[3] = keep_ints(a, dd->rhs_batch_dimensions, dd->n_rhs_batch_dimensions);
    }
    if (r->convolution_dimension_numbers != NULL) {
        x->has_conv_dims = true;
        conv_dims(a, r->convolution_dimension_numbers, &x->conv_dims);
    }
    x->use_global_device_ids = r->use_global_device_ids;
    x->parameter_number = r->parameter_number;
    x->tuple_index = r->tuple_index;
    x->feature_group_count = r->feature_group_count;
    x->batch_group_count = r->batch_group_count;
    x->channel_id = r->channel_id;
    return x;
}
