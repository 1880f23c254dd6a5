/* step_intersection: chief choice and best-overlap alignment of step
 * sequences (see the header). */
#include "tools/steps/step_intersection.h"

#include <stdint.h>

typedef struct alignment {
    size_t begin_host;   /* first aligned step on the host */
    size_t begin_chief;  /* the chief step it lines up with */
    size_t n_steps;
} alignment;

static int64_t overlap_ps(const pv_step *x, const pv_step *y)
{
    int64_t b = x->begin_ps > y->begin_ps ? x->begin_ps : y->begin_ps;
    int64_t xe = x->begin_ps + x->dur_ps, ye = y->begin_ps + y->dur_ps;
    int64_t e = xe < ye ? xe : ye;
    return e > b ? e - b : 0;
}

static size_t min_size(size_t x, size_t y)
{
    return x < y ? x : y;
}

/* The alignment that puts host step host_anchor on chief step
 * chief_anchor, extended both ways as far as both sequences go, and the
 * summed overlap of its step pairs in *score. */
static alignment align_at(const pv_steps_result *host, size_t host_anchor,
                          const pv_steps_result *chief, size_t chief_anchor, double *score)
{
    size_t before = min_size(host_anchor, chief_anchor);
    size_t after = min_size(host->n_steps - host_anchor, chief->n_steps - chief_anchor);
    alignment al = {host_anchor - before, chief_anchor - before, before + after};
    double sum = 0;
    for (size_t i = 0; i < al.n_steps; i++)
        sum += (double)overlap_ps(&host->steps[al.begin_host + i],
                                  &chief->steps[al.begin_chief + i]);
    *score = sum;
    return al;
}

/* Tries every offset (host step 0 against each chief step, then each
 * later host step against chief step 0) and keeps the first best one. */
static alignment best_alignment(const pv_steps_result *host, const pv_steps_result *chief)
{
    alignment best = {0, 0, 0};
    if (host->n_steps == 0 || chief->n_steps == 0)
        return best;
    double best_score = -1, score;
    for (size_t c = 0; c < chief->n_steps; c++) {
        alignment al = align_at(host, 0, chief, c, &score);
        if (score > best_score) {
            best_score = score;
            best = al;
        }
    }
    for (size_t s = 1; s < host->n_steps; s++) {
        alignment al = align_at(host, s, chief, 0, &score);
        if (score > best_score) {
            best_score = score;
            best = al;
        }
    }
    return best;
}

/* First step start to last step end; 0 for a host without steps, which
 * then becomes the chief and empties the intersection. */
static int64_t steps_span_ps(const pv_steps_result *r)
{
    if (r->n_steps == 0)
        return 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < r->n_steps; i++) {
        const pv_step *s = &r->steps[i];
        lo = s->begin_ps < lo ? s->begin_ps : lo;
        hi = s->begin_ps + s->dur_ps > hi ? s->begin_ps + s->dur_ps : hi;
    }
    return hi - lo;
}

size_t pv_step_intersection(const pv_steps_result *per, size_t n_hosts, pv_arena *a,
                            size_t *first)
{
    if (n_hosts == 0)
        return 0;
    size_t chief = 0;
    int64_t chief_span = steps_span_ps(&per[0]);
    for (size_t k = 1; k < n_hosts; k++) {
        int64_t span = steps_span_ps(&per[k]);
        if (span < chief_span) {
            chief = k;
            chief_span = span;
        }
    }
    alignment *al = pv_arena_zalloc(a, n_hosts * sizeof *al);
    size_t begin = 0, end = SIZE_MAX;
    for (size_t k = 0; k < n_hosts; k++) {
        al[k] = k == chief ? (alignment){0, 0, per[k].n_steps}
                           : best_alignment(&per[k], &per[chief]);
        begin = al[k].begin_chief > begin ? al[k].begin_chief : begin;
        end = min_size(end, al[k].begin_chief + al[k].n_steps);
    }
    if (begin >= end) {
        for (size_t k = 0; k < n_hosts; k++)
            first[k] = 0;
        return 0;
    }
    for (size_t k = 0; k < n_hosts; k++)
        first[k] = al[k].begin_host + (begin - al[k].begin_chief);
    return end - begin;
}
