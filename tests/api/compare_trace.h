/* compare_trace: reduces a trace_viewer answer (Chrome trace JSON, as the
 * reference's /data?tag=trace_viewer gives it) to a summary that can be
 * compared value by value with json_compare, so the harness need not
 * compare tens of thousands of events one by one:
 *
 *   {"displayTimeUnit", "metadata",
 *    "n_events":  events that are not metadata (ph "M"),
 *    "n_with_flow": events that carry "args.flow" (start or end of a flow),
 *    "threads":   {"<process name>/<thread name>": events on it},
 *    "names":     {"<event name>": how many events carry it},
 *    "sample":    {"<process>/<thread>@<ts>#<name>": {"ph", "dur", "args",
 *                  and for an event with a flow: "flow_partners" (how many
 *                  other events share its flow id) and "flow_with" (the
 *                  first 8 of their keys, sorted)}}}
 *
 * Threads and processes are named, not numbered: pid and tid values are
 * the producer's choice. "args.flow" values are left out of the sample
 * (the reference draws flow ids afresh on every conversion); how many
 * events carry one, and which events each sampled flow joins, are
 * compared. The reference's summary picks at most
 * max_sample events spread evenly over its event list; ours takes the
 * events with the same keys, so a missing one shows as a missing key. */
#ifndef PV_TESTS_COMPARE_TRACE_H
#define PV_TESTS_COMPARE_TRACE_H

#include <jansson.h>
#include <stddef.h>

/* Returns a new summary of trace (NULL when trace is not a trace JSON
 * object). pick: the reference summary whose "sample" keys to take, or
 * NULL to choose them here. */
json_t *pv_trace_summary(const json_t *trace, const json_t *pick, size_t max_sample);

#endif
