/* cli: the subcommands that read profiles without serving them (#20):
 *
 *   profview summary PATH      one run's figures (report/figures.h): text,
 *                              --json or --csv
 *   profview compare BASE NEW  two runs side by side with deltas, the ops
 *                              and kernels that moved, and the CI gates:
 *                              text, --json, --csv or --markdown
 *
 * PATH is a logdir (its newest run unless --run names one), a run's folder
 * or a folder of profiles, or one profile file; --host picks one host of
 * a run with several (by default they are read together). The figures come
 * from the same tool code and the same answers as the page: every tool's
 * descriptor (tools/registry.h) computes from the models, or TensorFlow's
 * per-tool files answer, exactly as /data does.
 *
 * This folder is a front end, like main.c: it parses its flags and writes
 * to stdout and stderr. Everything else it calls is the server's. */
#ifndef PV_CLI_CLI_H
#define PV_CLI_CLI_H

/* The exit status of a subcommand. */
enum pv_cli_exit {
    PV_CLI_OK = 0,             /* done; every gate holds */
    PV_CLI_GATE_FAILS = 1,     /* a gate fails (compare) */
    PV_CLI_BAD_INPUT = 2       /* bad flags, a path that is not a profile, an unreadable file,
                                  or a gate that cannot be checked */
};

/* The subcommands, with argv[0] the subcommand's name. Return an exit
 * status of pv_cli_exit. */
int pv_cli_summary(int argc, char **argv);
int pv_cli_compare(int argc, char **argv);

#endif
