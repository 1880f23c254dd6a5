/* source: what every kind shares (source.h). The kind's name starts the
 * identity line, so two kinds never name different bytes alike. */
#include "source/source.h"

#include <stdio.h>
#include <string.h>

const char *pv_source_ident(const pv_source *src, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s ", src->kind->name);
    if (n >= 0 && (size_t)n < cap)
        src->kind->ident(src, buf + n, cap - (size_t)n);
    return buf;
}

bool pv_source_same(const pv_source *a, const pv_source *b)
{
    if (a->kind != b->kind)
        return false;
    char x[PV_SOURCE_IDENT_MAX], y[PV_SOURCE_IDENT_MAX];
    return strcmp(pv_source_ident(a, x, sizeof x), pv_source_ident(b, y, sizeof y)) == 0;
}
