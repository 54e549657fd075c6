// The grouped GEMM rows of gemm_bench: gemm::gemm_grouped_contiguous and gemm::gemm_grouped_masked
// (grouped.cuh; bf16 A, B and C, alpha 1, beta 0) on mixture-of-experts workloads, and the same
// contiguous tokens as a host list of one problem per expert (gemm::gemm_grouped, grouped_list.cuh),
// beside cuBLAS's grouped GEMM on the same problems and one dense gemm::gemm of as many tokens, in the
// same run.
//
// Rows grouped/bf16/<contiguous|masked|list>/<workload>: A holds the tokens row-major (k wide), B one
// weight per expert stored n x k (PyTorch's layout, op_b T), C the tokens' outputs (n wide). Workloads
// (experts, tokens, n, k):
//   mixtral-up     8, 8192, 14336, 4096       mixtral-down   8, 8192, 4096, 14336
//   deepseek-up    256, 32768, 4096, 7168     deepseek-down  256, 32768, 7168, 2048
//   qwen3-up       128, 65536, 1536, 2048
//   mixtral-up-bias-gelu, deepseek-up-bias-gelu: those with a bias per expert and GELU fused
//                  (gemm::GroupedEpilogue), checked against cuBLAS's C put through them
//   deepseek-decode-down-max32 / -max64 (masked): 256 experts of up to 32 tokens each in slots of 32
//                  or 64 rows, n 7168, k 2048; deepseek-decode-down (contiguous): the same tokens packed
// Routing, seeded and fixed: Zipf-like weights (expert of rank r, in a seeded order, weighs
// (0.75 + 0.5 u) / (r + 1)^0.8), every 16th expert of that order (at least one) empty, the tokens
// apportioned by weight so that the counts are uneven and add up exactly; decode apportions 16 tokens
// an expert on average the same way and caps each expert at 32. Data from a device kernel
// (fill_uniform: DeepSeek's 256 weights are 15 GB).
//
// Each row first checks our C against cuBLAS's (max |C - C_cublas| / max |C_cublas|, within
// tolerance<Bf16>(), else the row fails), then times, per iteration, a batch of cuBLAS's grouped call,
// a batch of the dense call and a batch of ours back to back (CUDA events; batches of at least
// --gemm_batch_ms after about 20 ms of warm-up each), so that clock drift affects every ratio's two
// sides alike. Counters (medians over the iterations):
//   TFLOPS         ours: 2 tokens n k / time
//   pct_cublas     100 * cuBLAS's time / ours: cublasGemmGroupedBatchedEx, CUBLAS_COMPUTE_32F, bf16,
//                  its sizes and pointer arrays built on the host from the same routing (the experts
//                  with tokens, those with the same token count in one of its groups), each of our
//                  row-major products C_e = A_e B_e^T as the column-major C_e^T = B_e A_e^T
//   pct_dense      100 * the dense call's time / ours: gemm::gemm<bf16> (Tuned) of all the tokens
//                  against one expert's weight, same n and k (the same flops, one weight read)
//   pct_hbm        decode rows: 100 * (weights of the experts with tokens + A + C) / time, over the
//                  device's HBM bandwidth (memory clock x bus width x 2)
//   cublas_TFLOPS, dense_TFLOPS, max_rel_diff (against cuBLAS), batch
//
// FP8 rows grouped/<fp8_block|fp8_tensor>/<contiguous|masked>/<workload> (DeepSeek-V3's up and down,
// and its masked decode, in block scales; <workload>-never-promoted: tensor scales with
// Scales::promote_every(0), beside our dense call the same way and cuBLASLt's fast accumulation):
// e4m3 tokens and weights (fill_fp8), C bf16, the scales of
// the mode in the grouped layouts (grouped.cuh). Checked first at 4096 sampled elements against fp32
// sums of the dequantized products on the device (max difference within 2^-7 of the largest). cuBLAS
// has no grouped FP8 GEMM, so no pct_cublas: pct_dense is against our dense FP8 call
// (gemm::gemm<__nv_fp8_e4m3>, Tuned, the same mode) of all the tokens against one weight, and
// pct_cublaslt_dense (cublaslt_dense_TFLOPS) against cuBLASLt's dense FP8 call in the same mode over
// the same tokens, each timed just before ours.
#include "bench_common.cuh"
#include "cublaslt_fp8.cuh"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

namespace gemm_bench {
namespace {

using bf16 = __nv_bfloat16;

// ===========================================================================
// Workloads and routing
// ===========================================================================
struct Workload {
  std::string name;
  int experts = 0;
  int tokens = 0;  // prefill: tokens routed in all; decode: 0 (the routing decides)
  int n = 0, k = 0;
  int most = 0;    // decode: the most tokens an expert gets
};

// One row: a workload in one form (masked: slots of max_rows rows an expert; list: the contiguous
// layout as one host-side problem per expert).
struct GroupedRecord {
  std::string name;
  Workload w;
  bool masked = false;
  bool list = false;
  bool fp8 = false;  // e4m3 with scales of `mode` (the FP8 rows)
  bool fused = false;  // a bias per expert and GELU fused (gemm::GroupedEpilogue; bf16 contiguous rows)
  gemm::ScaleMode mode = gemm::ScaleMode::Block;
  int promote_k = gemm::kScaleBlock;  // FP8: Scales::promote_every (0: never, on both sides)
  int max_rows = 0;
  std::string error, cublas_note, routing;
  double tokens = 0, flops = 0, bytes = 0;
  double ours_s = std::nan(""), cublas_s = std::nan(""), dense_s = std::nan("");
  double pct_cublas = std::nan(""), pct_dense = std::nan(""), pct_hbm = std::nan(""), diff = std::nan("");
  double lt_s = std::nan(""), pct_lt = std::nan("");  // FP8: cuBLASLt's dense call in the same mode
  bool decode() const { return w.most > 0; }
};

// Tokens per expert: Zipf-like weights over a seeded order of the experts, every 16th of that order
// (the last, with fewer than 16) empty, `tokens` apportioned by largest remainders.
std::vector<int> route(int experts, int tokens, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<int> order(experts);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), g);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> w(experts, 0.0);
  for (int r = 0; r < experts; ++r) {
    const bool empty = r % 16 == 15 || (experts < 16 && r == experts - 1);
    const double jitter = 0.75 + 0.5 * u(g);
    w[order[r]] = empty ? 0.0 : jitter / std::pow(r + 1.0, 0.8);
  }
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<int> counts(experts);
  std::vector<std::pair<double, int>> rest;
  long long given = 0;
  for (int e = 0; e < experts; ++e) {
    const double exact = tokens * w[e] / total;
    counts[e] = static_cast<int>(std::floor(exact));
    given += counts[e];
    if (w[e] > 0) rest.emplace_back(exact - counts[e], e);
  }
  std::sort(rest.begin(), rest.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (std::size_t i = 0; given < tokens; i = (i + 1) % rest.size(), ++given) ++counts[rest[i].second];
  return counts;
}

std::vector<int> route_of(const Workload& w) {
  const std::uint64_t seed = splitmix64((std::uint64_t(w.experts) << 40) ^ (std::uint64_t(w.n) << 20) ^ w.k);
  if (w.most == 0) return route(w.experts, w.tokens, seed);
  std::vector<int> c = route(w.experts, w.experts * w.most / 2, seed);
  for (int& x : c) x = std::min(x, w.most);
  return c;
}

// ===========================================================================
// cuBLAS's grouped GEMM
// ===========================================================================
cublasHandle_t grouped_cublas_handle() {
  static cublasHandle_t h = nullptr;
  if (!h) GEMM_BENCH_CUBLAS(cublasCreate(&h));
  return h;
}

// The arguments of one cublasGemmGroupedBatchedEx call: host arrays per cuBLAS group (problems of one
// size), device arrays of pointers per problem, in group order.
struct CublasGrouped {
  std::vector<cublasOperation_t> ta, tb;
  std::vector<int> m, n, k, lda, ldb, ldc, size;
  std::vector<float> alpha, beta;
  const void** a = nullptr;  // device: cuBLAS's A (our weight), B (our tokens), C per problem
  const void** b = nullptr;
  void** c = nullptr;
  int groups = 0;

  cublasStatus_t run() const {
    return cublasGemmGroupedBatchedEx(grouped_cublas_handle(), ta.data(), tb.data(), m.data(), n.data(), k.data(),
                                      alpha.data(), a, CUDA_R_16BF, lda.data(), b, CUDA_R_16BF, ldb.data(),
                                      beta.data(), c, CUDA_R_16BF, ldc.data(), groups, size.data(),
                                      CUBLAS_COMPUTE_32F);
  }
  void release() {
    if (a) cudaFree(a);
    if (b) cudaFree(b);
    if (c) cudaFree(c);
    a = b = nullptr;
    c = nullptr;
  }
};

// The fused rows' reference: cuBLAS's C (contiguous rows, n wide) through the bias of each row's expert
// and gemm::act::GeluTanh, in float, rounded to bf16 as ours is.
__global__ void bias_gelu_kernel(bf16* c, const float* bias, const int* offsets, int experts, long long rows, int n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < rows * n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = i / n;
    int lo = 0, hi = experts;  // the expert with offsets[e] <= r < offsets[e + 1]
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (offsets[mid] <= r) lo = mid;
      else hi = mid;
    }
    const float v = __bfloat162float(c[i]) + bias[static_cast<long long>(lo) * n + i % n];
    c[i] = __float2bfloat16(gemm::act::GeluTanh{}(v));
  }
}

// ===========================================================================
// Workspace of one row
// ===========================================================================
struct GroupedWorkspace {
  std::string key;
  Workload w;
  bool masked = false;
  int max_rows = 0;      // rows of A and C (contiguous: the tokens) or of each slot (masked)
  std::vector<int> counts;
  int tokens = 0, with_tokens = 0;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  std::size_t a_elems = 0, b_elems = 0, c_elems = 0;
  bf16 *A = nullptr, *B = nullptr, *C = nullptr, *C_cublas = nullptr;
  int* rows = nullptr;  // offsets (contiguous) or counts (masked) on the device
  float* bias = nullptr;  // experts x n: the fused rows' bias per expert
  std::vector<gemm::GroupedProblem<bf16>> problems;  // contiguous: one per expert, as the host list form takes them
  CublasGrouped cublas;

  GroupedWorkspace(const Workload& wl, bool is_masked, int slot) : w(wl), masked(is_masked) {
    counts = route_of(w);
    tokens = std::accumulate(counts.begin(), counts.end(), 0);
    for (int c : counts) with_tokens += c > 0;
    max_rows = masked ? slot : tokens;
    const int e = w.experts;
    stride_a = masked ? static_cast<long long>(max_rows) * w.k : 0;
    stride_b = static_cast<long long>(w.n) * w.k;
    stride_c = masked ? static_cast<long long>(max_rows) * w.n : 0;
    a_elems = std::size_t(masked ? e : 1) * max_rows * w.k;
    b_elems = std::size_t(e) * stride_b;
    c_elems = std::size_t(masked ? e : 1) * max_rows * w.n;
    const double need = double(a_elems + b_elems + 2 * c_elems) * sizeof(bf16);
    std::size_t free_b = 0, total_b = 0;
    GEMM_BENCH_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (need > 0.95 * double(free_b))
      throw Error(fmt("needs %.1f GB of device memory, %.1f GB free", need * 1e-9, double(free_b) * 1e-9));
    try {
      GEMM_BENCH_CUDA(cudaMalloc(&A, a_elems * sizeof(bf16)));
      GEMM_BENCH_CUDA(cudaMalloc(&B, b_elems * sizeof(bf16)));
      GEMM_BENCH_CUDA(cudaMalloc(&C, c_elems * sizeof(bf16)));
      GEMM_BENCH_CUDA(cudaMalloc(&C_cublas, c_elems * sizeof(bf16)));
      GEMM_BENCH_CUDA(cudaMalloc(&rows, (e + 1) * sizeof(int)));
      GEMM_BENCH_CUDA(cudaMalloc(&bias, std::size_t(e) * w.n * sizeof(float)));
      const std::uint64_t seed = splitmix64((std::uint64_t(0x6E) << 56) ^ (std::uint64_t(w.n) << 20) ^ w.k);
      fill_uniform(A, a_elems, seed);
      fill_uniform(B, b_elems, splitmix64(seed));
      fill_uniform(bias, std::size_t(e) * w.n, splitmix64(seed + 3));
      std::vector<int> host_rows = counts;
      if (!masked) {
        host_rows.assign(e + 1, 0);
        for (int g = 0; g < e; ++g) host_rows[g + 1] = host_rows[g] + counts[g];
      }
      GEMM_BENCH_CUDA(cudaMemcpy(rows, host_rows.data(), host_rows.size() * sizeof(int), cudaMemcpyHostToDevice));
      if (!masked) {
        for (int g = 0; g < e; ++g)
          problems.push_back({gemm::Op::N, gemm::Op::T, counts[g], w.n, w.k, 1.0f, A + a_at(g, host_rows[g]), w.k,
                              B + std::size_t(g) * stride_b, w.k, 0.0f, C + c_at(g, host_rows[g]), w.n});
      }
      prepare_cublas();
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    } catch (...) {
      release();
      throw;
    }
  }
  ~GroupedWorkspace() { release(); }
  void release() {
    for (void* p : {static_cast<void*>(A), static_cast<void*>(B), static_cast<void*>(C), static_cast<void*>(C_cublas),
                    static_cast<void*>(rows), static_cast<void*>(bias)})
      if (p) cudaFree(p);
    A = B = C = C_cublas = nullptr;
    rows = nullptr;
    bias = nullptr;
    cublas.release();
  }

  void bias_gelu_on_cublas() const {
    bias_gelu_kernel<<<1024, 256>>>(C_cublas, bias, rows, w.experts, tokens, w.n);
    GEMM_BENCH_CUDA(cudaDeviceSynchronize());
  }

  // Expert g's first row of A and C (contiguous), or its slot's.
  std::size_t a_at(int g, long long first_row) const {
    return masked ? std::size_t(g) * stride_a : std::size_t(first_row) * w.k;
  }
  std::size_t c_at(int g, long long first_row) const {
    return masked ? std::size_t(g) * stride_c : std::size_t(first_row) * w.n;
  }

  // Row-major C_e (count x n) = A_e (count x k) B_e^T (B_e stored n x k) is column-major
  // C_e^T (n x count, ldc n) = B_e (read as the transpose of its column-major k x n storage: OP_T,
  // lda k) A_e^T (column-major k x count: OP_N, ldb k). Experts with the same count share a group.
  void prepare_cublas() {
    std::map<int, std::vector<int>> by_count;  // count -> experts
    std::vector<long long> first(w.experts, 0);
    for (int g = 0, r = 0; g < w.experts; r += counts[g], ++g) {
      first[g] = r;
      if (counts[g] > 0) by_count[counts[g]].push_back(g);
    }
    std::vector<const void*> pa, pb;
    std::vector<void*> pc;
    for (const auto& [count, experts] : by_count) {
      cublas.ta.push_back(CUBLAS_OP_T);
      cublas.tb.push_back(CUBLAS_OP_N);
      cublas.m.push_back(w.n);
      cublas.n.push_back(count);
      cublas.k.push_back(w.k);
      cublas.lda.push_back(w.k);
      cublas.ldb.push_back(w.k);
      cublas.ldc.push_back(w.n);
      cublas.size.push_back(static_cast<int>(experts.size()));
      cublas.alpha.push_back(1.0f);
      cublas.beta.push_back(0.0f);
      for (int g : experts) {
        pa.push_back(B + std::size_t(g) * stride_b);
        pb.push_back(A + a_at(g, first[g]));
        pc.push_back(C_cublas + c_at(g, first[g]));
      }
    }
    cublas.groups = static_cast<int>(by_count.size());
    const std::size_t problems = pa.size();
    GEMM_BENCH_CUDA(cudaMalloc(&cublas.a, std::max<std::size_t>(problems, 1) * sizeof(void*)));
    GEMM_BENCH_CUDA(cudaMalloc(&cublas.b, std::max<std::size_t>(problems, 1) * sizeof(void*)));
    GEMM_BENCH_CUDA(cudaMalloc(&cublas.c, std::max<std::size_t>(problems, 1) * sizeof(void*)));
    GEMM_BENCH_CUDA(cudaMemcpy(cublas.a, pa.data(), problems * sizeof(void*), cudaMemcpyHostToDevice));
    GEMM_BENCH_CUDA(cudaMemcpy(cublas.b, pb.data(), problems * sizeof(void*), cudaMemcpyHostToDevice));
    GEMM_BENCH_CUDA(cudaMemcpy(cublas.c, pc.data(), problems * sizeof(void*), cudaMemcpyHostToDevice));
  }

  gemm::Status ours(bool list, bool fused = false) const {
    if (list) return gemm::gemm_grouped(problems.data(), static_cast<int>(problems.size()), 0);
    if (fused)
      return gemm::gemm_grouped_contiguous<bf16>(gemm::Op::T, w.experts, max_rows, w.n, w.k, 1.0f, A, w.k, B, w.k,
                                                 stride_b, 0.0f, C, w.n, rows,
                                                 gemm::GroupedEpilogue<gemm::act::GeluTanh>{bias, gemm::BiasKind::PerColumn},
                                                 0);
    if (!masked)
      return gemm::gemm_grouped_contiguous<bf16>(gemm::Op::T, w.experts, max_rows, w.n, w.k, 1.0f, A, w.k, B, w.k,
                                                 stride_b, 0.0f, C, w.n, rows, 0);
    return gemm::gemm_grouped_masked<bf16>(gemm::Op::T, w.experts, max_rows, w.n, w.k, 1.0f, A, w.k, stride_a, B, w.k,
                                           stride_b, 0.0f, C, w.n, stride_c, rows, 0);
  }
  // All the tokens (the first `tokens` rows of A, consecutive in either form) against expert 0's
  // weight, into cuBLAS's C.
  gemm::Status dense() const {
    return gemm::gemm<bf16>(gemm::Op::N, gemm::Op::T, tokens, w.n, w.k, 1.0f, A, w.k, B, w.k, 0.0f, C_cublas, w.n, 0);
  }

  std::string routing() const {
    int lo = 0, hi = 0;
    bool any = false;
    for (int c : counts)
      if (c > 0) lo = any ? std::min(lo, c) : c, hi = std::max(hi, c), any = true;
    return fmt("%d experts (%d empty), %d tokens, %d..%d an expert%s", w.experts, w.experts - with_tokens, tokens, lo,
               hi, masked ? fmt(", slots of %d rows", max_rows).c_str() : "");
  }
};

std::unique_ptr<GroupedWorkspace> g_grouped_workspace;

GroupedWorkspace& grouped_workspace(const GroupedRecord& r) {
  // (A workload's contiguous and list rows share one workspace.)
  const std::string key = r.w.name + (r.masked ? fmt("/masked%d", r.max_rows) : std::string());
  if (!g_grouped_workspace || g_grouped_workspace->key != key) {
    g_grouped_workspace.reset();  // the previous row's buffers first,
    release_workspace();          // and those of the rows of other families, which ran before
    release_fp8_workspace();
    g_grouped_workspace = std::make_unique<GroupedWorkspace>(r.w, r.masked, r.max_rows);
    g_grouped_workspace->key = key;
  }
  return *g_grouped_workspace;
}

// ===========================================================================
// Timing
// ===========================================================================

std::string gemm_error(const char* what, gemm::Status st) {
  std::string e = std::string(what) + " failed: " + gemm::to_string(st);
  if (gemm::last_cuda_error() != cudaSuccess)
    e += std::string(" [") + cudaGetErrorName(gemm::last_cuda_error()) + ": " +
         cudaGetErrorString(gemm::last_cuda_error()) + "]";
  return e;
}

// A launch for time_launches: a call that returns a gemm::Status, its failure named `what`.
template <class Call>
auto gemm_launch(Call call, const char* what) {
  return [call, what](std::string* e) {
    const gemm::Status st = call();
    if (st == gemm::Status::Success) return true;
    *e = gemm_error(what, st);
    return false;
  };
}

// The device's HBM bandwidth in bytes/s: memory clock (kHz) x bus width (bits) / 8 x 2 (double data rate).
double hbm_bytes_per_s() {
  static double bw = -1;
  if (bw < 0) {
    int dev = 0, clock_khz = 0, bus_bits = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
    cudaGetLastError();
    bw = double(clock_khz) * 1e3 * (bus_bits / 8.0) * 2.0;
  }
  return bw;
}

// The timed part of a row: per iteration a batch of the baseline `other` (cuBLAS's grouped call, or
// cuBLASLt's dense one; dropped from the iteration it fails, its error in r->cublas_note), a batch of
// the dense call and a batch of ours, back to back, so that clock drift affects each ratio's two sides
// alike. Sets r's times and ratios to dense; the baseline's median time and ratio go to *other_s and
// *pct_other (NaN without it). Returns the batch of ours, or 0 where the row failed (r->error says why).
template <class Ours, class Dense, class Other>
int time_row(benchmark::State& state, GroupedRecord* r, const Options* opt, Ours&& launch_ours, Dense&& launch_dense,
             Other&& launch_other, bool with_other, double* other_s, double* pct_other) {
  auto fail = [&](const std::string& msg) {
    if (r->error.empty()) r->error = r->name + ": " + msg;
    state.SkipWithError(r->error.c_str());
    return 0;
  };
  std::string err;
  const double target_s = opt->batch_ms * 1e-3;
  const int batch = calibrate_launches(target_s, launch_ours, &err);
  if (!err.empty()) return fail(err);
  const int dense_batch = calibrate_launches(target_s, launch_dense, &err);
  if (!err.empty()) return fail(err);
  int other_batch = with_other ? calibrate_launches(target_s, launch_other, &err) : 0;
  if (!err.empty()) r->cublas_note = err, err.clear(), other_batch = 0;

  std::vector<double> ours_t, dense_t, other_t, pct_o, pct_d;
  for (auto _ : state) {
    double o = std::nan("");
    if (other_batch > 0) {
      o = time_launches(other_batch, launch_other, &err) / other_batch;
      if (!err.empty()) r->cublas_note = err, err.clear(), other_batch = 0, o = std::nan("");
    }
    const double d = time_launches(dense_batch, launch_dense, &err) / dense_batch;
    if (!err.empty()) return fail(err);
    const double t = time_launches(batch, launch_ours, &err) / batch;
    if (!err.empty()) return fail(err);
    ours_t.push_back(t);
    dense_t.push_back(d);
    pct_d.push_back(100.0 * d / t);
    if (!std::isnan(o)) other_t.push_back(o), pct_o.push_back(100.0 * o / t);
    state.SetIterationTime(t);
  }
  if (const gemm::Status st = gemm::grouped_status(); st != gemm::Status::Success)
    return fail(std::string(gemm::to_string(st)) + " after the timed calls");
  r->ours_s = median(ours_t);
  r->dense_s = median(dense_t);
  r->pct_dense = median(pct_d);
  *other_s = pct_o.empty() ? std::nan("") : median(other_t);
  *pct_other = pct_o.empty() ? std::nan("") : median(pct_o);
  state.counters["TFLOPS"] = r->flops / r->ours_s * 1e-12;
  state.counters["dense_TFLOPS"] = r->flops / r->dense_s * 1e-12;
  state.counters["pct_dense"] = r->pct_dense;
  if (r->decode() && hbm_bytes_per_s() > 0) {
    r->pct_hbm = 100.0 * r->bytes / r->ours_s / hbm_bytes_per_s();
    state.counters["pct_hbm"] = r->pct_hbm;
  }
  state.counters["batch"] = batch;
  return batch;
}

void run_grouped_row(benchmark::State& state, GroupedRecord* r, const Options* opt) {
  auto fail = [&](const std::string& msg) {
    if (r->error.empty()) r->error = msg;
    state.SkipWithError(r->error.c_str());
  };
  if (!r->error.empty()) return fail(r->error);
  std::string why;
  if (!sm90_device("grouped GEMM needs an sm_90 GPU", &why)) return fail(r->name + ": " + why);
  try {
    GroupedWorkspace& ws = grouped_workspace(*r);
    const Workload& w = ws.w;
    r->routing = ws.routing();
    r->tokens = ws.tokens;
    r->flops = 2.0 * ws.tokens * double(w.n) * w.k;
    r->bytes = (double(ws.with_tokens) * w.n * w.k + double(ws.tokens) * (w.k + w.n)) * sizeof(bf16);

    // Check against cuBLAS first. Both C start as zeros: rows past a slot's count stay zero in both
    // (and so do not set the scale of the comparison), a row of a group that one side leaves
    // unwritten differs by its whole value.
    GEMM_BENCH_CUDA(cudaMemset(ws.C, 0, ws.c_elems * sizeof(bf16)));
    GEMM_BENCH_CUDA(cudaMemset(ws.C_cublas, 0, ws.c_elems * sizeof(bf16)));
    if (const gemm::Status st = ws.ours(r->list, r->fused); st != gemm::Status::Success)
      return fail(r->name + ": " + gemm_error("the grouped call", st));
    if (const gemm::Status st = gemm::grouped_status(); st != gemm::Status::Success)
      return fail(r->name + ": " + gemm::to_string(st) + " after a call with the routing's own offsets or counts");
    bool with_cublas = ws.cublas.groups > 0;
    if (with_cublas) {
      const cublasStatus_t st = ws.cublas.run();
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
      if (st != CUBLAS_STATUS_SUCCESS) {
        with_cublas = false;
        r->cublas_note = std::string("cublasGemmGroupedBatchedEx returned ") + cublasGetStatusName(st);
      } else {
        if (r->fused) ws.bias_gelu_on_cublas();
        const Comparison c = compare_device(ws.C, ws.C_cublas, ws.c_elems);
        r->diff = c.nonfinite ? INFINITY : c.rel();
        if (c.nonfinite) return fail(r->name + fmt(": wrong result: %llu NaN/Inf elements", c.nonfinite));
        if (!(c.max_abs_ref > 0)) return fail(r->name + ": cuBLAS's C is all zeros: nothing to compare with");
        if (!(c.rel() <= tolerance<Bf16>()))
          return fail(r->name + fmt(": wrong result: max rel difference %.3e from cuBLAS (tolerance %.0e)", c.rel(),
                                    tolerance<Bf16>()));
      }
    }

    auto launch_ours = gemm_launch([&] { return ws.ours(r->list, r->fused); }, "the grouped call");
    auto launch_dense = gemm_launch([&] { return ws.dense(); }, "the dense call");
    auto launch_cublas = [&](std::string* e) {
      const cublasStatus_t st = ws.cublas.run();
      if (st == CUBLAS_STATUS_SUCCESS) return true;
      *e = std::string("cublasGemmGroupedBatchedEx returned ") + cublasGetStatusName(st);
      return false;
    };
    if (time_row(state, r, opt, launch_ours, launch_dense, launch_cublas, with_cublas, &r->cublas_s,
                 &r->pct_cublas) == 0)
      return;
    if (!std::isnan(r->pct_cublas)) {
      state.counters["cublas_TFLOPS"] = r->flops / r->cublas_s * 1e-12;
      state.counters["pct_cublas"] = r->pct_cublas;
    }
    if (!std::isnan(r->diff)) state.counters["max_rel_diff"] = r->diff;
    state.SetLabel(r->cublas_note.empty() ? r->routing : r->routing + " | " + r->cublas_note);
  } catch (const std::exception& e) {
    fail(r->name + ": " + e.what());
  }
}

// ===========================================================================
// FP8 rows
// ===========================================================================
using fp8 = __nv_fp8_e4m3;

// One thread per sampled element of C: the fp32 sum of the dequantized products of its row of A and
// its group's weight, with the grouped layouts of the scales (grouped.cuh).
__global__ void fp8_grouped_sample_kernel(const fp8* A, const fp8* B, const float* sa, const float* sb,
                                          gemm::ScaleMode mode, const int* s_group, const int* s_row,
                                          const int* s_col, int samples, bool masked, int max_rows, int n, int k,
                                          long long stride_a, long long stride_b, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= samples) return;
  const int g = s_group[i], r = s_row[i], j = s_col[i];
  const long long kb_n = (k + 127) / 128, nb_n = (n + 127) / 128;
  const fp8* a = A + (masked ? g * stride_a : 0) + static_cast<long long>(r) * k;
  const fp8* b = B + g * stride_b + static_cast<long long>(j) * k;
  float sum = 0;
  for (int p = 0; p < k; ++p) {
    float s = 1;
    if (mode == gemm::ScaleMode::Tensor) {
      s = sa[0] * sb[g];
    } else {  // Block (the rows benchmarked)
      const long long kb = p / 128;
      const float s_a = masked ? sa[(g * kb_n + kb) * max_rows + r] : sa[kb * max_rows + r];
      s = s_a * sb[(g * nb_n + j / 128) * kb_n + kb];
    }
    sum += static_cast<float>(a[p]) * static_cast<float>(b[p]) * s;
  }
  out[i] = sum;
}

// The buffers of an FP8 row: e4m3 tokens and weights, the scales of the mode in the grouped layouts,
// C, the dense calls' C, and cuBLASLt's dense call prepared in the same mode.
struct Fp8GroupedWorkspace {
  std::string key;
  Workload w;
  bool masked = false;
  gemm::ScaleMode mode = gemm::ScaleMode::Block;
  int promote_k = gemm::kScaleBlock;
  int max_rows = 0, tokens = 0, with_tokens = 0;
  std::vector<int> counts, host_rows;
  long long stride_a = 0, stride_b = 0, stride_c = 0, na = 0, nb = 0;
  std::size_t a_elems = 0, b_elems = 0, c_elems = 0;
  fp8 *A = nullptr, *B = nullptr;
  bf16 *C = nullptr, *C_dense = nullptr;
  float *sa = nullptr, *sb = nullptr;
  int* rows = nullptr;
  CublasLtFp8<bf16> lt;
  bool lt_ready = false;

  Fp8GroupedWorkspace(const Workload& wl, bool is_masked, int slot, gemm::ScaleMode m, int promote)
      : w(wl), masked(is_masked), mode(m), promote_k(promote) {
    counts = route_of(w);
    tokens = std::accumulate(counts.begin(), counts.end(), 0);
    for (int c : counts) with_tokens += c > 0;
    max_rows = masked ? slot : tokens;
    const int e = w.experts;
    stride_a = masked ? static_cast<long long>(max_rows) * w.k : 0;
    stride_b = static_cast<long long>(w.n) * w.k;
    stride_c = masked ? static_cast<long long>(max_rows) * w.n : 0;
    a_elems = std::size_t(masked ? e : 1) * max_rows * w.k;
    b_elems = std::size_t(e) * stride_b;
    c_elems = std::size_t(masked ? e : 1) * max_rows * w.n;
    const int a_rows = (masked ? e : 1) * max_rows;
    na = gemm::Scales::needed_a(mode, a_rows, w.k);
    nb = e * gemm::Scales::needed_b(mode, w.n, w.k);
    try {
      GEMM_BENCH_CUDA(cudaMalloc(&A, a_elems));
      GEMM_BENCH_CUDA(cudaMalloc(&B, b_elems));
      GEMM_BENCH_CUDA(cudaMalloc(&C, c_elems * sizeof(bf16)));
      GEMM_BENCH_CUDA(cudaMalloc(&C_dense, c_elems * sizeof(bf16)));
      GEMM_BENCH_CUDA(cudaMalloc(&sa, na * sizeof(float)));
      GEMM_BENCH_CUDA(cudaMalloc(&sb, nb * sizeof(float)));
      GEMM_BENCH_CUDA(cudaMalloc(&rows, (e + 1) * sizeof(int)));
      const std::uint64_t seed = splitmix64((std::uint64_t(0xF8) << 56) ^ (std::uint64_t(w.n) << 20) ^ w.k);
      fill_fp8(A, a_elems, seed);
      fill_fp8(B, b_elems, splitmix64(seed));
      fill_fp8_scales(sa, na, splitmix64(seed + 1));
      fill_fp8_scales(sb, nb, splitmix64(seed + 2));
      host_rows = counts;
      if (!masked) {
        host_rows.assign(e + 1, 0);
        for (int g = 0; g < e; ++g) host_rows[g + 1] = host_rows[g] + counts[g];
      }
      GEMM_BENCH_CUDA(cudaMemcpy(rows, host_rows.data(), host_rows.size() * sizeof(int), cudaMemcpyHostToDevice));
      if (lt.prepare(tokens, w.n, w.k, w.k, w.k, w.n, dense_scales(), promote_k == 0) == LtStatus::CudaError)
        throw Error(lt.message());
      lt_ready = lt.ready();
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    } catch (...) {
      release();
      throw;
    }
  }
  ~Fp8GroupedWorkspace() { release(); }
  void release() {
    for (void* p : {static_cast<void*>(A), static_cast<void*>(B), static_cast<void*>(C), static_cast<void*>(C_dense),
                    static_cast<void*>(sa), static_cast<void*>(sb), static_cast<void*>(rows)})
      if (p) cudaFree(p);
    A = B = nullptr;
    C = C_dense = nullptr;
    sa = sb = nullptr;
    rows = nullptr;
  }

  gemm::Scales scales() const {
    gemm::Scales s = mode == gemm::ScaleMode::Tensor ? gemm::Scales::tensor(sa, sb) : gemm::Scales::block(sa, na, sb, nb);
    s.b_count = nb;  // (per tensor: one per weight)
    return s.promote_every(promote_k);
  }
  // The dense calls' scales: all the tokens' (the first `tokens` rows of A's) and expert 0's weight's.
  gemm::Scales dense_scales() const {
    if (mode == gemm::ScaleMode::Tensor) return gemm::Scales::tensor(sa, sb).promote_every(promote_k);
    return gemm::Scales::block(sa, gemm::Scales::needed_a(mode, tokens, w.k), sb,
                               gemm::Scales::needed_b(mode, w.n, w.k));
  }
  gemm::Status ours() const {
    if (!masked)
      return gemm::gemm_grouped_contiguous<fp8>(gemm::Op::T, w.experts, max_rows, w.n, w.k, 1.0f, A, w.k, B, w.k,
                                                stride_b, 0.0f, C, w.n, rows, scales(), 0);
    return gemm::gemm_grouped_masked<fp8>(gemm::Op::T, w.experts, max_rows, w.n, w.k, 1.0f, A, w.k, stride_a, B, w.k,
                                          stride_b, 0.0f, C, w.n, stride_c, rows, scales(), 0);
  }
  gemm::Status dense() const { return tuned_fp8_nt(tokens, w.n, w.k, A, B, C_dense, dense_scales()); }

  // Our C at 4096 sampled elements of the groups' rows against fp32 sums on the device: max |C -
  // ref| / max |ref|.
  double sampled_difference() const {
    std::mt19937_64 g(0x5A);
    std::vector<int> sg, sr, sc;
    for (int i = 0; i < 4096; ++i) {
      int e = 0;
      do e = static_cast<int>(g() % w.experts); while (counts[e] == 0);
      const int first = masked ? 0 : host_rows[e];
      sg.push_back(e);
      sr.push_back(first + static_cast<int>(g() % counts[e]));
      sc.push_back(static_cast<int>(g() % w.n));
    }
    const int n_s = static_cast<int>(sg.size());
    int* d = nullptr;
    float* ref = nullptr;
    GEMM_BENCH_CUDA(cudaMalloc(&d, 3 * n_s * sizeof(int)));
    GEMM_BENCH_CUDA(cudaMalloc(&ref, n_s * sizeof(float)));
    GEMM_BENCH_CUDA(cudaMemcpy(d, sg.data(), n_s * sizeof(int), cudaMemcpyHostToDevice));
    GEMM_BENCH_CUDA(cudaMemcpy(d + n_s, sr.data(), n_s * sizeof(int), cudaMemcpyHostToDevice));
    GEMM_BENCH_CUDA(cudaMemcpy(d + 2 * n_s, sc.data(), n_s * sizeof(int), cudaMemcpyHostToDevice));
    fp8_grouped_sample_kernel<<<(n_s + 127) / 128, 128>>>(A, B, sa, sb, mode, d, d + n_s, d + 2 * n_s, n_s, masked,
                                                          max_rows, w.n, w.k, stride_a, stride_b, ref);
    std::vector<float> want(n_s);
    std::vector<bf16> c(c_elems);
    GEMM_BENCH_CUDA(cudaMemcpy(want.data(), ref, n_s * sizeof(float), cudaMemcpyDeviceToHost));
    GEMM_BENCH_CUDA(cudaMemcpy(c.data(), C, c_elems * sizeof(bf16), cudaMemcpyDeviceToHost));
    cudaFree(d);
    cudaFree(ref);
    double most = 0, worst = 0;
    for (int i = 0; i < n_s; ++i) {
      const std::size_t at = (masked ? std::size_t(sg[i]) * stride_c : 0) + std::size_t(sr[i]) * w.n + sc[i];
      const double got = __bfloat162float(c[at]);
      if (!std::isfinite(got)) return INFINITY;
      most = std::max(most, std::fabs(double(want[i])));
      worst = std::max(worst, std::fabs(got - want[i]));
    }
    return most > 0 ? worst / most : INFINITY;
  }

  std::string routing() const {
    int lo = 0, hi = 0;
    bool any = false;
    for (int c : counts)
      if (c > 0) lo = any ? std::min(lo, c) : c, hi = std::max(hi, c), any = true;
    return fmt("%d experts (%d empty), %d tokens, %d..%d an expert%s, %s scales%s", w.experts,
               w.experts - with_tokens, tokens, lo, hi, masked ? fmt(", slots of %d rows", max_rows).c_str() : "",
               gemm::to_string(mode), promote_k == 0 ? ", never promoted" : "");
  }
};

std::unique_ptr<Fp8GroupedWorkspace> g_fp8_grouped_workspace;

Fp8GroupedWorkspace& fp8_grouped_workspace(const GroupedRecord& r) {
  const std::string key = r.w.name + (r.masked ? fmt("/masked%d", r.max_rows) : std::string()) + "/" +
                          gemm::to_string(r.mode) + fmt("/%d", r.promote_k);
  if (!g_fp8_grouped_workspace || g_fp8_grouped_workspace->key != key) {
    g_fp8_grouped_workspace.reset();
    g_grouped_workspace.reset();
    release_workspace();
    release_fp8_workspace();
    g_fp8_grouped_workspace = std::make_unique<Fp8GroupedWorkspace>(r.w, r.masked, r.max_rows, r.mode, r.promote_k);
    g_fp8_grouped_workspace->key = key;
  }
  return *g_fp8_grouped_workspace;
}

// An FP8 row: checked at sampled elements, then ours, our dense FP8 call and cuBLASLt's timed back to
// back per iteration. cuBLAS has no grouped FP8 GEMM (cublasGemmGroupedBatchedEx takes 16- and 32-bit
// types): the baselines are the dense calls over the same tokens against one weight.
void run_fp8_grouped_row(benchmark::State& state, GroupedRecord* r, const Options* opt) {
  auto fail = [&](const std::string& msg) {
    if (r->error.empty()) r->error = msg;
    state.SkipWithError(r->error.c_str());
  };
  if (!r->error.empty()) return fail(r->error);
  std::string why;
  if (!sm90_device("FP8 grouped GEMM needs an sm_90 GPU", &why)) return fail(r->name + ": " + why);
  try {
    Fp8GroupedWorkspace& ws = fp8_grouped_workspace(*r);
    const Workload& w = ws.w;
    r->routing = ws.routing();
    r->tokens = ws.tokens;
    r->flops = 2.0 * ws.tokens * double(w.n) * w.k;
    r->bytes = double(ws.with_tokens) * w.n * w.k + double(ws.tokens) * w.k + double(ws.tokens) * w.n * sizeof(bf16);
    GEMM_BENCH_CUDA(cudaMemset(ws.C, 0, ws.c_elems * sizeof(bf16)));
    if (const gemm::Status st = ws.ours(); st != gemm::Status::Success)
      return fail(r->name + ": " + gemm_error("the grouped call", st));
    if (const gemm::Status st = gemm::grouped_status(); st != gemm::Status::Success)
      return fail(r->name + ": " + gemm::to_string(st) + " after a call with the routing's own offsets");
    r->diff = ws.sampled_difference();
    // (FP8 inputs, fp32 sums in another order, one bf16 rounding: 2^-7 of the largest element bounds it.)
    if (!(r->diff <= 1.0 / 128))
      return fail(r->name + fmt(": wrong result: max difference %.3e of the largest sampled element", r->diff));

    auto launch_ours = gemm_launch([&] { return ws.ours(); }, "the grouped call");
    auto launch_dense = gemm_launch([&] { return ws.dense(); }, "the dense call");
    auto launch_lt = [&](std::string* e) {
      if (ws.lt.run(ws.A, ws.B, ws.C_dense) == LtStatus::Success) return true;
      *e = ws.lt.message();
      return false;
    };
    if (!ws.lt_ready) r->cublas_note = "cuBLASLt: " + ws.lt.message();
    if (time_row(state, r, opt, launch_ours, launch_dense, launch_lt, ws.lt_ready, &r->lt_s, &r->pct_lt) == 0) return;
    if (!std::isnan(r->pct_lt)) {
      state.counters["cublaslt_dense_TFLOPS"] = r->flops / r->lt_s * 1e-12;
      state.counters["pct_cublaslt_dense"] = r->pct_lt;
    }
    state.counters["max_rel_diff"] = r->diff;
    state.SetLabel(r->cublas_note.empty() ? r->routing : r->routing + " | " + r->cublas_note);
  } catch (const std::exception& e) {
    fail(r->name + ": " + e.what());
  }
}

// ===========================================================================
// Rows
// ===========================================================================
std::vector<std::unique_ptr<GroupedRecord>>& grouped_records() {
  static std::vector<std::unique_ptr<GroupedRecord>> r;
  return r;
}

bool has_item(const std::string& list, const std::string& item) {
  std::stringstream ss(list);
  std::string x;
  while (std::getline(ss, x, ','))
    if (x == item) return true;
  return false;
}

// The grouped rows run by default, and with --gemm_types naming grouped; not with --gemm_shapes alone
// (they have no shape of their own), nor with --gemm_layouts leaving out NT (A as stored, B stored n x k).
bool grouped_selected(const Options& opt) {
  if (opt.shape_space || opt.flow_only) return false;
  if (!opt.types.empty() ? !has_item(opt.types, kGroupedTypeName) : !opt.shapes.empty()) return false;
  return opt.layouts.empty() || has_item(opt.layouts, "NT");
}

}  // namespace

void register_grouped_benchmarks(const Options& opt) {
  if (!grouped_selected(opt)) return;
  const Workload prefill[] = {{"mixtral-up", 8, 8192, 14336, 4096},    {"mixtral-down", 8, 8192, 4096, 14336},
                              {"deepseek-up", 256, 32768, 4096, 7168}, {"deepseek-down", 256, 32768, 7168, 2048},
                              {"qwen3-up", 128, 65536, 1536, 2048}};
  const Workload decode{"deepseek-decode-down", 256, 0, 7168, 2048, 32};
  const auto add = [&](const Workload& w, bool masked, int max_rows, const std::string& label, bool list = false,
                       const char* fp8_mode = nullptr, int promote_k = gemm::kScaleBlock, bool fused = false) {
    auto r = std::make_unique<GroupedRecord>();
    const std::string type = fp8_mode ? std::string("fp8_") + fp8_mode : std::string("bf16");
    r->name = "grouped/" + type + "/" + (list ? "list/" : masked ? "masked/" : "contiguous/") + label;
    r->w = w;
    r->masked = masked;
    r->list = list;
    r->fp8 = fp8_mode != nullptr;
    r->mode = fp8_mode && std::string(fp8_mode) == "tensor" ? gemm::ScaleMode::Tensor : gemm::ScaleMode::Block;
    r->promote_k = promote_k;
    r->fused = fused;
    r->max_rows = max_rows;
    GroupedRecord* rp = r.get();
    grouped_records().push_back(std::move(r));
    benchmark::RegisterBenchmark(rp->name.c_str(),
                                 [rp, &opt](benchmark::State& st) {
                                   if (rp->fp8) run_fp8_grouped_row(st, rp, &opt);
                                   else run_grouped_row(st, rp, &opt);
                                 })
        ->UseManualTime()
        ->Iterations(std::max(1, opt.repetitions))
        ->Unit(benchmark::kMicrosecond);
  };
  for (const Workload& w : prefill) {
    add(w, false, 0, w.name);
    add(w, false, 0, w.name, true);
  }
  // A bias per expert and GELU fused (beside cuBLAS's plain grouped call and our plain dense one).
  for (const Workload& w : {prefill[0], prefill[2]}) add(w, false, 0, w.name + "-bias-gelu", false, nullptr, 128, true);
  add(decode, true, 32, decode.name + "-max32");
  add(decode, true, 64, decode.name + "-max64");
  add(decode, false, 0, decode.name);
  add(decode, false, 0, decode.name, true);
  // FP8 (e4m3, C bf16): DeepSeek-V3's experts with its 1x128 / 128x128 block scales, and per tensor.
  for (const Workload& w : {prefill[2], prefill[3]}) {
    add(w, false, 0, w.name, false, "block");
    add(w, false, 0, w.name, false, "tensor");
    add(w, false, 0, w.name + "-never-promoted", false, "tensor", 0);  // (cuBLASLt: fast accumulation)
  }
  add(decode, true, 32, decode.name + "-max32", false, "block");
  benchmark::AddCustomContext("cublas_grouped",
                              "cublasGemmGroupedBatchedEx, CUBLAS_COMPUTE_32F, A/B/C CUDA_R_16BF, sizes and pointer "
                              "arrays built on the host from the routing, experts of equal token counts in one group");
}

void print_grouped_summary(const Options& opt) {
  std::vector<const GroupedRecord*> rows;
  for (const auto& r : grouped_records())
    if (!std::isnan(r->ours_s) || !r->error.empty()) rows.push_back(r.get());
  if (rows.empty()) return;
  std::printf("\n## gemm_bench grouped rows (%s; bf16, and e4m3 with C bf16 where the form says fp8; median of %d paired iterations; %% of cuBLAS = cuBLAS grouped "
              "GEMM's time / ours, %% of dense = one dense gemm::gemm of as many tokens against one weight / ours, "
              "each timed just before ours)\n\n",
              device_summary().c_str(), std::max(1, opt.repetitions));
  std::printf("| form | workload | n x k | routing | TFLOP/s | cuBLAS grouped TFLOP/s | %% of cuBLAS | dense TFLOP/s | "
              "%% of dense | %% of HBM | note |\n");
  std::printf("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const GroupedRecord* r : rows) {
    std::string ours = "-", theirs = "-", pct = "-", dense = "-", pct_d = "-", hbm = "-", note = r->cublas_note;
    if (!r->error.empty()) {
      note = "ERROR: " + r->error;
    } else {
      ours = fmt("%.1f", r->flops / r->ours_s * 1e-12);
      if (!std::isnan(r->cublas_s)) theirs = fmt("%.1f", r->flops / r->cublas_s * 1e-12);
      if (!std::isnan(r->pct_cublas)) pct = fmt("%.1f%%", r->pct_cublas);
      dense = fmt("%.1f", r->flops / r->dense_s * 1e-12);
      pct_d = fmt("%.1f%%", r->pct_dense);
      if (!std::isnan(r->pct_hbm)) hbm = fmt("%.1f%%", r->pct_hbm);
    }
    if (r->fp8 && r->error.empty())
      note = fmt("cuBLASLt dense %s: %s", gemm::to_string(r->mode),
                 std::isnan(r->pct_lt) ? r->cublas_note.c_str()
                                       : fmt("%.1f TFLOP/s, ours %.1f%% of it", r->flops / r->lt_s * 1e-12, r->pct_lt).c_str());
    const std::string form = std::string(r->fp8 ? (r->mode == gemm::ScaleMode::Tensor ? "fp8 tensor " : "fp8 block ") : "") +
                             (r->list ? "list" : r->masked ? "masked" : "contiguous");
    std::printf("| %s | %s | %dx%d | %s | %s | %s | %s | %s | %s | %s | %s |\n", form.c_str(),
                r->name.substr(r->name.rfind('/') + 1).c_str(), r->w.n, r->w.k, r->routing.c_str(), ours.c_str(),
                theirs.c_str(), pct.c_str(), dense.c_str(), pct_d.c_str(), hbm.c_str(), note.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

void release_grouped_workspace() {
  g_grouped_workspace.reset();
  g_fp8_grouped_workspace.reset();
}

}  // namespace gemm_bench
