/* cj_roles: what PyTorch's profiler (Kineto) says its events are, as the
 * model's roles (model.h) and the stats that link them (builder.h), so
 * tools read a PyTorch trace through the model alone.
 *
 *   role       by the event's category, as torch-tb-profiler 0.4.3 maps
 *              them (trace.py's EventTypeMap, names compared without
 *              case); an operator or annotation named ProfilerStep#N is a
 *              step; a "[memory]" event without a category is a memory
 *              event (cuda_driver and cpu_instant_event are no category
 *              of that map: their events have no role)
 *   facts      an NCCL or Gloo collective's name; the operators
 *              torch-tb-profiler counts as Tensor Core eligible
 *   launch key the "External id" arg (2021 traces: "external id"), shared
 *              by an operator, its runtime calls and the kernels, copies
 *              and fills they launched
 *   call key   the "correlation" arg, shared by a runtime call and the
 *              device activities it launched */
#include "ingest/chrome_json/cj_priv.h"

#include <string.h>
#include <strings.h>

/* ---- roles -------------------------------------------------------------- */

static pv_event_role role_of_cat(const char *cat, const char *name)
{
    static const struct {
        const char *cat;
        pv_event_role role;
    } cats[] = {
        {"cpu_op", PV_ROLE_OPERATOR},
        {"operator", PV_ROLE_OPERATOR},
        {"user_annotation", PV_ROLE_ANNOTATION},
        {"gpu_user_annotation", PV_ROLE_DEVICE_ANNOTATION},
        {"python_function", PV_ROLE_PYTHON},
        {"python", PV_ROLE_PYTHON},
        {"runtime", PV_ROLE_RUNTIME},
        {"cuda_runtime", PV_ROLE_RUNTIME},
        {"mtia_runtime", PV_ROLE_RUNTIME},
        {"glow_runtime", PV_ROLE_RUNTIME},
        {"xpu_runtime", PV_ROLE_RUNTIME},
        {"privateuse1_runtime", PV_ROLE_RUNTIME},
        {"kernel", PV_ROLE_KERNEL},
        {"memcpy", PV_ROLE_MEMCPY},
        {"gpu_memcpy", PV_ROLE_MEMCPY},
        {"memset", PV_ROLE_MEMSET},
        {"gpu_memset", PV_ROLE_MEMSET},
        {"trace", PV_ROLE_TRACE_MARK},
    };
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++) {
        if (strcasecmp(cat, cats[i].cat) != 0)
            continue;
        /* torch.profiler's step markers are operators (2021) or
         * annotations (later) */
        if ((cats[i].role == PV_ROLE_OPERATOR || cats[i].role == PV_ROLE_ANNOTATION) &&
            strncmp(name, "ProfilerStep#", 13) == 0)
            return PV_ROLE_STEP;
        return cats[i].role;
    }
    return PV_ROLE_NONE;
}

static bool name_in(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* The operators and annotations torch-tb-profiler counts as
 * communication. */
static bool collective(const char *name)
{
    static const char *const ops[] = {"nccl:broadcast", "nccl:reduce", "nccl:all_reduce",
                                      "nccl:all_gather", "nccl:reduce_scatter", "gloo:broadcast",
                                      "gloo:reduce", "gloo:all_reduce", "gloo:all_gather",
                                      "gloo:reduce_scatter"};
    return name_in(name, ops, sizeof ops / sizeof ops[0]);
}

/* torch-tb-profiler's operators that Tensor Cores can run (convolutions,
 * matrix products, RNN cells and their backward ops): exact names. */
static bool tensor_core_op(const char *name)
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
    return name_in(name, ops, sizeof ops / sizeof ops[0]);
}

unsigned pv__cj_roles(const pv__cj_model *m, uint32_t name, uint32_t display, uint32_t cat)
{
    const char *n = pv_builder_str(m->b, name);
    unsigned roles = PV_ROLE_NONE;
    if (strcmp(n, "[memory]") == 0 || strcmp(pv_builder_str(m->b, display), "[memory]") == 0)
        roles = PV_ROLE_MEMORY;
    if (cat != 0)
        roles = role_of_cat(pv_builder_str(m->b, cat), n);
    if (collective(n))
        roles |= PV_ROLE_COLLECTIVE;
    if (tensor_core_op(n))
        roles |= PV_ROLE_TENSOR_CORE_OP;
    return roles;
}

void pv__cj_link_stats(pv__cj_model *m)
{
    static const char *const launch[] = {"External id", "external id", NULL};
    static const char *const call[] = {"correlation", NULL};
    pv_builder_link_stats(m->b, launch, call);
}
