/* Unit tests of the format table (ingest/formats.h): which file name is
 * which format, and which bytes are a profile. Expected formats come from
 * FORMATS.md §1.2–1.3 (the file names TensorFlow and XProf write). */
#include "ingest/chrome_json/chrome_json.h"
#include "ingest/formats.h"
#include "ingest/tf_legacy/tf_legacy.h"
#include "ingest/xspace/xspace.h"
#include "testutil.h"

/* ---- pv_format_classify ------------------------------------------------------ */

START_TEST(test_format_classify_hosts)
{
    size_t hl;
    ck_assert_ptr_eq(pv_format_classify("tw003.xplane.pb", &hl), &pv_format_xspace);
    ck_assert_uint_eq(hl, 5);
    /* The host part may hold dots (FORMATS.md §1.3). */
    ck_assert_ptr_eq(pv_format_classify("10.240.1.50.overview_page.json", &hl),
                     &pv_format_tf_overview_json);
    ck_assert_uint_eq(hl, 11);
    ck_assert_ptr_eq(pv_format_classify("instance-ecbm.trace.json.gz", &hl),
                     &pv_format_trace_json_gz);
    ck_assert_uint_eq(hl, 13);
    /* PyTorch's files (torch.profiler.tensorboard_trace_handler): the
     * host is the worker and its timestamp */
    ck_assert_ptr_eq(pv_format_classify("worker0.1623143089861.pt.trace.json.gz", &hl),
                     &pv_format_pt_trace_json_gz);
    ck_assert_uint_eq(hl, 21);
    ck_assert_ptr_eq(pv_format_classify("rank-0.Apr_03_18_51_38.1102.pt.trace.json", &hl),
                     &pv_format_pt_trace_json);
    ck_assert_uint_eq(hl, 27);
    ck_assert_ptr_eq(pv_format_classify("ip-172-31-19-241.trace.json", &hl),
                     &pv_format_trace_json);
    ck_assert_uint_eq(hl, 16);
    ck_assert_ptr_null(pv_format_classify("trace.json", &hl));
    ck_assert_ptr_null(pv_format_classify("pt.trace.json.gz", &hl));
    ck_assert_ptr_eq(pv_format_classify("local.trace", &hl), &pv_format_tf_trace_pb);
    ck_assert_uint_eq(hl, 5);
    /* A bare per-tool file has no host; a bare xplane is not a host's file. */
    ck_assert_ptr_eq(pv_format_classify("overview_page.pb", &hl), &pv_format_tf_overview_pb);
    ck_assert_uint_eq(hl, 0);
    ck_assert_ptr_null(pv_format_classify("xplane.pb", &hl));
}
END_TEST

START_TEST(test_format_classify_side_files)
{
    size_t hl;
    ck_assert_ptr_null(pv_format_classify(".cached_tools.json", &hl));
    ck_assert_ptr_null(pv_format_classify("host.op_stats.pb", &hl));
    ck_assert_ptr_null(pv_format_classify("host.SSTABLE", &hl));
    ck_assert_ptr_null(pv_format_classify("jit_f.hlo_proto.pb", &hl));
    ck_assert_ptr_null(pv_format_classify("cache_version.txt", &hl));
    ck_assert_ptr_null(pv_format_classify("", &hl));
}
END_TEST

/* Every per-tool format names a tool of the registry's list, and a
 * profile format can be sniffed and decoded: the table and the registry
 * cannot drift apart. */
START_TEST(test_format_roles)
{
    size_t hl;
    const pv_format *f = pv_format_classify("h.kernel_stats.pb", &hl);
    ck_assert_int_eq(f->role, PV_FORMAT_TOOL_PB);
    ck_assert_str_eq(f->tool, "kernel_stats");
    ck_assert_ptr_nonnull(f->answer);
    f = pv_format_classify("h.memory_profile.json.gz", &hl);
    ck_assert_int_eq(f->role, PV_FORMAT_TOOL_FILE);
    ck_assert(f->gzip);
    ck_assert_int_eq(pv_format_xspace.role, PV_FORMAT_PROFILE);
    ck_assert_ptr_nonnull(pv_format_xspace.sniff);
    ck_assert_ptr_nonnull(pv_format_xspace.decode);
    ck_assert_uint_lt(pv_format_rank(&pv_format_xspace), pv_format_rank(&pv_format_tf_trace_pb));
    /* TensorFlow's legacy trace is a profile now, which its per-tool
     * answers beside it go before */
    f = pv_format_classify("h.trace.json.gz", &hl);
    ck_assert_int_eq(f->role, PV_FORMAT_PROFILE);
    ck_assert(f->yields_to_tool_files);
    ck_assert(!pv_format_classify("h.pt.trace.json.gz", &hl)->yields_to_tool_files);
    ck_assert(!pv_format_xspace.yields_to_tool_files);
    ck_assert_uint_lt(pv_format_rank(&pv_format_xspace), pv_format_rank(&pv_format_trace_json));
}
END_TEST

/* What each profile format reports it can hold: a trace JSON's decoder
 * gives its events roles (PyTorch's views need them), an XSpace's device
 * ops are XLA's (XProf's tables need them); neither reports the other's,
 * and a per-tool file reports nothing. */
START_TEST(test_format_caps)
{
    static const char *const traces[] = {"h.pt.trace.json.gz", "h.pt.trace.json",
                                         "h.trace.json.gz", "h.trace.json"};
    size_t hl;
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        const pv_format *f = pv_format_classify(traces[i], &hl);
        ck_assert_uint_eq(f->caps, PV_PROFILE_ROLES);
    }
    ck_assert_uint_eq(pv_format_xspace.caps, PV_PROFILE_XLA_OPS);
    ck_assert_uint_eq(pv_format_classify("h.kernel_stats.pb", &hl)->caps, 0);
    ck_assert_uint_eq(pv_format_classify("h.overview_page.json", &hl)->caps, 0);
}
END_TEST

/* ---- pv_format_sniff -------------------------------------------------------- */

START_TEST(test_format_sniff)
{
    /* XSpace{planes: XPlane{id: 1}}: field 1 (bytes) of 2 bytes, holding
     * field 1 (varint) = 1. */
    static const uint8_t plane[] = {0x0a, 0x02, 0x08, 0x01};
    ck_assert_ptr_eq(pv_format_sniff(plane, sizeof plane), &pv_format_xspace);
    /* trace JSON, object or array form, gzip'd or not */
    static const uint8_t json[] = "\n{\"traceEvents\":[]}";
    ck_assert_ptr_eq(pv_format_sniff(json, sizeof json - 1)->decode, pv_decode_chrome_json);
    static const uint8_t array[] = "[ {\"ph\":\"X\"}";
    ck_assert_ptr_eq(pv_format_sniff(array, sizeof array - 1)->decode, pv_decode_chrome_json);
    /* gzip -c of "[]" */
    static const uint8_t gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                 0x8b, 0x8e, 0x05, 0x00, 0x29, 0xbb, 0x4c, 0x0d, 0x02, 0x00,
                                 0x00, 0x00};
    ck_assert_ptr_eq(pv_format_sniff(gz, sizeof gz)->decode, pv_decode_chrome_json);
    static const uint8_t text[] = "{ \"a\tb\": 1}";
    ck_assert_ptr_null(pv_format_sniff(text, sizeof text - 1));
    ck_assert_ptr_null(pv_format_sniff((const uint8_t *)"hello", 5));
    ck_assert_ptr_null(pv_format_sniff(plane, 0));
}
END_TEST

static Suite *formats_suite(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("pv_format_classify");
    tcase_add_test(tc, test_format_classify_hosts);
    tcase_add_test(tc, test_format_classify_side_files);
    tcase_add_test(tc, test_format_roles);
    tcase_add_test(tc, test_format_caps);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_format_sniff");
    tcase_add_test(tc, test_format_sniff);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(formats_suite());
}
