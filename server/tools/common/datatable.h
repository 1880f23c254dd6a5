/* datatable: small builders for Google-Charts DataTable JSON (FORMATS.md
 * §4.0) used by the overview page, the input pipeline analyzer, and (the
 * cell values) kernel_stats and framework_op_stats.
 * Ownership follows jansson: every function returns a new reference or
 * adds to the table it is given. A table is {"cols":[],"rows":[]} plus
 * "p" once the first property is set (omitted when there are none). */
#ifndef PV_TOOLS_COMMON_DATATABLE_H
#define PV_TOOLS_COMMON_DATATABLE_H

#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>

/* A new empty table. */
json_t *pv_dt_new(void);
/* Appends a column; role may be NULL (else becomes "p":{"role":role}). */
void pv_dt_col(json_t *t, const char *id, const char *type, const char *label, const char *role);
/* Appends a row and returns it (borrowed) for pv_dt_num / pv_dt_str. */
json_t *pv_dt_row(json_t *t);
void pv_dt_num(json_t *row, double v);
void pv_dt_str(json_t *row, const char *v);
void pv_dt_bool(json_t *row, int v);
/* Sets a table property (always a string). */
void pv_dt_prop(json_t *t, const char *key, const char *value);
/* Sets a property to printf("%.*f", digits, v). */
void pv_dt_propf(json_t *t, const char *key, int digits, double v);
/* Sets a property to the reference's percent form "%.1f%%". */
void pv_dt_prop_pct(json_t *t, const char *key, double v);

/* ---- cell values, for tables that build their rows themselves ---- */
/* {"v": v}; v is consumed. */
json_t *pv_dt_cell(json_t *v);
/* A JSON string of s. Names come from the profile's bytes and may not be
 * UTF-8, which jansson refuses: then every non-ASCII byte becomes '?', so
 * the cell is still there (lossy, but only for broken names). NULL only
 * when out of memory. */
json_t *pv_dt_text(const char *s);
/* A JSON real of d. JSON has no NaN or infinity (jansson refuses them);
 * values read from a legacy file may be either, and are written as 0. */
json_t *pv_dt_real(double d);

/* ---- CSV ---- */
/* Appends table t as CSV to out: a line of column labels, then a line per
 * row, fields quoted as RFC 4180 says and CRLF line ends (the page's own
 * export writes the same, web/table.js). Numbers are written in full
 * precision; a text cell that starts with '=', '+' or '@' gets a
 * leading apostrophe so a spreadsheet shows it rather than running it as a
 * formula. Returns 0, PV_EFORMAT when t is not a DataTable, or PV_ETOOBIG
 * past out's cap, with err set. */
int pv_dt_write_csv(const json_t *t, pv_buf *out, pv_error *err);

#endif
