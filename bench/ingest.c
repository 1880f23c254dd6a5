/* bench/ingest: decode throughput and memory of XSpace and trace JSON.
 *
 *   bench/ingest FILE...
 *
 * For each file: ingests it (small files repeatedly, for at least half a
 * second) and prints, with <fmt> xspace, json or
 * json_gz (by the file's first bytes):
 *   ingest_<fmt>_throughput[<name>] <MB/s> MB/s   (file bytes / CPU time of
 *                                                   this process: one core,
 *                                                   fair on a shared box)
 *   ingest_<fmt>_throughput_wall[<name>] <MB/s> MB/s (file bytes / wall time)
 *   ingest_<fmt>_throughput_thread[<name>] <MB/s> MB/s (file bytes / CPU time
 *                                                   of the calling thread: the
 *                                                   decode's longer side when a
 *                                                   second thread reads ahead)
 *   ingest_<fmt>_model_ratio[<name>] <x> x        (model mem_bytes / file)
 * and for a gzip'd file what bounds it, in inflated (text) bytes:
 *   ingest_json_gz_text_throughput[<name>] <MB/s> MB/s (inflated bytes / CPU time)
 *   zlib_inflate_throughput[<name>] <MB/s> MB/s     (zlib alone, the same bytes)
 * and, through the on-disk model file (model/serialize.h, written under /tmp):
 *   model_save_time[<name>] <ms> ms
 *   model_load_time[<name>] <ms> ms                (map + checksum + check)
 * then the process's peak resident memory over all files:
 *   ingest_peak_rss <MB> MB
 * Run it with one large file alone to read that file's peak RSS.
 * Asserts nothing (STYLE rule 19). */
#include "ingest/ingest.h"
#include "model/serialize.h"

#include <zlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* xspace, json or json_gz, from the file's first bytes. */
static const char *format_of(const char *path)
{
    unsigned char b[64] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f != NULL ? fread(b, 1, sizeof b, f) : 0;
    if (f != NULL)
        fclose(f);
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return "json_gz";
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
        i++;
    return i < n && (b[i] == '{' || b[i] == '[') ? "json" : "xspace";
}

static double now_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The inflated size of a gzip file, and the CPU seconds zlib took. */
static double inflate_alone(const char *path, double *cpu_s)
{
    static char buf[1 << 20];
    double c0 = now_s(CLOCK_PROCESS_CPUTIME_ID), bytes = 0;
    gzFile f = gzopen(path, "rb");
    int n;
    while (f != NULL && (n = gzread(f, buf, sizeof buf)) > 0)
        bytes += n;
    if (f != NULL)
        gzclose(f);
    *cpu_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    return bytes;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        double t0 = now_s(CLOCK_MONOTONIC), t1 = t0;
        double c0 = now_s(CLOCK_PROCESS_CPUTIME_ID), h0 = now_s(CLOCK_THREAD_CPUTIME_ID);
        int runs = 0;
        size_t model_bytes = 0;
        do {
            pv_model *m = NULL;
            pv_error err = {0};
            if (pv_ingest_file(argv[i], NULL, &m, &err) != 0) {
                char msg[1200];
                pv_error_format(&err, msg, sizeof msg);
                fprintf(stderr, "%s\n", msg);
                return 1;
            }
            model_bytes = m->mem_bytes;
            pv_model_free(m);
            runs++;
            t1 = now_s(CLOCK_MONOTONIC);
        } while (t1 - t0 < 0.5);
        double c1 = now_s(CLOCK_PROCESS_CPUTIME_ID), h1 = now_s(CLOCK_THREAD_CPUTIME_ID);
        double mb = (double)st.st_size / (1024.0 * 1024.0);
        const char *fmt = format_of(argv[i]);
        printf("ingest_%s_throughput[%s] %.1f MB/s\n", fmt, name, mb * runs / (c1 - c0));
        printf("ingest_%s_throughput_wall[%s] %.1f MB/s\n", fmt, name, mb * runs / (t1 - t0));
        printf("ingest_%s_throughput_thread[%s] %.1f MB/s\n", fmt, name, mb * runs / (h1 - h0));
        printf("ingest_%s_model_ratio[%s] %.2f x\n", fmt, name,
               (double)model_bytes / (double)st.st_size);
        if (strcmp(fmt, "json_gz") == 0) {
            double z_s, text = inflate_alone(argv[i], &z_s) / (1024.0 * 1024.0);
            printf("ingest_json_gz_text_throughput[%s] %.1f MB/s\n", name,
                   text * runs / (c1 - c0));
            printf("zlib_inflate_throughput[%s] %.1f MB/s\n", name, text / z_s);
        }

        char tmp[64];
        snprintf(tmp, sizeof tmp, "/tmp/pv-bench-ingest-%ld.model", (long)getpid());
        pv_model *m = NULL;
        pv_error err = {0};
        if (pv_ingest_file(argv[i], NULL, &m, &err) != 0)
            return 1;
        double s0 = now_s(CLOCK_MONOTONIC);
        int rc = pv_model_save(m, tmp, &err);
        double s1 = now_s(CLOCK_MONOTONIC);
        pv_model_free(m);
        m = NULL;
        if (rc == 0)
            rc = pv_model_load(tmp, argv[i], &m, &err);
        double s2 = now_s(CLOCK_MONOTONIC);
        unlink(tmp);
        if (rc != 0) {
            fprintf(stderr, "%s: %s\n", tmp, err.reason);
            return 1;
        }
        pv_model_free(m);
        printf("model_save_time[%s] %.1f ms\n", name, (s1 - s0) * 1e3);
        printf("model_load_time[%s] %.1f ms\n", name, (s2 - s1) * 1e3);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("ingest_peak_rss %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
