/* cli: the summary and compare subcommands' flags, their output and their
 * exit status (cli.h). */
#include "cli/cli.h"
#include "cli/print.h"
#include "cli/cli_figures.h"
#include "tools/common/json_out.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_MAX_BYTES ((size_t)1 << 30)
#define DEFAULT_TOP 10

typedef enum out_form { OUT_TEXT, OUT_JSON, OUT_CSV, OUT_MARKDOWN } out_form;

/* What both subcommands take. */
typedef struct common_flags {
    const char *run[2], *host[2];  /* [0] base (or the one run), [1] new */
    size_t top;
    out_form form;
    pv_gates gates;
} common_flags;

static void summary_usage(FILE *out)
{
    fprintf(out,
            "Usage: profview summary PATH [--run NAME] [--host NAME] [--top K] [--json|--csv]\n"
            "One run's step time, its breakdown and input verdict, device utilization, the\n"
            "top ops and kernels and the memory peaks: the numbers the page shows.\n"
            "\n"
            "  PATH         a logdir (its newest run unless --run), a run's folder, or a file\n"
            "  --run NAME   the run of the logdir to read\n"
            "  --host NAME  one host of the run (default: all, read together)\n"
            "  --top K      ops and kernels listed (default 10; 0 lists all)\n"
            "  --json, --csv  for scripts (CSV: section,name,field,value)\n"
            "\n"
            "Exit status: 0, or 2 when PATH is not a profile or cannot be read.\n");
}

static void compare_usage(FILE *out)
{
    fprintf(out,
            "Usage: profview compare BASE NEW [options] [gates]\n"
            "Two runs side by side: deltas and ratios, the ops and kernels added, removed\n"
            "and changed, and gates for CI.\n"
            "\n"
            "  BASE, NEW           as summary's PATH\n"
            "  --run NAME, --host NAME       for both runs; --base-run, --base-host,\n"
            "                                --new-run, --new-host for one\n"
            "  --top K             ops and kernels listed (default 10; 0 lists all)\n"
            "  --json, --csv, --markdown    output for scripts or a pull request comment\n"
            "  --max-step-time-ratio R      fail when NEW's mean step time > R x BASE's\n"
            "  --max-peak-memory-ratio R    fail when an allocator's peak grows > R x\n"
            "  --max-input-bound-percent P  fail when NEW waits for input > P %% of step time\n"
            "\n"
            "Exit status: 0 when every gate holds, 1 when one fails, 2 for bad input or a\n"
            "gate that cannot be checked (say, a run without steps).\n");
}

static int bad_number(const char *flag, const char *arg, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno != 0 || end == arg || *end != '\0' || !(v >= lo) || v > 1e12) {
        fprintf(stderr, "profview: %s takes a number of at least %g, not \"%s\"\n", flag, lo,
                arg);
        return -1;
    }
    *out = v;
    return 0;
}

/* Parses argv into f and the positional paths (want of them). Returns 0,
 * 1 after --help, or -1 with a message said. */
static int parse(int argc, char **argv, bool compare, common_flags *f, const char **paths,
                 int want)
{
    static const struct option opts[] = {
        {"run", required_argument, NULL, 'r'},
        {"host", required_argument, NULL, 'h'},
        {"base-run", required_argument, NULL, 'R'},
        {"base-host", required_argument, NULL, 'H'},
        {"new-run", required_argument, NULL, 'n'},
        {"new-host", required_argument, NULL, 'N'},
        {"top", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"csv", no_argument, NULL, 'c'},
        {"markdown", no_argument, NULL, 'm'},
        {"max-step-time-ratio", required_argument, NULL, 'S'},
        {"max-peak-memory-ratio", required_argument, NULL, 'M'},
        {"max-input-bound-percent", required_argument, NULL, 'I'},
        {"help", no_argument, NULL, '?' + 1},
        {NULL, 0, NULL, 0},
    };
    *f = (common_flags){.top = DEFAULT_TOP, .gates = {0, 0, -1}};
    double top;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        bool compare_only = strchr("RHnNmSMI", c) != NULL;
        if (c == '?' || (compare_only && !compare)) {
            fprintf(stderr, "profview %s: unknown or incomplete option \"%s\" (see --help)\n",
                    argv[0], argv[optind - 1]);
            return -1;
        }
        int rc = 0;
        switch (c) {
        case 'r': f->run[0] = f->run[1] = optarg; break;
        case 'h': f->host[0] = f->host[1] = optarg; break;
        case 'R': f->run[0] = optarg; break;
        case 'H': f->host[0] = optarg; break;
        case 'n': f->run[1] = optarg; break;
        case 'N': f->host[1] = optarg; break;
        case 'j': f->form = OUT_JSON; break;
        case 'c': f->form = OUT_CSV; break;
        case 'm': f->form = OUT_MARKDOWN; break;
        case 't':
            rc = bad_number("--top", optarg, 0, &top);
            f->top = (size_t)top;
            break;
        case 'S':
            rc = bad_number("--max-step-time-ratio", optarg, 1e-9, &f->gates.max_step_time_ratio);
            break;
        case 'M':
            rc = bad_number("--max-peak-memory-ratio", optarg, 1e-9,
                            &f->gates.max_peak_memory_ratio);
            break;
        case 'I':
            rc = bad_number("--max-input-bound-percent", optarg, 0,
                            &f->gates.max_input_bound_percent);
            break;
        default:
            (compare ? compare_usage : summary_usage)(stdout);
            return 1;
        }
        if (rc != 0)
            return -1;
    }
    if (argc - optind != want) {
        fprintf(stderr, "profview %s: takes %s (see --help)\n", argv[0],
                want == 1 ? "one PATH" : "two paths, BASE and NEW");
        return -1;
    }
    for (int i = 0; i < want; i++)
        paths[i] = argv[optind + i];
    return 0;
}

static int say_error(const char *cmd, const pv_error *err)
{
    char msg[1200];
    pv_error_format(err, msg, sizeof msg);
    fprintf(stderr, "profview %s: %s\n", cmd, msg);
    return PV_CLI_BAD_INPUT;
}

static int emit(pv_buf *out, int rc)
{
    if (rc == 0 && out->len > 0 && fwrite(out->data, 1, out->len, stdout) != out->len)
        rc = PV_EIO;
    pv_buf_fini(out);
    if (rc != 0)
        fprintf(stderr, "profview: the output could not be written\n");
    return rc;
}

static int json_out(json_t *j, pv_buf *out)
{
    int rc = pv_json_write(j, out, NULL);
    return rc == 0 ? pv_buf_adds(out, "\n") : rc;
}

int pv_cli_summary(int argc, char **argv)
{
    common_flags fl;
    const char *path;
    int p = parse(argc, argv, false, &fl, &path, 1);
    if (p != 0)
        return p > 0 ? PV_CLI_OK : PV_CLI_BAD_INPUT;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_figures f;
    pv_error err = {0};
    int status = PV_CLI_OK;
    if (pv__cli_figures(path, fl.run[0], fl.host[0], &a, &f, &err) != 0) {
        status = say_error("summary", &err);
    } else {
        pv_buf out;
        pv_buf_init(&out, OUT_MAX_BYTES);
        int rc = fl.form == OUT_JSON  ? json_out(pv_figures_to_json(&f, fl.top), &out)
                 : fl.form == OUT_CSV ? pv__cli_summary_csv(&f, fl.top, &out)
                                      : pv__cli_summary_text(&f, fl.top, &out);
        status = emit(&out, rc) == 0 ? PV_CLI_OK : PV_CLI_BAD_INPUT;
    }
    pv_arena_fini(&a);
    return status;
}

int pv_cli_compare(int argc, char **argv)
{
    common_flags fl;
    const char *paths[2];
    int p = parse(argc, argv, true, &fl, paths, 2);
    if (p != 0)
        return p > 0 ? PV_CLI_OK : PV_CLI_BAD_INPUT;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_figures f[2];
    pv_error err = {0};
    int status = PV_CLI_OK;
    for (int i = 0; i < 2 && status == PV_CLI_OK; i++)
        if (pv__cli_figures(paths[i], fl.run[i], fl.host[i], &a, &f[i], &err) != 0)
            status = say_error("compare", &err);
    if (status == PV_CLI_OK) {
        pv_comparison c;
        pv_compare(&f[0], &f[1], &fl.gates, &a, &c);
        pv_buf out;
        pv_buf_init(&out, OUT_MAX_BYTES);
        int rc = fl.form == OUT_JSON  ? json_out(pv_comparison_to_json(&c, fl.top), &out)
                 : fl.form == OUT_CSV ? pv__cli_compare_csv(&c, fl.top, &out)
                 : fl.form == OUT_MARKDOWN ? pv__cli_compare_markdown(&c, fl.top, &out)
                                           : pv__cli_compare_text(&c, fl.top, &out);
        status = emit(&out, rc) != 0          ? PV_CLI_BAD_INPUT
                 : c.verdict == PV_GATE_FAILS ? PV_CLI_GATE_FAILS
                 : c.verdict == PV_GATE_UNKNOWN ? PV_CLI_BAD_INPUT
                                               : PV_CLI_OK;
        /* Said on stderr too, so a CI log shows why the job failed whatever
         * the output form. */
        for (size_t i = 0; i < c.n_gates; i++)
            if (c.gates[i].state != PV_GATE_HOLDS)
                fprintf(stderr, "profview compare: %s\n", c.gates[i].message);
    }
    pv_arena_fini(&a);
    return status;
}
