/*
 * cli.h -- INTERNAL to the gpusort program: the pieces of the CLI that live in separate files.
 *
 *   main.c     argument dispatch: subcommands (sort, gen, check, reduce, devices, bench) and
 *              GNU-sort text mode; shared error/exit helpers
 *   binary.c   binary files of little-endian numbers: sort, gen, check, reduce
 *   text.c     text lines, GNU sort compatible (options, keys, -c/-C, -m, external merge)
 *   records.c  fixed-size binary records (--record-size)
 *   util.c     errors, atomic output files, temp-file cleanup on signals, progress, sizes
 *
 * Exit codes everywhere: 0 success, 1 "not sorted" (check, -c/-C), 2 any error.
 */
#ifndef GPUSORT_CLI_H
#define GPUSORT_CLI_H

/* Routing (main.c):
 *   gpusort sort ... --type T ...        binary numbers (binary.c)
 *   gpusort gen/check/reduce --type T    binary numbers (binary.c)
 *   gpusort gen --record-size R ...      records        (records.c: gpusort_cli_records_gen)
 *   gpusort check --record-size R ...    records        (records.c: gpusort_cli_records_check)
 *   gpusort check FILE (no --type)       text: same as `gpusort -c FILE`
 *   gpusort sort ... (no --type)         text mode, argv after "sort"
 *   gpusort [GNU sort options] [FILE...] text mode (anything that is not a subcommand)
 * Text mode also sorts records when --record-size is given.
 */

/* Text (GNU sort) mode: argv as GNU sort takes it (argv[0] is the program name). Returns the exit
 * code. Implemented in text.c. */
int gpusort_cli_text_main(int argc, char **argv);
/* `gpusort gen --record-size R ...` and `gpusort check --record-size R ...` (argv[0] = "gen" or
 * "check"). Implemented in records.c. */
int gpusort_cli_records_gen(int argc, char **argv);
int gpusort_cli_records_check(int argc, char **argv);

#endif
