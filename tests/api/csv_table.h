/* csv_table: a test-side CSV reader (RFC 4180: fields quoted when they hold
 * a comma, a quote or a line break, quotes doubled inside, CRLF line ends)
 * and a check of a CSV export cell by cell against the DataTable it was
 * written from, by the rules pv_dt_write_csv documents
 * (server/tools/common/datatable.h), written from that comment and not
 * from the writer:
 *
 *   - the first record is the columns' labels, then one record per row, in
 *     the table's column order, as many fields as the table has columns;
 *   - text as it is, with a leading apostrophe when it starts with '=',
 *     '+' or '@' (a formula to a spreadsheet);
 *   - an integer in decimal; a real in full precision: the shortest of
 *     %.15g, %.16g and %.17g that reads back as the same double (so it
 *     must read back as exactly the JSON's value);
 *   - true and false as those words; null (or no value) as an empty field.
 *
 * The reader is strict: a quote inside an unquoted field, anything but a
 * comma or a line end after a closing quote, a bare CR or LF outside
 * quotes, or an unclosed quote is an error, so a writer that stops
 * quoting fails here rather than shifting every later cell. */
#ifndef PV_TESTS_CSV_TABLE_H
#define PV_TESTS_CSV_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct pv_csv_record {
    size_t n;        /* fields */
    char **fields;   /* each NUL-terminated, quotes removed */
} pv_csv_record;

typedef struct pv_csv {
    size_t n;                  /* records */
    pv_csv_record *records;
} pv_csv;

/* Reads the len bytes at s (every record ends with CRLF) into out.
 * Returns true, or false with why (a sentence naming the record and
 * byte) and out empty. Release with pv_csv_fini (also after a failure). */
bool pv_csv_parse(const char *s, size_t len, pv_csv *out, char *why, size_t cap);
void pv_csv_fini(pv_csv *c);

/* Whether csv is table (a DataTable: {"cols":[...], "rows":[{"c":[...]}]})
 * written by the rules above. False with why naming the first cell that
 * differs (record, column id, both values). *n_cells counts the cells
 * compared (header included). Cannot fail otherwise. */
bool pv_csv_matches_table(const pv_csv *csv, const json_t *table, size_t *n_cells, char *why,
                          size_t cap);

#endif
