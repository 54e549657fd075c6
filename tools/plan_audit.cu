// What preset::Tuned picks, against every composition it picks from, measured: for each shape of
// a grid, each candidate is timed (CUDA events around back-to-back calls, after warm-up, median of
// `reps` runs), its C checked against cuBLAS's, and the row says which was fastest, which one
// Tuned's plan names (gemm::plan, the same decision the call makes) and what Tuned's choice costs
// against the fastest ("regret"). bf16 on the Hopper compositions (sm_90), strict fp32 on the
// CUDA-core ones; row-major A, B and C. Usage:
//   plan_audit [--out table.md] [--reps N] [--bf16 | --fp32 | --splits | --tail | --fit | --decode | --small |
//              --narrow | --few-rows | --short-k | --fp8-turned | --fp8-two-rows] [--shape MxNxK ...]
// --fit: measures the speeds in gemm::HopperRules's tile-width cost model on this GPU and prints
// them as the table's fields (rules.cuh): 128x256, 128x192, 192x128 and 128x128 with B row-major, 128x96
// against 128x128 with B stored transposed (the only layout 128x96 runs in).
// --splits: instead of Tuned's candidates, the Hopper kernel's k split into a fixed number of
// slices per tile (HopperFixedSplitK), 128x128 and decode's 64x128 tiles, bf16: what
// HopperSplitK's cost model is fitted to.
// --tail: shapes whose 128x128 tiles leave the last round of the SMs at most half full: those tiles
// whole and with that round split along k (HopperSplitK's tail split, Tuned's 128x128 composition),
// beside the wider tiles whole, bf16: what HopperSplitK::tail_round_blocks and HopperRules::tail_gain
// are fitted to.
// --decode: a few tokens against a weight stored transposed (A row-major, B n x k), bf16: the decode
// kernel (DecodePolicy) in Tuned's composition and in others, beside the 64-row wgmma tile: what
// Tuned::Decode's tile and gemm::DecodeRules::max_m were chosen from.
// --small: small calls with rows TMA cannot read (odd k or n), A row-major and B either way, bf16:
// the wgmma tiles Tuned picks from on sm_90 (which stage such rows in aligned copies first) beside
// the mma.sync compositions it runs where wgmma cannot (one launch, element loads for odd rows).
// --few-rows: 1-8 rows of C against a row-major B whose rows TMA cannot read (odd n or k), bf16 NN,
// with A and B in L2 and read from HBM (calls rotating through copies of them): the CUDA-core kernel
// of a few rows (FewRowsPolicy, one launch) with and without k slices in clusters, beside mma.sync on
// element loads and Tuned as it decides: what HopperRules::few_rows_max_m and few_rows_max_m2k are
// fitted to (Tuned's column is the path before wherever the rule does not take the kernel).
// --narrow: 16-128 tokens against a weight stored transposed, and forward shapes with short k, bf16
// NT: the 64-row wgmma tile Tuned runs for decode beside narrower ones (64x64, 64x32: twice and four
// times the blocks over the same weight), the 128-row tiles, and the ping-pong schedule (one
// consumer's epilogue under the other's mainloop) on plain calls.
// --short-k: the ping-pong schedule against the cooperative tile widths over a grid of m x n and k
// from 512 to 3072, bf16 NT and NN: what HopperRules::pingpong_max_k is fitted to.
// --fp8-turned: FP8 decode (e4m3 -> bf16, tensor scales, A row-major, B stored n x k) on the 64x128
// decode tile against the turned tiles Tuned takes for a few tokens (64x16, 64x32, 64x64), weights of
// an eighth of a round to three rounds of 64-row tiles, calls rotating through copies of the weight
// (read from HBM): the speed-ups by token band and rounds, and the HopperRules fields they give
// (fp8_turned_tiles, fp8_turned_wide_tiles).
// --fp8-two-rows: FP8 calls of 65-128 tokens (e4m3 -> bf16, A row-major, B stored n x k, weights read
// from HBM) on decode's 64x128 tiles (two rows of them) against one row of 128x128 tiles, with tensor
// and with block scales, over weights of a quarter of a round to two rounds of 128x128 tiles and k
// from 2048 to 14336: the HopperRules fields they give (fp8_two_row_medium_tiles,
// fp8_two_row_block_tiles, fp8_two_row_block_min_k, fp8_two_row_block_long_k).
// Build: part of the CMake tree (target gemm_plan_audit), or
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iinclude tools/plan_audit.cu -lcublas
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <gemm/gemm.cuh>
#include "../examples/support.cuh"

namespace audit {
using gemm::preset::Tuned;
using bf16 = __nv_bfloat16;

struct Shape {
  int m, n, k;
};

// Random values in [-1, 1), stored as T.
template <class T>
__global__ void convert_kernel(const float* in, T* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(in[i]);
}
template <class T>
T* random_buffer(size_t n, unsigned seed) {
  float* f = nullptr;
  T* p = nullptr;
  CHECK_CUDA(cudaMalloc(&f, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&p, n * sizeof(T)));
  support::fill_random(f, n, seed);
  convert_kernel<<<1024, 256>>>(f, p, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaFree(f));
  return p;
}

// Milliseconds per call: back-to-back calls (about 2 ms of them) between two events, after a
// warm-up; the median of reps such runs.
template <class Call>
double ms_per_call(Call call, int reps) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const auto run = [&](int calls) {
    CHECK_CUDA(cudaEventRecord(start));
    for (int i = 0; i < calls; ++i) call();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return double(ms) / calls;
  };
  const double first = run(3);
  const int calls = std::max(1, int(2.0 / first));
  run(calls);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(run(calls));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class P>
std::string composition() {
  return std::string(P::name()) + "<" + P::parts() + ">";
}

template <class T, gemm::Op kOpB = gemm::Op::N>  // kOpB: T, B stored transposed (n x k)
struct Audit {
  using Out = T;
  const char* type;
  std::vector<const char*> names;  // the candidates' short names
  std::vector<Shape> shapes;
  int reps = 11;
  std::string md;
  std::vector<double> regrets;
  bool cold = false;  // calls rotate through copies of A and B that together pass L2: read from HBM
  static constexpr gemm::Op op_b = kOpB;

  // Runs one shape: candidate i's time in ms (infinite if it failed or was wrong).
  template <class... P>
  void shape(const Shape& s, cublasHandle_t h) {
    const int m = s.m, n = s.n, k = s.k;
    const size_t ab_bytes = (size_t(m) * k + size_t(k) * n) * sizeof(T);
    const size_t copies = cold ? std::max<size_t>(1, std::min<size_t>(1024, (size_t(256) << 20) / ab_bytes)) : 1;
    std::vector<T*> As, Bs;
    for (size_t c = 0; c < copies; ++c) {
      As.push_back(random_buffer<T>(size_t(m) * k, 11u + unsigned(c)));
      Bs.push_back(random_buffer<T>(size_t(k) * n, 12u + unsigned(c)));
    }
    size_t turn = 0;  // the copy the next call reads (copy 0 for the calls whose C is checked)
    T* A = As[0];
    T* B = Bs[0];
    Out* C = nullptr;
    CHECK_CUDA(cudaMalloc(&C, size_t(m) * n * sizeof(Out)));
    // cuBLAS's C^T = B^T A^T (column-major), the reference and the time beside ours.
    const float one = 1, zero = 0;
    const bool bt = op_b == gemm::Op::T;
    const int ldb = bt ? k : n;
    const auto cublas = [&] {
      const cudaDataType_t dt = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_16BF;
      const size_t c = turn++ % copies;
      cublasGemmEx(h, bt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, Bs[c], dt, ldb, As[c], dt, k, &zero,
                   C, dt, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    const double t_cublas = ms_per_call(cublas, reps);
    std::vector<Out> ref(size_t(m) * n), got(ref.size());
    turn = 0;
    cublas();
    CHECK_CUDA(cudaMemcpy(ref.data(), C, ref.size() * sizeof(Out), cudaMemcpyDeviceToHost));
    double scale = 0;
    for (const Out& x : ref) scale = std::max(scale, std::fabs(double(static_cast<float>(x))));
    const double tolerance = (std::is_same_v<T, float> ? 1e-4 : 1e-2) * scale;

    std::vector<double> t;
    std::vector<std::string> comps;
    const auto candidate = [&](auto tag) {
      using Policy = typename decltype(tag)::type;
      comps.push_back(composition<Policy>());
      // The layouts as compile-time constants (the library's own entry with them), so that each
      // candidate compiles for the one layout its audit runs, not for all four.
      const auto call = [&] {
        const size_t c = turn++ % copies;
        return gemm::detail::run<T, Policy, gemm::detail::Ops<gemm::Op::N, kOpB>, Out>(
            {m, n, k, 1.f, As[c], k, Bs[c], ldb, 0.f, C, n, gemm::Op::N, kOpB}, cudaStream_t{});
      };
      CHECK_CUDA(cudaMemset(C, 0xff, size_t(m) * n * sizeof(Out)));
      turn = 0;
      bool ok = call() == gemm::Status::Success;
      CHECK_CUDA(cudaDeviceSynchronize());
      CHECK_CUDA(cudaMemcpy(got.data(), C, got.size() * sizeof(Out), cudaMemcpyDeviceToHost));
      for (size_t i = 0; ok && i < got.size(); ++i)
        ok = std::fabs(double(static_cast<float>(got[i])) - double(static_cast<float>(ref[i]))) <= tolerance;
      t.push_back(ok ? ms_per_call(call, reps) : INFINITY);
    };
    (candidate(std::common_type<P>{}), ...);
    const gemm::Plan plan = gemm::plan<T>(gemm::Op::N, op_b, m, n, k, 1.f, A, k, B, ldb, 0.f, C, n);
    const size_t best = std::min_element(t.begin(), t.end()) - t.begin();
    const size_t pick = std::find(comps.begin(), comps.end(), plan.composition) - comps.begin();
    char buf[256];
    std::snprintf(buf, sizeof buf, "| %s | %dx%dx%d | %.1f |", type, m, n, k, t_cublas * 1e3);
    std::string row = buf;
    for (double x : t) std::snprintf(buf, sizeof buf, " %.1f |", x * 1e3), row += buf;
    const double regret = pick < t.size() ? t[pick] / t[best] - 1 : NAN;
    if (pick < t.size()) regrets.push_back(regret);
    std::snprintf(buf, sizeof buf, " %s | %s | %.1f%% | %.1f%% |\n", names[best],
                  pick < t.size() ? names[pick] : "(other)", 100 * regret,
                  pick < t.size() ? 100 * t_cublas / t[pick] : NAN);
    row += buf;
    std::fputs(row.c_str(), stderr);
    md += row;
    for (size_t c = 0; c < copies; ++c) cudaFree(As[c]), cudaFree(Bs[c]);
    cudaFree(C);
  }

  template <class... P>
  void run(cublasHandle_t h) {
    md += "| type | m x n x k | cuBLAS us |";
    for (const char* name : names) md += std::string(" ") + name + " us |";
    md += " fastest | Tuned picks | regret | Tuned / cuBLAS |\n|---|---|---:|";
    for (size_t i = 0; i < names.size(); ++i) md += "---:|";
    md += "---|---|---:|---:|\n";
    for (const Shape& s : shapes) shape<P...>(s, h);
    double worst = 0, sum = 0;
    for (double r : regrets) worst = std::max(worst, r), sum += r;
    char buf[160];
    std::snprintf(buf, sizeof buf, "\n%s: Tuned's pick is the fastest candidate or within %.1f%% of it on all %zu shapes "
                  "(mean regret %.2f%%).\n\n", type, 100 * worst, regrets.size(), 100 * sum / regrets.size());
    md += buf;
  }
};

// --fit: the speeds of rules.cuh's tile-width cost model on this GPU. Each width runs whole rounds
// of the SMs (8 rows of tiles by sms / 4 columns, two rounds; 2 x sms otherwise), k = 4096, bf16;
// its speed is its work per second over 128x128's. Prints the HopperRules fields to paste.
// op_b: T for the widths that run with B stored transposed only (128x96); row_scale: that many
// times the rows of tiles (more rounds); k: the depth; bm: the tile's rows (192x128: 192).
template <class P>
double fit_round_time(int bn, int sms, int reps, gemm::Op op_b = gemm::Op::N, int row_scale = 1, int k = 4096,
                      int bm = 128) {
  const int tiles_m = (sms % 4 == 0 ? 8 : 2) * row_scale, tiles_n = sms % 4 == 0 ? sms / 4 : sms;
  const int m = bm * tiles_m, n = bn * tiles_n;
  bf16* A = random_buffer<bf16>(size_t(m) * k, 21u);
  bf16* B = random_buffer<bf16>(size_t(k) * n, 22u);
  bf16* C = nullptr;
  CHECK_CUDA(cudaMalloc(&C, size_t(m) * n * sizeof(bf16)));
  const int ldb = op_b == gemm::Op::N ? n : k;
  const auto call = [&] {
    return gemm::gemm<bf16, P>(gemm::Op::N, op_b, m, n, k, 1.f, A, k, B, ldb, 0.f, C, n);
  };
  const double ms = call() == gemm::Status::Success ? ms_per_call(call, reps) : INFINITY;
  cudaFree(A), cudaFree(B), cudaFree(C);
  std::fprintf(stderr, "fit: %dx%dx%d %s on %s: %.1f us\n", m, n, k, op_b == gemm::Op::N ? "NN" : "NT",
               composition<P>().c_str(), ms * 1e3);
  return ms / (double(bm) * bn / (128 * 128)) / row_scale / (k / 4096.0);  // per 128x128 x 4096 tile's work
}

std::string fit(const cudaDeviceProp& prop, int reps) {
  const int sms = prop.multiProcessorCount;
  const double medium = fit_round_time<Tuned::HopperTile<128, 6>>(128, sms, reps);
  const double balanced = fit_round_time<Tuned::HopperBalanced>(192, sms, reps);
  const double wide = fit_round_time<Tuned::Hopper>(256, sms, reps);
  const double tall = fit_round_time<Tuned::HopperBalancedTall>(128, sms, reps, gemm::Op::N, 1, 4096, 192);
  // 128x96 runs with B stored transposed only: its speed against 128x128's in that layout, over
  // operands larger than L2 (16 rounds, k = 8192: A 128 MB), which it re-reads a third more often.
  // On 2 rounds of small operands (k = 4096, the others' shape) it keeps up with 128x128 (0.98-1.00
  // on an H200), but the rule weighs it against 128x128 on large calls too.
  const double medium_nt = fit_round_time<Tuned::HopperTile<128, 6>>(128, sms, reps, gemm::Op::T, 8, 8192);
  const double narrow = fit_round_time<Tuned::HopperNarrow>(96, sms, reps, gemm::Op::T, 8, 8192);
  const double medium_nt2 = fit_round_time<Tuned::HopperTile<128, 6>>(128, sms, reps, gemm::Op::T);
  const double narrow2 = fit_round_time<Tuned::HopperNarrow>(96, sms, reps, gemm::Op::T);
  std::fprintf(stderr, "fit: 128x96 against 128x128 on 2 rounds, k = 4096: %.2f; on 16 rounds, k = 8192: %.2f\n",
               medium_nt2 / narrow2, medium_nt / narrow);
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "Fitted on %s (%d SMs), whole rounds of tiles, k = 4096, bf16 (time per 128x128 tile's work: "
                "128x128 %.2f us, 128x192 %.2f, 192x128 %.2f, 128x256 %.2f; B stored transposed, 16 rounds, k = "
                "8192: 128x128 %.2f, 128x96 %.2f):\n\n  double speed_wide = %.2f;\n  double speed_balanced = %.2f;\n"
                "  double speed_balanced_tall = %.2f;\n  double speed_medium = 1.0;\n  double speed_narrow = %.2f;\n\n",
                prop.name, sms, medium * 1e3, balanced * 1e3, tall * 1e3, wide * 1e3, medium_nt * 1e3, narrow * 1e3,
                medium / wide, medium / balanced, medium / tall, medium_nt / narrow);
  return buf;
}

// The operands of the FP8 modes' calls for up to max_m tokens against a weight of n x k: copies of
// the weight that together pass L2 (each call reads its weight from HBM), A and C.
struct Fp8Buffers {
  std::vector<__nv_fp8_e4m3*> Bs;
  __nv_fp8_e4m3* A = nullptr;
  bf16* C = nullptr;
  Fp8Buffers(int max_m, int n, int k, unsigned seed) {
    const size_t b_bytes = size_t(n) * k;
    const size_t copies = std::max<size_t>(1, std::min<size_t>(64, (size_t(256) << 20) / b_bytes));
    for (size_t c = 0; c < copies; ++c) Bs.push_back(random_buffer<__nv_fp8_e4m3>(b_bytes, seed + 1 + unsigned(c)));
    A = random_buffer<__nv_fp8_e4m3>(size_t(max_m) * k, seed);
    CHECK_CUDA(cudaMalloc(&C, size_t(max_m) * n * sizeof(bf16)));
  }
  ~Fp8Buffers() {
    for (__nv_fp8_e4m3* b : Bs) cudaFree(b);
    cudaFree(A), cudaFree(C);
  }
};

// FP8 calls of the audit's modes (e4m3 -> bf16, A row-major m x k, B stored n x k): one call on
// `Policy` through the library's scaled entry, B rotating through `copies` (each read from HBM).
struct Fp8Calls {
  int m, n, k;
  const __nv_fp8_e4m3* A;
  const std::vector<__nv_fp8_e4m3*>& Bs;
  bf16* C;
  gemm::Scales scales;
  int reps;
  // The time of a call on Policy (ms; infinite where it fails), and in `first` its result from copy 0.
  template <class Policy>
  double timed(std::vector<bf16>& first) const {
    size_t turn = 0;
    const auto call = [&] {
      return gemm::detail::run_scaled<__nv_fp8_e4m3, Policy, gemm::detail::Ops<gemm::Op::N, gemm::Op::T>, bf16>(
          {m, n, k, 1.f, A, k, Bs[turn++ % Bs.size()], k, 0.f, C, n, gemm::Op::N, gemm::Op::T}, scales, cudaStream_t{});
    };
    first.assign(size_t(m) * n, bf16{});
    if (call() != gemm::Status::Success) return static_cast<double>(INFINITY);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(first.data(), C, first.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
    return ms_per_call(call, reps);
  }
};

// Whether a candidate pays over these calls (each its speed over the tile it would replace): a
// geometric mean of at least 1.02 and none below 0.95 (the FP8 audit modes' test).
bool pays(const std::vector<double>& speeds) {
  if (speeds.empty()) return false;
  double log_sum = 0, worst = INFINITY;
  for (double v : speeds) log_sum += std::log(v), worst = std::min(worst, v);
  return std::exp(log_sum / speeds.size()) >= 1.02 && worst >= 0.95;
}

// Whether two results agree within 1% of the first's largest magnitude.
bool results_agree(const std::vector<bf16>& r, const std::vector<bf16>& c) {
  double scale_of_r = 0, diff = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    scale_of_r = std::max(scale_of_r, std::fabs(double(static_cast<float>(r[i]))));
    diff = std::max(diff, std::fabs(double(static_cast<float>(r[i])) - double(static_cast<float>(c[i]))));
  }
  return diff <= 1e-2 * scale_of_r;
}

// --fp8-turned. A band's turned tile pays up to R rounds of the weight's 64-row tiles where the calls
// of at most R rounds run at least 1.02 times the decode tile's speed (geometric mean) and none below
// 0.95; R the largest of a half, one, two and three rounds that does (a quarter: none).
struct TurnedBand {
  const char* name;
  int min_m, max_m;
  std::vector<std::pair<double, double>> calls;  // (rounds, turned speed over the decode tile's)
  std::string rounds_paying() const {
    std::string best = "none";
    for (const auto& [num, den] : std::vector<std::pair<int, int>>{{1, 2}, {1, 1}, {2, 1}, {3, 1}}) {
      std::vector<double> x;
      for (const auto& [r, speed] : calls)
        if (r * den <= num + 1e-9) x.push_back(speed);
      if (x.empty()) continue;
      if (!pays(x)) break;
      best = "{" + std::to_string(num) + ", " + std::to_string(den) + "}";
    }
    return best;
  }
};

std::string fp8_turned(const cudaDeviceProp& prop, int reps) {
  const int sms = prop.multiProcessorCount;
  TurnedBand bands[] = {{"64x16, 1-16 tokens", 1, 16, {}}, {"64x32, 17-32 tokens", 17, 32, {}},
                        {"64x64, 40-64 tokens", 40, 64, {}}};
  float* scale = nullptr;
  CHECK_CUDA(cudaMalloc(&scale, sizeof(float)));
  const float one = 1.0f;
  CHECK_CUDA(cudaMemcpy(scale, &one, sizeof(float), cudaMemcpyHostToDevice));
  const gemm::Scales scales = gemm::Scales::tensor(scale, scale);
  std::string md = std::string("FP8 decode on ") + prop.name + " (" + std::to_string(sms) +
                   " SMs), e4m3 -> bf16, tensor scales, NT, weights read from HBM; times in us.\n\n"
                   "| m x n x k | rounds | decode tile | turned tile | turned / decode speed |\n|---|---:|---:|---:|---:|\n";
  for (const double rounds : {0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0})
    for (const int k : {2048, 8192}) {
      const int n = static_cast<int>(64 * sms * rounds);
      const Fp8Buffers ops(64, n, k, 30u);
      for (const int m : {1, 8, 16, 24, 32, 40, 48, 64}) {
        const Fp8Calls f{m, n, k, ops.A, ops.Bs, ops.C, scales, reps};
        std::vector<bf16> r, c;
        const double t_decode = f.timed<Tuned::HopperDecode>(r);
        const double t_turned = m <= 16   ? f.timed<Tuned::HopperTurnedNarrow>(c)
                                : m <= 32 ? f.timed<Tuned::HopperTurned>(c)
                                          : f.timed<Tuned::HopperTurnedWide>(c);
        const bool agree = results_agree(r, c);
        const double tile_rounds = double((n + 63) / 64) / sms;
        const double speed = agree ? t_decode / t_turned : 0;
        for (TurnedBand& b : bands)
          if (m >= b.min_m && m <= b.max_m) b.calls.push_back({tile_rounds, speed});
        char buf[200];
        std::snprintf(buf, sizeof buf, "| %dx%dx%d | %.2f | %.1f | %.1f | %.3f%s |\n", m, n, k, tile_rounds,
                      t_decode * 1e3, t_turned * 1e3, speed, agree ? "" : " (results differ)");
        std::fputs(buf, stderr);
        md += buf;
      }
    }
  cudaFree(scale);
  md += "\nThe turned tiles pay (geometric mean >= 1.02, none below 0.95) up to these rounds of the weight's "
        "64-row tiles:\n\n";
  for (const TurnedBand& b : bands) md += std::string("- ") + b.name + ": " + b.rounds_paying() + "\n";
  md += "\nas HopperRules' fields (64x16 is taken at any count where it pays up to three rounds):\n\n  Rounds "
        "fp8_turned_tiles" + bands[1].rounds_paying() + ";\n  Rounds fp8_turned_wide_tiles" + bands[2].rounds_paying() +
        ";\n\n";
  return md;
}

// --fp8-two-rows. 128x128 tiles pay from R rounds (tensor scales) where the calls of at least R
// rounds run at least 1.02 times the decode tile's speed (geometric mean) and none below 0.95, R the
// least of a quarter, half, three quarters, one and two rounds that does; with block scales, below
// those rounds, from the least k whose calls do the same, and those of every longer k: over the
// weights of at most a quarter of a round (fp8_two_row_block_min_k, within fp8_two_row_block_tiles
// = {1, 4}), and over every weight below R (fp8_two_row_block_long_k).
std::string fp8_two_rows(const cudaDeviceProp& prop, int reps) {
  const int sms = prop.multiProcessorCount;
  float* scales_buf = nullptr;
  const size_t scale_floats = size_t(1) << 22;
  CHECK_CUDA(cudaMalloc(&scales_buf, scale_floats * sizeof(float)));
  {
    std::vector<float> ones(scale_floats, 1.0f);
    CHECK_CUDA(cudaMemcpy(scales_buf, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  const std::pair<int, int> fractions[] = {{1, 4}, {1, 2}, {3, 4}, {1, 1}, {2, 1}};
  const int ks[] = {2048, 4096, 7168, 14336};
  struct Timed {
    bool block;
    double rounds;
    int k;
    double speed;  // 128x128 tiles' speed over the decode tile's
  };
  std::vector<Timed> calls;
  std::string md = std::string("FP8 at 65-128 tokens on ") + prop.name + " (" + std::to_string(sms) +
                   " SMs), e4m3 -> bf16, NT, weights read from HBM; times in us.\n\n"
                   "| scales | m x n x k | rounds of 128x128 | decode tile | 128x128 | 128x128 / decode speed |\n"
                   "|---|---|---:|---:|---:|---:|\n";
  for (const auto& [num, den] : fractions)
    for (const int k : ks) {
      const int n = 128 * sms * num / den;
      const Fp8Buffers ops(128, n, k, 40u);
      for (const bool block : {false, true})
        for (const int m : {72, 96, 128}) {
          const long long kb = (k + 127) / 128, nb = (n + 127) / 128;
          const gemm::Scales sc = block ? gemm::Scales::block(scales_buf, kb * m, scales_buf, nb * kb)
                                        : gemm::Scales::tensor(scales_buf, scales_buf);
          const Fp8Calls f{m, n, k, ops.A, ops.Bs, ops.C, sc, reps};
          std::vector<bf16> r, c;
          const double t_decode = f.timed<Tuned::HopperDecode>(r);
          const double t_medium = f.timed<Tuned::HopperMedium>(c);
          const bool agree = results_agree(r, c);
          const double rounds = double(num) / den;
          const double speed = agree ? t_decode / t_medium : 0;
          calls.push_back({block, rounds, k, speed});
          char buf[200];
          std::snprintf(buf, sizeof buf, "| %s | %dx%dx%d | %.2f | %.1f | %.1f | %.3f%s |\n", block ? "block" : "tensor", m,
                        n, k, rounds, t_decode * 1e3, t_medium * 1e3, speed, agree ? "" : " (results differ)");
          std::fputs(buf, stderr);
          md += buf;
        }
    }
  cudaFree(scales_buf);
  // Tensor scales: the least fraction from which every fraction's calls pay.
  std::string tiles = "none";
  double from = INFINITY;
  for (auto it = std::rbegin(fractions); it != std::rend(fractions); ++it) {
    const double r = double(it->first) / it->second;
    std::vector<double> x;
    for (const Timed& t : calls)
      if (!t.block && t.rounds >= r - 1e-9) x.push_back(t.speed);
    if (!pays(x)) break;
    tiles = "{" + std::to_string(it->first) + ", " + std::to_string(it->second) + "}", from = r;
  }
  // Block scales below those rounds: the least k whose calls pay, and every longer k's, over the
  // weights within `within` rounds.
  const auto least_k = [&](double within) {
    std::string k_paying = "none";
    for (auto it = std::rbegin(ks); it != std::rend(ks); ++it) {
      std::vector<double> x;
      for (const Timed& t : calls)
        if (t.block && t.rounds < from - 1e-9 && t.rounds <= within + 1e-9 && t.k == *it) x.push_back(t.speed);
      if (!pays(x)) break;
      k_paying = std::to_string(*it);
    }
    return k_paying;
  };
  md += "\nOne row of 128x128 tiles pays (geometric mean >= 1.02, none below 0.95) from these rounds of them "
        "(tensor scales), and with block scales below those rounds from these k (weights within a quarter of a "
        "round, and any), as HopperRules' fields:\n\n  Rounds fp8_two_row_medium_tiles" + tiles +
        ";\n  Rounds fp8_two_row_block_tiles{1, 4};\n  int fp8_two_row_block_min_k = " + least_k(0.25) +
        ";\n  int fp8_two_row_block_long_k = " + least_k(INFINITY) + ";\n\n";
  return md;
}

}  // namespace audit

int main(int argc, char** argv) {
  using namespace audit;
  const char* out_path = nullptr;
  int reps = 11;
  std::vector<Shape> only;  // --shape MxNxK (repeatable): these instead of the grid
  bool bf16_only = false, fp32_only = false, splits = false, tail = false, fit_only = false, decode = false;
  bool small = false, narrow = false, short_k = false, few_rows = false, fp8_turned_only = false, fp8_two_rows_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_path = argv[++i];
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--bf16")) bf16_only = true;
    if (!std::strcmp(argv[i], "--fp32")) fp32_only = true;
    if (!std::strcmp(argv[i], "--splits")) splits = true;
    if (!std::strcmp(argv[i], "--tail")) tail = true;
    if (!std::strcmp(argv[i], "--fit")) fit_only = true;
    if (!std::strcmp(argv[i], "--decode")) decode = true;
    if (!std::strcmp(argv[i], "--small")) small = true;
    if (!std::strcmp(argv[i], "--narrow")) narrow = true;
    if (!std::strcmp(argv[i], "--short-k")) short_k = true;
    if (!std::strcmp(argv[i], "--few-rows")) few_rows = true;
    if (!std::strcmp(argv[i], "--fp8-turned")) fp8_turned_only = true;
    if (!std::strcmp(argv[i], "--fp8-two-rows")) fp8_two_rows_only = true;
    Shape s{};
    if (!std::strcmp(argv[i], "--shape") && i + 1 < argc && std::sscanf(argv[++i], "%dx%dx%d", &s.m, &s.n, &s.k) == 3)
      only.push_back(s);
  }
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::string md = std::string("Tuned's plan against its candidates, ") + prop.name + ", row-major NN, ms per call as " +
                   "the median of " + std::to_string(reps) + " event-timed runs of back-to-back calls; times in us.\n\n";
  // Square sizes, ragged ones (rounds of the SMs), flat and tall, and long or short k.
  std::vector<Shape> shapes = {
      {256, 256, 256},    {512, 512, 512},    {768, 768, 768},     {1024, 1024, 1024}, {1023, 1025, 1021},
      {1536, 1536, 1536}, {2048, 2048, 2048}, {2047, 2049, 2048},  {3072, 3072, 3072}, {4096, 4096, 4096},
      {4095, 4097, 4093}, {4096, 4097, 4096}, {6144, 6144, 6144},  {8192, 8192, 8192}, {512, 8192, 4096},
      {8192, 512, 4096},  {1024, 4096, 8192}, {4096, 1024, 8192},  {2048, 2048, 512},  {2048, 2048, 16384},
      {3000, 2000, 1000}, {5000, 3000, 2000}, {128, 4096, 4096},   {4096, 128, 4096},  {16, 4096, 4096},
      {768, 3072, 2048},  {768, 3072, 8192},  {3072, 768, 3152},   {2048, 2304, 768},  {4096, 2112, 7168},
      {1536, 1536, 32768}, {768, 768, 65536}};
  if (splits) {
    // Few tiles, long k: weight gradients over many tokens, decode, and a round or two of tiles.
    shapes = {{384, 384, 65536}, {768, 768, 65536},  {1024, 1024, 32768}, {768, 768, 8192},  {512, 576, 7168},
              {2304, 768, 8192}, {1536, 1536, 16384}, {768, 3072, 8192}, {128, 4096, 4096}, {16, 4096, 4096},
              {16, 6144, 4096},  {64, 8192, 8192},   {8, 4096, 65536}};
  }
  if (tail) {
    // Whole rounds of 128x128 tiles and a last round at most half full on 132 SMs (forward, backward
    // and weight-gradient shapes of the shape space among them), and large squares for contrast.
    shapes = {{2048, 2304, 768},  {8192, 576, 7168}, {576, 7168, 8192}, {3072, 1024, 4096}, {768, 3072, 2048},
              {3152, 768, 3072},  {3072, 768, 3152}, {1536, 1536, 1536}, {768, 3072, 8192}, {1536, 2560, 1024},
              {2048, 4096, 1024}, {4096, 2112, 7168}, {5000, 3000, 2000}, {3072, 3072, 3072}, {8192, 8192, 8192}};
  }
  if (decode) {
    // The decode class's weights (LLaMA-3 8B/70B, Mixtral, DeepSeek-V3, GPT-3, BERT) and narrow or
    // square ones, at 1, 4, 8, 12 and 16 tokens.
    shapes.clear();
    const Shape weights[] = {{0, 6144, 4096},  {0, 28672, 4096}, {0, 4096, 14336}, {0, 8192, 8192}, {0, 8192, 28672},
                             {0, 24576, 1536}, {0, 4096, 4096},  {0, 2048, 8192},  {0, 2048, 2048}, {0, 1024, 4096},
                             {0, 512, 8192},   {0, 14336, 4096}, {0, 4096, 11008}, {0, 11008, 4096}, {0, 3072, 768},
                             {0, 768, 3072},   {0, 7168, 2048},  {0, 5120, 5120},  {0, 16384, 16384}};
    for (int m : {1, 4, 8, 12, 16})
      for (const Shape& w : weights) shapes.push_back({m, w.n, w.k});
  }
  if (!only.empty()) shapes = only;
  if (short_k) {
    std::vector<Shape> grid;
    for (const Shape& c : std::vector<Shape>{{1024, 4096, 0}, {2048, 2048, 0}, {3152, 768, 0}, {4096, 4096, 0},
                                             {8192, 1536, 0}, {1536, 1536, 0}, {2048, 6144, 0}, {1000, 3000, 0},
                                             {8192, 8192, 0}, {4096, 1024, 0}})
      for (int k : {512, 768, 1024, 1536, 2048, 3072}) grid.push_back({c.m, c.n, k});
    const std::vector<const char*> names = {"128x256", "128x192", "128x128", "ping-pong"};
    Audit<bf16, gemm::Op::T> nt{"bf16 NT short k", names, only.empty() ? grid : only, reps};
    nt.run<Tuned::Hopper, Tuned::HopperBalanced, Tuned::HopperMedium, Tuned::HopperPingPong>(h);
    Audit<bf16> nn{"bf16 NN short k", names, only.empty() ? grid : only, reps};
    nn.run<Tuned::Hopper, Tuned::HopperBalanced, Tuned::HopperMedium, Tuned::HopperPingPong>(h);
    md += nt.md + nn.md;
  } else if (narrow) {
    using gemm::HopperPolicy, gemm::BlockTile, gemm::PersistentProducerConsumer, gemm::SwizzledRaster;
    using gemm::TmaStoreEpilogue, gemm::PackMisalignedOperands, gemm::HopperSplitK;
    std::vector<Shape> dec;
    for (int m : {16, 32, 64, 128})
      for (const Shape& w : std::vector<Shape>{{0, 6144, 4096}, {0, 8192, 8192}, {0, 24576, 1536}, {0, 4096, 14336},
                                               {0, 28672, 4096}, {0, 8192, 28672}})
        dec.push_back({m, w.n, w.k});
    using Tile64x64 = HopperPolicy<BlockTile<64, 64>, 12, PersistentProducerConsumer<1>, SwizzledRaster<8>,
                                   TmaStoreEpilogue, PackMisalignedOperands, HopperSplitK<16, 4, 4>>;
    // (TMA stores move 128-byte rows: 32 columns of bf16 store from registers.)
    using Tile64x32 = HopperPolicy<BlockTile<64, 32>, 16, PersistentProducerConsumer<1>, SwizzledRaster<8>,
                                   gemm::RegisterEpilogue, PackMisalignedOperands, HopperSplitK<16, 4, 4>>;
    Audit<bf16, gemm::Op::T> d{"bf16 NT decode tiles",
                               {"64x128", "64x64", "64x32", "128x64", "128x128", "ping-pong"},
                               only.empty() ? dec : only, reps};
    d.run<Tuned::HopperDecode, Tile64x64, Tile64x32, Tuned::HopperSmall, Tuned::HopperMedium, Tuned::HopperPingPong>(h);
    md += d.md;
    const std::vector<Shape> fwd = {{3152, 3072, 768}, {2048, 2304, 768},  {512, 576, 7168},  {2048, 768, 3072},
                                    {8192, 576, 7168}, {3152, 768, 3072},  {768, 3072, 2048}, {4096, 4096, 4096},
                                    {4096, 2112, 7168}, {2048, 2048, 512}, {8192, 8192, 1024}, {1024, 1024, 1024}};
    Audit<bf16, gemm::Op::T> f{"bf16 NT forward", {"128x256", "128x192", "128x128", "128x64", "ping-pong"},
                               only.empty() ? fwd : only, reps};
    f.run<Tuned::Hopper, Tuned::HopperBalanced, Tuned::HopperMedium, Tuned::HopperSmall, Tuned::HopperPingPong>(h);
    md += f.md;
  } else if (few_rows) {
    std::vector<Shape> grid;
    for (int m : {1, 2, 4, 8})
      for (const Shape& s : std::vector<Shape>{{0, 51, 2450},    {0, 378, 163},     {0, 1753, 163},  {0, 4282, 108},
                                               {0, 30, 3595},    {0, 89, 2786},     {0, 8191, 127},  {0, 1023, 4099},
                                               {0, 4097, 4095},  {0, 11003, 1021},  {0, 2049, 8191}, {0, 16383, 4095}})
        grid.push_back({m, s.n, s.k});
    using gemm::FewRowsPolicy;
    const std::vector<const char*> names = {"w32 l4", "w32 l4 s8", "w32 l8 s8", "w16 l8 s8", "mma.sync misaligned",
                                            "Tuned"};
    Audit<bf16> fr{"bf16 NN few rows, L2", names, only.empty() ? grid : only, reps};
    fr.run<FewRowsPolicy<8, 32, 4, 1>, FewRowsPolicy<8, 32, 4, 8>, FewRowsPolicy<8, 32, 8, 8>,
           FewRowsPolicy<8, 16, 8, 8>, Tuned::MmaMisaligned, Tuned>(h);
    Audit<bf16> cold{"bf16 NN few rows, HBM", names, only.empty() ? grid : only, reps};
    cold.cold = true;
    cold.run<FewRowsPolicy<8, 32, 4, 1>, FewRowsPolicy<8, 32, 4, 8>, FewRowsPolicy<8, 32, 8, 8>,
             FewRowsPolicy<8, 16, 8, 8>, Tuned::MmaMisaligned, Tuned>(h);
    md += fr.md + cold.md;
  } else if (small) {
    // Small and misaligned calls (the shape space's random class where Tuned trails cuBLAS most: odd
    // k or n, so rows TMA cannot read, and little work per call), A row-major, B either way: Tuned
    // the compositions it picks from on sm_90 (the wgmma tiles, which stage rows TMA cannot read in
    // aligned copies first) beside the mma.sync ones it runs on GPUs without wgmma (one launch, no
    // staged copies).
    const std::vector<Shape> nn = {{15514, 11, 13}, {7705, 4, 6956}, {8561, 4, 10692}, {1, 51, 2450}, {177, 30, 3595},
                                   {19, 89, 2786},  {306, 7638, 53}, {12468, 44, 16},  {4, 378, 163}, {5, 4282, 108},
                                   {3, 1753, 163},  {39, 4152, 930}, {3847, 9418, 461}};
    const std::vector<Shape> nt = {{431, 9355, 4},  {196, 4579, 14},  {428, 1958, 83},  {594, 20, 220},
                                   {81, 245, 4924}, {34, 28, 11122}, {102, 14, 12544}, {2029, 2, 6015},
                                   {4, 127, 14772}, {2732, 2014, 657}};
    const std::vector<const char*> names = {"mma.sync misaligned", "mma.sync 64x128", "64x128 wgmma", "128x64 wgmma",
                                            "128x128 wgmma", "128x256 wgmma"};
    Audit<bf16> sn{"bf16 NN small", names, only.empty() ? nn : only, reps};
    sn.run<Tuned::MmaMisaligned, Tuned::MmaSmall, Tuned::HopperDecode, Tuned::HopperSmall, Tuned::HopperMedium,
           Tuned::Hopper>(h);
    Audit<bf16, gemm::Op::T> st{"bf16 NT small", names, only.empty() ? nt : only, reps};
    st.run<Tuned::MmaMisaligned, Tuned::MmaSmall, Tuned::HopperDecode, Tuned::HopperSmall, Tuned::HopperMedium,
           Tuned::Hopper>(h);
    md += sn.md + st.md;
  } else if (decode) {
    // Tuned's composition (m <= 8), the same with two token tiles (m <= 16), other block shapes
    // (warps along k, pieces in flight, warps per SM), and the 64-row wgmma tile.
    using gemm::DecodePolicy;
    using gemm::mma::DecodeTile;
    Audit<bf16, gemm::Op::T> dec{
        "bf16 NT decode", {"Decode", "Decode m16", "16x2 w16", "8x4 w32", "16x4 w32", "64x128 wgmma"}, shapes, reps};
    dec.run<Tuned::Decode, DecodePolicy<DecodeTile<1, 1, 16, 4>, 2, 16>,
            DecodePolicy<DecodeTile<1, 1, 16, 2>, 2, 16>, DecodePolicy<DecodeTile<1, 1, 8, 4>, 2, 32>,
            DecodePolicy<DecodeTile<1, 1, 16, 4>, 2, 32>, Tuned::HopperDecode>(h);
    md += dec.md;
    // The tokens in B (n small) against a row-major A: B's rows (stored transposed, which Tuned takes)
    // and B's columns (row-major, which it does not), beside the wgmma tiles Tuned would run instead.
    const std::vector<Shape> few_n = {{4096, 8, 4096}, {14336, 1, 4096}, {4096, 1, 14336}, {28672, 8, 4096},
                                      {8192, 3, 8192},  {7705, 4, 6960},  {2048, 4, 2048},  {16384, 8, 16384}};
    Audit<bf16, gemm::Op::T> rows{
        "bf16 NT, tokens in B", {"Decode", "128x64 wgmma", "128x128 wgmma"}, only.empty() ? few_n : only, reps};
    rows.run<Tuned::Decode, Tuned::HopperSmall, Tuned::HopperMedium>(h);
    Audit<bf16> columns{
        "bf16 NN, tokens in B", {"Decode", "128x64 wgmma", "128x128 wgmma"}, only.empty() ? few_n : only, reps};
    columns.run<Tuned::Decode, Tuned::HopperSmall, Tuned::HopperMedium>(h);
    md += rows.md + columns.md;
  } else if (prop.major == 9 && fit_only) {
    md += fit(prop, reps);
  } else if (prop.major == 9 && fp8_turned_only) {
    md += fp8_turned(prop, reps);
  } else if (prop.major == 9 && fp8_two_rows_only) {
    md += fp8_two_rows(prop, reps);
  } else if (prop.major == 9 && splits) {
    using gemm::HopperFixedSplitK;
    using Whole = Tuned::HopperTile<128, 6>;
    Audit<bf16> wide{"bf16 128x128 slices", {"whole", "2", "3", "4", "6", "8", "12"}, shapes, reps};
    // (The separate fixup kernel at every count, as Tuned::HopperMedium's slices.)
    wide.run<Whole, Tuned::HopperTile<128, 6, HopperFixedSplitK<2, true>>,
             Tuned::HopperTile<128, 6, HopperFixedSplitK<3, true>>, Tuned::HopperTile<128, 6, HopperFixedSplitK<4, true>>,
             Tuned::HopperTile<128, 6, HopperFixedSplitK<6, true>>, Tuned::HopperTile<128, 6, HopperFixedSplitK<8, true>>,
             Tuned::HopperTile<128, 6, HopperFixedSplitK<12, true>>>(h);
    md += wide.md;
    Audit<bf16> low{"bf16 64x128 slices", {"whole", "2", "4", "8"}, shapes, reps};
    low.run<Tuned::HopperDecodeTile<gemm::NoSplitK>, Tuned::HopperDecodeTile<HopperFixedSplitK<2>>,
            Tuned::HopperDecodeTile<HopperFixedSplitK<4>>, Tuned::HopperDecodeTile<HopperFixedSplitK<8>>>(h);
    md += low.md;
  } else if (prop.major == 9 && tail) {
    Audit<bf16> t{"bf16 tail split",
                  {"128x256", "256x128", "128x192", "192x128", "128x128 whole", "128x128 tail split"}, shapes, reps};
    t.run<Tuned::Hopper, Tuned::HopperTall, Tuned::HopperBalanced, Tuned::HopperBalancedTall, Tuned::HopperTile<128, 6>,
          Tuned::HopperMedium>(h);
    md += t.md;
  } else if (prop.major == 9 && !fp32_only) {
    Audit<bf16> bf{"bf16", {"128x256", "256x128", "128x192", "192x128", "128x128", "128x64"}, shapes, reps};
    bf.run<Tuned::Hopper, Tuned::HopperTall, Tuned::HopperBalanced, Tuned::HopperBalancedTall, Tuned::HopperMedium,
           Tuned::HopperSmall>(h);
    md += bf.md;
  }
  if (!bf16_only && !splits && !tail && !fit_only && !decode && !small && !narrow && !short_k && !few_rows &&
      !fp8_turned_only && !fp8_two_rows_only) {
    // Strict fp32: cuBLAS in pedantic mode, as the benchmarks compare.
    cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
    // (PackedRows<P>: P on copies of the operands with aligned rows, where the rows are not.)
    using gemm::PackedRows;
    Audit<float> fp{"float",
                    {"Large", "LargeMisaligned", "LargeSplitK", "Small", "SmallSplitK", "Skinny", "Packed Large",
                     "Packed LargeSplitK", "Packed Small", "Packed SmallSplitK"},
                    shapes,
                    reps};
    fp.run<Tuned::Large, Tuned::LargeMisaligned, Tuned::LargeSplitK, Tuned::Small, Tuned::SmallSplitK, Tuned::Skinny,
           PackedRows<Tuned::Large>, PackedRows<Tuned::LargeSplitK>, PackedRows<Tuned::Small>,
           PackedRows<Tuned::SmallSplitK>>(h);
    md += fp.md;
  }
  std::printf("%s", md.c_str());
  if (out_path) {
    if (FILE* f = std::fopen(out_path, "w")) std::fputs(md.c_str(), f), std::fclose(f);
  }
  cublasDestroy(h);
  return 0;
}
