/* compare_trace: reshapes a trace_viewer answer (Chrome trace JSON, as the
 * reference's /data?tag=trace_viewer gives it) so that json_compare can
 * compare every event with the reference's, one by one:
 *
 *   {"displayTimeUnit", "metadata",
 *    "n_events":    events that are not metadata (ph "M"),
 *    "n_with_flow": events that carry "args.flow" (start or end of a flow),
 *    "threads":     {"<process name>/<thread name>": events on it},
 *    "names":       {"<event name>": how many events carry it},
 *    "offload_rows": {"<process name>": [events on "Host Offload Ops row 0",
 *                    row 1, ...]},
 *    "events":      {"<process>/<thread>@<ts>#<name>": {"ph", "ts", "dur",
 *                    "args", and for an event with a flow: "flow_partners"
 *                    (how many other events share its flow id) and
 *                    "flow_with" (their keys, sorted)}}}
 *
 * Every event is in "events"; its key holds its start exactly (as printed
 * with every digit a double keeps), so a start that moves by a picosecond
 * is a missing event. Events whose keys tie (same thread, start and name)
 * are numbered "~2", "~3", ... in the order of their other fields, not of
 * the file, so the producer's order does not matter.
 *
 * Threads and processes are named, not numbered: pid and tid values are
 * the producer's choice. "args.flow" values are left out (the reference
 * draws flow ids afresh on every conversion); which events each flow
 * joins is compared instead.
 *
 * The rows XProf derives for a TPU's host-offload copies ("Host Offload
 * Ops row N") are one thread "Host Offload Ops row *" in the event keys:
 * which row a copy lands in is compared apart, as "offload_rows", so that
 * the copies themselves (start, duration, name, args) are compared
 * exactly whatever rows they land in. */
#ifndef PV_TESTS_COMPARE_TRACE_H
#define PV_TESTS_COMPARE_TRACE_H

#include <jansson.h>

/* Returns a new summary of trace, or NULL when trace is not a trace JSON
 * object. */
json_t *pv_trace_summary(const json_t *trace);

#endif
