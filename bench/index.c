/* bench/index: start-up and rescan cost of the logdir index.
 *
 * Builds a logdir of N runs under /tmp (one small host file each, old
 * enough to be offered at once), then measures:
 *   index_startup_ms   exec of profview to its ready line, 1,000 runs
 *   index_idle_rss     resident memory of that idle server, after one /runs
 *   index_rescan_ms    one full pv_index_scan of 10,000 runs (median of 5)
 *   index_rescan_links_ms  the same of a logdir holding 40,000 symbolic links to
 *                      files beside its runs (median of 5; issue #15 found such a
 *                      tree kept a core busy) 
 * Usage: bench/index PROFVIEW_BIN. Prints `name value unit` lines. */
#include "index/index.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void make_logdir(const char *root, int n_runs)
{
    char path[512];
    struct timespec old[2];
    clock_gettime(CLOCK_REALTIME, &old[0]);
    old[0].tv_sec -= 3600;
    old[1] = old[0];
    for (int i = 0; i < n_runs; i++) {
        snprintf(path, sizeof path, "%s/job%02d", root, i % 50);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/job%02d/plugins", root, i % 50);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/job%02d/plugins/profile", root, i % 50);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/job%02d/plugins/profile/2024_01_01_%06d", root, i % 50, i);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/job%02d/plugins/profile/2024_01_01_%06d/host.xplane.pb",
                 root, i % 50, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            if (write(fd, "\x0a\x00", 2) != 2)
                perror(path);
            close(fd);
        }
        utimensat(AT_FDCWD, path, old, 0);
    }
}

static long rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

static void bench_startup(const char *bin, const char *logdir)
{
    double best = 1e9;
    long rss = -1;
    for (int round = 0; round < 5; round++) {
        int fds[2];
        if (pipe(fds) != 0)
            return;
        double t0 = now_ms();
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fds[1], 1);
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 2);
            execl(bin, bin, "--logdir", logdir, "--port", "0", (char *)NULL);
            _exit(127);
        }
        close(fds[1]);
        char c;
        struct pollfd p = {fds[0], POLLIN, 0};
        while (poll(&p, 1, 10000) > 0 && read(fds[0], &c, 1) == 1 && c != '\n')
            ;
        double dt = now_ms() - t0;
        close(fds[0]);
        if (dt < best)
            best = dt;
        usleep(300000);
        rss = rss_kb(pid);
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    printf("index_startup_ms %.1f ms\n", best);
    printf("index_idle_rss %.1f MB\n", (double)rss / 1024.0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 40,000 links in one folder of logdir, to a file inside it. */
static void make_links(const char *root)
{
    char path[512], target[512];
    snprintf(path, sizeof path, "%s/links", root);
    mkdir(path, 0755);
    snprintf(target, sizeof target, "%s/links/target", root);
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 40000; i++) {
        snprintf(path, sizeof path, "%s/links/l%05d", root, i);
        if (symlink(target, path) != 0)
            perror(path);
    }
}

static void bench_rescan(const char *logdir, const char *name)
{
    pv_index *prev = NULL;
    pv_index_scan(logdir, NULL, wall_ns(), &prev, NULL);
    double t[5];
    for (int i = 0; i < 5; i++) {
        pv_index *next = NULL;
        double t0 = now_ms();
        pv_index_scan(logdir, prev, wall_ns(), &next, NULL);
        t[i] = now_ms() - t0;
        pv_index_unref(prev);
        prev = next;
    }
    qsort(t, 5, sizeof t[0], cmp_double);
    printf("%s_runs %zu runs\n", name, prev->n_runs);
    printf("%s_ms %.1f ms\n", name, t[2]);
    pv_index_unref(prev);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench/index PROFVIEW_BIN\n");
        return 2;
    }
    char small[] = "/tmp/pv_bench_index_XXXXXX";
    char big[] = "/tmp/pv_bench_index_XXXXXX";
    if (mkdtemp(small) == NULL || mkdtemp(big) == NULL)
        return 1;
    make_logdir(small, 1000);
    bench_startup(argv[1], small);
    make_logdir(big, 10000);
    bench_rescan(big, "index_rescan");
    make_links(big);
    bench_rescan(big, "index_rescan_links");
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", small, big);
    return system(cmd) == 0 ? 0 : 1;
}
