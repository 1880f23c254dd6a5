/* chrome_json: the format table's entries for trace JSON, the sniffer, and
 * the decoder's entry: a gzip'd file is inflated by zlib a window at a
 * time (members one after another, as gzip allows), a plain one is read
 * straight from its mapping. Either way the model's memory is capped by
 * the file's size (a small gzip file can inflate to terabytes), and the
 * inflated text by a multiple of it no real trace comes near. */
#include "ingest/chrome_json/chrome_json.h"
#include "ingest/chrome_json/cj_priv.h"

#include <string.h>
#include <zlib.h>

/* Trace JSON compresses 10 to 40 times, and a model is about half its
 * text: these leave real traces far inside. */
#define GZ_TEXT_PER_FILE_BYTE 256u
#define GZ_TEXT_SLACK ((uint64_t)1 << 30)
#define GZ_MODEL_PER_FILE_BYTE 64u
#define GZ_MODEL_SLACK ((uint64_t)256 << 20)
/* A plain file's events cost at most about 16 bytes of model per byte
 * of text (the smallest event is a dozen bytes). */
#define TEXT_MODEL_PER_FILE_BYTE 16u
#define TEXT_MODEL_SLACK ((uint64_t)64 << 20)
/* zlib counts in 32 bits: input and output go in slices of this. */
#define ZLIB_SLICE ((size_t)1 << 30)

static bool is_gzip(const uint8_t *data, size_t len)
{
    return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

/* ---- sniffing ------------------------------------------------------------------ */

static bool ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool pv_chrome_json_sniff(const uint8_t *data, size_t len)
{
    uint8_t head[256];
    const uint8_t *p = data;
    size_t n = len;
    if (is_gzip(data, len)) {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
            return false;
        z.next_in = (Bytef *)data;
        z.avail_in = (uInt)(len < ZLIB_SLICE ? len : ZLIB_SLICE);
        z.next_out = head;
        z.avail_out = sizeof head;
        int rc = inflate(&z, Z_SYNC_FLUSH);
        n = sizeof head - z.avail_out;
        inflateEnd(&z);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            return false;
        p = head;
    }
    size_t i = n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < n && ws(p[i]))
        i++;
    if (i >= n || (p[i] != '{' && p[i] != '['))
        return false;
    uint8_t open = p[i++];
    while (i < n && ws(p[i]))
        i++;
    if (i >= n)
        return true;   /* all white space so far: nothing says otherwise */
    if (open == '[')   /* elements that are no events are skipped: any value may come */
        return strchr("{[]\"-0123456789tfnNI", p[i]) != NULL && p[i] != '\0';
    if (p[i] == '}')
        return true;
    /* an object's first key: a string of text, then ':' */
    if (p[i++] != '"')
        return false;
    while (i < n && p[i] != '"')
        if (p[i++] < 0x20)
            return false;
    for (i++; i < n && ws(p[i]); i++)
        continue;
    return i >= n || p[i] == ':';
}

/* ---- gzip ---------------------------------------------------------------------- */

typedef struct gz {
    z_stream z;
    const pv_ingest_src *src;
    size_t in_pos;          /* bytes of the file handed to zlib */
    uint64_t out_total;     /* bytes inflated */
    uint64_t out_cap;
    bool member_end;        /* the last member read ended */
    bool done;
    bool cut;               /* the input ended inside a member */
} gz;

static size_t consumed(const gz *g)
{
    return g->in_pos - g->z.avail_in;
}

static void feed(gz *g)
{
    if (g->z.avail_in > 0 || g->in_pos >= g->src->len)
        return;
    size_t n = g->src->len - g->in_pos;
    n = n < ZLIB_SLICE ? n : ZLIB_SLICE;
    g->z.next_in = (Bytef *)g->src->data + g->in_pos;
    g->z.avail_in = (uInt)n;
    g->in_pos += n;
}

static int64_t gz_read(void *ctx, uint8_t *dst, size_t cap, bool *cut, pv_error *err)
{
    gz *g = ctx;
    if (g->done) {
        *cut = g->cut;
        return 0;
    }
    g->z.next_out = dst;
    g->z.avail_out = (uInt)(cap < ZLIB_SLICE ? cap : ZLIB_SLICE);
    uInt asked = g->z.avail_out;
    while (g->z.avail_out > 0) {
        feed(g);
        if (g->z.avail_in == 0) {
            g->cut = !g->member_end;
            g->done = true;
            break;
        }
        if (g->member_end) {
            /* Another member may follow; anything else (zero padding) ends
             * the text. */
            size_t at = consumed(g);
            if (g->src->len - at < 2 || !is_gzip(g->src->data + at, g->src->len - at)) {
                g->done = true;
                break;
            }
            inflateReset(&g->z);
            g->member_end = false;
        }
        int rc = inflate(&g->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            g->member_end = true;
        } else if (rc == Z_BUF_ERROR && g->z.avail_in == 0) {
            continue;
        } else if (rc != Z_OK) {
            return pv_error_set(err, PV_EFORMAT, g->src->path, consumed(g),
                                "the gzip stream is corrupt: %s",
                                g->z.msg != NULL ? g->z.msg : "inflate failed");
        }
    }
    size_t n = asked - g->z.avail_out;
    g->out_total += n;
    if (g->out_total > g->out_cap)
        return pv_error_set(err, PV_ETOOBIG, g->src->path, consumed(g),
                            "the gzip stream inflates to more than %llu bytes, %u times the "
                            "file's size and more than any real trace",
                            (unsigned long long)g->out_cap, GZ_TEXT_PER_FILE_BYTE);
    pv_ingest_done_upto(g->src, consumed(g));
    return (int64_t)n;
}

/* ---- the decoder -------------------------------------------------------------- */

int pv_decode_chrome_json(const pv_ingest_src *src, pv_model_builder *b, pv_error *err)
{
    uint64_t len = src->len;
    if (!is_gzip(src->data, src->len))
        return pv__cj_decode_text(src, src->data, src->len, NULL, NULL,
                                  TEXT_MODEL_PER_FILE_BYTE * len + TEXT_MODEL_SLACK, b, err);
    gz g;
    memset(&g, 0, sizeof g);
    g.src = src;
    g.out_cap = GZ_TEXT_PER_FILE_BYTE * len + GZ_TEXT_SLACK;
    if (inflateInit2(&g.z, 16 + MAX_WBITS) != Z_OK)
        return pv_error_set(err, PV_EIO, src->path, PV_NO_OFFSET, "zlib cannot start");
    int rc = pv__cj_decode_text(src, NULL, 0, gz_read, &g,
                                GZ_MODEL_PER_FILE_BYTE * len + GZ_MODEL_SLACK, b, err);
    inflateEnd(&g.z);
    return rc;
}

/* ---- the format table's entries -------------------------------------------------- */

#define CHROME_JSON(ident, suffix_, yields)                                                 \
    const pv_format ident = {.name = "Chrome trace JSON", .suffix = suffix_,               \
                             .role = PV_FORMAT_PROFILE, .max_bytes = PV_INGEST_MAX_FILE_BYTES, \
                             .sniff = pv_chrome_json_sniff, .decode = pv_decode_chrome_json,  \
                             .caps = PV_PROFILE_ROLES, .yields_to_tool_files = yields,    \
                             .text = true, .any_folder = true}

/* PyTorch's profiler (torch.profiler.tensorboard_trace_handler). */
CHROME_JSON(pv_format_pt_trace_json_gz, "pt.trace.json.gz", false);
CHROME_JSON(pv_format_pt_trace_json, "pt.trace.json", false);
/* TensorFlow's legacy trace (beside the per-tool files that answer their
 * own tools better), and any other trace JSON. */
CHROME_JSON(pv_format_trace_json_gz, "trace.json.gz", true);
CHROME_JSON(pv_format_trace_json, "trace.json", true);
