/* hlo_seeds: writes the HLO protos inside XSpace files to a folder, one
 * file each, as the seed corpus of `tests/fuzz/run.sh hlo`.
 *   hlo_seeds OUT_DIR FILE.xplane.pb... */
#include "ingest/ingest.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    int written = 0;
    for (int i = 2; i < argc; i++) {
        pv_model *m = NULL;
        pv_error err = {0};
        if (pv_ingest_file(argv[i], NULL, &m, &err) != 0)
            continue;
        uint32_t hlo = pv_model_str_find(m, "Hlo Proto");
        for (uint64_t s = 0; hlo != 0 && s < m->n_stats; s++) {
            const pv_stat *st = &m->stats[s];
            if (st->name != hlo || st->type != PV_STAT_BYTES || st->v.blob >= m->n_blobs)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/seed-hlo-%d", argv[1], written++);
            FILE *f = fopen(path, "wb");
            if (f == NULL || fwrite(m->blobs[st->v.blob].data, 1, m->blobs[st->v.blob].len, f) !=
                                 m->blobs[st->v.blob].len) {
                perror(path);
                return 1;
            }
            fclose(f);
        }
        pv_model_free(m);
    }
    printf("hlo_seeds %d protos\n", written);
    return 0;
}
