/* utf8: the RFC 3629 table. A lead byte fixes the sequence length and the
 * range its second byte may take; the ranges narrower than 80..BF are what
 * shut out overlong forms (E0, F0), surrogates (ED) and code points past
 * U+10FFFF (F4). */
#include "util/utf8.h"

bool pv_utf8_valid(const void *s, size_t n)
{
    const unsigned char *p = s;
    size_t i = 0;
    while (i < n) {
        unsigned lead = p[i];
        if (lead < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned lo = 0x80, hi = 0xbf;
        if (lead >= 0xc2 && lead <= 0xdf) {
            len = 2;
        } else if (lead >= 0xe0 && lead <= 0xef) {
            len = 3;
            lo = lead == 0xe0 ? 0xa0 : 0x80;
            hi = lead == 0xed ? 0x9f : 0xbf;
        } else if (lead >= 0xf0 && lead <= 0xf4) {
            len = 4;
            lo = lead == 0xf0 ? 0x90 : 0x80;
            hi = lead == 0xf4 ? 0x8f : 0xbf;
        } else {
            return false;
        }
        if (n - i < len || p[i + 1] < lo || p[i + 1] > hi)
            return false;
        for (size_t k = 2; k < len; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                return false;
        i += len;
    }
    return true;
}
