/* The comparator of the compare harness on hand-written JSON: every
 * expected count below is worked out by hand from the rules in
 * json_compare.h, so the harness's verdicts rest on a checked comparator. */
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

static const pv_jc_rule no_rules[] = {{NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

START_TEST(test_pv_jc_compare_numbers)
{
    ck_assert_uint_eq(n_diffs("{\"a\":100.4}", "{\"a\":100}", no_rules), 0);   /* 0.4 % */
    ck_assert_uint_eq(n_diffs("{\"a\":100.6}", "{\"a\":100}", no_rules), 1);   /* 0.6 % */
    ck_assert_uint_eq(n_diffs("{\"a\":0.0009}", "{\"a\":0}", no_rules), 0);    /* < 1e-3 */
    ck_assert_uint_eq(n_diffs("{\"a\":0.002}", "{\"a\":0}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"a\":\"x\"}", "{\"a\":1}", no_rules), 1);
    static const pv_jc_rule exact[] = {{NULL, NULL, "/a", PV_JC_EXACT, NULL, "count", NULL, NULL},
                                       {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};
    ck_assert_uint_eq(n_diffs("{\"a\":100.4}", "{\"a\":100}", exact), 1);
    ck_assert_uint_eq(n_diffs("{\"a\":\"100\"}", "{\"a\":\"100.0\"}", exact), 0);
}
END_TEST

START_TEST(test_pv_jc_compare_strings)
{
    ck_assert_uint_eq(n_diffs("{\"s\":\"a\"}", "{\"s\":\"a\"}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"s\":\"a\"}", "{\"s\":\"b\"}", no_rules), 1);
    /* printed numbers: the reference's rounding or 0.5 %, whichever is wider */
    ck_assert_uint_eq(n_diffs("{\"s\":\"133.14\"}", "{\"s\":\"133.1\"}", no_rules), 0);
    ck_assert_uint_eq(n_diffs("{\"s\":\"134.0\"}", "{\"s\":\"133.1\"}", no_rules), 1);
    ck_assert_uint_eq(n_diffs("{\"s\":\"95.0%\"}", "{\"s\":\"95.4%\"}", no_rules), 0);
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
    static const pv_jc_rule keyed[] = {{NULL, NULL, "/rows", PV_JC_KEYED, "op", "by op", NULL, NULL},
                                       {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};
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
        {"tool", NULL, "/p/*_sdv", PV_JC_ACCEPT, NULL, "0/0 is -nan there", "*nan", NULL},
        {"other", NULL, "/q", PV_JC_ACCEPT, NULL, "not this tool", NULL, NULL},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};
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
        {NULL, NULL, "*/id", PV_JC_PARTITION, "0", NULL, NULL, NULL},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};
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
        {"tool", "profile/*", "/p/idle", PV_JC_ACCEPT, NULL, "we say unknown", "0.0%", "unknown"},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};
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
         NULL},
        {NULL, NULL, "/c", PV_JC_EXACT, NULL, "a count", NULL, NULL},
        {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};
    pv_jc_use use[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
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
    /* the exact rule decided once, for /c (equal values included) */
    ck_assert_uint_eq(use[1].n, 1);
    json_decref(a);
    json_decref(b);
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
    static const pv_jc_rule rules[] = {
        {"kernel_stats", "shared/x/*", "\\[0\\]/rows\\[*\\]/op_name", PV_JC_ACCEPT, NULL, "why",
         NULL, NULL},
        {"kernel_stats", "shared/x/*", "\\[0\\]/rows\\[*\\]/*", PV_JC_ACCEPT, NULL, "why", NULL,
         NULL},
        {"kernel_stats", "shared/x/*", "\\[0\\]/p/a, */b", PV_JC_ACCEPT, NULL, "why", NULL, NULL},
        {"kernel_*", "shared/x/*", "/a", PV_JC_ACCEPT, NULL, "why", NULL, NULL},
        {NULL, "shared/x/*", "/a", PV_JC_ACCEPT, NULL, "why", NULL, NULL},
        {"kernel_stats", NULL, "/a", PV_JC_ACCEPT, NULL, "why", NULL, NULL},
        {"kernel_stats", "shared/x/*", "/a", PV_JC_ACCEPT, NULL, "", NULL, NULL},
        {NULL, NULL, "*", PV_JC_EXACT, NULL, "a count", NULL, NULL},
    };
    ck_assert_ptr_null(pv_jc_rule_too_broad(&rules[0]));
    for (size_t i = 1; i < 7; i++)
        ck_assert_msg(pv_jc_rule_too_broad(&rules[i]) != NULL, "rule %zu passes", i);
    ck_assert_ptr_null(pv_jc_rule_too_broad(&rules[7]));
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
    tcase_add_test(tc, test_pv_jc_alternatives);
    tcase_add_test(tc, test_pv_jc_rule_too_broad);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
