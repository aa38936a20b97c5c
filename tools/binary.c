/* binary.c -- binary-file subcommands (being written). */
#include "binary.h"
#include "util.h"

int gpusort_cli_sort(int argc, char **argv) { return cli_error("sort: not implemented yet"); }
int gpusort_cli_gen(int argc, char **argv) { return cli_error("gen: not implemented yet"); }
int gpusort_cli_check(int argc, char **argv) { return cli_error("check: not implemented yet"); }
int gpusort_cli_reduce(int argc, char **argv) { return cli_error("reduce: not implemented yet"); }
int gpusort_cli_devices(int argc, char **argv) { return cli_error("devices: not implemented yet"); }
int gpusort_cli_bench(int argc, char **argv) { return cli_error("bench: not implemented yet"); }
