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
#include <stdint.h>

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
    PV_JC_AS_REFERENCE,/* a reshaping step (compare_kernels.h) sets our value
                        * at path to arg (JSON text), the reference's value
                        * there, where profview deliberately knows more;
                        * each value changed is an accepted difference */
} pv_jc_kind;

/* tool, where and path hold one fnmatch pattern or several separated by
 * ", " (PV_JC_SEP), any of which may match; each is an alternative whose
 * use is counted on its own (pv_jc_use). */
#define PV_JC_SEP ", "
#define PV_JC_MAX_ALTS 64

typedef struct pv_jc_rule {
    const char *tool;    /* patterns on the tool name; NULL = any */
    const char *where;   /* patterns on "profile/run/host"; NULL = any */
    const char *path;    /* patterns on the JSON path (see above) */
    pv_jc_kind kind;
    const char *arg;     /* KEYED: comma-separated column ids or member names
                          * (dotted for nested members) forming the key */
    const char *reason;  /* why: printed with every accepted difference */
    const char *ref_is;  /* ACCEPT only: fnmatch pattern the reference's value
                          * (a string, or a number as %.9g) must match; NULL = any */
    const char *ours_is; /* ACCEPT only: the same for our value; NULL = any */
} pv_jc_rule;

/* How often a rule decided something, per alternative: bit i of tools,
 * wheres and paths is set once the i-th alternative of that list matched
 * in a decision (a NULL list counts as one alternative). */
typedef struct pv_jc_use {
    uint64_t tools, wheres, paths;
    size_t n;
} pv_jc_use;

typedef struct pv_jc_result {
    size_t keep;                            /* differences to keep; 0 = PV_JC_MAX_DIFFS */
    bool keep_accepted;                     /* keep the first `keep` accepted ones too */
    pv_jc_use *use;                         /* caller's: one per rule, added to each time
                                             * the rule decides something; or NULL */
    size_t n_values;                        /* leaf values compared */
    size_t n_diffs;                         /* differences not accepted */
    size_t n_accepted;                      /* differences accepted by a rule */
    char **diffs;                           /* the first min(n_diffs, keep) as
                                             * "path: ours X, reference Y" */
    char **accepted;                        /* keep_accepted: the first accepted ones,
                                             * "path: ... (reason)" */
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

/* Bit i set for each alternative of list (PV_JC_SEP-separated patterns)
 * that matches s; a NULL list matches as its one alternative (bit 0).
 * 0 when none matches. Cannot fail. */
uint64_t pv_jc_alternatives_match(const char *list, const char *s);

/* How many alternatives list holds (1 for NULL). Cannot fail. */
unsigned pv_jc_alternatives_count(const char *list);

/* The first rule of this kind whose tools, profiles and paths match,
 * counted in use (one per rule, or NULL); NULL when none. For ACCEPT
 * rules with ref_is or ours_is use pv_jc_compare. Cannot fail. */
const pv_jc_rule *pv_jc_rule_find(const pv_jc_rule *rules, pv_jc_use *use, pv_jc_kind kind,
                                  const char *tool, const char *where, const char *path);

/* Records msg as a difference that rule accepts (a reshaping step's
 * change, see PV_JC_AS_REFERENCE). Cannot fail. */
void pv_jc_accept(pv_jc_result *r, const pv_jc_rule *rule, const char *msg);

/* Why an ACCEPT or AS_REFERENCE rule is broader than STYLE rule 23 allows (it must name
 * its tools without wildcards, the profiles it covers, exact fields: a
 * path may use wildcards only inside an escaped "\\[...\\]" index or row
 * key, and a reason), or NULL when it is narrow enough. Other kinds:
 * NULL. Cannot fail. */
const char *pv_jc_rule_too_broad(const pv_jc_rule *r);

/* Records one difference found outside pv_jc_compare (a row count, a
 * status code), applying the ACCEPT rules the same way. */
void pv_jc_note(pv_jc_result *r, const pv_jc_rule *rules, const char *tool, const char *where,
                const char *path, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
