/* mapguard: a file that shrinks while profview reads it through a mapping
 * makes the next read of a vanished page raise SIGBUS, which would kill
 * the whole server. A guard armed around such reads turns that signal,
 * on this thread and inside the guarded range only, into a jump back to
 * the caller, which reports an error for that one file.
 *
 * Use (sigsetjmp must run in the caller's own frame, hence the macro):
 *     pv_map_guard g;
 *     if (PV_MAP_GUARD_ARM(&g, map, len) == 0) { ...read map...; }
 *     else { ...the file shrank: report it... }
 *     pv_map_guard_disarm(&g);
 * Anything allocated between arm and the jump must be reachable from the
 * caller (it is not unwound). Guards nest: disarming one re-arms the
 * guard that was current when it was armed (the decoder's guard covers
 * the model's own lazy reads of the same file).
 * Arming is cheap (no system call: the jump does not restore the signal
 * mask, and the handler runs with SIGBUS unblocked), so the model arms
 * one around each lazy read of a mapped file. */
#ifndef PV_UTIL_MAPGUARD_H
#define PV_UTIL_MAPGUARD_H

#include <setjmp.h>
#include <stddef.h>

typedef struct pv_map_guard {
    sigjmp_buf jump;        /* where SIGBUS returns to */
    const char *lo;         /* guarded range [lo, hi) */
    const char *hi;
    struct pv_map_guard *prev;  /* the guard to re-arm on disarm */
} pv_map_guard;

/* Installs the process-wide SIGBUS handler (once) and makes g the current
 * thread's guard for [p, p + len). */
void pv__map_guard_enter(pv_map_guard *g, const void *p, size_t len);
/* Makes the guard that was current before g current again. Cannot fail. */
void pv_map_guard_disarm(pv_map_guard *g);

/* 0 when armed; non-zero when a SIGBUS in the range jumped back here. */
#define PV_MAP_GUARD_ARM(g, p, len) (pv__map_guard_enter((g), (p), (len)), sigsetjmp((g)->jump, 0))

#endif
