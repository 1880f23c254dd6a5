/* print_common: CSV fields, Markdown cells and numbers for people
 * (print.h). */
#include "cli/print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_number(const char *s)
{
    char *end;
    strtod(s, &end);
    return end != s && *end == '\0';
}

static int csv_field(pv_buf *out, const char *s)
{
    bool formula = strchr("=+-@", s[0]) != NULL && s[0] != '\0' && !is_number(s);
    if (!formula && strpbrk(s, ",\"\r\n") == NULL)
        return pv_buf_adds(out, s);
    int rc = pv_buf_adds(out, formula ? "\"'" : "\"");
    for (const char *p = s; rc == 0 && *p != '\0'; p++)
        rc = *p == '"' ? pv_buf_adds(out, "\"\"") : pv_buf_add(out, p, 1);
    return rc != 0 ? rc : pv_buf_adds(out, "\"");
}

int pv__csv_line(pv_buf *out, const char *section, const char *name, const char *field,
                 const char *value)
{
    const char *cells[4] = {section, name, field, value};
    for (int i = 0; i < 4; i++) {
        int rc = csv_field(out, cells[i] != NULL ? cells[i] : "");
        if (rc == 0)
            rc = pv_buf_adds(out, i < 3 ? "," : "\r\n");
        if (rc != 0)
            return rc;
    }
    return 0;
}

int pv__csv_num(pv_buf *out, const char *section, const char *name, const char *field,
                double v, bool unknown_negative)
{
    char num[40] = "";
    if (!(unknown_negative && v < 0))
        snprintf(num, sizeof num, "%.17g", v);
    return pv__csv_line(out, section, name, field, num);
}

int pv__md_cell(pv_buf *out, const char *s)
{
    int rc = 0;
    for (const char *p = s; rc == 0 && *p != '\0'; p++) {
        if (*p == '|' || *p == '`')
            rc = pv_buf_addf(out, "\\%c", *p);
        else
            rc = pv_buf_add(out, *p == '\n' || *p == '\r' ? " " : p, 1);
    }
    return rc;
}

const char *pv__human_bytes(double v, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (v < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
    return buf;
}

const char *pv__fixed(double v, int digits, char *buf, size_t cap)
{
    if (v < 0)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.*f", digits, v);
    return buf;
}
