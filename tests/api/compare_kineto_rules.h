/* compare_kineto_rules: how compare_kineto judges one value against
 * torch-tb-profiler's or HTA's: the tolerance of each view's times and
 * shares, each with its reason (counts are exact), and the short table of
 * differences it accepts. An accepted difference names its traces (a
 * folder, a wildcard only after it), one view, its exact fields, the row
 * keys it may touch, the values it accepts (ours - reference in a bounded
 * interval, or ours 0, or ours 0 where the reference is negative) and how
 * many rows it may touch. After the run every rule is judged: one too
 * broad, one that accepted nothing, and one that touched more rows than
 * it declares fail the run (kv_rules_judge).
 *
 * Not thread-safe: the rules' use is counted in static storage. */
#ifndef PV_TESTS_COMPARE_KINETO_RULES_H
#define PV_TESTS_COMPARE_KINETO_RULES_H

#include <stdbool.h>
#include <stddef.h>

#define KV_MAX_RULES 64
#define KV_SHOWN_DIFFS 3

/* One view of one trace: what was compared and what differed. */
typedef struct kv_tally {
    const char *trace, *view;
    size_t values, diffs;
    char shown[2048];
    size_t n_shown;
    size_t n_accepted[KV_MAX_RULES];   /* per rule */
    bool verbose;                      /* print every difference, accepted ones too */
} kv_tally;

void kv_tally_init(kv_tally *t, const char *trace, const char *view, bool verbose);

/* A time in microseconds, within the view's tolerance for field. */
void kv_time(kv_tally *t, const char *key, const char *field, double ours, double ref);
/* A share in percent (0..100) within the view's tolerance; NAN: not
 * measured, which must be NAN on both sides. */
void kv_pct(kv_tally *t, const char *key, const char *field, double ours, double ref);
/* A count, exactly. */
void kv_count(kv_tally *t, const char *key, const char *field, double ours, double ref);

/* Prints the view's line (match or DIFF); returns whether it failed. */
bool kv_report(const kv_tally *t);

/* Prints every rule with what it accepted (values, rows, the range of
 * ours - reference seen) and returns the number at fault: too broad,
 * unused, or touching more rows than it declares. */
size_t kv_rules_judge(void);

#endif
