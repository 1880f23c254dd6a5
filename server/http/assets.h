/* assets: the frontend files embedded at build time by embed_gen. The
 * table is sorted by url and immutable. */
#ifndef PV_HTTP_ASSETS_H
#define PV_HTTP_ASSETS_H

#include <stddef.h>

typedef struct pv_asset {
    const char *url;                /* path below the site root, no leading slash */
    const char *content_type;
    const unsigned char *raw;
    size_t raw_len;
    const unsigned char *gz;        /* gzip of raw */
    size_t gz_len;
    const char *etag;               /* hash of raw, hex */
} pv_asset;

extern const pv_asset pv_assets[];
extern const size_t pv_assets_count;

/* The asset at url (no leading slash), or NULL. */
const pv_asset *pv_asset_find(const char *url);

#endif
