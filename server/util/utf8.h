/* utf8: whether bytes from outside (a request's path, a parameter) are
 * well-formed UTF-8 before they reach a JSON string or a log line. Follows
 * RFC 3629 as jansson does: overlong forms, UTF-16 surrogates and code
 * points past U+10FFFF are refused. NUL is a valid character here; callers
 * that cannot carry one check for it themselves. Thread-safe (pure). */
#ifndef PV_UTIL_UTF8_H
#define PV_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* True when the n bytes at s are well-formed UTF-8. Cannot fail. */
bool pv_utf8_valid(const void *s, size_t n);

#endif
