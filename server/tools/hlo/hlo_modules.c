/* hlo_modules: the module tools' names for a module (hlo_modules.h). */
#include "tools/hlo/hlo_modules.h"

#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

const char **pv_hlo_module_names(const pv_model *m, pv_arena *a, size_t *n)
{
    const pv_hlo_table *t = pv_model_hlo(m);
    const char **v = pv_arena_zalloc(a, (t->n_modules + 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; i < t->n_modules; i++) {
        if (i > 0 && t->modules[i].program_id == t->modules[i - 1].program_id)
            continue;
        v[(*n)++] = pv_arena_printf(a, "%s(%llu)", t->modules[i].name,
                                    (unsigned long long)t->modules[i].program_id);
    }
    pv_sort(v, *n, sizeof *v, cmp_str);
    return v;
}

/* The program id of a module list name "<name>(<id>)": its name part's
 * length in *name_len; false for a name without one. */
static bool listed_program(const char *module_name, uint64_t *program_id, size_t *name_len)
{
    size_t len = strlen(module_name);
    const char *open = len > 2 && module_name[len - 1] == ')' ? strrchr(module_name, '(') : NULL;
    if (open == NULL)
        return false;
    char *end;
    unsigned long long id = strtoull(open + 1, &end, 10);
    if (end != module_name + len - 1 || end == open + 1)
        return false;
    *program_id = id;
    *name_len = (size_t)(open - module_name);
    return true;
}

bool pv_hlo_module_program(const pv_model *m, const char *module_name, uint64_t *program_id)
{
    const pv_hlo_table *t = pv_model_hlo(m);
    uint64_t id;
    size_t name_len;
    if (listed_program(module_name, &id, &name_len)) {
        const pv_hlo_module *mod = pv_hlo_module_find(t, id);
        if (mod != NULL && strlen(mod->name) == name_len &&
            memcmp(mod->name, module_name, name_len) == 0) {
            *program_id = id;
            return true;
        }
    }
    for (size_t i = 0; i < t->n_modules; i++)
        if (strcmp(t->modules[i].name, module_name) == 0) {
            *program_id = t->modules[i].program_id;
            return true;
        }
    return false;
}

void pv_hlo_module_query_of(const pv_param_values *v, pv_hlo_module_query *q)
{
    q->name = pv_param_text_of(v, 0);
    q->program_id = pv_param_u(v, 1);
    q->has_program_id = q->program_id != UINT64_MAX;
}

/* PV_EFORMAT naming why program_id's proto was left out, or 0. */
static int proto_left_out(const pv_model *m, uint64_t program_id, pv_error *err)
{
    const char *why = pv_hlo_bad_reason(pv_model_hlo(m), program_id);
    if (why == NULL)
        return 0;
    return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET, "HLO module of program %llu: %s",
                        (unsigned long long)program_id, why);
}

int pv_hlo_module_query_program(const pv_model *m, const pv_hlo_module_query *q,
                                uint64_t *program_id, pv_error *err)
{
    if (q->has_program_id) {
        *program_id = q->program_id;
        return proto_left_out(m, q->program_id, err);
    }
    if (q->name == NULL || q->name[0] == '\0')
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "module_name or program_id must name an HLO module "
                            "(module_list lists them)");
    if (pv_hlo_module_program(m, q->name, program_id))
        return 0;
    /* A listed name of a program whose proto did not parse: say why. */
    size_t name_len;
    int rc = listed_program(q->name, program_id, &name_len) ? proto_left_out(m, *program_id, err)
                                                            : 0;
    if (rc != 0)
        return rc;
    return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                        "no HLO module %s in this profile", q->name);
}

/* ---- the module list, as a part ------------------------------------------------- */

static int module_list_write(const pv_part_input *in, const void *q, pv_arena *a, pv_buf *out,
                             pv_error *err)
{
    (void)q;
    size_t n;
    const char **names = pv_hlo_module_names(in->m, a, &n);
    for (size_t i = 0; i < n; i++)
        if ((i > 0 && pv_buf_adds(out, ",") != 0) || pv_buf_adds(out, names[i]) != 0)
            return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                "the module list is larger than %zu bytes", out->max);
    return 0;
}

static const char *module_list_type(const void *q)
{
    (void)q;
    return "text/plain";
}

const pv_tool_part pv_hlo_module_list_part = {.name = "module_list",
                                              .query_bytes = 1,
                                              .write = module_list_write,
                                              .content_type = module_list_type};
