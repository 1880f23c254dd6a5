/* summary: `profview summary` on whole profiles, as a CI job runs it: the
 * wall time of the process (decode, every tool figures read, the output)
 * and its peak resident memory, the best of a few runs.
 *
 *   bench/summary PROFVIEW_BIN PATH [PATH ...]
 *
 * prints, for each PATH (named by its last component):
 *   summary_wall_<name> S s
 *   summary_peak_rss_<name> M MB
 * Asserts nothing; a failed run prints its exit status instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs bin summary path once: 0 with its wall time and peak RSS, or its
 * exit status. */
static int run_once(const char *bin, const char *path, double *wall_s, double *rss_mb)
{
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (freopen("/dev/null", "w", stdout) == NULL)
            _exit(126);
        execl(bin, bin, "summary", path, "--json", "--top", "10", (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid)
        return -1;
    *wall_s = now_s() - t0;
    *rss_mb = (double)ru.ru_maxrss / 1024.0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *name_of(const char *path)
{
    static char name[256];
    snprintf(name, sizeof name, "%s", path);
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] == '/')
        name[--n] = '\0';
    const char *slash = strrchr(name, '/');
    return slash != NULL ? slash + 1 : name;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROFVIEW_BIN PATH [PATH ...]\n", argv[0]);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        double best_s = 0, rss = 0;
        int rc = 0;
        for (int k = 0; k < RUNS && rc == 0; k++) {
            double s = 0, mb = 0;
            rc = run_once(argv[1], argv[i], &s, &mb);
            if (k == 0 || s < best_s)
                best_s = s;
            if (mb > rss)
                rss = mb;
        }
        const char *name = name_of(argv[i]);
        if (rc != 0) {
            printf("summary_exit_%s %d status\n", name, rc);
            continue;
        }
        printf("summary_wall_%s %.3f s\n", name, best_s);
        printf("summary_peak_rss_%s %.1f MB\n", name, rss);
    }
    return 0;
}
