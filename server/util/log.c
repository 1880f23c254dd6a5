/* log: level-filtered lines on stderr. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

static int min_level = PV_LOG_INFO;

void pv_log_set_level(int level)
{
    min_level = level;
}

void pv_log(int level, const char *fmt, ...)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    if (level < min_level)
        return;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "profview: %s: %s\n", names[level < 0 || level > 3 ? 3 : level], line);
}
