// bench_cpu.cpp -- gpusort's CPU backend against std::sort and __gnu_parallel::sort.
//
// For each workload (key type, values or not, n) the same random input is sorted by
//   gpusort     gpusort_sort / gpusort_sort_pairs on a CPU context (in place), algorithm
//               radix by default (--algorithm merge for the merge sort)
//   std::sort   one thread (keys: operator<; pairs: an array of {key, value} by key)
//   gnu_par     __gnu_parallel::sort (libstdc++ parallel mode, OpenMP, all threads)
// Each timing (bench/timing.h, wall clock): one warm-up round, then the median of --runs rounds
// (default 7); a round runs gpusort, std::sort and gnu_par one after the other (in alternation,
// so that all three see the same machine load), each on a fresh copy of the input (the copy is
// not timed). gpusort's result is checked against std::sort's (keys equal; for pairs, every
// value still belongs to its key).
//
//   bench_cpu [--n N] [--runs R] [--threads T] [--csv FILE] [--json FILE] [--quick]
//             [--only-headline] [--algorithm radix|merge] [--no-peers]
//     --n N            size of the headline row (default 2^26 u32 keys)
//     --quick          the extra rows at 2^20 instead of 2^22
//     --only-headline  only the headline row
//     --threads T      gpusort and gnu_par threads (default: all online cores)
//     --csv FILE       also append one CSV line per row to FILE (no header line)
//     --json FILE      also write the rows to FILE as JSON (the CSV columns)
// Output: a table (Mkeys/s and ratios) and "csv," lines on stdout.
#include "gpusort.h"
#include "timing.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#ifdef GPUSORT_BENCH_HAVE_GNU_PARALLEL
#include <omp.h>
#include <parallel/algorithm>
#endif
#include <unistd.h>

namespace {

struct Options {
    size_t n = size_t(1) << 26;
    int runs = BENCH_RUNS_DEFAULT;
    int threads = 0;
    const char *csv = nullptr, *json = nullptr;
    bool quick = false, only_headline = false, peers = true;
    gpusort_algorithm algorithm = GPUSORT_ALGORITHM_RADIX;
};

template <class K> struct Pair {
    K key;
    uint32_t value;
};

template <class K> gpusort_type type_of();
template <> gpusort_type type_of<uint32_t>() { return GPUSORT_TYPE_U32; }
template <> gpusort_type type_of<uint64_t>() { return GPUSORT_TYPE_U64; }
template <> gpusort_type type_of<float>() { return GPUSORT_TYPE_F32; }
template <> gpusort_type type_of<double>() { return GPUSORT_TYPE_F64; }
template <> gpusort_type type_of<int32_t>() { return GPUSORT_TYPE_I32; }
template <> gpusort_type type_of<int64_t>() { return GPUSORT_TYPE_I64; }

// Uniform random keys: all bits random for integers; uniform in [-1e6, 1e6) for floats.
template <class K> std::vector<K> make_keys(size_t n, uint64_t seed)
{
    std::vector<K> v(n);
    std::mt19937_64 rng(seed);
    for (auto &x : v) {
        uint64_t r = rng();
        if constexpr (std::is_floating_point<K>::value)
            x = K((double(r >> 11) * 0x1p-53 * 2.0 - 1.0) * 1e6);
        else
            x = K(r);
    }
    return v;
}

struct Row {
    std::string name;
    size_t n;
    double t_gpusort, t_std, t_gnu;   // seconds (0: not measured)
    bool ok;
};

template <class K>
Row bench_keys(gpusort_ctx *ctx, const Options &o, size_t n, bool pairs)
{
    Row row{std::string(gpusort_type_name(type_of<K>())) + (pairs ? "+u32" : ""), n, 0, 0, 0,
            true};
    std::vector<K> in = make_keys<K>(n, 42 + n), work(n), ref;
    std::vector<uint32_t> vin(pairs ? n : 0), vwork(pairs ? n : 0);
    for (size_t i = 0; i < vin.size(); i++) vin[i] = uint32_t(i * 2654435761u);
    std::vector<Pair<K>> pin, pwork;
    std::vector<K> pwork_keys(pairs ? 0 : n);
    if (pairs) {
        pin.resize(n);
        for (size_t i = 0; i < n; i++) pin[i] = {in[i], vin[i]};
        pwork.resize(n);
    }
    const gpusort_type t = type_of<K>();

    // gpusort (in place, like the peers)
    auto gpusort_prepare = [&](int) {
        std::memcpy(work.data(), in.data(), n * sizeof(K));
        if (pairs) std::memcpy(vwork.data(), vin.data(), n * sizeof(uint32_t));
    };
    auto gpusort_run = [&](int) {
        gpusort_status s = pairs
            ? gpusort_sort_pairs(ctx, t, GPUSORT_TYPE_U32, work.data(), vwork.data(), n,
                                 work.data(), vwork.data(), GPUSORT_ORDER_ASC, o.algorithm, 0)
            : gpusort_sort(ctx, t, work.data(), n, work.data(), GPUSORT_ORDER_ASC, o.algorithm, 0);
        if (s != GPUSORT_STATUS_SUCCESS) {
            std::fprintf(stderr, "gpusort failed: %s (%s)\n", gpusort_status_string(s),
                         gpusort_ctx_get_last_error(ctx));
            std::exit(2);
        }
    };
    // the peers sort their own copy, so gpusort's last output stays for the check
    auto by_key = [](const Pair<K> &a, const Pair<K> &b) { return a.key < b.key; };
    auto pairs_prepare = [&](int) { std::memcpy(pwork.data(), pin.data(), n * sizeof(Pair<K>)); };
    auto keys_prepare = [&](int) { std::memcpy(pwork_keys.data(), in.data(), n * sizeof(K)); };
    auto std_pairs = [&](int) { std::sort(pwork.begin(), pwork.end(), by_key); };
    auto std_keys = [&](int) { std::sort(pwork_keys.begin(), pwork_keys.end()); };
    bench_contender cs[3] = {bench_call(gpusort_run, gpusort_prepare)};
    int count = 1;
    if (o.peers)
        cs[count++] = pairs ? bench_call(std_pairs, pairs_prepare)
                            : bench_call(std_keys, keys_prepare);
#ifdef GPUSORT_BENCH_HAVE_GNU_PARALLEL
    auto gnu_pairs = [&](int) { __gnu_parallel::sort(pwork.begin(), pwork.end(), by_key); };
    auto gnu_keys = [&](int) { __gnu_parallel::sort(pwork_keys.begin(), pwork_keys.end()); };
    if (o.peers)
        cs[count++] = pairs ? bench_call(gnu_pairs, pairs_prepare)
                            : bench_call(gnu_keys, keys_prepare);
#endif
    const bench_plan plan = bench_plan_default(o.runs);
    bench_stats st[3];
    bench_time(&plan, cs, count, st);
    row.t_gpusort = st[0].median_ms * 1e-3;
    if (count > 1) row.t_std = st[1].median_ms * 1e-3;
    if (count > 2) row.t_gnu = st[2].median_ms * 1e-3;

    // check: gpusort's last output is sorted, the same multiset as the input, and values
    // travel with their keys (compared with std::stable_sort of (key, value) structs)
    ref = in;
#ifdef GPUSORT_BENCH_HAVE_GNU_PARALLEL
    __gnu_parallel::sort(ref.begin(), ref.end());   // a one-thread std::sort of 2^29 keys takes a minute on some hosts
#else
    std::sort(ref.begin(), ref.end());
#endif
    if (std::memcmp(ref.data(), work.data(), n * sizeof(K)) != 0) row.ok = false;
    if (pairs && row.ok) {
        std::vector<Pair<K>> st = pin;
#ifdef GPUSORT_BENCH_HAVE_GNU_PARALLEL
        __gnu_parallel::stable_sort(st.begin(), st.end(), by_key);
#else
        std::stable_sort(st.begin(), st.end(), by_key);
#endif
        for (size_t i = 0; i < n; i++)
            if (st[i].value != vwork[i]) { row.ok = false; break; }
    }
    return row;
}

// The CSV columns (stdout "csv," lines, --csv, --json); scripts and committed results read them.
const bench_column kColumns[] = {
    {"keys", "%s"},           {"n", "%zu"},
    {"threads", "%d"},        {"algorithm", "%s"},
    {"gpusort_ms", "%.3f"},   {"std_sort_ms", "%.3f"},
    {"gnu_parallel_ms", "%.3f"}, {"gpusort_mkeys_s", "%.2f"},
    {"x_std_sort", "%.2f"},   {"x_gnu_parallel", "%.2f"},
    {"check", "%s"},
};
const int kNumColumns = int(sizeof kColumns / sizeof kColumns[0]);

void usage()
{
    std::printf(
        "usage: bench_cpu [--n N] [--runs R] [--threads T] [--csv FILE] [--json FILE]\n"
        "                 [--quick] [--only-headline] [--algorithm radix|merge] [--no-peers]\n"
        "Times gpusort's CPU backend, std::sort and __gnu_parallel::sort on the same random\n"
        "data (median of R runs after a warm-up, fresh input copy per run).\n"
        "  --n N            headline size (u32 keys; default 67108864 = 2^26)\n"
        "  --runs R         timed runs per measurement (default 7, at least 1)\n"
        "  --threads T      threads for gpusort and __gnu_parallel::sort (default: all cores)\n"
        "  --quick          extra rows (u64, f32, f64, i32, pairs) at 2^20 instead of 2^22\n"
        "  --only-headline  only the headline row\n"
        "  --algorithm A    gpusort algorithm: radix (default) or merge\n"
        "  --no-peers       time gpusort only\n"
        "  --csv FILE       append one CSV line per row to FILE\n"
        "  --json FILE      write the rows (the CSV columns) to FILE as JSON\n");
}

}  // namespace

int main(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> const char * {
            if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
            return argv[++i];
        };
        if (a == "--n") o.n = std::strtoull(next(), nullptr, 0);
        else if (a == "--runs") o.runs = std::max(1, std::atoi(next()));
        else if (a == "--threads") o.threads = std::max(0, std::atoi(next()));
        else if (a == "--csv") o.csv = next();
        else if (a == "--json") o.json = next();
        else if (a == "--quick") o.quick = true;
        else if (a == "--only-headline") o.only_headline = true;
        else if (a == "--no-peers") o.peers = false;
        else if (a == "--algorithm") {
            if (gpusort_algorithm_parse(next(), &o.algorithm) != GPUSORT_STATUS_SUCCESS) {
                std::fprintf(stderr, "unknown algorithm\n");
                return 2;
            }
        } else if (a == "--help" || a == "-h") { usage(); return 0; }
        else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); usage(); return 2; }
    }
    if (o.n == 0) { std::fprintf(stderr, "--n must be > 0\n"); return 2; }

    gpusort_ctx *ctx = nullptr;
    gpusort_status s = gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, 0);
    if (s != GPUSORT_STATUS_SUCCESS) { std::fprintf(stderr, "no CPU context\n"); return 2; }
    gpusort_ctx_set_threads(ctx, o.threads);
    int threads = gpusort_ctx_get_threads(ctx);
#ifdef GPUSORT_BENCH_HAVE_GNU_PARALLEL
    omp_set_num_threads(threads);
#endif
    gpusort_device_info info;
    gpusort_device_get_info(GPUSORT_BACKEND_CPU, 0, &info);
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) < 0) load[0] = -1;
    std::printf("device: %s; gpusort threads %d; algorithm %s; runs %d (median, after 1 warm-up)\n",
                info.name, threads, gpusort_algorithm_name(o.algorithm), o.runs);
    std::printf("load average at start: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
#ifndef GPUSORT_BENCH_HAVE_GNU_PARALLEL
    std::printf("note: built without OpenMP: no __gnu_parallel::sort column\n");
#endif

    std::vector<Row> rows;
    auto run = [&](Row r) {
        rows.push_back(r);
        const Row &x = rows.back();
        auto mk = [&](double t) { return t > 0 ? double(x.n) / t / 1e6 : 0.0; };
        std::printf("%-8s n=%-10zu gpusort %8.1f Mkeys/s (%8.2f ms)  std::sort %7.1f  gnu_par %7.1f"
                    "  x std %6.1f  x gnu %6.1f  %s\n",
                    x.name.c_str(), x.n, mk(x.t_gpusort), x.t_gpusort * 1e3, mk(x.t_std),
                    mk(x.t_gnu), x.t_std > 0 ? x.t_std / x.t_gpusort : 0,
                    x.t_gnu > 0 ? x.t_gnu / x.t_gpusort : 0, x.ok ? "ok" : "WRONG RESULT");
        std::fflush(stdout);
    };
    run(bench_keys<uint32_t>(ctx, o, o.n, false));
    if (!o.only_headline) {
        size_t m = o.quick ? size_t(1) << 20 : size_t(1) << 22;
        run(bench_keys<uint32_t>(ctx, o, size_t(1) << 16, false));
        run(bench_keys<uint32_t>(ctx, o, m, false));
        run(bench_keys<int32_t>(ctx, o, m, false));
        run(bench_keys<float>(ctx, o, m, false));
        run(bench_keys<uint64_t>(ctx, o, m, false));
        run(bench_keys<double>(ctx, o, m, false));
        run(bench_keys<uint32_t>(ctx, o, m, true));
        run(bench_keys<uint64_t>(ctx, o, m, true));
    }

    std::printf("\n| keys | n | gpusort Mkeys/s | std::sort Mkeys/s | gnu_par Mkeys/s | vs std::sort"
                " | vs gnu_par | check |\n|---|---|---|---|---|---|---|---|\n");
    for (const Row &x : rows) {
        auto mk = [&](double t) { return t > 0 ? double(x.n) / t / 1e6 : 0.0; };
        std::printf("| %s | %zu | %.1f | %.1f | %.1f | %.1fx | %.1fx | %s |\n", x.name.c_str(),
                    x.n, mk(x.t_gpusort), mk(x.t_std), mk(x.t_gnu),
                    x.t_std > 0 ? x.t_std / x.t_gpusort : 0,
                    x.t_gnu > 0 ? x.t_gnu / x.t_gpusort : 0, x.ok ? "ok" : "WRONG");
    }
    FILE *csv = o.csv ? std::fopen(o.csv, "a") : nullptr;
    if (o.csv && !csv) std::fprintf(stderr, "cannot open %s\n", o.csv);
    FILE *json_file = o.json ? std::fopen(o.json, "w") : nullptr;
    if (o.json && !json_file) std::fprintf(stderr, "cannot open %s\n", o.json);
    char meta[512];
    std::snprintf(meta, sizeof meta, "\"device\": \"%s\", \"runs\": %d", info.name, o.runs);
    bench_json json;
    bench_json_begin(&json, json_file, meta);
    std::printf("\n");
    bench_csv_header(stdout, "csv,", kColumns, kNumColumns);
    for (const Row &x : rows) {
        bench_row r;
        bench_row_make(&r, kColumns, kNumColumns, x.name.c_str(), x.n, threads,
                       gpusort_algorithm_name(o.algorithm), x.t_gpusort * 1e3, x.t_std * 1e3,
                       x.t_gnu * 1e3, double(x.n) / x.t_gpusort / 1e6,
                       x.t_std > 0 ? x.t_std / x.t_gpusort : 0,
                       x.t_gnu > 0 ? x.t_gnu / x.t_gpusort : 0, x.ok ? "ok" : "wrong");
        bench_csv_row(stdout, "csv,", &r);
        bench_csv_row(csv, nullptr, &r);   // appended to earlier runs' rows: no header
        bench_json_row(&json, &r);
    }
    bench_json_end(&json);
    if (csv) std::fclose(csv);
    if (json_file) std::fclose(json_file);
    gpusort_ctx_free(ctx);
    bool all_ok = true;
    for (const Row &x : rows) all_ok = all_ok && x.ok;
    return all_ok ? 0 : 1;
}
