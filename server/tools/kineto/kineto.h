/* kineto: what PyTorch's profiler (Kineto) recorded, read from a model
 * decoded from its trace JSON (ingest/chrome_json): each event's category
 * (its metadata's "cat" stat) as torch-tb-profiler classes them, and which
 * host event launched each GPU activity. torch-tb-profiler ties a kernel,
 * memcpy or memset to the runtime call with the same "correlation", and
 * that call to the host event (operator, annotation, profiler step) with
 * the same "External id"; the device activity carries that External id
 * itself ("external id" in 2021 traces), which is what is read here.
 *
 * Ownership: everything lives in the caller's arena; the model is only
 * read. Threads: any. A model without Kineto categories (an XSpace) gives
 * a pv_kineto with present false, which the tools check first. */
#ifndef PV_TOOLS_KINETO_KINETO_H
#define PV_TOOLS_KINETO_KINETO_H

#include "model/model.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum pv_kineto_kind {
    PV_KINETO_NONE,            /* no category, or one torch-tb-profiler ignores */
    PV_KINETO_OPERATOR,        /* cpu_op, Operator */
    PV_KINETO_PROFILER_STEP,   /* an operator or annotation named ProfilerStep#N */
    PV_KINETO_ANNOTATION,      /* user_annotation */
    PV_KINETO_PYTHON,          /* python_function, python */
    PV_KINETO_RUNTIME,         /* cuda_runtime, Runtime, cuda_driver and other runtimes */
    PV_KINETO_KERNEL,          /* kernel, Kernel */
    PV_KINETO_MEMCPY,          /* gpu_memcpy, Memcpy */
    PV_KINETO_MEMSET,          /* gpu_memset, Memset */
    PV_KINETO_GPU_ANNOTATION,  /* gpu_user_annotation */
    PV_KINETO_MEMORY,          /* a [memory] instant event (a memory event of the model) */
    PV_KINETO_TRACE            /* Trace: "PyTorch Profiler (0)" */
} pv_kineto_kind;

#define PV_KINETO_NO_EVENT UINT64_MAX

typedef struct pv_kineto_link {
    int64_t external_id;
    uint64_t ev;               /* the host event with that External id */
} pv_kineto_link;

typedef struct pv_kineto {
    const pv_model *m;
    bool present;              /* some metadata has a Kineto category */
    uint8_t *meta_kind;        /* per metadata: pv_kineto_kind */
    uint32_t s_external;       /* string ids of "External id", "external id" (0: none) */
    uint32_t s_external_old;
    pv_kineto_link *links;     /* host events by External id, sorted; after pv_kineto_link */
    size_t n_links;
} pv_kineto;

/* Classifies m's metadata into k (arena a). Cannot fail. */
void pv_kineto_init(pv_kineto *k, const pv_model *m, pv_arena *a);
/* The kind of event ev. */
static inline pv_kineto_kind pv_kineto_kind_of(const pv_kineto *k, uint64_t ev)
{
    return (pv_kineto_kind)k->meta_kind[k->m->ev_meta[ev]];
}
/* Whether kind is a GPU activity torch-tb-profiler attributes to an op. */
bool pv_kineto_on_device(pv_kineto_kind kind);
/* The External id of ev (either spelling) in *id, or false. */
bool pv_kineto_external_id(const pv_kineto *k, uint64_t ev, int64_t *id);

/* Indexes the host events that can launch work (operators, annotations,
 * profiler steps, Python functions) by External id. Cannot fail. */
void pv_kineto_link_hosts(pv_kineto *k, pv_arena *a);
/* The host event that launched device event ev, or PV_KINETO_NO_EVENT
 * (no External id, or none of a host event). After pv_kineto_link_hosts. */
uint64_t pv_kineto_launcher(const pv_kineto *k, uint64_t ev);

/* Whether name is an NCCL or Gloo collective (nccl:all_reduce, ...), the
 * operators and annotations torch-tb-profiler counts as communication. */
bool pv_kineto_collective(const char *name);

/* torch-tb-profiler's operators that TensorCores can run (convolutions,
 * matrix products, RNN cells and their backward ops): exact names. */
bool pv_kineto_op_tensor_core_eligible(const char *name);

#endif
