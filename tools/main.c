/*
 * main.c -- the gpusort program's entry point: routes the command line to a mode.
 *
 *   gpusort sort|gen|check|reduce|topk ... --type T   binary little-endian numbers (cmd_<name>.c)
 *   gpusort gen|check --record-size R ...        fixed-size records             (records.c)
 *   gpusort check FILE (no --type)               text: same as `gpusort -c FILE` (text_main.c)
 *   gpusort sort ... (no --type)                 text mode on the arguments after "sort"
 *   gpusort devices | bench                      backends and a small benchmark (cmd_<name>.c)
 *   gpusort help [CMD] | --help | --version
 *   gpusort [GNU sort options] [FILE...]         text mode (anything not a subcommand)
 *
 * The subcommands are the table `commands` below; cli.h maps the files of tools/. A file
 * literally named like a subcommand ("sort") is sorted in text mode with `gpusort -- sort` or
 * `gpusort ./sort`.
 * Exit codes everywhere: 0 success, 1 "not sorted" (check, -c/-C), 2 any error.
 */
#include "cmd.h"
#include "cli.h"
#include "util.h"

#include "gpusort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPUSORT_CLI_VERSION
#define GPUSORT_CLI_VERSION "0.1.0"
#endif

static const char usage_main[] =
    "Usage: gpusort COMMAND [OPTIONS]            (binary numbers, devices, benchmark)\n"
    "       gpusort [GNU sort OPTIONS] [FILE...]  (text lines, like LC_ALL=C sort)\n"
    "\n"
    "Sort and reduce data on NVIDIA GPUs (CUDA), OpenCL devices and multicore CPUs.\n"
    "\n"
    "Commands on binary files of little-endian numbers (--type u32|i32|f32|u64|i64|f64):\n"
    "  sort IN --type T [-o OUT]   sort a file (with --values, a payload file alongside)\n"
    "  gen --type T --n N --dist D -o FILE    generate test data\n"
    "  check FILE --type T         exit 0 if sorted, 1 if not (like sort -c)\n"
    "  reduce FILE --type T --op sum|min|max  print the sum, minimum or maximum\n"
    "  topk FILE --type T -k K [-r] [-o OUT] [--indices IDX]   the K smallest (largest) keys\n"
    "Other commands:\n"
    "  devices                     list backends and devices with their properties\n"
    "  bench                       a small built-in benchmark of every available backend\n"
    "  help [COMMAND]              this text, or a command's options (also COMMAND --help);\n"
    "                              `gpusort help text` describes text mode's options\n"
    "\n"
    "Text mode: anything that is not a command runs GNU sort compatible text sorting, e.g.\n"
    "  gpusort -n -k2,2 -t, data.csv -o sorted.csv\n"
    "  gpusort -c FILE   or   gpusort check FILE   (no --type: text)\n"
    "  gpusort sort FILE... (no --type) is the same as gpusort FILE...\n"
    "  Fixed-size binary records: --record-size R --key-size K [--key-offset O].\n"
    "  A file named like a command is reached with `gpusort -- sort` or `gpusort ./sort`.\n"
    "\n"
    "Common options: --backend auto|cpu|cuda|opencl  --device N  --threads N  --quiet\n"
    "Exit status: 0 success, 1 not sorted (check, -c, -C), 2 any error (one line on stderr).\n"
    "Float order: -inf < ... < -0.0 == +0.0 < ... < +inf < NaN (NaN last ascending, first\n"
    "descending); every sort is stable.\n";

static void print_version(void)
{
    printf("gpusort %s (library %d.%d.%d)\nbackends built:", GPUSORT_CLI_VERSION,
           GPUSORT_VERSION_MAJOR, GPUSORT_VERSION_MINOR, GPUSORT_VERSION_PATCH);
    for (int b = GPUSORT_BACKEND_CPU; b < GPUSORT_BACKEND_COUNT_; b++)
        if (gpusort_backend_built((gpusort_backend)b))
            printf(" %s", gpusort_backend_name((gpusort_backend)b));
    printf("\n");
}

/* 1 if argv[1..argc) contains option `name` ("--type" or "--type=..."), before any "--". */
static int has_option(int argc, char **argv, const char *name)
{
    size_t len = strlen(name);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) break;
        if (strncmp(argv[i], name, len) == 0 && (argv[i][len] == 0 || argv[i][len] == '='))
            return 1;
    }
    return 0;
}

/* Run text mode on argv[first..argc) with `extra` (may be NULL) inserted before them. */
static int run_text(int argc, char **argv, int first, const char *extra)
{
    int n = argc - first;
    char **v = (char **)gpusort__malloc(sizeof *v * (size_t)(n + 3));
    if (!v) cli_fail("out of memory");
    int k = 0;
    v[k++] = argv[0];
    if (extra) v[k++] = (char *)extra;
    for (int i = first; i < argc; i++) v[k++] = argv[i];
    v[k] = NULL;
    int rc = gpusort_cli_text_main(k, v);
    free(v);
    return rc;
}

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"sort", gpusort_cli_sort},       {"gen", gpusort_cli_gen},
    {"check", gpusort_cli_check},     {"reduce", gpusort_cli_reduce},
    {"devices", gpusort_cli_devices}, {"bench", gpusort_cli_bench},
    {"topk", gpusort_cli_topk},
};
#define NUM_COMMANDS ((int)(sizeof commands / sizeof commands[0]))

static const command *find_command(const char *name)
{
    for (int i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* The CUDA driver makes CUDA_DEVICE_MAX_CONNECTIONS hardware work queues (8 by default) when it
 * creates a context, and each costs start-up and teardown time: most of the context's share of
 * a job's start-up (bench/results/pipeline-2026-11-28d.md). A one-GPU job of this program loses
 * nothing on one queue: every wait between its streams is on work enqueued before the wait, so
 * a shared queue can only delay, never deadlock, and its jobs ran fastest on one. Jobs on
 * several GPUs (--gpus) or ranks (--mpi) keep the driver's default: NCCL's kernels wait inside
 * the kernel for their peers, which one shared queue could hold behind other work. A value the
 * user set is kept; the library itself never sets it (a library must not change its host's
 * environment). */
static void cuda_connections_default(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--gpus", 6) || !strcmp(argv[i], "--mpi")) return;
    (void)setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
}

int main(int argc, char **argv)
{
    cuda_connections_default(argc, argv);
    /* Test-only (tests/fault/): GPUSORT_TEST_FAIL_ALLOC=k makes the k-th host allocation of
     * this run fail, and every later one (src/alloc.c). */
    const char *fail_at = getenv("GPUSORT_TEST_FAIL_ALLOC");
    if (fail_at && *fail_at) gpusort__alloc_fail_at(strtol(fail_at, NULL, 10));
    /* Test-only (tests/fault/): GPUSORT_TEST_FAIL_WRITE=k[:eio|enospc|short] makes the k-th
     * write or fsync of an output or temporary file fail (util.c's cli_write_fault). */
    const char *fail_write = getenv("GPUSORT_TEST_FAIL_WRITE");
    if (fail_write && *fail_write && cli_write_fault_set(fail_write) != 0)
        return cli_error("GPUSORT_TEST_FAIL_WRITE=%s: expected k, k:eio, k:enospc or k:short",
                         fail_write);
    /* GPUSORT_SYNC=1: every mode fsyncs its outputs before renaming them (as --sync). */
    const char *sync_env = getenv("GPUSORT_SYNC");
    if (sync_env && *sync_env) cli_sync = strcmp(sync_env, "0") != 0;
    cli_signals_install();
    if (argc < 2) return run_text(argc, argv, 1, NULL);   /* like sort: stdin to stdout */

    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        print_version();
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            fputs(usage_main, stdout);
            return 0;
        }
        if (strcmp(argv[2], "text") == 0) {            /* text mode's own --help */
            char *tv[] = {argv[0], "--help", NULL};
            return gpusort_cli_text_main(2, tv);
        }
        const command *c = find_command(argv[2]);
        if (!c) return cli_error("help: unknown command '%s' (commands: sort gen check reduce "
                                 "topk devices bench text)", argv[2]);
        char *hv[] = {argv[2], "--help", NULL};
        return c->run(2, hv);
    }

    const command *c = find_command(cmd);
    if (!c) return run_text(argc, argv, 1, NULL);

    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    int binary = has_option(sub_argc, sub_argv, "--type");
    int records = has_option(sub_argc, sub_argv, "--record-size");
    int help = has_option(sub_argc, sub_argv, "--help");

    if (strcmp(cmd, "sort") == 0) {
        if (binary || help) return c->run(sub_argc, sub_argv);
        return run_text(argc, argv, 2, NULL);
    }
    if (strcmp(cmd, "gen") == 0 && records && !binary)
        return gpusort_cli_records_gen(sub_argc, sub_argv);
    if (strcmp(cmd, "check") == 0 && !binary && !help) {
        if (records) return gpusort_cli_records_check(sub_argc, sub_argv);
        return run_text(argc, argv, 2, "-c");
    }
    return c->run(sub_argc, sub_argv);
}
