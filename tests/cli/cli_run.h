/* cli_run: runs the real profview binary ($PROFVIEW_BIN) with arguments and
 * collects its exit status, stdout and stderr, for the command line's
 * tests. Inline, for Check's asserts. */
#ifndef PV_TESTS_CLI_RUN_H
#define PV_TESTS_CLI_RUN_H

#include "testutil.h"

#include <jansson.h>
#include <sys/wait.h>

typedef struct run_out {
    int status;      /* exit status, or -1 when it did not exit */
    char *out;       /* stdout, NUL-terminated */
    char *err;       /* stderr */
} run_out;

static inline char *pv_cli_slurp(FILE *f)
{
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc(1, (size_t)n + 1);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

/* Runs profview with args (NULL-terminated, without the program name). */
static inline run_out cli(const char *const *args)
{
    const char *bin = getenv("PROFVIEW_BIN");
    ck_assert_ptr_nonnull(bin);
    FILE *out = tmpfile(), *err = tmpfile();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)bin;
        for (; args[n - 1] != NULL && n < 31; n++)
            argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execv(bin, argv);
        _exit(127);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    run_out r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, pv_cli_slurp(out), pv_cli_slurp(err)};
    return r;
}

static inline void run_free(run_out *r)
{
    free(r->out);
    free(r->err);
}

#endif
