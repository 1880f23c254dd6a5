/* compare_io: what the comparison harnesses share: golden files read
 * (gzip'd or not), answers fetched from the server (URLs escaped with
 * httpc.h's pv_test_url_escape). */
#ifndef PV_TESTS_COMPARE_IO_H
#define PV_TESTS_COMPARE_IO_H

#include "httpc.h"

#include <jansson.h>
#include <stdio.h>

/* The JSON in the file at path, gzip'd or plain; NULL when it cannot be
 * read or parsed. New reference. */
json_t *pv_cmp_load_gz_json(const char *path);
/* The JSON in len gzip'd bytes; NULL when they do not inflate or parse. */
json_t *pv_cmp_inflate_json(const char *data, size_t len);
/* GET path (escaped); the answer's JSON (inflated when gzip'd), or NULL
 * with *status (-1: no answer) and a one-line detail. */
json_t *pv_cmp_get_json(const pv_test_server *s, const char *path, int *status, char *detail,
                        size_t cap);

#endif
