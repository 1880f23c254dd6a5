/* served.h: what the API tests that serve a folder share: waiting until
 * the server lists everything in it; the fixture of those that serve a
 * folder of ../shared/testdata (a server of their own on it with a fresh
 * cache folder, so no test sees another's cached tiles); replies read as
 * JSON with their status checked. Inline, for Check's asserts. */
#ifndef PV_TESTS_SERVED_H
#define PV_TESTS_SERVED_H

#include "httpc.h"
#include "index/index.h"
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* Waits until the server s lists every run of logdir and every host of
 * each, as an in-process scan that takes every file as settled finds them
 * (pv_test_server_wait_for: the first scan leaves out files written
 * moments ago). For a test that asks for whatever the folder holds; 0 or
 * -1, with what never appeared printed. */
static inline int pv_test_server_wait_logdir(const pv_test_server *s, const char *logdir)
{
    pv_index *ix = NULL;
    pv_error err = {0};
    if (pv_index_scan(logdir, NULL, INT64_MAX / 2, &ix, &err) != 0) {
        fprintf(stderr, "pv_test_server_wait_logdir: cannot scan %s: %s\n", logdir, err.reason);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < ix->n_runs && rc == 0; i++)
        for (size_t j = 0; j < ix->runs[i].n_hosts && rc == 0; j++)
            rc = pv_test_server_wait_for(s, ix->runs[i].name, ix->runs[i].hosts[j].name);
    pv_index_unref(ix);
    return rc;
}

/* pv_test_server_start, then pv_test_server_wait_logdir: a server that
 * lists everything logdir holds, or -1 (a server that never does is
 * stopped). What a test that starts a server on a folder calls. */
static inline int pv_test_server_start_indexed(pv_test_server *s, const char *logdir,
                                               const char *const *extra)
{
    if (pv_test_server_start(s, logdir, extra) != 0)
        return -1;
    if (pv_test_server_wait_logdir(s, logdir) == 0)
        return 0;
    pv_test_server_stop(s);
    return -1;
}

typedef struct pv_test_served {
    pv_test_server srv;
    char cachedir[128];
} pv_test_served;

/* Starts a server on PV_TESTDATA/sub, its cache under a new folder named
 * after tag. Nothing when the test data is absent (the tests SKIP). */
static inline void pv_test_serve(pv_test_served *s, const char *sub, const char *tag)
{
    if (!pv_test_have_testdata())
        return;
    snprintf(s->cachedir, sizeof s->cachedir, "/tmp/pv_%s_XXXXXX", tag);
    ck_assert_ptr_nonnull(mkdtemp(s->cachedir));
    setenv("XDG_CACHE_HOME", s->cachedir, 1);
    char logdir[1024];
    snprintf(logdir, sizeof logdir, "%s/%s", PV_TESTDATA, sub);
    ck_assert_int_eq(pv_test_server_start_indexed(&s->srv, logdir, NULL), 0);
}

/* Stops the server, which must exit cleanly, and removes its cache. */
static inline void pv_test_unserve(pv_test_served *s)
{
    if (!pv_test_have_testdata())
        return;
    ck_assert_int_eq(pv_test_server_stop(&s->srv), 0);
    pv_test_remove_tree(s->cachedir);
}

/* GET path, which must answer want_status with JSON. The reply goes to
 * *keep when not NULL (the caller frees it), else is freed. */
static inline json_t *pv_test_get_json(const pv_test_served *s, const char *path,
                                       int want_status, pv_test_reply *keep)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(&s->srv, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == want_status, "%s: status %d, want %d: %.300s", path, r.status,
                  want_status, r.body);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(j != NULL, "%s: not JSON", path);
    if (keep != NULL)
        *keep = r;
    else
        pv_test_reply_free(&r);
    return j;
}

#endif
