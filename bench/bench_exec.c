/*
 * bench_exec.c -- times a command line with the benchmark harness (timing.h), for the
 * benchmarks that compare whole programs (bench/text/run.sh: the gpusort CLI against GNU sort).
 *
 *   bench_exec [--runs N] [--warmup W] [--out FILE] [--csv] -- COMMAND [ARG...]
 *
 * Runs COMMAND W times untimed (default 1), then N times (default 7) on the wall clock, each
 * from fork to the end of waitpid, with its standard output to FILE (default /dev/null; the file
 * is truncated for every run) and its standard error to /dev/null. Prints the median in seconds
 * ("%.3f"), or with --csv a line "median_s,min_s,max_s,runs". A run that exits nonzero stops
 * the timing: bench_exec then says so on stderr and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct command {
    char **argv;
    const char *out;
} command;

/* One run: 0 when the command exited with status 0. */
static int run_command(void *arg, int run)
{
    (void)run;
    const command *c = (const command *)arg;
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        int out = open(c->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null = open("/dev/null", O_WRONLY);
        if (out < 0 || null < 0 || dup2(out, 1) < 0 || dup2(null, 2) < 0) _exit(126);
        execvp(c->argv[0], c->argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return 1;
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int usage(FILE *f, int rc)
{
    fprintf(f, "usage: bench_exec [--runs N] [--warmup W] [--out FILE] [--csv] -- COMMAND "
               "[ARG...]\n"
               "Times COMMAND: W untimed runs (default 1), then the median wall time of N runs\n"
               "(default %d) in seconds; its stdout goes to FILE (default /dev/null).\n"
               "--csv prints median_s,min_s,max_s,runs instead.\n",
            BENCH_RUNS_DEFAULT);
    return rc;
}

int main(int argc, char **argv)
{
    bench_plan plan = bench_plan_default(BENCH_RUNS_DEFAULT);
    command c = {NULL, "/dev/null"};
    int csv = 0, i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "--runs") && v) plan.runs = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && v) plan.warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--out") && v) c.out = argv[++i];
        else if (!strcmp(a, "--csv")) csv = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, 0);
        else return usage(stderr, 2);
    }
    if (i >= argc || plan.runs < 1 || plan.warmup < 0) return usage(stderr, 2);
    c.argv = argv + i;
    bench_contender k = {run_command, &c, NULL, NULL};
    bench_stats st;
    if (bench_time(&plan, &k, 1, &st)) {
        fprintf(stderr, "bench_exec: %s failed (nonzero exit)\n", c.argv[0]);
        return 1;
    }
    if (csv)
        printf("%.6f,%.6f,%.6f,%d\n", st.median_ms * 1e-3, st.min_ms * 1e-3, st.max_ms * 1e-3,
               st.runs);
    else printf("%.3f\n", st.median_ms * 1e-3);
    return 0;
}
