/* serialize: writing a model's columns to one file and mapping them back
 * (layout in serialize.h). The columns are columns.h's list: each is one
 * section, in the list's order, and its entries are in the counts block,
 * so the list alone says what a file holds. */
#include "model/serialize.h"
#include "model/model_priv.h"
#include "util/mem.h"
#include "util/quiet.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_BYTES 64u
#define ALIGN 16u
static const char magic[8] = "PVMODEL";

/* The counts block at the start of the payload: these, then the entries
 * of each column (COLUMN_ABSENT for a NULL one). */
enum {
    C_STRINGS, C_STR_BYTES, C_DEPTH_POOL, C_DEPTH_INDEX, C_BLOB_BYTES, C_MIN_PS, C_MAX_PS,
    C_MEM_BYTES, C_SRC_LEN, C_HAS_GROUP_STATS, C_COLUMNS,
    C_COUNT = C_COLUMNS + PV__N_COLUMNS
};
#define COLUMN_ABSENT UINT64_MAX

static uint64_t fnv(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ull;
}

/* Mixes this build's columns (entry sizes, flags, count widths) and its
 * byte order into 32 bits. */
static uint32_t fingerprint(void)
{
    const uint64_t probe = 0x0102030405060708ull;
    uint64_t h = fnv(1469598103934665603ull, *(const uint8_t *)&probe);
    h = fnv(h, C_COUNT);
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        h = fnv(h, pv__columns[i].elem);
        h = fnv(h, pv__columns[i].flags);
        h = fnv(h, pv__columns[i].count_bytes);
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* ---- checksum ----------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w * 0x87c37b91114253d5ull;
    h = (h << 31) | (h >> 33);
    return h * 0x4cf5ad432745937full;
}

/* The checksum runs four independent lanes over the words (word i feeds
 * lane i % 4) so the multiplies overlap: about memory speed, which keeps
 * verifying a multi-GB cache file well under a second. */
#define LANES 4

typedef struct csum {
    uint64_t lane[LANES];
    uint64_t n_words;
} csum;

static void sum_init(csum *c)
{
    for (int i = 0; i < LANES; i++)
        c->lane[i] = 0x9e3779b97f4a7c15ull + (uint64_t)(unsigned)i;
    c->n_words = 0;
}

static void sum_word(csum *c, uint64_t w)
{
    c->lane[c->n_words % LANES] = mix(c->lane[c->n_words % LANES], w);
    c->n_words++;
}

static uint64_t sum_final(const csum *c)
{
    uint64_t h = c->n_words;
    for (int i = 0; i < LANES; i++)
        h = mix(h, c->lane[i]);
    return h ^ (h >> 29);
}

/* Checksum of n bytes (n a multiple of 8). */
static uint64_t checksum(const uint8_t *p, size_t n)
{
    csum c;
    sum_init(&c);
    size_t words = n / 8, i = 0;
    for (; i + LANES <= words; i += LANES) {
        for (int k = 0; k < LANES; k++) {
            uint64_t w;
            memcpy(&w, p + 8 * (i + (size_t)k), 8);
            c.lane[k] = mix(c.lane[k], w);
        }
    }
    c.n_words = i;
    for (; i < words; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        sum_word(&c, w);
    }
    return sum_final(&c);
}

/* ---- writing ------------------------------------------------------------- */

typedef struct writer {
    FILE *f;                  /* the file written, or NULL: */
    pv_buf *b;                /*   the buffer appended to */
    pv_quiet *quiet;          /* waited for before each piece of the file, or NULL */
    int64_t quiet_budget;     /* what the waits may still take (util/quiet.h) */
    uint64_t next_wait;       /* bytes at which to wait for it again */
    csum hash;
    uint64_t bytes;           /* payload bytes written */
    uint8_t carry[8];         /* bytes waiting to complete a word */
    size_t n_carry;
    bool failed;
} writer;

static void w_put_now(writer *w, const void *data, size_t n)
{
    if (n == 0 || w->failed)
        return;
    if (w->f != NULL ? fwrite(data, 1, n, w->f) != n : pv_buf_add(w->b, data, n) != 0) {
        w->failed = true;
        return;
    }
    w->bytes += n;
    const uint8_t *p = data;
    while (n > 0 && w->n_carry > 0) {
        w->carry[w->n_carry++] = *p++;
        n--;
        if (w->n_carry == 8) {
            uint64_t word;
            memcpy(&word, w->carry, 8);
            sum_word(&w->hash, word);
            w->n_carry = 0;
        }
    }
    if (w->n_carry > 0)
        return;   /* all of data went into the partial word */
    size_t whole = n & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t word;
        memcpy(&word, p + i, 8);
        sum_word(&w->hash, word);
    }
    memcpy(w->carry, p + whole, n - whole);
    w->n_carry = n - whole;
}

/* Puts data in pieces, each after a wait for quiet when there is one. */
static void w_put(writer *w, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (w->quiet != NULL && !w->failed && w->bytes + n > w->next_wait) {
        size_t k = (size_t)(w->next_wait - w->bytes);
        w_put_now(w, p, k);
        p += k;
        n -= k;
        pv_quiet_wait(w->quiet, &w->quiet_budget);
        w->next_wait += PV_MODEL_WRITE_PIECE;
    }
    w_put_now(w, p, n);
}

static void w_pad(writer *w)
{
    static const uint8_t zeros[ALIGN];
    size_t rem = (size_t)(w->bytes % ALIGN);
    if (rem != 0)
        w_put(w, zeros, ALIGN - rem);
}

static void w_section(writer *w, const void *data, size_t n)
{
    w_put(w, data, n);
    w_pad(w);
}

/* Writes column i; rows of a PV__COL_APART one with their pointers
 * cleared (bind_apart sets them again). */
static void write_column(writer *w, const pv_model *m, size_t i)
{
    const pv__column *col = &pv__columns[i];
    const uint8_t *data = pv__column_data(m, col);
    size_t n = (size_t)pv__column_entries(m, col);
    if (!(col->flags & PV__COL_APART)) {
        w_section(w, data, n * col->elem);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        pv_track tr;
        pv_blob blob;
        switch (i) {
        case PV__COLUMN_tracks:
            memcpy(&tr, data + k * sizeof tr, sizeof tr);
            tr.depth_start = NULL;
            tr.depth_index = NULL;
            w_put(w, &tr, sizeof tr);
            break;
        case PV__COLUMN_blobs:
            memcpy(&blob, data + k * sizeof blob, sizeof blob);
            blob.data = NULL;
            w_put(w, &blob, sizeof blob);
            break;
        default:
            assert(!"a PV__COL_APART column without its code here");
            break;
        }
    }
    w_pad(w);
}

static void write_payload(writer *w, const pv_model *m)
{
    uint64_t c[C_COUNT];
    memset(c, 0, sizeof c);
    c[C_STRINGS] = m->n_strings;
    for (uint32_t i = 0; i < m->n_strings; i++)
        c[C_STR_BYTES] += strlen(m->strings[i]) + 1;
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        c[C_DEPTH_POOL] += (uint64_t)m->tracks[t].n_depths + 1;
        c[C_DEPTH_INDEX] += m->tracks[t].n_events;
    }
    for (uint32_t i = 0; i < m->n_blobs; i++)
        c[C_BLOB_BYTES] += m->blobs[i].len;
    c[C_MIN_PS] = (uint64_t)m->min_ps;
    c[C_MAX_PS] = (uint64_t)m->max_ps;
    c[C_MEM_BYTES] = m->mem_bytes;
    c[C_SRC_LEN] = m->src_len;
    c[C_HAS_GROUP_STATS] = m->has_group_stats;
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        const pv__column *col = &pv__columns[i];
        c[C_COLUMNS + i] =
            pv__column_data(m, col) != NULL ? pv__column_entries(m, col) : COLUMN_ABSENT;
    }
    w_section(w, c, sizeof c);

    for (uint32_t i = 0; i < m->n_strings; i++) {
        uint32_t len = (uint32_t)strlen(m->strings[i]);
        w_put(w, &len, sizeof len);
    }
    w_pad(w);
    for (uint32_t i = 0; i < m->n_strings; i++)
        w_put(w, m->strings[i], strlen(m->strings[i]) + 1);
    w_pad(w);
    for (size_t i = 0; i < PV__N_COLUMNS; i++)
        write_column(w, m, i);
    /* what the PV__COL_APART columns point to */
    static const uint32_t zero = 0;
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        if (tr->n_events == 0)
            w_put(w, &zero, sizeof zero);
        else
            w_put(w, tr->depth_start, (tr->n_depths + 1) * sizeof *tr->depth_start);
    }
    w_pad(w);
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        if (tr->n_events > 0)
            w_put(w, tr->depth_index, tr->n_events * sizeof *tr->depth_index);
    }
    w_pad(w);
    for (uint32_t i = 0; i < m->n_blobs; i++)
        w_put(w, m->blobs[i].data, m->blobs[i].len);
    w_pad(w);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

static void put_u64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

/* The file header of a payload w wrote. */
static void fill_header(uint8_t header[HEADER_BYTES], writer *w)
{
    memcpy(header, magic, sizeof magic);
    put_u32(header + 8, PV_MODEL_FILE_VERSION);
    put_u32(header + 12, HEADER_BYTES);
    put_u32(header + 16, fingerprint());
    put_u64(header + 24, w->bytes);
    put_u64(header + 32, sum_final(&w->hash));
}

int pv_model_write(const pv_model *m, int fd, pv_quiet *quiet, pv_error *err)
{
    /* the stream gets a descriptor of its own, so closing it leaves fd to
     * the caller, who renames the file once it is complete */
    int own = dup(fd);
    FILE *f = own >= 0 ? fdopen(own, "wb") : NULL;
    if (f == NULL) {
        int e = errno;
        if (own >= 0)
            close(own);
        return pv_error_set(err, PV_EIO, NULL, PV_NO_OFFSET, "cannot write the model: %s",
                            strerror(e));
    }
    uint8_t header[HEADER_BYTES];
    memset(header, 0, sizeof header);
    writer w;
    memset(&w, 0, sizeof w);
    w.f = f;
    w.quiet = quiet;
    w.quiet_budget = PV_QUIET_BUDGET_NS;
    sum_init(&w.hash);
    w.failed = fwrite(header, 1, sizeof header, f) != sizeof header;
    write_payload(&w, m);
    fill_header(header, &w);
    if (!w.failed)
        w.failed = fseek(f, 0, SEEK_SET) != 0 || fwrite(header, 1, sizeof header, f) != sizeof header;
    if (fclose(f) != 0)
        w.failed = true;
    if (w.failed)
        return pv_error_set(err, PV_EIO, NULL, PV_NO_OFFSET, "cannot write the model: %s",
                            strerror(errno));
    return 0;
}

int pv_model_write_buf(const pv_model *m, pv_buf *b, pv_error *err)
{
    /* the header is written in place once the payload is known; the
     * buffer's first byte is where a caller's section of 16 begins */
    uint8_t header[HEADER_BYTES];
    memset(header, 0, sizeof header);
    size_t at = b->len;
    if (at % ALIGN != 0 || pv_buf_add(b, header, sizeof header) != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "cannot write the model: its buffer is full or misaligned");
    writer w;
    memset(&w, 0, sizeof w);
    w.b = b;
    sum_init(&w.hash);
    write_payload(&w, m);
    if (w.failed)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "cannot write the model: its buffer is full");
    fill_header(header, &w);
    memcpy(b->data + at, header, sizeof header);
    return 0;
}

int pv_model_save(const pv_model *m, const char *path, pv_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot create: %s",
                            strerror(errno));
    int rc = pv_model_write(m, fd, NULL, err);
    if (close(fd) != 0 && rc == 0)
        rc = pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot write: %s", strerror(errno));
    if (rc != 0)
        unlink(path);
    return rc;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;         /* next section */
    const uint8_t *end;
    bool bad;                 /* a section did not fit */
} reader;

/* Returns the next section of count * elem bytes, or NULL (and bad) when
 * the counts would run past the payload. */
static const void *r_section(reader *r, uint64_t count, size_t elem)
{
    if (r->bad)
        return NULL;
    if (elem != 0 && count > (uint64_t)(r->end - r->p) / elem) {
        r->bad = true;
        return NULL;
    }
    size_t n = (size_t)count * elem;
    size_t padded = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (padded > (size_t)(r->end - r->p)) {
        r->bad = true;
        return NULL;
    }
    const void *s = r->p;
    r->p += padded;
    return s;
}

static int load_fail(pv_model *m, void *map, size_t len, int code, pv_error *err,
                     const char *path, const char *why)
{
    if (m != NULL)
        pv_model_free(m);
    else if (map != NULL)
        munmap(map, len);
    return pv_error_set(err, code, path, PV_NO_OFFSET, "%s", why);
}

/* Points m's columns into the payload (a PV__COL_APART one into a
 * copy); false when a count lies. */
static bool bind_column(pv_model *m, size_t i, uint64_t n, reader *r)
{
    const pv__column *col = &pv__columns[i];
    if (n == COLUMN_ABSENT)
        return (col->flags & PV__COL_OPTIONAL) != 0;
    uint64_t plus1 = (col->flags & PV__COL_PLUS1) ? 1 : 0;
    if (n < plus1 || !pv__column_set_count(m, col, n - plus1))
        return false;
    const void *data = r_section(r, n, col->elem);
    if (data == NULL)
        return false;
    if (col->flags & PV__COL_APART) {
        void *copy = pv_xmalloc(n > 0 ? (size_t)n * col->elem : 1);
        memcpy(copy, data, (size_t)n * col->elem);
        data = copy;
    }
    pv__column_bind(m, col, data);
    return true;
}

/* Sets the pointers of the PV__COL_APART columns' rows (write_column
 * cleared them) into the sections after the columns. */
static bool bind_apart(pv_model *m, const uint64_t *c, reader *r)
{
    const uint32_t *pool = r_section(r, c[C_DEPTH_POOL], sizeof(uint32_t));
    const uint32_t *index = r_section(r, c[C_DEPTH_INDEX], sizeof(uint32_t));
    const uint8_t *blob_data = r_section(r, c[C_BLOB_BYTES], 1);
    if (r->bad || r->p != r->end || c[C_DEPTH_INDEX] != m->n_events)
        return false;
    pv_blob *blobs = (pv_blob *)(uintptr_t)m->blobs;
    uint64_t at = 0;
    for (uint32_t i = 0; i < m->n_blobs; i++) {
        if (blobs[i].len > c[C_BLOB_BYTES] - at)
            return false;
        blobs[i].data = blob_data + at;
        at += blobs[i].len;
    }
    pv_track *tr = (pv_track *)(uintptr_t)m->tracks;
    uint64_t pool_at = 0, n = m->n_events;
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        if (tr[t].n_depths >= c[C_DEPTH_POOL] - pool_at || tr[t].first_event > n ||
            tr[t].n_events > n - tr[t].first_event)
            return false;
        tr[t].depth_start = pool + pool_at;
        tr[t].depth_index = index + tr[t].first_event;
        pool_at += (uint64_t)tr[t].n_depths + 1;
    }
    return at == c[C_BLOB_BYTES] && pool_at == c[C_DEPTH_POOL];
}

/* Binds the strings and columns of the payload; false when a count lies
 * (pv_model_is_sane checks the rest). */
static bool bind_columns(pv_model *m, pv__model_store *s, const uint64_t *c, reader *r)
{
    const uint32_t *str_len = r_section(r, c[C_STRINGS], sizeof(uint32_t));
    const char *str_data = r_section(r, c[C_STR_BYTES], 1);
    if (r->bad || c[C_STRINGS] == 0 || c[C_STRINGS] > UINT32_MAX)
        return false;
    /* Re-intern so pv_model_str_find works; ids must come out in order. */
    uint64_t at = 0;
    for (uint64_t i = 0; i < c[C_STRINGS]; i++) {
        if (str_len[i] >= c[C_STR_BYTES] - at || str_data[at + str_len[i]] != '\0')
            return false;
        if (pv__strtab_intern(&s->strs, str_data + at, str_len[i]) != i)
            return false;
        at += (uint64_t)str_len[i] + 1;
    }
    m->n_strings = (uint32_t)s->strs.n;
    m->strings = s->strs.strs;
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        if (!bind_column(m, i, c[C_COLUMNS + i], r))
            return false;
    }
    /* columns that share a count (the per-event ones) agree on it */
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        uint64_t n = c[C_COLUMNS + i];
        if (n != COLUMN_ABSENT && n != pv__column_entries(m, &pv__columns[i]))
            return false;
    }
    m->has_group_stats = c[C_HAS_GROUP_STATS] != 0;
    m->min_ps = (int64_t)c[C_MIN_PS];
    m->max_ps = (int64_t)c[C_MAX_PS];
    m->mem_bytes = (size_t)c[C_MEM_BYTES];
    return bind_apart(m, c, r);
}

/* Maps the profile the model's events' stats are read from, checking it
 * still has the size it had when the model was made. */
static int map_source(pv_model *m, pv__model_store *s, const char *src_path, uint64_t src_len,
                      pv_error *err)
{
    if (src_path == NULL)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the model reads its profile, whose path was not given");
    int fd = open(src_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pv_error_set(err, PV_EIO, src_path, PV_NO_OFFSET, "cannot open: %s",
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != src_len || src_len == 0) {
        close(fd);
        return pv_error_set(err, PV_EFORMAT, src_path, PV_NO_OFFSET,
                            "the profile changed since its model file was written");
    }
    void *map = mmap(NULL, (size_t)src_len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return pv_error_set(err, PV_EIO, src_path, PV_NO_OFFSET, "cannot map: %s",
                            strerror(errno));
    s->src = m->src = map;
    s->src_len = m->src_len = (size_t)src_len;
    s->src_owner = PV_SRC_MAPPED;
    return 0;
}

/* Checks the header of a model file's bytes h[0 .. len); NULL when they
 * make a model file of this build, else why not. */
static const char *check_header(const uint8_t *h, size_t len, bool verify_sum)
{
    if (len < HEADER_BYTES + C_COUNT * sizeof(uint64_t))
        return "too short for a model file";
    uint32_t version, header_bytes, fp;
    uint64_t payload, sum;
    memcpy(&version, h + 8, 4);
    memcpy(&header_bytes, h + 12, 4);
    memcpy(&fp, h + 16, 4);
    memcpy(&payload, h + 24, 8);
    memcpy(&sum, h + 32, 8);
    if (memcmp(h, magic, sizeof magic) != 0)
        return "not a profview model file";
    if (version != PV_MODEL_FILE_VERSION || header_bytes != HEADER_BYTES || fp != fingerprint())
        return "model file from another version or build";
    if (payload != len - HEADER_BYTES || payload % ALIGN != 0)
        return "model file is truncated";
    if (verify_sum && checksum(h + HEADER_BYTES, (size_t)payload) != sum)
        return "model file checksum mismatch";
    return NULL;
}

/* Binds a new model to the checked bytes h[0 .. len) (a file's mapping
 * map, taken over, or a caller's bytes when map is NULL). */
static int bind_model(const uint8_t *h, size_t len, void *map, const char *path,
                      const char *src_path, pv_model **out, pv_error *err)
{
    pv_model *m = pv_xcalloc(1, sizeof *m);
    pv__model_store *s = pv_xcalloc(1, sizeof *s);
    m->priv = s;
    pv__strtab_init(&s->strs);
    s->map = map;
    s->map_len = map != NULL ? len : 0;
    s->borrowed = map == NULL;
    reader r = {h + HEADER_BYTES, h + len, false};
    const uint64_t *c = r_section(&r, C_COUNT, sizeof(uint64_t));
    if (c == NULL || !bind_columns(m, s, c, &r))
        return load_fail(m, NULL, 0, PV_EFORMAT, err, path, "model file is inconsistent");
    if (m->ev_wire != NULL) {
        int rc = map == NULL ? pv_error_set(err, PV_EFORMAT, path, PV_NO_OFFSET,
                                            "a model in memory cannot read its profile")
                             : map_source(m, s, src_path, c[C_SRC_LEN], err);
        if (rc != 0) {
            pv_model_free(m);
            return rc;
        }
    }
    /* before the indexes, which trust the planes' stat-name ranges */
    if (!pv_model_is_sane(m))
        return load_fail(m, NULL, 0, PV_EFORMAT, err, path, "model file is inconsistent");
    pv__stat_names_index(m, s);
    pv__wk_index(s);
    if (map == NULL) {
        /* what it holds beside the caller's bytes */
        m->mem_bytes = sizeof *m + sizeof *s + pv__strtab_bytes(&s->strs) +
                       (size_t)m->n_tracks * sizeof *m->tracks +
                       (size_t)m->n_blobs * sizeof *m->blobs;
    }
    /* The checks read every page; the tools read far fewer at a time, so
     * the pages go out of resident memory until they do (they stay
     * cached). */
    pv_model_release_pages(m);
    *out = m;
    return 0;
}

int pv_model_load(const char *path, const char *src_path, pv_model **out, pv_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "not a readable file");
    }
    size_t len = (size_t)st.st_size;
    if (len < HEADER_BYTES + C_COUNT * sizeof(uint64_t)) {
        close(fd);
        return pv_error_set(err, PV_EFORMAT, path, 0, "too short for a model file");
    }
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;   /* the checksum reads every page anyway */
#endif
    void *map = mmap(NULL, len, PROT_READ, flags, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot map: %s", strerror(errno));
    const char *why = check_header(map, len, true);
    if (why != NULL)
        return load_fail(NULL, map, len, PV_EFORMAT, err, path, why);
    return bind_model(map, len, map, path, src_path, out, err);
}

int pv_model_load_mem(const uint8_t *data, size_t len, pv_model **out, pv_error *err)
{
    *out = NULL;
    if (((uintptr_t)data) % ALIGN != 0)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "a model in memory must start on 16 bytes");
    /* the bytes were checked where they came from (made in this process,
     * or read back from a checksummed cache entry) */
    const char *why = check_header(data, len, false);
    if (why != NULL)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET, "%s", why);
    return bind_model(data, len, NULL, NULL, NULL, out, err);
}
