/* json_compare: compares a tool's JSON answer from profview with the
 * reference implementation's golden answer, value by value, and reports
 * the JSON paths that differ.
 *
 * Rules of comparison (issue 7):
 *  - objects: every member of the reference must be in ours and equal;
 *    members only ours has are extras (profview may say more) and are not
 *    compared;
 *  - arrays: element by element, or, where a PV_JC_KEYED rule names a key,
 *    matched by that key (the reference's order is not stable there);
 *    the lengths must be equal;
 *  - Google DataTable objects ({"cols", "rows"}) are compared row by row,
 *    each cell named by its column id in the path, so that rules and
 *    messages can say "rows[3]/total_time" instead of "rows/3/c/7/v";
 *  - numbers: within 0.5 % of the reference, or PV_JC_ABS_EPS of it near
 *    zero; PV_JC_EXACT paths must be equal;
 *  - strings: equal, except that a string that is a number in both answers
 *    ("133.1", "95.0%", "50346496") is compared as a number, allowing the
 *    rounding its printed precision implies;
 *  - a difference at a path matched by a PV_JC_ACCEPT rule is counted as
 *    accepted (with the rule's reason) and does not fail.
 *
 * Nothing here allocates behind the caller's back except the result's
 * message strings, released by pv_jc_result_fini(). Not thread-safe in
 * the sense that a result must not be shared; rules are read-only. */
#ifndef PV_TESTS_JSON_COMPARE_H
#define PV_TESTS_JSON_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define PV_JC_REL_TOL 0.005   /* 0.5 %: the tolerance the tool issues state */
#define PV_JC_ABS_EPS 1e-3    /* below this a value is zero in every unit shown */
#define PV_JC_MAX_DIFFS 3     /* differences kept for the report line */
#define PV_JC_MAX_REASONS 8   /* distinct accepted reasons kept */

typedef enum pv_jc_kind {
    PV_JC_KEYED = 1,   /* array at path: match elements by the key in arg */
    PV_JC_EXACT,       /* numbers under path: no tolerance */
    PV_JC_ACCEPT,      /* differences under path are known and accepted */
    PV_JC_PARTITION,   /* values under path are labels: they must pair up one
                        * to one (each of ours always meets the same one of
                        * the reference's and back), not be equal; a pair of
                        * two values equal to arg is not counted */
} pv_jc_kind;

typedef struct pv_jc_rule {
    const char *tool;    /* fnmatch pattern on the tool name; NULL = any */
    const char *where;   /* fnmatch pattern on "profile/run/host"; NULL = any */
    const char *path;    /* fnmatch pattern on the JSON path (see above) */
    pv_jc_kind kind;
    const char *arg;     /* KEYED: comma-separated column ids or member names
                          * (dotted for nested members) forming the key */
    const char *reason;  /* why: printed with every accepted difference */
    const char *ref_is;  /* ACCEPT only: fnmatch pattern the reference's value
                          * (a string, or a number as %.9g) must match; NULL = any */
} pv_jc_rule;

typedef struct pv_jc_result {
    size_t keep;                            /* differences to keep; 0 = PV_JC_MAX_DIFFS */
    size_t n_values;                        /* leaf values compared */
    size_t n_diffs;                         /* differences not accepted */
    size_t n_accepted;                      /* differences accepted by a rule */
    char **diffs;                           /* the first min(n_diffs, keep) as
                                             * "path: ours X, reference Y" */
    const char *reasons[PV_JC_MAX_REASONS]; /* borrowed from the rules */
    size_t n_reasons;
} pv_jc_result;

/* Compares ours with ref under rules (terminated by an entry with path
 * NULL) for this tool and where ("profile/run/host"). Fills out (set
 * out->keep first, or leave it 0), which the caller releases with
 * pv_jc_result_fini(). Cannot fail. */
void pv_jc_compare(const json_t *ours, const json_t *ref, const pv_jc_rule *rules,
                   const char *tool, const char *where, pv_jc_result *out);
void pv_jc_result_fini(pv_jc_result *r);

/* Records one difference found outside pv_jc_compare (a row count, a
 * status code), applying the ACCEPT rules the same way. */
void pv_jc_note(pv_jc_result *r, const pv_jc_rule *rules, const char *tool, const char *where,
                const char *path, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
