/* briefs: the briefs (figures.h) the server has read, kept by what they
 * were read from — a run, a host and the identity of every file — so the
 * run history and /metrics load each profile once, not on every request
 * or scrape. A changed file is a new key; the table forgets everything
 * when it passes its size cap (runs come and go, keys are never reused).
 * Thread-safe: one mutex guards the table. */
#ifndef PV_REPORT_BRIEFS_H
#define PV_REPORT_BRIEFS_H

#include "report/figures.h"

#include <stdbool.h>

typedef struct pv_briefs pv_briefs;

/* A new empty table. Cannot fail (aborts when memory runs out). */
pv_briefs *pv_briefs_new(void);
/* NULL is fine. */
void pv_briefs_free(pv_briefs *t);

/* Copies the brief kept under key into *out and returns true, or false. */
bool pv_briefs_get(pv_briefs *t, const char *key, pv_brief *out);
/* Keeps a copy of b under key (replacing one there). */
void pv_briefs_put(pv_briefs *t, const char *key, const pv_brief *b);

#endif
