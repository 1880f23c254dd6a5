/* trace_bin: the staged byte writer behind the binary tiles. */
#include "tools/trace_tiles/trace_bin.h"

void pv__bw_init(pv__bw *w, pv_buf *b)
{
    w->b = b;
    w->rc = 0;
    w->n = 0;
}

int pv__bw_flush(pv__bw *w)
{
    if (w->rc == 0 && w->n > 0)
        w->rc = pv_buf_add(w->b, w->stage, w->n);
    w->n = 0;
    return w->rc;
}

void pv__bw_raw(pv__bw *w, const void *p, size_t n)
{
    if (w->rc != 0)
        return;
    if (w->n + n > sizeof w->stage) {
        pv__bw_flush(w);
        if (n > sizeof w->stage) {
            if (w->rc == 0)
                w->rc = pv_buf_add(w->b, p, n);
            return;
        }
    }
    memcpy(w->stage + w->n, p, n);
    w->n += n;
}

void pv__bw_f64(pv__bw *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(u >> (8 * i));
    pv__bw_raw(w, le, sizeof le);
}
