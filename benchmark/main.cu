// gemm_bench: every preset of gemm::preset::All against cuBLAS, for every
// type the library computes (float, tf32, double, bf16, fp16, and the 16-bit
// inputs with float C) and, for a few presets, every layout of A and B; same
// data, same run. See print_usage() for the flags of our own; all Google Benchmark
// flags (--benchmark_filter, --benchmark_out, ...) work as usual.
#include "bench_common.cuh"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void print_usage() {
  std::printf(
      "gemm_bench: every gemm preset and cuBLAS (cublasGemmEx) over a grid of types, layouts and\n"
      "shapes (Google Benchmark). Rows: gemm/<type>/<preset>/[<layout>/]<m>x<n>x<k> and\n"
      "cublas/<type>/[<layout>/]<m>x<n>x<k>; the layout segment (NT, TN, TT: op(A) then op(B),\n"
      "T = stored transposed) is absent for row-major A and B (NN). FP8 rows:\n"
      "gemm/fp8_<tensor|rowwise|block>/<Tuned|Fp8>/NT/<m>x<n>x<k>, e4m3 A (m x k) and B (a weight\n"
      "stored n x k) with per-tensor, per-row/column or 1x128/128x128 block scales, bf16 C, each\n"
      "beside cuBLASLt in the same scale mode (counters pct_cublas, TFLOPS, cublas_TFLOPS,\n"
      "max_rel_diff_lt; select them alone with --benchmark_filter=fp8 or --gemm_types=fp8).\n"
      "Grouped rows: grouped/bf16/<contiguous|masked>/<workload>, gemm::gemm_grouped_contiguous or\n"
      "_masked on mixture-of-experts workloads (mixtral-up/-down, deepseek-up/-down, qwen3-up; decode\n"
      "deepseek-decode-down in slots of 32 or 64 rows, and packed), seeded Zipf-like routing with\n"
      "some empty experts, weights stored n x k, bf16 C, each beside cublasGemmGroupedBatchedEx on\n"
      "the same problems and one dense gemm::gemm of as many tokens (counters TFLOPS, pct_cublas,\n"
      "pct_dense, decode pct_hbm; select them alone with --benchmark_filter=grouped or\n"
      "--gemm_types=grouped).\n"
      "\n"
      "Own flags (all Google Benchmark --benchmark_* flags work as usual):\n"
      "  --gemm_types=T,..      only these types, of: float (strict fp32), tf32, double, bf16,\n"
      "                         fp16, bf16_f32out, fp16_f32out (16-bit inputs, float C), fp8\n"
      "                         (the FP8 rows), grouped (the grouped rows) (default: all; the\n"
      "                         grouped rows are left out when --gemm_shapes is given alone)\n"
      "  --gemm_layouts=L,..    these layouts (NN, NT, TN, TT) for every type and shape\n"
      "                         (default: NN everywhere, plus NT, TN, TT for float and bf16\n"
      "                         at 4096^3). NT/TN/TT rows exist for the presets compiled with\n"
      "                         layouts: Tuned (float), Wgmma, WarpSpecialized, WideTile, Persistent and\n"
      "                         Tuned (bf16); other types get none\n"
      "  --gemm_full            the full grid:\n"
      "                           float, double: squares 128..8192, 1000^3, 3072^3,\n"
      "                             4095x4097x4093, 16x4096x4096, 4096x4096x256, 128x8192x8192;\n"
      "                           bf16, fp16: 1024^3, 2048^3, 4096^3, 8192^3, 4096x14336x4096,\n"
      "                             4095x4096x4096, and the unaligned 4095x4097x4093,\n"
      "                             4096x4096x4093, 4096x4097x4096, 4096x4096x4100,\n"
      "                             1023x1025x1021 (the Hopper presets refuse them: skipped\n"
      "                             rows; Tuned copies such operands with aligned rows);\n"
      "                           tf32, bf16_f32out, fp16_f32out: 1024^3 .. 8192^3\n"
      "                         (default grid: float 1024^3, 4096^3, 4095x4097x4093,\n"
      "                         16x4096x4096; double 1024^3; bf16 1024^3, 2048^3, 4096^3,\n"
      "                         8192^3, 4096x14336x4096, 4095x4096x4096; fp16 4096^3, 8192^3,\n"
      "                         4096x14336x4096; tf32, bf16_f32out, fp16_f32out 4096^3;\n"
      "                         fp8 4096^3, 8192^3, 4096x14336x4096, 4096x7168x2048,\n"
      "                         4096x2112x7168, 64x8192x8192, 128x7168x2048, 2048^3 in every\n"
      "                         scale mode, and 4096x4104x4104 with tensor scales)\n"
      "  --gemm_shapes=MxNxK,.. run these shapes (for every selected type) instead of the grid\n"
      "  --gemm_fp8_promote=K   the FP8 rows' gemm::Scales::promote_every (default 128; block\n"
      "                         rows always 128); 0 also gives cuBLASLt its fast accumulation\n"
      "  --gemm_fp8_out=e4m3    the FP8 rows store e4m3 C with a D scale and amax (ours; cuBLASLt\n"
      "                         keeps its bf16 D): what quantizing the output costs\n"
      "  --gemm_fp8_space       the FP8 rows (Tuned, every scale mode) over the shape space's\n"
      "                         forward-form calls (decode, forward, the random shapes' NT form)\n"
      "                         instead of the grid; ends with each mode's and class's geometric\n"
      "                         mean and worst ratio to cuBLASLt (pair with --gemm_types=fp8)\n"
      "  --gemm_repetitions=N   repetitions per benchmark; the median is reported (default 7)\n"
      "  --gemm_batch_ms=X      minimum length of one timed batch of launches (default 2)\n"
      "  --gemm_flow            only the whole-flow table (1024^3 fp32, host to host: serial\n"
      "                         copies for cuBLAS and every preset; then gemm::host with the\n"
      "                         copies overlapped, pinned and pageable, 8192^3 fp32 and bf16\n"
      "                         with a device budget, and the PCIe rates of the same run)\n"
      "  --gemm_no_flow         skip the whole-flow table (it is skipped anyway when\n"
      "                         --benchmark_filter is given)\n"
      "  --gemm_flow_runs=N     runs per whole-flow median (default 20)\n"
      "  --gemm_flow_out=PATH   also write the whole-flow numbers as JSON (with the timelines\n"
      "                         of two instrumented gemm::host flows, for plot.py)\n"
      "  --gemm_shape_space     Tuned beside cuBLAS over the shape space instead of the grid: the\n"
      "                         layers of LLaMA-3 8B/70B, Mixtral 8x7B (dense parts), DeepSeek-V3\n"
      "                         (attention, dense MLP), GPT-2, GPT-3 175B, BERT-large and ViT-B/16\n"
      "                         in forward (NT), backward-data (NN) and weight-gradient (TN) form,\n"
      "                         decode (1..128 tokens), long k, and 50 seeded random shapes; bf16,\n"
      "                         with fp16, fp32 and tf32 subsets (--gemm_types picks); ends with\n"
      "                         the per-class geometric mean and worst ratio, and roofline fractions\n"
      "  --gemm_shape_space_out=PATH  that summary and every shape's figures as JSON\n"
      "  --gemm_release_scratch return the library's scratch memory at every synchronisation\n"
      "                         (gemm::set_scratch_cache_limit(0)), so that a call that stages\n"
      "                         operands (odd rows, 3xTF32) maps its scratch again each time;\n"
      "                         by default the scratch pool keeps up to 1 GiB between calls\n"
      "  --gemm_help            this text\n"
      "\n"
      "Each preset's C is checked against cuBLAS's (same data, same layout) before it is\n"
      "timed; pct_cublas = cuBLAS median time / ours, in the same run. Rows a preset refuses\n"
      "(Status::MisalignedA/B) or that would take too long (Naive, Coalesced above 2*4096^3\n"
      "flop) are skipped and listed. --benchmark_list_tests needs no GPU.\n");
}

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

// "--name=value" -> value (or nullptr if arg is not --name=...).
const char* value_of(const char* arg, const char* name) {
  const std::size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) == 0 && arg[n] == '=') return arg + n + 1;
  return nullptr;
}

int to_int(const char* v, const char* flag) {
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (!*v || *end || x <= 0 || x > 1000000) {
    std::fprintf(stderr, "gemm_bench: bad value '%s' for %s\n", v, flag);
    std::exit(2);
  }
  return static_cast<int>(x);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gemm_bench;
  Options opt;
  bool release_scratch = false;  // --gemm_release_scratch
  std::vector<char*> rest;
  rest.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = nullptr;
    if (!starts_with(a, "--gemm_")) {
      if (starts_with(a, "--benchmark_filter")) opt.filter_given = true;
      if (starts_with(a, "--benchmark_list_tests") && !value_of(a, "--benchmark_list_tests"))
        opt.list_only = true;
      if ((v = value_of(a, "--benchmark_list_tests")))
        opt.list_only = std::strcmp(v, "false") != 0 && std::strcmp(v, "0") != 0;
      rest.push_back(argv[i]);
    } else if (!std::strcmp(a, "--gemm_full")) {
      opt.full = true;
    } else if (!std::strcmp(a, "--gemm_flow")) {
      opt.flow_only = true;
    } else if (!std::strcmp(a, "--gemm_no_flow")) {
      opt.no_flow = true;
    } else if ((v = value_of(a, "--gemm_flow_out"))) {
      opt.flow_out = v;
    } else if ((v = value_of(a, "--gemm_flow_runs"))) {
      opt.flow_runs = to_int(v, "--gemm_flow_runs");
    } else if ((v = value_of(a, "--gemm_repetitions"))) {
      opt.repetitions = to_int(v, "--gemm_repetitions");
    } else if ((v = value_of(a, "--gemm_batch_ms"))) {
      opt.batch_ms = std::atof(v);
      if (!(opt.batch_ms > 0)) {
        std::fprintf(stderr, "gemm_bench: bad value '%s' for --gemm_batch_ms\n", v);
        return 2;
      }
    } else if ((v = value_of(a, "--gemm_shapes"))) {
      opt.shapes = v;
    } else if ((v = value_of(a, "--gemm_types"))) {
      opt.types = v;
    } else if ((v = value_of(a, "--gemm_layouts"))) {
      opt.layouts = v;
    } else if (!std::strcmp(a, "--gemm_shape_space")) {
      opt.shape_space = true;
    } else if ((v = value_of(a, "--gemm_shape_space_out"))) {
      opt.shape_space_out = v;
    } else if ((v = value_of(a, "--gemm_fp8_out"))) {
      if (std::strcmp(v, "e4m3") != 0 && std::strcmp(v, "bf16") != 0) {
        std::fprintf(stderr, "gemm_bench: bad value '%s' for --gemm_fp8_out (bf16 or e4m3)\n", v);
        return 2;
      }
      opt.fp8_out_e4m3 = std::strcmp(v, "e4m3") == 0;
    } else if (!std::strcmp(a, "--gemm_fp8_space")) {
      opt.fp8_space = true;
    } else if ((v = value_of(a, "--gemm_fp8_promote"))) {
      opt.fp8_promote = std::strcmp(v, "0") == 0 ? 0 : to_int(v, "--gemm_fp8_promote");
    } else if (!std::strcmp(a, "--gemm_release_scratch")) {
      release_scratch = true;
    } else if (!std::strcmp(a, "--gemm_help")) {
      print_usage();
      return 0;
    } else {
      std::fprintf(stderr, "gemm_bench: unknown flag %s (see --gemm_help)\n", a);
      return 2;
    }
  }
  try {
    validate_options(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: %s (see --gemm_help)\n", e.what());
    return 2;
  }
  int rest_argc = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;

  // Listing the rows needs no GPU (nothing below touches one when listing).
  int devices = 0;
  const cudaError_t derr = cudaGetDeviceCount(&devices);
  cudaGetLastError();
  if ((derr != cudaSuccess || devices == 0) && !opt.list_only) {
    std::fprintf(stderr, "gemm_bench: no CUDA device (%s)\n",
                 derr != cudaSuccess ? cudaGetErrorString(derr) : "device count is 0");
    return 1;
  }

  if (release_scratch) gemm::set_scratch_cache_limit(0);
  int rc = 0;
  try {
    for (const auto& [key, value] : context_entries(opt)) benchmark::AddCustomContext(key, value);
    benchmark::AddCustomContext("gemm_bench_scratch_pool",
                                release_scratch ? "released at each synchronisation (--gemm_release_scratch)"
                                                : "library pool, up to 1 GiB kept between calls (default)");
    std::printf("gemm_bench on %s, mode %s\n", device_summary().c_str(), opt.mode().c_str());
    std::fflush(stdout);

    if (!opt.flow_only) {
      register_benchmarks(opt);
      register_fp8_benchmarks(opt);
      register_grouped_benchmarks(opt);
      if (!opt.list_only) global_warmup();
      benchmark::RunSpecifiedBenchmarks();
      release_workspace();
      release_fp8_workspace();
      release_grouped_workspace();
      if (!opt.list_only) print_summary(opt);
      if (!opt.list_only) print_fp8_summary(opt);
      if (!opt.list_only) print_grouped_summary(opt);
      if (!opt.list_only && opt.shape_space) print_shape_space_summary(opt);
    }
    const bool flow =
        opt.flow_only || (!opt.no_flow && !opt.shape_space && !opt.filter_given && !opt.list_only);
    if (flow) {
      rc = run_flow(opt);
    } else if (!opt.no_flow && opt.filter_given && !opt.list_only) {
      std::printf("gemm_bench: whole-flow table skipped because --benchmark_filter was given "
                  "(run it alone with --gemm_flow)\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: %s\n", e.what());
    rc = 1;
  }
  release_workspace();
  release_fp8_workspace();
  release_grouped_workspace();
  benchmark::Shutdown();
  return rc;
}
