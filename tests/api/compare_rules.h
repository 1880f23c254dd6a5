/* compare_rules: how the harness compares each tool with the reference,
 * and the short table of differences it accepts, each with its reason. */
#ifndef PV_TESTS_COMPARE_RULES_H
#define PV_TESTS_COMPARE_RULES_H

#include "json_compare.h"

/* Terminated by an entry with path NULL. */
extern const pv_jc_rule pv_compare_rules[];

#endif
