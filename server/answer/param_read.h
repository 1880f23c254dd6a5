/* param_read: the one reader of query parameters, so one set of rules
 * holds for every tool, every part and every route:
 *
 *   absent             the default (or refused, when required);
 *   whole number       decimal digits only (no sign, space or fraction), from a minimum to a
 *                      maximum;
 *   switch             "0", "1", "false" or "true";
 *   choice             one of a list of words;
 *   number             a finite decimal number in [lo, hi];
 *   list               whole numbers separated by commas, each at most a maximum, at most so
 *                      many of them.
 *
 * A value that is present but does not follow its rule, or that the getter
 * calls bad (a NUL byte, invalid UTF-8), is PV_EINVAL with err naming the
 * parameter and what it must be; *out is then left unchanged. A tool's
 * table (tools/tool.h, pv_param_decl) is read whole by pv_params_read;
 * routes that are not tools read single parameters with the others. Pure
 * and thread-safe. */
#ifndef PV_ANSWER_PARAM_READ_H
#define PV_ANSWER_PARAM_READ_H

#include "tools/tool.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stdint.h>

/* Where parameters come from: get returns the value of the parameter
 * called name, or NULL when it is absent; it sets *bad (and returns NULL)
 * when the value is present but unusable (a NUL byte, invalid UTF-8). */
typedef struct pv_params {
    const char *(*get)(void *ctx, const char *name, bool *bad);
    void *ctx;
} pv_params;

/* Reads every parameter of decls[0 .. n) from p (NULL: none given) into
 * out[0 .. n), lists into a. Returns 0, or PV_EINVAL with err saying which
 * parameter is wrong and what it must be, and *missing true when it was a
 * required one left out. */
int pv_params_read(const pv_param_decl *decls, size_t n, const pv_params *p, pv_arena *a,
                   pv_param_value *out, bool *missing, pv_error *err);

/* Appends to key, in a, every value of v in the table's order, each as
 * "&name=" and the value as read (absent numbers and texts as "-", the
 * others as their effective value, a text with its length first), so two
 * requests that give the same values (a default given or left out, a
 * number spelt two ways) have one key, and any other value another.
 * Returns the new key. Cannot fail. */
const char *pv_params_key(const pv_param_values *v, const char *key, pv_arena *a);

/* ---- single parameters ----------------------------------------------------- */

/* A whole number from 0 to max into *out; def when absent. */
int pv_param_uint(const pv_params *p, const char *name, uint64_t def, uint64_t max, uint64_t *out,
                  pv_error *err);
/* A switch into *out; def when absent. */
int pv_param_switch(const pv_params *p, const char *name, bool def, bool *out, pv_error *err);
/* The index of the value in choices (NULL-terminated) into *out; def when
 * absent. */
int pv_param_choice(const pv_params *p, const char *name, const char *const *choices,
                    unsigned def, unsigned *out, pv_error *err);
/* A number in [lo, hi] into *out and true into *present; *present false
 * and *out unchanged when absent. */
int pv_param_number(const pv_params *p, const char *name, double lo, double hi, double *out,
                    bool *present, pv_error *err);
/* Text as it is (NULL when absent); PV_EINVAL only when the getter calls it
 * bad. */
int pv_param_text(const pv_params *p, const char *name, const char **out, pv_error *err);

#endif
