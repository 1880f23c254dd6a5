/* utf8: pv_utf8_valid against sequences taken from RFC 3629's table of
 * well-formed byte sequences (section 4) and its examples of what falls
 * outside it. */
#include "testutil.h"
#include "util/utf8.h"

#include <string.h>

typedef struct utf8_case {
    const char *bytes;
    size_t len;
    bool valid;
    const char *what;
} utf8_case;

#define CASE(s, v, what) {s, sizeof s - 1, v, what}

static const utf8_case cases[] = {
    CASE("", true, "empty"),
    CASE("plain /path?x=1", true, "ASCII"),
    CASE("a\0b", true, "NUL is a character; callers refuse it themselves"),
    CASE("\xc3\xa9", true, "U+00E9, two bytes"),
    CASE("\xe2\x82\xac", true, "U+20AC, three bytes"),
    CASE("\xed\x9f\xbf", true, "U+D7FF, last before the surrogates"),
    CASE("\xee\x80\x80", true, "U+E000, first after the surrogates"),
    CASE("\xf0\x9f\x98\x80", true, "U+1F600, four bytes"),
    CASE("\xf4\x8f\xbf\xbf", true, "U+10FFFF, the last code point"),
    CASE("\xc0\xae", false, "overlong '.' (the classic ../ trick)"),
    CASE("\xc1\xbf", false, "overlong U+007F"),
    CASE("\xe0\x80\xaf", false, "overlong '/' in three bytes"),
    CASE("\xe0\x9f\xbf", false, "overlong U+07FF"),
    CASE("\xf0\x8f\xbf\xbf", false, "overlong U+FFFF"),
    CASE("\xed\xa0\x80", false, "U+D800, a surrogate"),
    CASE("\xed\xbf\xbf", false, "U+DFFF, a surrogate"),
    CASE("\xf4\x90\x80\x80", false, "U+110000, past the last code point"),
    CASE("\xf5\x80\x80\x80", false, "F5 never appears"),
    CASE("\xff", false, "FF never appears"),
    CASE("\x80", false, "a continuation byte alone"),
    CASE("\xe2\x82", false, "a sequence cut short"),
    CASE("\xc3(", false, "a lead byte followed by ASCII"),
    CASE("ok\xf0\x9f\x98", false, "cut short at the end"),
};

START_TEST(test_pv_utf8_valid_table)
{
    const utf8_case *c = &cases[_i];
    ck_assert_msg(pv_utf8_valid(c->bytes, c->len) == c->valid, "%s: want %s", c->what,
                  c->valid ? "valid" : "invalid");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("utf8");
    TCase *tc = tcase_create("pv_utf8_valid");
    tcase_add_loop_test(tc, test_pv_utf8_valid_table, 0, (int)(sizeof cases / sizeof cases[0]));
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
