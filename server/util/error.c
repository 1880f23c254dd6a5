/* error: filling and printing pv_error. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pv_error_set(pv_error *err, int code, const char *path, uint64_t offset,
                 const char *fmt, ...)
{
    if (err == NULL)
        return code;
    err->code = code;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->reason, sizeof err->reason, fmt, ap);
    va_end(ap);
    return code;
}

const char *pv_error_name(int code)
{
    switch (code) {
    case PV_OK: return "ok";
    case PV_EIO: return "io";
    case PV_EFORMAT: return "format";
    case PV_ETOOBIG: return "too big";
    case PV_ENOTFOUND: return "not found";
    case PV_EINVAL: return "invalid";
    case PV_ENOTIMPL: return "not implemented";
    case PV_ENOMEM: return "out of memory";
    case PV_EBUSY: return "busy";
    default: return "error";
    }
}

void pv_error_format(const pv_error *err, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    if (err->path[0] != '\0' && err->offset != PV_NO_OFFSET)
        snprintf(buf, cap, "%s: at byte %llu: %s", err->path,
                 (unsigned long long)err->offset, err->reason);
    else if (err->path[0] != '\0')
        snprintf(buf, cap, "%s: %s", err->path, err->reason);
    else
        snprintf(buf, cap, "%s", err->reason);
}
