/*
 * binary.h -- INTERNAL to the gpusort program: the subcommands on binary files of little-endian
 * numbers (binary.c), called by main.c. Each takes argv starting at the subcommand's name
 * (argv[0] = "sort", "gen", ...) and returns the exit code (0, 1 for "not sorted", 2 errors).
 */
#ifndef GPUSORT_CLI_BINARY_H
#define GPUSORT_CLI_BINARY_H

int gpusort_cli_sort(int argc, char **argv);
int gpusort_cli_gen(int argc, char **argv);
int gpusort_cli_check(int argc, char **argv);
int gpusort_cli_reduce(int argc, char **argv);
int gpusort_cli_devices(int argc, char **argv);
int gpusort_cli_bench(int argc, char **argv);

#endif
