/* print: the figures and comparisons as people and scripts read them —
 * text (aligned, for a terminal), CSV (one value a line: section, name,
 * field, value) and Markdown (a pull request comment). JSON comes from
 * report/ itself. Every writer appends to a pv_buf and returns 0 or
 * PV_ETOOBIG. Inside cli/ only. */
#ifndef PV_CLI_PRINT_H
#define PV_CLI_PRINT_H

#include "report/compare.h"
#include "util/buf.h"

/* ---- summary (print_summary.c) ------------------------------------------------------ */

int pv__cli_summary_text(const pv_figures *f, size_t top_k, pv_buf *out);
int pv__cli_summary_csv(const pv_figures *f, size_t top_k, pv_buf *out);

/* ---- compare (print_compare.c) ------------------------------------------------------ */

int pv__cli_compare_text(const pv_comparison *c, size_t top_k, pv_buf *out);
int pv__cli_compare_csv(const pv_comparison *c, size_t top_k, pv_buf *out);
int pv__cli_compare_markdown(const pv_comparison *c, size_t top_k, pv_buf *out);

/* ---- shared by the writers (print_common.c) -------------------------------------------- */

/* A CSV line "section,name,field,value", fields quoted as RFC 4180 says;
 * a value that starts with '=', '+', '-' or '@' and is not a number gets
 * a leading apostrophe, so a spreadsheet does not run it. */
int pv__csv_line(pv_buf *out, const char *section, const char *name, const char *field,
                 const char *value);
/* The same with a number (full precision), or an empty value when v < 0
 * and unknown_negative. */
int pv__csv_num(pv_buf *out, const char *section, const char *name, const char *field,
                double v, bool unknown_negative);
/* s for a Markdown table cell: '|' and '`' escaped, line breaks as spaces. */
int pv__md_cell(pv_buf *out, const char *s);
/* A byte count for people ("1.25 MiB") into buf; "-" when v < 0. */
const char *pv__human_bytes(double v, char *buf, size_t cap);
/* v with digits decimals into buf, or "-" when v < 0. */
const char *pv__fixed(double v, int digits, char *buf, size_t cap);

#endif
