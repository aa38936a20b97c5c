/*
 * cli.h -- INTERNAL to the gpusort program: the map of tools/ and the entry points of the text
 * and record modes.
 *
 *   main.c          argument dispatch: subcommands and GNU-sort text mode
 *   cmd.h           the subcommands on binary files of little-endian numbers and the like:
 *     cmd_sort.c      sort (in memory, or external: runs merged by extsort.c)
 *     cmd_gen.c       gen (common/datagen.c)       cmd_check.c    check
 *     cmd_reduce.c    reduce                        cmd_devices.c  devices
 *     cmd_bench.c     bench                         cmd_opts.c     their options, contexts
 *   binfile.h/.c    files of little-endian numbers: reading, writing, radix keys
 *   text.h          text lines, GNU sort compatible:
 *     text_main.c     the driver (chunks, runs, -m, -c/-C)
 *     text_options.c  the command line and -k key specs
 *     text_keys.c     key extraction and comparison
 *     text_sort.c     the in-memory sort of a chunk
 *     text_io.c       reading, line splitting, writing
 *   records.c       fixed-size binary records (--record-size)
 *   extsort.h/.c    the external sort: run files and the one k-way merge (lines, records,
 *                   numbers)
 *   util.h/.c       errors, atomic output files, temp-file cleanup on signals, progress, sizes
 * Beyond gpusort.h the program uses src/internal.h only (radix keys, the CPU fork-join helper).
 *
 * Which command line goes to which mode: main.c. Exit codes everywhere: 0 success, 1 "not
 * sorted" (check, -c/-C), 2 any error.
 */
#ifndef GPUSORT_CLI_H
#define GPUSORT_CLI_H

/* Text (GNU sort) mode: argv as GNU sort takes it (argv[0] is the program name). Returns the exit
 * code. Implemented in text_main.c. */
int gpusort_cli_text_main(int argc, char **argv);
/* `gpusort gen --record-size R ...` and `gpusort check --record-size R ...` (argv[0] = "gen" or
 * "check"). Implemented in records.c. */
int gpusort_cli_records_gen(int argc, char **argv);
int gpusort_cli_records_check(int argc, char **argv);

#endif
