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
 *  - numbers: within the tolerance of the first PV_JC_TOLERANCE rule for
 *    the path (each states its reason), else within PV_JC_REL of each
 *    other or PV_JC_ABS apart; PV_JC_EXACT paths must be equal;
 *  - strings: equal, except that a string that is a number in both answers
 *    ("133.1", "95.0%", "50346496") is compared as a number, allowing the
 *    rounding its printed precision implies;
 *  - a difference at a path matched by a PV_JC_ACCEPT rule, whose two
 *    values fit the rule's value patterns, is counted as accepted (with
 *    the rule's reason) and does not fail; the rows it touched are counted
 *    against the number it declares.
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

/* Two computations of one number in a different order (a sum of the same
 * terms, a ratio of the same sums) differ by a few units in the last
 * place: 1e-12 relative is a thousand of them, and a difference under
 * 1e-9 is rounding of a zero in every unit shown. Anything more needs a
 * PV_JC_TOLERANCE rule with its reason. */
#define PV_JC_REL 1e-12
#define PV_JC_ABS 1e-9
/* A TOLERANCE rule wider than this is too broad: 1 % relative hides a
 * wrong denominator of a share, a millionth of the unit shown is below
 * every number a page prints. */
#define PV_JC_REL_MAX 0.01
#define PV_JC_ABS_MAX 1e-6
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
    PV_JC_TOLERANCE,   /* numbers under path: within rel (relative to the
                        * larger) or abs of each other; counted as used
                        * only where the default tolerance was not enough */
    PV_JC_UNSEEN,      /* a reshaping step (compare_kernels.h): the reference
                        * cannot see the column at path on these profiles,
                        * so rows that differ only in it are one row there;
                        * ours are merged the same way, the merged cell
                        * holding our values joined by " + " */
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
    const char *ref_is;  /* ACCEPT: fnmatch patterns (PV_JC_SEP-separated
                          * alternatives) the reference's value must match: a
                          * string as it is, a number as %.9g, true, false,
                          * null, "(object)", "(array)", or "(missing)"; where
                          * two arrays' lengths differ, the lengths */
    const char *ours_is; /* ACCEPT, AS_REFERENCE: the same for our value */
    unsigned rows;       /* ACCEPT, AS_REFERENCE: the rows it may touch (a row:
                          * the profile and the path up to its last "]") */
    double rel, abs;     /* TOLERANCE: the tolerance */
} pv_jc_rule;

/* How often a rule decided something, per alternative: bit i of tools,
 * wheres and paths is set once the i-th alternative of that list matched
 * in a decision (a NULL list counts as one alternative). */
typedef struct pv_jc_use {
    uint64_t tools, wheres, paths;
    size_t n;
    char **rows;      /* ACCEPT, AS_REFERENCE: the distinct rows touched */
    size_t n_rows;
} pv_jc_use;

/* Releases u's rows. Accepts NULL. */
void pv_jc_use_fini(pv_jc_use *u);

/* Counts the row of path (where, and path up to its last "]") as touched
 * by the rule u is the use of. Cannot fail (aborts without memory). */
void pv_jc_use_row(pv_jc_use *u, const char *where, const char *path);

/* Whether value v (NULL: missing) fits patterns, PV_JC_SEP-separated
 * fnmatch alternatives as ref_is says; NULL patterns fit anything. */
bool pv_jc_value_is(const char *patterns, const json_t *v);

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

/* Why a rule is broader than STYLE rule 23 allows, or NULL when it is
 * narrow enough. Every ACCEPT, AS_REFERENCE, UNSEEN and TOLERANCE rule
 * must name its tools without wildcards and give a reason, and a path of
 * it may use wildcards only inside an escaped "\\[...\\]" index or row
 * key. ACCEPT, AS_REFERENCE and UNSEEN must also name the profiles they
 * cover; ACCEPT and AS_REFERENCE the rows they may touch (rows > 0) and
 * the values they accept (an ACCEPT rule both ref_is and ours_is, an
 * AS_REFERENCE rule ours_is, none of their alternatives a bare "*"). A
 * TOLERANCE must be wider than the default and narrower than
 * PV_JC_REL_MAX and PV_JC_ABS_MAX. Other kinds: NULL. Cannot fail. */
const char *pv_jc_rule_too_broad(const pv_jc_rule *r);

/* Why an ACCEPT or AS_REFERENCE rule, after a run that used it as u
 * counted, fails the harness: it touched more rows than it declares; NULL
 * when it did not, and for other kinds. Cannot fail. */
const char *pv_jc_rule_overused(const pv_jc_rule *r, const pv_jc_use *u);

/* Records one difference found outside pv_jc_compare (a row count, a
 * status code), applying the ACCEPT rules the same way. */
void pv_jc_note(pv_jc_result *r, const pv_jc_rule *rules, const char *tool, const char *where,
                const char *path, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
