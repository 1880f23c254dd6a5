/* log: every message profview prints goes through pv_log, to stderr, one
 * line each. Thread-safe (one fprintf per line). The level threshold is
 * set once by main() before threads start. */
#ifndef PV_UTIL_LOG_H
#define PV_UTIL_LOG_H

enum { PV_LOG_DEBUG, PV_LOG_INFO, PV_LOG_WARN, PV_LOG_ERROR };

void pv_log_set_level(int level);
void pv_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
