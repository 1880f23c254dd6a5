/* overview_device_count: framework-op runs on the devices (see the
 * header). */
#include "tools/steps/overview_device_count.h"

#include "tools/op_stats/op_metrics.h"

uint64_t pv__overview_device_op_count(const pv_model *m, pv_arena *a)
{
    pv_op_metrics_db db;
    pv_error err = {0};
    /* Fails only past 2^31 distinct ops, where the op tables fail too:
     * then no device op is counted. */
    if (pv_op_metrics_device(m, a, &db, &err) != 0)
        return 0;
    uint64_t n = 0;
    for (size_t i = 0; i < db.n_ops; i++)
        n += db.ops[i].occurrences;
    return n;
}
