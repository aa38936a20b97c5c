/*
 * text_random.c -- -R: GNU sort's random order (text_random_init, text_random_digest, text.h).
 *
 * GNU sort orders -R keys by the MD5 digest of a 16-byte salt followed by the key (compared
 * as 16 bytes with memcmp; equal digests by the keys' bytes), so that equal keys stay
 * together. The salt is the first 16 bytes of --random-source FILE (coreutils randread reads
 * them with fread: a shorter file is an error, "end of file"), or 16 bytes of getrandom.
 * With the same FILE, gpusort's order is GNU's, byte for byte. In a collating locale the key
 * hashed is its collation key (text_xfrm), as in GNU's compare_random.
 *
 * MD5 as RFC 1321 specifies it: 64-byte blocks, four rounds of 16 steps with the sine table
 * T[i] = floor(2^32 * |sin(i + 1)|), little-endian words, the length in bits appended.
 */
#include "text.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

typedef struct md5 {
    uint32_t h[4];
    uint64_t len;              /* bytes processed */
    uint8_t buf[64];
    size_t fill;
} md5;

static uint32_t md5_T[64];
static const uint8_t md5_S[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23},
                                     {6, 10, 15, 21}};
static md5 salted;             /* the state after the salt */

static inline uint32_t rotl(uint32_t x, unsigned s) { return (x << s) | (x >> (32 - s)); }

static void md5_block(uint32_t h[4], const uint8_t *p)
{
    uint32_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g, r = i / 16;
        if (r == 0) { f = (b & c) | (~b & d); g = i; }
        else if (r == 1) { f = (d & b) | (~d & c); g = (5 * i + 1) % 16; }
        else if (r == 2) { f = b ^ c ^ d; g = (3 * i + 5) % 16; }
        else { f = c ^ (b | ~d); g = (7 * i) % 16; }
        uint32_t x = a + f + md5_T[i] + w[g];
        a = d;
        d = c;
        c = b;
        b = b + rotl(x, md5_S[r][i % 4]);
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

static void md5_update(md5 *m, const uint8_t *p, size_t n)
{
    if (n == 0) return;                 /* an empty key may come as NULL */
    m->len += n;
    if (m->fill) {
        size_t k = 64 - m->fill < n ? 64 - m->fill : n;
        memcpy(m->buf + m->fill, p, k);
        m->fill += k;
        p += k;
        n -= k;
        if (m->fill < 64) return;
        md5_block(m->h, m->buf);
        m->fill = 0;
    }
    for (; n >= 64; p += 64, n -= 64) md5_block(m->h, p);
    if (n) memcpy(m->buf, p, n);
    m->fill = n;
}

static void md5_final(md5 *m, uint8_t out[16])
{
    uint64_t bits = m->len * 8;
    uint8_t pad[72] = {0x80};
    size_t padn = (m->fill < 56 ? 56 : 120) - m->fill;
    for (int i = 0; i < 8; i++) pad[padn + (size_t)i] = (uint8_t)(bits >> (8 * i));
    md5_update(m, pad, padn + 8);
    for (int i = 0; i < 16; i++) out[i] = (uint8_t)(m->h[i / 4] >> (8 * (i % 4)));
}

void text_random_init(const char *source)
{
    for (int i = 0; i < 64; i++) md5_T[i] = (uint32_t)(4294967296.0 * fabs(sin((double)i + 1)));
    uint8_t salt[16];
    if (source) {
        FILE *f = fopen(source, "rb");
        if (!f) cli_fail("open failed: %s: %s", source, strerror(errno));
        size_t got = fread(salt, 1, sizeof salt, f);
        int err = ferror(f) ? errno : 0;
        fclose(f);
        if (got < sizeof salt)
            cli_fail("%s: %s", source, err ? strerror(err) : "end of file");
    } else {
        size_t got = 0;
        while (got < sizeof salt) {
            ssize_t r = getrandom(salt + got, sizeof salt - got, 0);
            if (r < 0 && errno != EINTR) cli_fail("getrandom failed: %s", strerror(errno));
            if (r > 0) got += (size_t)r;
        }
    }
    salted.h[0] = 0x67452301u;
    salted.h[1] = 0xefcdab89u;
    salted.h[2] = 0x98badcfeu;
    salted.h[3] = 0x10325476u;
    salted.len = 0;
    salted.fill = 0;
    md5_update(&salted, salt, sizeof salt);
}

void text_random_digest(const uint8_t *key, size_t len, uint8_t out[16])
{
    md5 m = salted;
    md5_update(&m, key, len);
    md5_final(&m, out);
}
