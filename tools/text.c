/* text.c -- PLACEHOLDER until the text issue lands: GNU-sort-compatible text mode. */
#include "cli.h"
#include "util.h"

int gpusort_cli_text_main(int argc, char **argv)
{
    return cli_error("text mode (GNU sort compatible) is not implemented yet");
}
