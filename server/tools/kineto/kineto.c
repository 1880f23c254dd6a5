/* kineto: event categories and launch links of a Kineto trace's model
 * (see kineto.h). */
#include "tools/kineto/kineto.h"
#include "util/bsearch.h"
#include "util/sort.h"

#include <string.h>
#include <strings.h>

/* torch-tb-profiler's map of categories (trace.py's EventTypeMap, by
 * lower-case name); cuda_driver is not in it, so driver calls count as
 * nothing there and here. */
static pv_kineto_kind kind_of_cat(const char *cat, const char *name)
{
    static const struct {
        const char *cat;
        pv_kineto_kind kind;
    } cats[] = {
        {"cpu_op", PV_KINETO_OPERATOR},
        {"operator", PV_KINETO_OPERATOR},
        {"user_annotation", PV_KINETO_ANNOTATION},
        {"gpu_user_annotation", PV_KINETO_GPU_ANNOTATION},
        {"python_function", PV_KINETO_PYTHON},
        {"python", PV_KINETO_PYTHON},
        {"runtime", PV_KINETO_RUNTIME},
        {"cuda_runtime", PV_KINETO_RUNTIME},
        {"mtia_runtime", PV_KINETO_RUNTIME},
        {"glow_runtime", PV_KINETO_RUNTIME},
        {"xpu_runtime", PV_KINETO_RUNTIME},
        {"privateuse1_runtime", PV_KINETO_RUNTIME},
        {"kernel", PV_KINETO_KERNEL},
        {"memcpy", PV_KINETO_MEMCPY},
        {"gpu_memcpy", PV_KINETO_MEMCPY},
        {"memset", PV_KINETO_MEMSET},
        {"gpu_memset", PV_KINETO_MEMSET},
        {"trace", PV_KINETO_TRACE},
    };
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++) {
        if (strcasecmp(cat, cats[i].cat) != 0)
            continue;
        /* torch.profiler's step markers are operators (2021) or
         * annotations (later) named ProfilerStep#N */
        if ((cats[i].kind == PV_KINETO_OPERATOR || cats[i].kind == PV_KINETO_ANNOTATION) &&
            strncmp(name, "ProfilerStep#", 13) == 0)
            return PV_KINETO_PROFILER_STEP;
        return cats[i].kind;
    }
    return PV_KINETO_NONE;
}

void pv_kineto_init(pv_kineto *k, const pv_model *m, pv_arena *a)
{
    memset(k, 0, sizeof *k);
    k->m = m;
    k->meta_kind = pv_arena_zalloc(a, m->n_metas + 1);
    uint32_t s_cat = pv_model_str_find(m, "cat");
    uint32_t s_memory = pv_model_str_find(m, "[memory]");
    for (uint32_t i = 0; i < m->n_metas; i++) {
        const pv_event_meta *meta = &m->metas[i];
        pv_kineto_kind kind = PV_KINETO_NONE;
        /* the decoder names them MemoryAllocation / MemoryDeallocation,
         * shown as [memory] */
        if (s_memory != 0 && (meta->name == s_memory || meta->display_name == s_memory))
            kind = PV_KINETO_MEMORY;
        for (uint32_t j = 0; s_cat != 0 && j < meta->n_stats; j++) {
            const pv_stat *s = &m->stats[meta->first_stat + j];
            if (s->name == s_cat && s->type == PV_STAT_STR)
                kind = kind_of_cat(pv_model_str(m, s->v.str), pv_model_str(m, meta->name));
        }
        k->meta_kind[i] = (uint8_t)kind;
        k->present = k->present || (kind != PV_KINETO_NONE && kind != PV_KINETO_MEMORY);
    }
    k->s_external = pv_model_str_find(m, "External id");
    k->s_external_old = pv_model_str_find(m, "external id");
}

bool pv_kineto_on_device(pv_kineto_kind kind)
{
    return kind == PV_KINETO_KERNEL || kind == PV_KINETO_MEMCPY || kind == PV_KINETO_MEMSET;
}

bool pv_kineto_external_id(const pv_kineto *k, uint64_t ev, int64_t *id)
{
    return pv_model_event_stat_int(k->m, ev, k->s_external, id) ||
           pv_model_event_stat_int(k->m, ev, k->s_external_old, id);
}

static int cmp_link(const void *pa, const void *pb)
{
    const pv_kineto_link *a = pa, *b = pb;
    if (a->external_id != b->external_id)
        return a->external_id < b->external_id ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static bool launches(pv_kineto_kind kind)
{
    return kind == PV_KINETO_OPERATOR || kind == PV_KINETO_PROFILER_STEP ||
           kind == PV_KINETO_ANNOTATION || kind == PV_KINETO_PYTHON;
}

void pv_kineto_link_hosts(pv_kineto *k, pv_arena *a)
{
    const pv_model *m = k->m;
    size_t n = 0;
    for (uint64_t e = 0; e < m->n_events; e++)
        n += launches(pv_kineto_kind_of(k, e));
    k->links = pv_arena_alloc(a, (n + 1) * sizeof *k->links);
    k->n_links = 0;
    for (uint64_t e = 0; e < m->n_events; e++) {
        int64_t id;
        if (launches(pv_kineto_kind_of(k, e)) && pv_kineto_external_id(k, e, &id) && id != 0)
            k->links[k->n_links++] = (pv_kineto_link){id, e};
    }
    pv_sort(k->links, k->n_links, sizeof *k->links, cmp_link);
}

uint64_t pv_kineto_launcher(const pv_kineto *k, uint64_t ev)
{
    int64_t id;
    if (!pv_kineto_external_id(k, ev, &id) || id == 0)
        return PV_KINETO_NO_EVENT;
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, k->n_links, mid, k->links[mid].external_id < id);
    return lo < k->n_links && k->links[lo].external_id == id ? k->links[lo].ev
                                                              : PV_KINETO_NO_EVENT;
}

bool pv_kineto_collective(const char *name)
{
    static const char *const ops[] = {"nccl:broadcast", "nccl:reduce", "nccl:all_reduce",
                                      "nccl:all_gather", "nccl:reduce_scatter", "gloo:broadcast",
                                      "gloo:reduce", "gloo:all_reduce", "gloo:all_gather",
                                      "gloo:reduce_scatter"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i]) == 0)
            return true;
    return false;
}

bool pv_kineto_op_tensor_core_eligible(const char *name)
{
    static const char *const ops[] = {
        "aten::_convolution", "aten::_convolution_nogroup", "aten::conv1d", "aten::conv2d",
        "aten::conv3d", "aten::conv_tbc", "aten::conv_transpose1d", "aten::conv_transpose2d",
        "aten::conv_transpose3d", "aten::convolution", "aten::cudnn_convolution",
        "aten::cudnn_convolution_transpose", "aten::prelu", "aten::addmm", "aten::addmv",
        "aten::addr", "aten::matmul", "aten::mm", "aten::mv", "aten::linear", "aten::addbmm",
        "aten::baddbmm", "aten::bmm", "aten::chain_matmul", "aten::linalg_multi_dot",
        "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell",
        "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
        "CudnnConvolutionBackward", "BmmBackward0",
        "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward",
        "MmBackward", "aten::cudnn_convolution_backward_weight",
        "aten::addmm_", "AddmvBackward", "MvBackward",
        "aten::cudnn_convolution_transpose_backward_weight",
        "aten::cudnn_convolution_transpose_backward_input", "AddmmBackward",
        "aten::cudnn_convolution_backward_input", "AddbmmBackward",
        "aten::cudnn_convolution_backward",
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i]) == 0)
            return true;
    return false;
}
