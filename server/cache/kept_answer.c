/* kept_answer: kept answers (kept_answer.h). A gzip'd answer's payload is a line of
 * its tag and its uncompressed length (16 hex digits each, a space between,
 * a newline after), then the gzip body; it is kept under the key's "what"
 * prefixed with "gz2 ", so a plain and a gzip'd answer of one request never
 * collide, nor do answers kept in an older layout. The plain copy made for
 * clients without gzip has the same line, then the plain body, under
 * "pl2 ". */
#include "cache/kept_answer.h"
#include "util/gzip.h"
#include "util/hash.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_LINE (2 * PV_KEPT_TAG_CHARS + 2)

void pv_kept_tag(const void *body, size_t len, char tag[PV_KEPT_TAG_CHARS + 1])
{
    snprintf(tag, PV_KEPT_TAG_CHARS + 1, "%016llx",
             (unsigned long long)pv_hash_bytes(PV_HASH_SEED, body != NULL ? body : "", len));
}

#define GZ_PREFIX "gz2 "
#define PLAIN_PREFIX "pl2 "

/* k with prefix before its what, in what (the caller's storage). */
static pv_cache_key tagged_key(const pv_cache_key *k, const char *prefix, char **what)
{
    size_t n = strlen(k->what) + strlen(prefix) + 1;
    *what = malloc(n);
    if (*what != NULL)
        snprintf(*what, n, "%s%s", prefix, k->what);
    pv_cache_key g = *k;
    g.what = *what != NULL ? *what : prefix;
    return g;
}

static int open_tagged(pv_disk_cache *c, const pv_cache_key *k, const char *prefix,
                       pv_kept_gz *out)
{
    char *what;
    pv_cache_key g = tagged_key(k, prefix, &what);
    int rc = what != NULL ? pv_disk_cache_open(c, &g, &out->entry) : PV_ENOTFOUND;
    free(what);
    if (rc != 0)
        return PV_ENOTFOUND;
    char line[TAG_LINE + 1];
    unsigned long long plain;
    if (out->entry.len < TAG_LINE ||
        pread(out->entry.fd, line, TAG_LINE, (off_t)out->entry.offset) != TAG_LINE ||
        line[TAG_LINE - 1] != '\n' || line[PV_KEPT_TAG_CHARS] != ' ' ||
        sscanf(line + PV_KEPT_TAG_CHARS + 1, "%16llx", &plain) != 1) {
        close(out->entry.fd);
        return PV_ENOTFOUND;
    }
    memcpy(out->tag, line, PV_KEPT_TAG_CHARS);
    out->tag[PV_KEPT_TAG_CHARS] = '\0';
    out->plain_bytes = plain;
    return 0;
}

int pv_kept_open_gz(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *out)
{
    return open_tagged(c, k, GZ_PREFIX, out);
}

int pv_kept_open_plain(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *out)
{
    return open_tagged(c, k, PLAIN_PREFIX, out);
}

static int check_tagged(pv_disk_cache *c, const pv_cache_key *k, const char *prefix,
                        pv_kept_gz *g)
{
    char *what;
    pv_cache_key gk = tagged_key(k, prefix, &what);
    /* The checksum covers the tag line too: check the whole payload, then
     * move past the tag. */
    int rc = pv_disk_cache_check(c, &gk, &g->entry);
    free(what);
    if (rc != 0)
        return PV_ENOTFOUND;
    g->entry.offset += TAG_LINE;
    g->entry.len -= TAG_LINE;
    return 0;
}

int pv_kept_check_gz(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *g)
{
    return check_tagged(c, k, GZ_PREFIX, g);
}

int pv_kept_check_plain(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *g)
{
    return check_tagged(c, k, PLAIN_PREFIX, g);
}

static void put_tagged(pv_disk_cache *c, const pv_cache_key *k, const char *prefix,
                       const char *tag, uint64_t plain_len, const void *body, size_t len)
{
    char line[TAG_LINE + 1];
    snprintf(line, sizeof line, "%s %016llx\n", tag, (unsigned long long)plain_len);
    char *what;
    pv_cache_key g = tagged_key(k, prefix, &what);
    if (what != NULL)
        pv_disk_cache_put2(c, &g, line, TAG_LINE, body, len);
    free(what);
}

void pv_kept_keep_plain(pv_disk_cache *c, const pv_cache_key *k, const pv_kept_gz *g)
{
    if (g->plain_bytes > PV_KEPT_PLAIN_MAX_BYTES)
        return;
    int fd = dup(g->entry.fd);
    pv_gunzip_fd *in = fd >= 0 ? pv_gunzip_fd_new(fd, g->entry.offset, g->entry.len) : NULL;
    if (in == NULL)
        return;
    pv_buf out;
    pv_buf_init(&out, PV_KEPT_PLAIN_MAX_BYTES);
    char chunk[1 << 16];
    bool ok = true;
    ssize_t n;
    while (ok && (n = pv_gunzip_fd_read(in, chunk, sizeof chunk)) > 0)
        ok = pv_buf_add(&out, chunk, (size_t)n) == 0;
    ok = ok && n == 0;
    pv_gunzip_fd_free(in);
    char tag[PV_KEPT_TAG_CHARS + 1];
    pv_kept_tag(out.data, out.len, tag);
    /* Kept only when it is the very body the tag names. */
    if (ok && out.len == g->plain_bytes && strcmp(tag, g->tag) == 0)
        put_tagged(c, k, PLAIN_PREFIX, g->tag, g->plain_bytes, out.data, out.len);
    pv_buf_fini(&out);
}

int pv_kept_get(pv_disk_cache *c, const pv_cache_key *k, pv_buf *out)
{
    return pv_disk_cache_get(c, k, out) == 0 ? 0 : PV_ENOTFOUND;
}

void pv_kept_keep(pv_disk_cache *c, const pv_cache_key *k, const char *body, size_t len,
                    char **gz, size_t *gz_len, char tag[PV_KEPT_TAG_CHARS + 1])
{
    *gz = NULL;
    *gz_len = 0;
    pv_kept_tag(body, len, tag);
    if (len < PV_KEPT_GZ_MIN_BYTES || c->dir == NULL) {
        pv_disk_cache_put(c, k, body, len);
        return;
    }
    pv_buf out;
    pv_buf_init(&out, len + len / 8 + 1024);
    if (pv_gzip_compress(body, len, &out, NULL) != 0) {
        pv_buf_fini(&out);
        return;
    }
    put_tagged(c, k, GZ_PREFIX, tag, len, out.data, out.len);
    *gz = pv_buf_take(&out, gz_len);
}

/* ---- an answer compressed as it is written ------------------------------------ */

struct pv_kept_stream {
    pv_gzip_stream *gz;  /* at the level pv_kept_keep gives a body this big */
    pv_buf out;          /* the gzip body so far */
    uint64_t hash;       /* pv_answer_tag's hash of the plain bytes so far */
    size_t plain;        /* plain bytes so far */
};

pv_kept_stream *pv_kept_stream_new(size_t max_bytes)
{
    pv_kept_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    pv_buf_init(&s->out, max_bytes);
    s->gz = pv_gzip_stream_new(pv_gzip_level_for(SIZE_MAX), &s->out);
    if (s->gz == NULL) {
        free(s);
        return NULL;
    }
    s->hash = PV_HASH_SEED;
    return s;
}

int pv_kept_stream_add(void *ctx, const char *p, size_t n)
{
    pv_kept_stream *s = ctx;
    s->hash = pv_hash_bytes(s->hash, p, n);
    s->plain += n;
    return pv_gzip_stream_add(s->gz, p, n, false, NULL);
}

int pv_kept_stream_keep(pv_disk_cache *c, const pv_cache_key *k, pv_kept_stream *s,
                          const char *tail, size_t tail_len, pv_kept_gz_body *out)
{
    s->hash = pv_hash_bytes(s->hash, tail != NULL ? tail : "", tail_len);
    s->plain += tail_len;
    int rc = pv_gzip_stream_add(s->gz, tail, tail_len, true, NULL);
    if (rc != 0)
        return rc;
    snprintf(out->tag, sizeof out->tag, "%016llx", (unsigned long long)s->hash);
    out->plain_bytes = s->plain;
    if (c->dir != NULL)
        put_tagged(c, k, GZ_PREFIX, out->tag, s->plain, s->out.data, s->out.len);
    out->gz = pv_buf_take(&s->out, &out->gz_len);
    return 0;
}

void pv_kept_stream_free(pv_kept_stream *s)
{
    if (s == NULL)
        return;
    pv_gzip_stream_free(s->gz);
    pv_buf_fini(&s->out);
    free(s);
}
