/*
 * fuzz_text.h -- what the text-mode fuzz targets share (they link tools/ and include text.h):
 *
 *   fz_text_parse     text_parse_args through fuzz_cli_run (a refusal comes back as its code)
 *   fz_text_options   a text sort's options from the input's first bytes: byte 0 = -b -d -f -g
 *                     -i -n -r -s (bits 0-7); byte 1 = -u -z -t -m -c -C(with -c) raw-k and
 *                     one of -h -V -M (byte 0 mod 3 picks it) (bits 0-7, those outside
 *                     `allowed` ignored); byte 2 = the -t separator (not
 *                     NUL or newline); byte 3 = number of -k keys (0-2), 3 bytes each
 *                     (fz_key_spec); then, with raw-k, a NUL-ended key spec taken as it is
 */
#ifndef GPUSORT_FUZZ_TEXT_H
#define GPUSORT_FUZZ_TEXT_H

#include "fuzz.h"
#include "text.h"

typedef struct fz_parse_call {
    int argc;
    char **argv;
    tsort *t;
    int rc;
} fz_parse_call;

static void fz_parse_fn(void *arg)
{
    fz_parse_call *p = (fz_parse_call *)arg;
    p->rc = text_parse_args(p->argc, p->argv, p->t);
}

/* Returns -1 when text_parse_args returned (its value in *rc), else the exit code of its
 * cli_fail. t is the caller's, zeroed first, so its arrays can be freed either way. */
static inline int fz_text_parse(int argc, char **argv, tsort *t, int *rc)
{
    memset(t, 0, sizeof *t);
    fz_parse_call pc = {argc, argv, t, -1};
    int code = fuzz_cli_run(fz_parse_fn, &pc);
    *rc = pc.rc;
    return code;
}

static inline void fz_text_free(tsort *t)
{
    free(t->keys);
    free(t->o.files);
    free(t->o.tmpdirs);
}

enum { FZ_U = 1, FZ_Z = 2, FZ_T = 4, FZ_M = 8, FZ_C = 16, FZ_CQ = 32, FZ_RAWK = 64, FZ_HVM = 128 };

typedef struct fz_text_opts {
    unsigned global, more;       /* bytes 0 and 1, `more` masked by `allowed` */
    char opts[20], tab[4], keys[2][40], raw[48];
    char *args[16];              /* the options as arguments (no argv[0]) */
    int nargs;
} fz_text_opts;

static inline void fz_text_options(fz *f, unsigned allowed, fz_text_opts *o)
{
    static const char gl[] = "bdfginrs";
    o->global = fz_u8(f);
    o->more = fz_u8(f) & allowed;
    unsigned tab = fz_u8(f), nk = fz_u8(f) % 3, h = o->more;
    int n = 1;
    o->nargs = 0;
    o->opts[0] = '-';
    o->keys[0][0] = o->keys[1][0] = 0;
    for (int i = 0; i < 8; i++)
        if (o->global & (1u << i)) o->opts[n++] = gl[i];
    if (h & FZ_U) o->opts[n++] = 'u';
    if (h & FZ_Z) o->opts[n++] = 'z';
    if (h & FZ_M) o->opts[n++] = 'm';
    if (h & FZ_C) o->opts[n++] = (h & FZ_CQ) ? 'C' : 'c';
    if (h & FZ_HVM) o->opts[n++] = "hVM"[o->global % 3];
    o->opts[n] = 0;
    if (n > 1) o->args[o->nargs++] = o->opts;
    if ((h & FZ_T) && tab != 0 && tab != '\n') {   /* -t '\n' is an oddity of its own: left out */
        snprintf(o->tab, sizeof o->tab, "-t%c", (char)tab);
        o->args[o->nargs++] = o->tab;
    }
    for (unsigned k = 0; k < nk; k++) {
        fz_key_spec(f, o->keys[k], sizeof o->keys[k]);
        o->args[o->nargs++] = (char *)"-k";
        o->args[o->nargs++] = o->keys[k];
    }
    o->raw[0] = 0;
    if (h & FZ_RAWK) {
        size_t len = 0;
        while (len < sizeof o->raw - 1 && f->n && *f->p) o->raw[len++] = (char)fz_u8(f);
        o->raw[len] = 0;
        fz_u8(f);
        o->args[o->nargs++] = (char *)"-k";
        o->args[o->nargs++] = o->raw;
    }
}

#endif
