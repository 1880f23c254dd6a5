/* compare_kineto_views: the views compare_kineto compares (its header
 * describes each), as a table: the view's name, the golden file it reads
 * (<name>.json.gz), the profview tool it asks, and the function that
 * compares the two through compare_kineto_rules.h. */
#ifndef PV_TESTS_COMPARE_KINETO_VIEWS_H
#define PV_TESTS_COMPARE_KINETO_VIEWS_H

#include "compare_kineto_rules.h"

#include <jansson.h>

typedef void (*kv_compare_fn)(kv_tally *t, json_t *ref, json_t *ours);

typedef struct kv_view {
    const char *view;      /* as the lines and the rules name it */
    const char *golden;    /* <golden>.json.gz in the trace's reference folder */
    const char *tool;      /* profview's tool */
    kv_compare_fn compare;
} kv_view;

extern const kv_view kv_views[];
extern const size_t kv_n_views;

#endif
