/* params: the one reader of a tool's query parameters, so one set of rules
 * holds for every tool and every route:
 *
 *   absent             the default;
 *   whole number       decimal digits only (no sign, space or fraction), at most a maximum;
 *   switch             "0", "1", "false" or "true";
 *   choice             one of a list of words;
 *   number             a finite decimal number in [lo, hi].
 *
 * A value that is present but does not follow its rule, or that the getter
 * calls bad (a NUL byte, invalid UTF-8), is PV_EINVAL with err naming the
 * parameter and what it must be; *out is then left unchanged. Pure and
 * thread-safe. */
#ifndef PV_TOOLS_COMMON_PARAMS_H
#define PV_TOOLS_COMMON_PARAMS_H

#include "tools/tool.h"

#include <stdbool.h>
#include <stdint.h>

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
