/* bench/xspace_protoc: an XSpace unpacked by the code protoc-c generates
 * from proto/xplane.proto, the measurement docs/ingest.md sets against
 * the hand-written decoder (bench/ingest) to say why the hot path stays
 * hand-written.
 *
 *   bench/xspace_protoc FILE...
 *
 * For each file: reads it into memory once, then unpacks it whole with
 * xspace__unpack and frees the tree, repeatedly for at least half a
 * second, on this one thread, and prints
 *   xspace_protoc_throughput[<name>] <MB/s> MB/s   (file bytes / CPU time)
 *   xspace_protoc_tree_ratio[<name>] <x> x        (bytes malloc'd for the
 *                                                  tree / file bytes)
 * then the process's peak resident memory (the file's bytes included):
 *   xspace_protoc_peak_rss <MB> MB
 * The unpacked tree is only the first half of a decode: a model would
 * still have to be built from it. Run it with one file alone to read
 * that file's peak RSS. Asserts nothing (STYLE rule 19). */
#include "xplane.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* malloc, counting the bytes the tree takes */
static void *count_alloc(void *data, size_t size)
{
    *(size_t *)data += size;
    return malloc(size);
}

static void count_free(void *data, void *p)
{
    (void)data;
    free(p);
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        size_t len;
        unsigned char *buf = read_all(argv[i], &len);
        if (buf == NULL) {
            perror(argv[i]);
            return 1;
        }
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        size_t tree_bytes = 0;
        ProtobufCAllocator counting = {count_alloc, count_free, &tree_bytes};
        double t0 = now_s(CLOCK_MONOTONIC);
        double c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        int runs = 0;
        size_t one_tree = 0;
        do {
            tree_bytes = 0;
            Tensorflow__Profiler__XSpace *space = tensorflow__profiler__xspace__unpack(&counting,
                                                                                      len, buf);
            if (space == NULL) {
                fprintf(stderr, "%s: not an XSpace\n", argv[i]);
                return 1;
            }
            one_tree = tree_bytes;
            tensorflow__profiler__xspace__free_unpacked(space, &counting);
            runs++;
        } while (now_s(CLOCK_MONOTONIC) - t0 < 0.5);
        double c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        double mb = (double)len / (1024.0 * 1024.0);
        printf("xspace_protoc_throughput[%s] %.1f MB/s\n", name, mb * runs / (c1 - c0));
        printf("xspace_protoc_tree_ratio[%s] %.2f x\n", name, (double)one_tree / (double)len);
        free(buf);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("xspace_protoc_peak_rss %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
