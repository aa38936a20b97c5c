/* records.c -- PLACEHOLDER until the text issue lands: fixed-size binary records. */
#include "cli.h"
#include "util.h"

int gpusort_cli_records_gen(int argc, char **argv)
{
    return cli_error("record generation is not implemented yet");
}

int gpusort_cli_records_check(int argc, char **argv)
{
    return cli_error("record checking is not implemented yet");
}
