/* model_fixture: finishing the small models the suites build by hand. */
#ifndef PV_TESTS_MODEL_FIXTURE_H
#define PV_TESTS_MODEL_FIXTURE_H

#include "model/builder.h"
#include "testutil.h"

/* The model b builds; b is consumed. The test fails unless the build
 * succeeds and the model keeps model.h's invariants. */
static inline pv_model *pv_test_finish(pv_model_builder *b)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    ck_assert_ptr_nonnull(m);
    ck_assert(pv_model_is_sane(m));
    return m;
}

#endif
