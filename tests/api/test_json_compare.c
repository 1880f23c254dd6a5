/* The comparator of the compare harness and its two reshaping steps
 * (compare_kernels.h, compare_trace.h) on hand-written JSON: every
 * expected value below is worked out by hand from the rules in those
 * headers, so the harness's verdicts rest on checked code. */
#include "compare_kernels.h"
#include "compare_trace.h"
#include "json_compare.h"
#include "testutil.h"

#include <string.h>

/* Differences (not accepted) between two JSON texts under rules. */
static size_t diffs(const char *ours, const char *ref, const pv_jc_rule *rules, pv_jc_result *r)
{
    json_t *a = json_loads(ours, 0, NULL), *b = json_loads(ref, 0, NULL);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    memset(r, 0, sizeof *r);
    pv_jc_compare(a, b, rules, "tool", "profile/run/host", r);
    json_decref(a);
    json_decref(b);
    return r->n_diffs;
}

static size_t n_diffs(const char *ours, const char *ref, const pv_jc_rule *rules)
{
    pv_jc_result r;
    size_t n = diffs(ours, ref, rules, &r);
    pv_jc_result_fini(&r);
    return n;
}

/* The same, the rules' use counted in use (one per rule). */
static size_t diffs_use(const char *ours, const char *ref, const pv_jc_rule *rules,
                        pv_jc_use *use)
{
    json_t *a = json_loads(ours, 0, NULL), *b = json_loads(ref, 0, NULL);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    pv_jc_result r = {.use = use};
    pv_jc_compare(a, b, rules, "tool", "profile/run/host", &r);
    json_decref(a);
    json_decref(b);
    size_t n = r.n_diffs;
    pv_jc_result_fini(&r);
    return n;
}

static const pv_jc_rule no_rules[] = {{NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};

START_TEST(test_pv_jc_compare_numbers)
{
    /* PV_JC_REL (1e-12) and PV_JC_ABS (1e-9) without a rule */
    ck_assert_uint_eq(n_diffs("{\"a\":100.00000000005}", "{\"a\":100}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"a\":100.000000002}", "{\"a\":100}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"a\":100.4}", "{\"a\":100}", no_rules), 1);   /* 0.4 % */
    ck_assert_uint_eq(n_diffs("{\"a\":0.0000000009}", "{\"a\":0}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"a\":0.0009}", "{\"a\":0}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"a\":\"x\"}", "{\"a\":1}", no_rules), 1);
    static const pv_jc_rule exact[] = {
        {NULL, NULL, "/a", PV_JC_EXACT, NULL, "count", NULL, NULL, 0, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    ck_assert_uint_eq(n_diffs("{\"a\":100.00000000005}", "{\"a\":100}", exact), 1);
    ck_assert_uint_eq(n_diffs("{\"a\":\"100\"}", "{\"a\":\"100.0\"}", exact), 0);
    /* a field's own tolerance: 0.5 % on /a, relative to the larger value */
    static const pv_jc_rule tol[] = {
        {NULL, NULL, "/a", PV_JC_TOLERANCE, NULL, "why", NULL, NULL, 0, 0.005, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    ck_assert_uint_eq(n_diffs("{\"a\":100.4}", "{\"a\":100}", tol), 0);
    ck_assert_uint_eq(n_diffs("{\"a\":100.6}", "{\"a\":100}", tol), 1);
    ck_assert_uint_eq(n_diffs("{\"b\":100.4}", "{\"b\":100}", tol), 1);
}
END_TEST

START_TEST(test_pv_jc_compare_strings)
{
    ck_assert_uint_eq(n_diffs("{\"s\":\"a\"}", "{\"s\":\"a\"}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"s\":\"a\"}", "{\"s\":\"b\"}", no_rules), 1);
    /* printed numbers: half the last digit either prints */
    ck_assert_uint_eq(n_diffs("{\"s\":\"133.14\"}", "{\"s\":\"133.1\"}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"s\":\"133.16\"}", "{\"s\":\"133.1\"}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"s\":\"134.0\"}", "{\"s\":\"133.1\"}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"s\":\"95.0%\"}", "{\"s\":\"95.04%\"}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"s\":\"95.0%\"}", "{\"s\":\"95.4%\"}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"s\":\"95.0%\"}", "{\"s\":\"96.0%\"}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"s\":\"95.0\"}", "{\"s\":\"95.0%\"}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"s\":\"4\"}", "{\"s\":\"5\"}", no_rules), 1);
    /* long integers are ids: equal or not */
    ck_assert_uint_eq(n_diffs("{\"s\":\"4576683335651866671\"}", "{\"s\":\"4576683335651866670\"}",
                              no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"s\":\"-nan\"}", "{\"s\":\"nan\"}", no_rules), 0);
}
END_TEST

START_TEST(test_pv_jc_compare_members_and_arrays)
{
    ck_assert_uint_eq(n_diffs("{\"a\":1,\"extra\":2}", "{\"a\":1}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"b\":1}", "{\"a\":1}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("[1,2]", "[1,2,3]", no_rules), 1);
    ck_assert_uint_eq(n_diffs("[2,1]", "[1,2]", no_rules), 2);
    pv_jc_result r;
    ck_assert_uint_eq(diffs("{\"a\":[{\"b\":1}]}", "{\"a\":[{\"b\":2}]}", no_rules, &r), 1);
    ck_assert_str_eq(r.diffs[0], "/a[0]/b: ours 1, reference 2");
    pv_jc_result_fini(&r);
}
END_TEST

#define TABLE(r1, r2)                                                                       \
    "{\"cols\":[{\"id\":\"op\"},{\"id\":\"t\"}],\"rows\":[{\"c\":[{\"v\":\"" r1              \
    "\"},{\"v\":1}]},{\"c\":[{\"v\":\"" r2 "\"},{\"v\":2}]}]}"

START_TEST(test_pv_jc_compare_tables)
{
    static const pv_jc_rule keyed[] = {
        {NULL, NULL, "/rows", PV_JC_KEYED, "op", "by op", NULL, NULL, 0, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    const char *ref = TABLE("x", "y");
    /* the same rows in the other order: two cells differ by position ... */
    const char *swapped = "{\"cols\":[{\"id\":\"op\"},{\"id\":\"t\"}],\"rows\":["
                          "{\"c\":[{\"v\":\"y\"},{\"v\":2}]},{\"c\":[{\"v\":\"x\"},{\"v\":1}]}]}";
    ck_assert_uint_eq(n_diffs(swapped, ref, no_rules), 4);
    /* ... and none by key */
    ck_assert_uint_eq(n_diffs(swapped, ref, keyed), 0);
    pv_jc_result r;
    /* y missing, z extra */
    ck_assert_uint_eq(diffs(TABLE("x", "z"), ref, keyed, &r), 2);
    ck_assert_str_eq(r.diffs[0], "/rows[y]: missing in ours");
    ck_assert_str_eq(r.diffs[1], "/rows[z]: only in ours");
    pv_jc_result_fini(&r);
    /* cells are named by column id */
    ck_assert_uint_eq(diffs("{\"cols\":[{\"id\":\"op\"},{\"id\":\"t\"}],\"rows\":["
                            "{\"c\":[{\"v\":\"x\"},{\"v\":9}]},{\"c\":[{\"v\":\"y\"},{\"v\":2}]}]}",
                            ref, keyed, &r),
                      1);
    ck_assert_str_eq(r.diffs[0], "/rows[x]/t: ours 9, reference 1");
    pv_jc_result_fini(&r);
}
END_TEST

START_TEST(test_pv_jc_compare_accept)
{
    static const pv_jc_rule accept[] = {
        {"tool", NULL, "/p/*_sdv", PV_JC_ACCEPT, NULL, "0/0 is -nan there", "*nan", NULL, 0, 0,
         0},
        {"other", NULL, "/q", PV_JC_ACCEPT, NULL, "not this tool", NULL, NULL, 0, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    pv_jc_result r;
    ck_assert_uint_eq(diffs("{\"p\":{\"x_sdv\":\"0.0\"}}", "{\"p\":{\"x_sdv\":\"-nan\"}}", accept,
                            &r),
                      0);
    ck_assert_uint_eq(r.n_accepted, 1);
    ck_assert_str_eq(r.reasons[0], "0/0 is -nan there");
    pv_jc_result_fini(&r);
    /* the reference value must match ref_is, the tool the rule's tool */
    ck_assert_uint_eq(n_diffs("{\"p\":{\"x_sdv\":\"0.0\"}}", "{\"p\":{\"x_sdv\":\"1.0\"}}", accept),
                      1);
    ck_assert_uint_eq(n_diffs("{\"q\":1}", "{\"q\":2}", accept), 1);
}
END_TEST

START_TEST(test_pv_jc_compare_partition)
{
    static const pv_jc_rule steps[] = {
        {NULL, NULL, "*/id", PV_JC_PARTITION, "0", NULL, NULL, NULL, 0, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    const char *ref = "[{\"id\":\"0\"},{\"id\":\"0\"},{\"id\":\"1\"},{\"id\":\"0\"}]";
    /* 9 ~ 0 and 10 ~ 1 throughout; the (0, 0) pair is left out */
    ck_assert_uint_eq(
        n_diffs("[{\"id\":\"0\"},{\"id\":\"9\"},{\"id\":\"10\"},{\"id\":\"9\"}]", ref, steps), 0);
    /* 10 ~ 0, then 10 ~ 1 (one of ours in two of theirs), then 9 ~ 0 (two of
     * ours in one of theirs) */
    ck_assert_uint_eq(
        n_diffs("[{\"id\":\"0\"},{\"id\":\"10\"},{\"id\":\"10\"},{\"id\":\"9\"}]", ref, steps), 2);
}
END_TEST

START_TEST(test_pv_jc_compare_ours_is)
{
    static const pv_jc_rule accept[] = {
        {"tool", "profile/*", "/p/idle", PV_JC_ACCEPT, NULL, "we say unknown", "0.0%", "unknown",
         1, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    ck_assert_uint_eq(n_diffs("{\"p\":{\"idle\":\"unknown\"}}", "{\"p\":{\"idle\":\"0.0%\"}}",
                              accept),
                      0);
    /* any other value of ours is a difference */
    ck_assert_uint_eq(n_diffs("{\"p\":{\"idle\":\"5.0%\"}}", "{\"p\":{\"idle\":\"0.0%\"}}",
                              accept),
                      1);
    /* so is a missing one */
    ck_assert_uint_eq(n_diffs("{\"p\":{}}", "{\"p\":{\"idle\":\"0.0%\"}}", accept), 1);
}
END_TEST

START_TEST(test_pv_jc_compare_use)
{
    /* two paths and two profiles; only /a and only profile/... decide */
    static const pv_jc_rule accept[] = {
        {"tool, other", "elsewhere/*, profile/*", "/a, /b", PV_JC_ACCEPT, NULL, "why", NULL,
         NULL, 1, 0, 0},
        {NULL, NULL, "/c", PV_JC_EXACT, NULL, "a count", NULL, NULL, 0, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    pv_jc_use use[2] = {{0}, {0}};
    json_t *a = json_loads("{\"a\":1,\"b\":2,\"c\":3}", 0, NULL);
    json_t *b = json_loads("{\"a\":2,\"b\":2,\"c\":3}", 0, NULL);
    pv_jc_result r = {.use = use};
    pv_jc_compare(a, b, accept, "tool", "profile/run/host", &r);
    ck_assert_uint_eq(r.n_diffs, 0);
    ck_assert_uint_eq(r.n_accepted, 1);
    pv_jc_result_fini(&r);
    ck_assert_uint_eq(use[0].n, 1);
    ck_assert_uint_eq(use[0].tools, 1);   /* "tool", not "other" */
    ck_assert_uint_eq(use[0].wheres, 2);  /* "profile/x" */
    ck_assert_uint_eq(use[0].paths, 1);   /* "/a" */
    ck_assert_uint_eq(use[0].n_rows, 1);
    ck_assert_str_eq(use[0].rows[0], "profile/run/host|/a");
    /* the exact rule decided once, for /c (equal values included) */
    ck_assert_uint_eq(use[1].n, 1);
    pv_jc_use_fini(&use[0]);
    pv_jc_use_fini(&use[1]);
    json_decref(a);
    json_decref(b);
}
END_TEST

/* A difference is accepted only when both values fit the rule's patterns,
 * whole rows included: "(missing)" and "(object)" are what a row missing
 * in ours and a row only in ours are. */
START_TEST(test_pv_jc_compare_value_patterns)
{
    static const pv_jc_rule rules[] = {
        {NULL, NULL, "/rows", PV_JC_KEYED, "op", "by op", NULL, NULL, 0, 0, 0},
        {"tool", "profile/*", "/rows\\[z\\]", PV_JC_ACCEPT, NULL, "z is ours alone", "(missing)",
         "(object)", 1, 0, 0},
        {"tool", "profile/*", "/rows\\[x\\]/t", PV_JC_ACCEPT, NULL, "x's time", "1", "[2-3]",
         1, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    const char *ref = TABLE("x", "y");
    pv_jc_result r;
    /* z only in ours: accepted; y missing in ours: not ("(object)" there) */
    ck_assert_uint_eq(diffs(TABLE("x", "z"), ref, rules, &r), 1);
    ck_assert_uint_eq(r.n_accepted, 1);
    ck_assert_str_eq(r.diffs[0], "/rows[y]: missing in ours");
    pv_jc_result_fini(&r);
    /* x's time 2 or 3 against 1 is accepted, 4 is outside the pattern, and
     * so is 2 against a reference of 5 */
#define XT(t)                                                                               \
    "{\"cols\":[{\"id\":\"op\"},{\"id\":\"t\"}],\"rows\":[{\"c\":[{\"v\":\"x\"},{\"v\":" t "}]},"  \
    "{\"c\":[{\"v\":\"y\"},{\"v\":2}]}]}"
    ck_assert_uint_eq(n_diffs(XT("3"), ref, rules), 0);
    ck_assert_uint_eq(n_diffs(XT("4"), ref, rules), 1);
    ck_assert_uint_eq(n_diffs(XT("2"), XT("5"), rules), 1);
#undef XT
}
END_TEST

/* A TOLERANCE decides only where the default is not enough, and is
 * counted only there: a tolerance never needed is an unused rule. */
START_TEST(test_pv_jc_compare_tolerance_use)
{
    static const pv_jc_rule tol[] = {
        {"tool", NULL, "/a", PV_JC_TOLERANCE, NULL, "float rounding", NULL, NULL, 0, 1e-7, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    pv_jc_use use[1] = {{0}};
    json_t *ref = json_loads("{\"a\":1e9}", 0, NULL);
    json_t *same = json_loads("{\"a\":1e9}", 0, NULL);
    json_t *near = json_loads("{\"a\":1000000050}", 0, NULL);    /* 5e-8 */
    json_t *far = json_loads("{\"a\":1000000200}", 0, NULL);     /* 2e-7 */
    pv_jc_result r = {.use = use};
    pv_jc_compare(same, ref, tol, "tool", "profile/run/host", &r);
    ck_assert_uint_eq(r.n_diffs, 0);
    ck_assert_uint_eq(use[0].n, 0);
    pv_jc_compare(near, ref, tol, "tool", "profile/run/host", &r);
    ck_assert_uint_eq(r.n_diffs, 0);
    ck_assert_uint_eq(use[0].n, 1);
    /* the tolerance exceeded is a difference */
    pv_jc_compare(far, ref, tol, "tool", "profile/run/host", &r);
    ck_assert_uint_eq(r.n_diffs, 1);
    ck_assert_uint_eq(use[0].n, 1);
    /* another tool has no tolerance there */
    pv_jc_result r2 = {.use = use};
    pv_jc_compare(near, ref, tol, "other", "profile/run/host", &r2);
    ck_assert_uint_eq(r2.n_diffs, 1);
    pv_jc_result_fini(&r);
    pv_jc_result_fini(&r2);
    json_decref(ref);
    json_decref(same);
    json_decref(near);
    json_decref(far);
}
END_TEST

/* Rows touched against rows declared: two cells of one row are one row. */
START_TEST(test_pv_jc_rule_overused)
{
    static const pv_jc_rule one[] = {
        {NULL, NULL, "/rows", PV_JC_KEYED, "op", "by op", NULL, NULL, 0, 0, 0},
        {"tool", "profile/*", "/rows\\[*\\]/t, /rows\\[*\\]/u", PV_JC_ACCEPT, NULL, "why",
         "[0-9]*", "[0-9]*", 1, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    pv_jc_rule two[3];
    memcpy(two, one, sizeof two);
    two[1].rows = 2;
#define TU(op, t, u)                                                                        \
    "{\"c\":[{\"v\":\"" op "\"},{\"v\":" #t "},{\"v\":" #u "}]}"
#define TUS(r1, r2)                                                                         \
    "{\"cols\":[{\"id\":\"op\"},{\"id\":\"t\"},{\"id\":\"u\"}],\"rows\":[" r1 "," r2 "]}"
    const char *ref = TUS(TU("x", 1, 1), TU("y", 1, 1));
    /* two cells of row x differ: one row, within what it declares */
    pv_jc_use use[2] = {{0}, {0}};
    ck_assert_uint_eq(diffs_use(TUS(TU("x", 2, 2), TU("y", 1, 1)), ref, one, use), 0);
    ck_assert_uint_eq(use[1].n, 2);
    ck_assert_uint_eq(use[1].n_rows, 1);
    ck_assert_ptr_null(pv_jc_rule_overused(&one[1], &use[1]));
    /* a cell of row y too: two rows, one more than it declares */
    ck_assert_uint_eq(diffs_use(TUS(TU("x", 2, 2), TU("y", 3, 1)), ref, one, use), 0);
    ck_assert_uint_eq(use[1].n_rows, 2);
    ck_assert_str_eq(pv_jc_rule_overused(&one[1], &use[1]),
                     "it touched more rows than it declares");
    ck_assert_ptr_null(pv_jc_rule_overused(&two[1], &use[1]));
    /* other kinds are not judged */
    ck_assert_ptr_null(pv_jc_rule_overused(&one[0], &use[1]));
    pv_jc_use_fini(&use[0]);
    pv_jc_use_fini(&use[1]);
#undef TUS
#undef TU
}
END_TEST

START_TEST(test_pv_jc_alternatives)
{
    ck_assert_uint_eq(pv_jc_alternatives_count(NULL), 1);
    ck_assert_uint_eq(pv_jc_alternatives_count("a"), 1);
    ck_assert_uint_eq(pv_jc_alternatives_count("a, b*, c"), 3);
    ck_assert_uint_eq(pv_jc_alternatives_match("a, b*, c", "bx"), 2);
    ck_assert_uint_eq(pv_jc_alternatives_match("a, b*, *", "bx"), 6);
    ck_assert_uint_eq(pv_jc_alternatives_match("a, b*, c", "d"), 0);
    ck_assert_uint_eq(pv_jc_alternatives_match(NULL, "d"), 1);
}
END_TEST

START_TEST(test_pv_jc_rule_too_broad)
{
#define ACC(tool, where, path, reason, ref_is, ours_is, rows)                                \
    {tool, where, path, PV_JC_ACCEPT, NULL, reason, ref_is, ours_is, rows, 0, 0}
#define TOL(tool, path, reason, rel, abs)                                                    \
    {tool, NULL, path, PV_JC_TOLERANCE, NULL, reason, NULL, NULL, 0, rel, abs}
    static const pv_jc_rule narrow[] = {
        ACC("kernel_stats", "shared/x/*", "\\[0\\]/rows\\[*\\]/op_name", "why", "", "?*", 3),
        ACC("kernel_stats", "shared/x/*", "/a, /b", "why", "0.0%", "unknown, [0-9]*%", 1),
        ACC("kernel_stats", "shared/x/*", "/rows\\[k\\]", "why", "(missing)", "(object)", 1),
        {"kernel_stats", "shared/x/*", "shmem_bytes", PV_JC_AS_REFERENCE, "0", "why", NULL,
         "[1-9]*", 2, 0, 0},
        {"kernel_stats", "shared/x/*", "op_name", PV_JC_UNSEEN, NULL, "why", NULL, NULL, 0, 0, 0},
        TOL("hlo_stats", "/rows\\[*\\]/measured_memory_bw", "float rounding", 1e-7, 0),
        TOL("hlo_stats", "/a", "printed to the microsecond", 0, 1e-6),
        {NULL, NULL, "*", PV_JC_EXACT, NULL, "a count", NULL, NULL, 0, 0, 0},
        {NULL, NULL, "*", PV_JC_KEYED, "id", "by id", NULL, NULL, 0, 0, 0},
    };
    static const struct {
        pv_jc_rule rule;
        const char *why;
    } broad[] = {
        /* what it accepts: fields, tools, profiles, reason */
        {ACC("kernel_stats", "shared/x/*", "\\[0\\]/rows\\[*\\]/*", "why", "", "?*", 1),
         "a path has a wildcard outside an index or row key"},
        {ACC("kernel_stats", "shared/x/*", "\\[0\\]/p/a, */b", "why", "", "?*", 1),
         "a path has a wildcard outside an index or row key"},
        {ACC("kernel_*", "shared/x/*", "/a", "why", "", "?*", 1), "it does not name its tools"},
        {ACC(NULL, "shared/x/*", "/a", "why", "", "?*", 1), "it does not name its tools"},
        {ACC("kernel_stats", NULL, "/a", "why", "", "?*", 1),
         "it does not name the profiles it covers"},
        {ACC("kernel_stats", "shared/x/*", "/a", "", "", "?*", 1), "it gives no reason"},
        /* the rows it may touch */
        {ACC("kernel_stats", "shared/x/*", "/a", "why", "", "?*", 0),
         "it does not declare the rows it may touch"},
        /* the values it accepts: both named, no bare "*" among them */
        {ACC("kernel_stats", "shared/x/*", "/a", "why", NULL, "?*", 1),
         "it does not name the values it accepts"},
        {ACC("kernel_stats", "shared/x/*", "/a", "why", "", NULL, 1),
         "it does not name the values it accepts"},
        {ACC("kernel_stats", "shared/x/*", "/a", "why", "*", "1", 1),
         "it does not name the values it accepts"},
        {ACC("kernel_stats", "shared/x/*", "/a", "why", "0", "1, *", 1),
         "it does not name the values it accepts"},
        {{"kernel_stats", "shared/x/*", "shmem_bytes", PV_JC_AS_REFERENCE, "0", "why", NULL, NULL,
          2, 0, 0},
         "it does not name the values it accepts"},
        {{"kernel_stats", "shared/x/*", "shmem_bytes", PV_JC_AS_REFERENCE, "0", "why", NULL,
          "[1-9]*", 0, 0, 0},
         "it does not declare the rows it may touch"},
        {{"kernel_stats", NULL, "op_name", PV_JC_UNSEEN, NULL, "why", NULL, NULL, 0, 0, 0},
         "it does not name the profiles it covers"},
        /* a tolerance: a reason, its tools, under 1 % and above the default */
        {TOL("hlo_stats", "/a", "", 1e-7, 0), "it gives no reason"},
        {TOL(NULL, "/a", "why", 1e-7, 0), "it does not name its tools"},
        {TOL("hlo_stats", "*/a", "why", 1e-7, 0),
         "a path has a wildcard outside an index or row key"},
        {TOL("hlo_stats", "/a", "why", 0.01, 0),
         "its tolerance is PV_JC_REL_MAX or more, or above PV_JC_ABS_MAX"},
        {TOL("hlo_stats", "/a", "why", 0, 1e-3),
         "its tolerance is PV_JC_REL_MAX or more, or above PV_JC_ABS_MAX"},
        {TOL("hlo_stats", "/a", "why", 1e-12, 1e-9), "its tolerance is no wider than the default"},
    };
#undef TOL
#undef ACC
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
        ck_assert_msg(pv_jc_rule_too_broad(&narrow[i]) == NULL, "narrow rule %zu fails: %s", i,
                      pv_jc_rule_too_broad(&narrow[i]));
    for (size_t i = 0; i < sizeof broad / sizeof broad[0]; i++) {
        const char *why = pv_jc_rule_too_broad(&broad[i].rule);
        ck_assert_msg(why != NULL, "broad rule %zu passes", i);
        ck_assert_str_eq(why, broad[i].why);
    }
}
END_TEST

#define KCOLS                                                                              \
    "\"cols\":[{\"id\":\"rank\"},{\"id\":\"kernel_name\"},{\"id\":\"registers_per_thread\"},"   \
    "{\"id\":\"shmem_bytes\"},{\"id\":\"block_dim\"},{\"id\":\"grid_dim\"},"                   \
    "{\"id\":\"occupancy_pct\"},{\"id\":\"is_op_tensor_core_eligible\"},"                       \
    "{\"id\":\"is_kernel_using_tensor_core\"},{\"id\":\"op_name\"},{\"id\":\"occurrences\"},"   \
    "{\"id\":\"total_duration_us\"},{\"id\":\"avg_duration_us\"},{\"id\":\"min_duration_us\"},"  \
    "{\"id\":\"max_duration_us\"}]"
#define KROW(rank, shm, op, occ, total, avg, min, max)                                      \
    "{\"c\":[{\"v\":" #rank "},{\"v\":\"k\"},{\"v\":8},{\"v\":" #shm "},{\"v\":\"1,1,1\"},"       \
    "{\"v\":\"2,1,1\"},{\"v\":0},{\"v\":false},{\"v\":false},{\"v\":\"" op "\"},{\"v\":" #occ "}," \
    "{\"v\":" #total "},{\"v\":" #avg "},{\"v\":" #min "},{\"v\":" #max "}]}"

static double kcell(json_t *t, size_t row, size_t col)
{
    json_t *r = json_array_get(json_object_get(t, "rows"), row);
    return json_number_value(json_object_get(json_array_get(json_object_get(r, "c"), col), "v"));
}

static const char *kop(json_t *t, size_t row)
{
    json_t *r = json_array_get(json_object_get(t, "rows"), row);
    return json_string_value(json_object_get(json_array_get(json_object_get(r, "c"), 9), "v"));
}

START_TEST(test_pv_kernel_table)
{
    static const pv_jc_rule rules[] = {
        {"kernel_stats", "p/*", "op_name", PV_JC_UNSEEN, NULL, "no op there", NULL, NULL, 0, 0, 0},
        {"kernel_stats", "p/*", "shmem_bytes", PV_JC_AS_REFERENCE, "0", "no shm there", NULL,
         "9216", 1, 0, 0},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0}};
    /* one host: two ops of one kernel (1 + 2 runs) and a third row whose
     * shared memory alone differs; all three are one row for XProf:
     * 6 runs, 0.005 + 0.004 + 0.003 us, min 0.001, max 0.002; the op
     * names of the rows merged are joined, each once, in row order */
    json_t *t = json_loads("{" KCOLS ",\"rows\":[" KROW(1, 0, "a", 1, 0.005, 0.005, 0.005, 0.005)
                           "," KROW(2, 0, "b", 2, 0.004, 0.002, 0.001, 0.003) ","
                           KROW(3, 9216, "a", 3, 0.003, 0.001, 0.001, 0.001) "]}",
                           0, NULL);
    ck_assert_ptr_nonnull(t);
    pv_jc_use use[3] = {{0}, {0}, {0}};
    pv_jc_result r = {.use = use};
    json_t *m = pv_kernel_table(t, rules, "kernel_stats", "p/r/h", &r);
    ck_assert_uint_eq(json_array_size(json_object_get(m, "rows")), 1);
    ck_assert_double_eq(kcell(m, 0, 0), 1);          /* rank */
    ck_assert_double_eq(kcell(m, 0, 3), 0);          /* shared memory */
    ck_assert_double_eq(kcell(m, 0, 10), 6);         /* occurrences */
    ck_assert_double_eq_tol(kcell(m, 0, 11), 0.012, 1e-12);
    ck_assert_double_eq_tol(kcell(m, 0, 12), 0.002, 1e-12);   /* 12 ns / 6 */
    ck_assert_double_eq_tol(kcell(m, 0, 13), 0.001, 1e-12);
    ck_assert_double_eq_tol(kcell(m, 0, 14), 0.005, 1e-12);
    ck_assert_str_eq(kop(m, 0), "a + b");
    /* one shared memory set, on one row; the op column is not a value set */
    ck_assert_uint_eq(r.n_accepted, 1);
    ck_assert_uint_eq(use[0].n, 1);
    ck_assert_uint_eq(use[1].n, 1);
    ck_assert_uint_eq(use[1].n_rows, 1);
    pv_jc_result_fini(&r);
    json_decref(m);
    /* another profile: untouched, no rule counted */
    pv_jc_result r2 = {.use = use};
    m = pv_kernel_table(t, rules, "kernel_stats", "q/r/h", &r2);
    ck_assert(json_equal(m, t));
    ck_assert_uint_eq(use[0].n, 1);
    ck_assert_uint_eq(use[1].n, 1);
    pv_jc_result_fini(&r2);
    json_decref(m);
    json_decref(t);
    /* a shared memory outside the rule's ours_is stays ours, its row apart */
    t = json_loads("{" KCOLS ",\"rows\":[" KROW(1, 0, "a", 1, 0.005, 0.005, 0.005, 0.005) ","
                   KROW(2, 4096, "b", 1, 0.001, 0.001, 0.001, 0.001) "]}",
                   0, NULL);
    pv_jc_result r4 = {.use = use};
    m = pv_kernel_table(t, rules, "kernel_stats", "p/r/h", &r4);
    ck_assert_uint_eq(json_array_size(json_object_get(m, "rows")), 2);
    ck_assert_double_eq(kcell(m, 1, 3), 4096);
    ck_assert_str_eq(kop(m, 0), "a");
    ck_assert_uint_eq(r4.n_accepted, 0);
    ck_assert_uint_eq(use[1].n, 1);
    pv_jc_result_fini(&r4);
    json_decref(m);
    json_decref(t);
    /* ALL_HOSTS: two hosts' equal rows stay two rows after the merge */
    t = json_loads("{" KCOLS ",\"rows\":[" KROW(1, 0, "a", 1, 0.005, 0.005, 0.005, 0.005) ","
                   KROW(2, 0, "a", 1, 0.005, 0.005, 0.005, 0.005) ","
                   KROW(3, 0, "b", 1, 0.001, 0.001, 0.001, 0.001) "]}",
                   0, NULL);
    pv_jc_result r3 = {0};
    m = pv_kernel_table(t, rules, "kernel_stats", "p/r/ALL_HOSTS", &r3);
    ck_assert_uint_eq(json_array_size(json_object_get(m, "rows")), 2);
    ck_assert_double_eq(kcell(m, 0, 10), 2);
    ck_assert_str_eq(kop(m, 0), "a + b");
    ck_assert_double_eq(kcell(m, 1, 10), 1);
    ck_assert_str_eq(kop(m, 1), "a");
    pv_jc_result_fini(&r3);
    json_decref(m);
    json_decref(t);
    for (size_t i = 0; i < 3; i++)
        pv_jc_use_fini(&use[i]);
}
END_TEST

START_TEST(test_pv_trace_summary)
{
    json_t *t = json_loads(
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:TPU:0\"}},"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\","
        "\"args\":{\"name\":\"Host Offload Ops row 1\"}},"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_name\",\"args\":{\"name\":\"Ops\"}},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1.5,\"dur\":2,\"name\":\"x\","
        "\"args\":{\"flow\":\"9\"}},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1.5,\"dur\":1,\"name\":\"x\"},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":4,\"dur\":1,\"name\":\"copy\","
        "\"args\":{\"flow\":\"10\"}}]}",
        0, NULL);
    ck_assert_ptr_nonnull(t);
    json_t *s = pv_trace_summary(t);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "n_events")), 3);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "n_with_flow")), 2);
    json_t *ev = json_object_get(s, "events");
    /* ties numbered by their fields: dur 1 sorts before dur 2 */
    json_t *a = json_object_get(ev, "/device:TPU:0/Ops@1.500000#x");
    json_t *b = json_object_get(ev, "/device:TPU:0/Ops@1.500000#x~2");
    ck_assert_double_eq(json_number_value(json_object_get(a, "dur")), 1);
    ck_assert_double_eq(json_number_value(json_object_get(b, "dur")), 2);
    /* flow ids 9 and 10 differ only in the two direction bits: one flow */
    ck_assert_int_eq(json_integer_value(json_object_get(b, "flow_partners")), 1);
    json_t *c = json_object_get(ev, "/device:TPU:0/Host Offload Ops row *@4.000000#copy");
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(c, "flow_with"), 0)),
                     "/device:TPU:0/Ops@1.500000#x~2");
    /* the row is counted apart */
    json_t *rows = json_object_get(json_object_get(s, "offload_rows"), "/device:TPU:0");
    ck_assert_uint_eq(json_array_size(rows), 2);
    ck_assert_int_eq(json_integer_value(json_array_get(rows, 1)), 1);
    ck_assert_ptr_null(json_object_get(json_object_get(s, "threads"),
                                       "/device:TPU:0/Host Offload Ops row 1"));
    json_decref(s);
    json_decref(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json_compare");
    TCase *tc = tcase_create("pv_jc_compare");
    tcase_add_test(tc, test_pv_jc_compare_numbers);
    tcase_add_test(tc, test_pv_jc_compare_strings);
    tcase_add_test(tc, test_pv_jc_compare_members_and_arrays);
    tcase_add_test(tc, test_pv_jc_compare_tables);
    tcase_add_test(tc, test_pv_jc_compare_accept);
    tcase_add_test(tc, test_pv_jc_compare_partition);
    tcase_add_test(tc, test_pv_jc_compare_ours_is);
    tcase_add_test(tc, test_pv_jc_compare_use);
    tcase_add_test(tc, test_pv_jc_compare_value_patterns);
    tcase_add_test(tc, test_pv_jc_compare_tolerance_use);
    tcase_add_test(tc, test_pv_jc_rule_overused);
    tcase_add_test(tc, test_pv_jc_alternatives);
    tcase_add_test(tc, test_pv_jc_rule_too_broad);
    tcase_add_test(tc, test_pv_kernel_table);
    tcase_add_test(tc, test_pv_trace_summary);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
