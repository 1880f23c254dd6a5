/* trace_derived_offload: the rows XProf lays a TPU's host-offload copies
 * out on (trace_derived_offload.h). */
#include "tools/trace_derived/trace_derived_offload.h"

#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

static bool has(const char *s, size_t n, const char *what)
{
    size_t k = strlen(what);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, what, k) == 0)
            return true;
    return false;
}

/* XProf's IsHostOffloadOpName: a copy or dynamic-slice start/done whose
 * HLO text puts an operand in host memory (memory space S(5)). */
bool pv__offload_op(const pv_model *m, uint64_t e)
{
    static const char *const ops[] = {"copy-start", "copy-done", "dynamic-slice-start",
                                      "dynamic-slice-done", "dynamic-update-slice-start",
                                      "dynamic-update-slice-done", NULL};
    const pv_event_meta *md = &m->metas[m->ev_meta[e]];
    if (md->display_name == 0)
        return false;
    const char *shown = pv_model_str(m, md->display_name);
    const char *name = pv_model_str(m, md->name);
    if (strstr(name, "S(5)") == NULL)
        return false;
    for (size_t i = 0; ops[i] != NULL; i++)
        if (has(shown, strlen(shown), ops[i]))
            return true;
    return false;
}

/* "copy-start.2" -> "offload-copy.2"; no ".N" counts as ".0". */
static void offload_name(text *t, const char *op)
{
    const char *dot = strrchr(op, '.');
    const char *id = dot != NULL ? dot + 1 : "0";
    const char *cut = strstr(op, "-start");
    if (cut == NULL)
        cut = strstr(op, "-done");
    size_t n = cut != NULL ? (size_t)(cut - op) : strlen(op);
    text_set(t, "offload-", 8);
    text_cat(t, op, n);
    text_cats(t, ".");
    text_cats(t, id);
}

static pv__offload_queue *offload_find(pv__offload *h, const char *name)
{
    for (size_t i = 0; i < h->n_q; i++)
        if (strcmp(h->q[i].name, name) == 0)
            return &h->q[i];
    h->q = pv_xrealloc(h->q, (h->n_q + 1) * sizeof *h->q);
    h->q[h->n_q] = (pv__offload_queue){pv_xstrdup(name), NULL, 0, 0, 0};
    return &h->q[h->n_q++];
}

/* XProf's ProcessHostOffloadOpEvent: a start waits in its queue; a done
 * takes the oldest start and lays start..done out on the row whose last
 * end is the earliest one not after the start (a new row when none is
 * free; the last row once all 41 are used). */
void pv__offload_add(pv__offload *h, const pv_model *m, pv_arena *a, uint64_t e)
{
    const char *op = pv_model_str(m, m->metas[m->ev_meta[e]].display_name);
    offload_name(&h->name, op);
    pv__offload_queue *q = offload_find(h, h->name.p);
    if (strstr(op, "-start") != NULL) {
        if (q->n == q->cap) {
            q->cap = q->cap == 0 ? 8 : q->cap * 2;
            q->ev = pv_xrealloc(q->ev, q->cap * sizeof *q->ev);
        }
        q->ev[q->n++] = e;
        return;
    }
    if (strstr(op, "-done") == NULL || q->head == q->n)
        return;
    uint64_t start = q->ev[q->head++];
    int64_t begin = m->ev_start_ps[start];
    int64_t end = m->ev_start_ps[e] + m->ev_dur_ps[e];
    size_t row = SIZE_MAX;
    int64_t best = begin;
    for (size_t i = 0; i < h->n_rows; i++) {
        if (h->rows[i].frontier_ps <= best) {
            row = i;
            best = h->rows[i].frontier_ps;
        }
    }
    if (row == SIZE_MAX) {
        if (h->n_rows < PV__OFFLOAD_ROWS_MAX)
            h->rows[h->n_rows++] = (pv__offload_row){end, NULL, 0, 0};
        row = h->n_rows - 1;
    }
    pv__offload_row *r = &h->rows[row];
    if (end > r->frontier_ps)
        r->frontier_ps = end;
    if (r->n == r->cap) {
        r->cap = r->cap == 0 ? 32 : r->cap * 2;
        r->ev = pv_xrealloc(r->ev, r->cap * sizeof *r->ev);
    }
    r->ev[r->n++] = (pv_derived_event){begin,       end - begin, pv_arena_strdup(a, h->name.p),
                                       "",          PV_NO_GROUP, 0,
                                       start,       e};
}

void pv__offload_fini(pv__offload *h)
{
    for (size_t i = 0; i < h->n_rows; i++)
        free(h->rows[i].ev);
    for (size_t i = 0; i < h->n_q; i++) {
        free(h->q[i].name);
        free(h->q[i].ev);
    }
    free(h->q);
    free(h->name.p);
}
