/*
 * cli.h -- INTERNAL to the gpusort program: the pieces of the CLI that live in separate files.
 *
 *   main.c     argument dispatch: subcommands (sort, gen, check, reduce, devices, bench) and
 *              GNU-sort text mode; shared error/exit helpers
 *   binary.c   binary files of little-endian numbers: sort, gen, check, reduce
 *   text.c     text lines, GNU sort compatible (options, keys, -c/-C, -m, external merge)
 *   records.c  fixed-size binary records (--record-size)
 *
 * Exit codes everywhere: 0 success, 1 "not sorted" (check, -c/-C), 2 any error.
 */
#ifndef GPUSORT_CLI_H
#define GPUSORT_CLI_H

/* Text (GNU sort) mode: argv as GNU sort takes it (argv[0] is the program name). Returns the exit
 * code. Implemented in text.c. */
int gpusort_cli_text_main(int argc, char **argv);

#endif
