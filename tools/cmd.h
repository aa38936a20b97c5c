/*
 * cmd.h -- INTERNAL to the gpusort program: the subcommands sort, gen, check, reduce, topk,
 * devices and bench, one file each (cmd_<name>.c), and the option parsing and library helpers they
 * share (cmd_opts.c). The files they read and write are in binfile.h.
 *
 * Each gpusort_cli_<name>() takes argv starting at the subcommand's name (argv[0] = "sort",
 * "gen", ...) and returns the exit code: 0, 1 for "not sorted" (check), 2 for errors (most
 * errors exit 2 directly through cli_fail). main.c routes to them.
 *
 * Options: each command names the options it accepts (cmd_parse's `allowed`: space-separated
 * long names); "--opt VALUE", "--opt=VALUE" and the short forms -o, -n, -r, -q, -v, -h, -S, -T
 * work everywhere. Unknown options, missing values and malformed numbers are errors (exit 2),
 * never ignored; --help and --quiet are accepted by every command.
 */
#ifndef GPUSORT_CLI_CMD_H
#define GPUSORT_CLI_CMD_H

#include "datagen.h"
#include "gpusort.h"

#include <stddef.h>
#include <stdint.h>

int gpusort_cli_sort(int argc, char **argv);      /* cmd_sort.c */
int gpusort_cli_gen(int argc, char **argv);       /* cmd_gen.c */
int gpusort_cli_check(int argc, char **argv);     /* cmd_check.c */
int gpusort_cli_reduce(int argc, char **argv);    /* cmd_reduce.c */
int gpusort_cli_devices(int argc, char **argv);   /* cmd_devices.c */
int gpusort_cli_bench(int argc, char **argv);     /* cmd_bench.c */
int gpusort_cli_topk(int argc, char **argv);      /* cmd_topk.c */

/* A subcommand's parsed command line. */
typedef struct cmd_opts {
    const char *pos[4];         /* positional arguments */
    int npos;
    const char *out;            /* -o */
    int type_set;
    gpusort_type type;
    int desc;
    gpusort_backend backend;
    int backend_set;
    int device;                 /* -1: the backend's default */
    gpusort_algorithm algorithm;
    const char *values, *values_out;
    gpusort_type value_type;    /* NONE: infer from the values file's size */
    int threads;
    int stats, quiet, help;
    uint64_t n;
    int n_set;
    const char *dist;
    uint64_t seed;
    int entropy_k;              /* 0: not given */
    gpusort_op op;
    int op_set;
    int runs;
    uint64_t budget;            /* -S bytes; 0: the default */
    const char *tmpdirs[16];    /* -T, in turn */
    int ntmpdirs;
    uint64_t k;                 /* topk -k */
    int k_set;
    const char *indices;        /* topk --indices FILE (its type: --index-type, in value_type) */
    int mpi;                    /* sort --mpi */
    int gpus;                   /* sort --gpus: 0 not given, -1 all, else a count */
} cmd_opts;

/* `gpusort sort IN --gpus all|N`: one file over several GPUs of this host (cmd_sort_gpus.c). */
int gpusort_cli_sort_gpus(const cmd_opts *o, const char *in);

/* `gpusort sort IN --mpi` on every rank of an mpirun (cmd_sort_mpi.c, built with MPI only). */
int gpusort_cli_sort_mpi(const cmd_opts *o, const char *in);

/* The element types, for messages: "u32 i32 f32 u64 i64 f64". */
extern const char cmd_type_list[];

/* Parse argv (argv[0] is the command's name) accepting the options listed in `allowed`
 * (space-separated long names) and at most max_pos positional arguments; cli_fail otherwise. */
void cmd_parse(int argc, char **argv, const char *allowed, int max_pos, cmd_opts *o);

/* --dist (and --entropy-k) as a datagen distribution; *index = 1 for "index" (0, 1, 2, ...),
 * which datagen does not make. Returns 0, or -1 for an unknown name. */
int cmd_parse_dist(const cmd_opts *o, datagen_dist *d, int *index);

/* The library's failure as one line, "<what>: <status>[: <detail>]", and exit 2. */
void cmd_fail_status(const char *what, gpusort_status s, const gpusort_ctx *ctx)
    __attribute__((noreturn));

/* A context for --backend/--device/--threads; a backend that is not built or has no device is
 * a clear error. */
gpusort_ctx *cmd_make_ctx(const char *cmd, const cmd_opts *o);
/* --backend auto, no --device, and regular files (path, and values when not NULL) small
 * enough for cli_auto_cpu (util.h): o->backend becomes the CPU. Call before the context. */
void cmd_auto_small_files(cmd_opts *o, const char *path, const char *values);
/* The second half of cmd_make_ctx, for a context created elsewhere (on a thread, while the
 * input is opened): returns ctx when s is SUCCESS (setting --threads), else the clear error. */
gpusort_ctx *cmd_ctx_check(const char *cmd, const cmd_opts *o, gpusort_ctx *ctx, gpusort_status s);

/* The context's device name (or "device N") in buf. */
const char *cmd_device_name(const gpusort_ctx *ctx, char *buf, size_t size);
/* The same for the --stats lines: a CPU's name gives the machine's threads, so the threads the
 * context uses (--threads) are added: "CPU: ... (16 threads), 8 in use". */
const char *cmd_device_used(const gpusort_ctx *ctx, char *buf, size_t size);

/* With --backend auto, replace a GPU context whose call failed by a CPU context and return 1
 * (the caller retries), printing a note unless --quiet. Returns 0, changing nothing, for an
 * invalid argument or host memory exhaustion (the CPU would fail the same way), for a backend
 * the user named (its failure is the answer), and on the CPU itself. `doing` ("sorting") goes
 * into the note. */
int cmd_fall_back_to_cpu(gpusort_ctx **ctx, gpusort_status s, gpusort_backend requested,
                         int threads, const char *doing);

#endif
