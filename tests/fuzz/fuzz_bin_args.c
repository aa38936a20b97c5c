/*
 * fuzz_bin_args.c -- fuzz target: the binary subcommands' command line (cmd_parse: --type,
 * --backend, --algorithm, --values, -o, -n/--n counts, --seed, --dist, -S sizes, -T ...) and the
 * number parsers behind it (cli_parse_count, cli_parse_size).
 *
 * Input: byte 0 picks the command (sort, gen, check, reduce, bench, devices: the option list
 * each accepts, as main.c routes them); the rest is its arguments, separated by NUL bytes.
 * Properties: cmd_parse returns or refuses through cli_fail (exit code 2), never crashes; what
 * it accepts is within range (a valid type, backend, algorithm; at most max_pos operands);
 * cli_parse_count and cli_parse_size on every argument either refuse it or give a value that
 * the plain digits of the argument agree with.
 */
#include "cmd.h"
#include "fuzz.h"
#include "util.h"

#include <inttypes.h>

/* The options each subcommand accepts (their cmd_parse calls in tools/cmd_*.c). */
static const struct {
    const char *allowed;
    int max_pos;
} cmds[] = {
    {"output type desc backend device algorithm values values-out value-type threads "
     "stats verbose quiet buffer-size temporary-directory", 1},                  /* sort */
    {"output type n dist seed entropy-k", 0},                                   /* gen */
    {"type desc quiet", 1},                                                     /* check */
    {"type op backend device threads stats verbose quiet buffer-size", 1},      /* reduce */
    {"backend device type n runs dist seed algorithm desc threads quiet", 0},   /* bench */
    {"", 0},                                                                   /* devices */
};

typedef struct parse_call {
    int argc;
    char **argv;
    const char *allowed;
    int max_pos;
    cmd_opts *o;
} parse_call;

static void parse(void *arg)
{
    parse_call *p = (parse_call *)arg;
    cmd_parse(p->argc, p->argv, p->allowed, p->max_pos, p->o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz f = {data, size};
    unsigned which = fz_below(&f, sizeof cmds / sizeof cmds[0]);
    char *argv[64], *store;
    int argc = fz_argv(&f, argv, 64, &store);
    argv[0] = (char *)"sort";

    for (int i = 1; i < argc; i++) {
        uint64_t v;
        const char *a = argv[i];
        if (cli_parse_count(a, &v) == 0) {
            FUZZ_ASSERT(*a >= '0' && *a <= '9');
            /* Plain digits: the value is the number itself. */
            if (strspn(a, "0123456789") == strlen(a)) FUZZ_ASSERT(v == strtoull(a, NULL, 10));
        }
        if (cli_parse_size(a, &v) == 0) {
            FUZZ_ASSERT(*a >= '0' && *a <= '9');
            if (strspn(a, "0123456789") == strlen(a)) FUZZ_ASSERT(v == strtoull(a, NULL, 10));
        }
    }

    cmd_opts o;
    memset(&o, 0, sizeof o);
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    parse_call pc = {argc, argv, cmds[which].allowed, cmds[which].max_pos, &o};
    int code = fuzz_cli_run(parse, &pc);
    fclose(stdout);
    stdout = saved;
    if (code != -1) {
        FUZZ_ASSERT(code == 2);
    } else {
        FUZZ_ASSERT(o.npos >= 0 && o.npos <= cmds[which].max_pos);
        if (o.type_set) FUZZ_ASSERT(gpusort_type_size(o.type) != 0);
        FUZZ_ASSERT(gpusort_backend_name(o.backend) != NULL);
        FUZZ_ASSERT(gpusort_algorithm_name(o.algorithm) != NULL);
        FUZZ_ASSERT(o.ntmpdirs >= 0 && o.ntmpdirs <= 16);
        datagen_dist d;
        int index;
        if (o.dist) (void)cmd_parse_dist(&o, &d, &index);
    }
    free(store);
    return 0;
}
