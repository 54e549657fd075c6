// gemm_epilogue_bench: fused bias + GELU against cuBLASLt's CUBLASLT_EPILOGUE_GELU_BIAS (Google Benchmark).
//
// A linear layer, bf16 in and out: row-major D (m x n) = GELU(X (m x k) W^T + bias[col]), the weight W
// stored n x k (as PyTorch keeps it: B transposed, the NT layout), bias of D's type. Rows:
//   gemm/bf16/Tuned/NT/MxNxK             no epilogue (beta = 0), beside cublasGemmEx: pct_cublas
//   gemm/bf16/Tuned/bias_gelu/NT/MxNxK   act::GeluTanh + per-column bias, beside cuBLASLt GELU_BIAS
//                                        (pct_cublaslt) and our own call without epilogue (pct_plain:
//                                        100 means no overhead)
//   gemm/bf16/Tuned/bias_gelu_fast/NT/MxNxK   the same with act::GeluTanhFast (the hardware's tanh,
//                                        cuBLASLt's accuracy)
// over 4096^3 and 8192^3 (every kind of row) and, with --gemm_forward, the shape space's bf16 forward
// shapes (benchmark/shape_space.hpp: m tokens through a model's linear layers; fused rows), ending
// with their geometric mean and worst pct_cublaslt for each GELU.
// Each iteration times one batch of every contender back to back on the same buffers (CUDA events,
// after warm-up; a batch of about a millisecond, 3 to 20 calls); counters are ratios of the medians
// over all iterations. max_rel_diff_lt: our D against cuBLASLt's, max |diff| / max |D|.
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <gemm/gemm.cuh>

#include "shape_space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(x)                                                                        \
  do {                                                                                       \
    const cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)
#define CHECK_BLAS(x)                                                                    \
  do {                                                                                   \
    const int s_ = static_cast<int>(x);                                                  \
    if (s_ != 0) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, s_); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)
#define CHECK_GEMM(x)                                                                                     \
  do {                                                                                                    \
    const gemm::Status s_ = (x);                                                                          \
    if (s_ != gemm::Status::Success) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, gemm::to_string(s_));                \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

using bf16 = __nv_bfloat16;

__global__ void fill(bf16* p, size_t n, unsigned seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = __float2bfloat16(scale * ((h & 0xffffff) / float(0x800000) - 1.0f));
  }
}

// Buffers and handles of one shape, shared by its rows: made by the first row that runs (setup) and
// released by each fused row (the next one makes them again), so that the forward shapes' buffers
// (about 40 GB in all) are never held together.
struct Problem {
  int m, n, k;
  int batch;  // calls per timing: about a millisecond of them, 3 to 20
  bf16 *a = nullptr, *b = nullptr, *d = nullptr, *d_lt = nullptr, *bias = nullptr;
  void* lt_workspace = nullptr;
  size_t lt_workspace_bytes = 32u << 20;
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  cudaEvent_t start, stop;
  bool forward = false;          // one of the shape space's forward shapes
  double pct_cublaslt = 0;       // its fused rows' results: act::GeluTanh
  double pct_cublaslt_fast = 0;  // and act::GeluTanhFast

  bool ready = false;

  Problem(int m_, int n_, int k_)
      : m(m_), n(n_), k(k_),
        batch(std::clamp(static_cast<int>(1e-3 * 600e12 / (2.0 * m_ * n_ * double(k_))), 3, 20)) {}

  void setup() {
    if (ready) return;
    ready = true;
    CHECK_CUDA(cudaMalloc(&a, sizeof(bf16) * m * size_t(k)));
    CHECK_CUDA(cudaMalloc(&b, sizeof(bf16) * k * size_t(n)));
    CHECK_CUDA(cudaMalloc(&d, sizeof(bf16) * m * size_t(n)));
    CHECK_CUDA(cudaMalloc(&d_lt, sizeof(bf16) * m * size_t(n)));
    CHECK_CUDA(cudaMalloc(&bias, sizeof(bf16) * n));
    CHECK_CUDA(cudaMalloc(&lt_workspace, lt_workspace_bytes));
    fill<<<1024, 256>>>(a, m * size_t(k), 1u, 1.0f);
    fill<<<1024, 256>>>(b, k * size_t(n), 2u, 1.0f);
    fill<<<64, 256>>>(bias, n, 3u, 4.0f);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_BLAS(cublasCreate(&blas));
    CHECK_BLAS(cublasLtCreate(&lt));
    // Row-major D = X W^T is column-major D^T (n x m) = W X^T: W (n x k row-major: column-major
    // k x n) as cuBLASLt's "A" with op T, X (column-major k x m) as its "B" with op N; a bias per row
    // of D^T is a bias per column of D.
    CHECK_BLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transa = CUBLAS_OP_T;
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof(transa)));
    const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    const cudaDataType_t bias_type = CUDA_R_16BF;
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)));
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, n, k));
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, m, k));
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, n, m, n));
    cublasLtMatmulPreference_t pref;
    CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &lt_workspace_bytes, sizeof(lt_workspace_bytes)));
    int found = 0;
    CHECK_BLAS(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &algo, &found));
    CHECK_BLAS(cublasLtMatmulPreferenceDestroy(pref));
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt found no GELU_BIAS algorithm for %dx%dx%d\n", m, n, k);
      std::exit(1);
    }
  }

  void release() {
    if (!ready) return;
    ready = false;
    CHECK_CUDA(cudaDeviceSynchronize());
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(d), static_cast<void*>(d_lt),
                    static_cast<void*>(bias), lt_workspace})
      CHECK_CUDA(cudaFree(p));
    CHECK_BLAS(cublasLtMatrixLayoutDestroy(la));
    CHECK_BLAS(cublasLtMatrixLayoutDestroy(lb));
    CHECK_BLAS(cublasLtMatrixLayoutDestroy(ld));
    CHECK_BLAS(cublasLtMatmulDescDestroy(desc));
    CHECK_BLAS(cublasLtDestroy(lt));
    CHECK_BLAS(cublasDestroy(blas));
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
  }

  void ours_plain() {
    CHECK_GEMM(gemm::gemm<bf16>(gemm::Op::N, gemm::Op::T, m, n, k, 1.0f, a, k, b, k, 0.0f, d, n));
  }
  // (The NT layout's kernels alone: the entry point with ops would compile all four layouts' fused kernels.)
  template <class Act>
  void ours_fused() {
    const gemm::Epilogue<bf16, Act, bf16> epi{d, n, bias, gemm::BiasKind::PerColumn};
    gemm::GemmArgs<bf16, bf16> args{m, n, k, 1.0f, a, k, b, k, 0.0f, nullptr, n, gemm::Op::N, gemm::Op::T};
    CHECK_GEMM((gemm::detail::run_fused<bf16, gemm::DefaultPolicy, gemm::detail::Ops<gemm::Op::N, gemm::Op::T>, false>(
        args, epi, 0)));
  }
  void cublas_plain() {
    const float one = 1.0f, zero = 0.0f;
    CHECK_BLAS(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, k, a, CUDA_R_16BF, k, &zero,
                            d_lt, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  void lt_fused() {
    const float one = 1.0f, zero = 0.0f;
    CHECK_BLAS(cublasLtMatmul(lt, desc, &one, b, la, a, lb, &zero, d_lt, ld, d_lt, ld, &algo.algo, lt_workspace,
                              lt_workspace_bytes, 0));
  }

  // Milliseconds per call over a batch of `reps` calls.
  template <class F>
  double time(F&& f, int reps) {
    CHECK_CUDA(cudaEventRecord(start));
    for (int i = 0; i < reps; ++i) f();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms / reps;
  }

  // max |D - D_lt| / max |D_lt| after one call of each.
  template <class Act>
  double diff_to_lt() {
    ours_fused<Act>();
    lt_fused();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<bf16> x(size_t(m) * n), y(x.size());
    CHECK_CUDA(cudaMemcpy(x.data(), d, x.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(y.data(), d_lt, y.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
    double diff = 0, mag = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double u = __bfloat162float(x[i]), v = __bfloat162float(y[i]);
      if (!std::isfinite(u) || !std::isfinite(v)) return INFINITY;
      diff = std::max(diff, std::fabs(u - v));
      mag = std::max(mag, std::fabs(v));
    }
    return mag > 0 ? diff / mag : diff;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void plain_row(benchmark::State& state, Problem* p) {
  p->setup();
  for (int i = 0; i < 3; ++i) p->time([&] { p->ours_plain(); p->cublas_plain(); }, 5);  // warm-up
  std::vector<double> ours, theirs;
  for (auto _ : state) {
    theirs.push_back(p->time([&] { p->cublas_plain(); }, p->batch));
    ours.push_back(p->time([&] { p->ours_plain(); }, p->batch));
    state.SetIterationTime(ours.back() * 1e-3);
  }
  const double ms = median(ours);
  state.counters["median_us"] = ms * 1e3;
  state.counters["TFLOPs"] = 2.0 * p->m * p->n * double(p->k) / (ms * 1e9);
  state.counters["pct_cublas"] = 100.0 * median(theirs) / ms;
}

// kPct: where a forward shape's pct_cublaslt goes, for that GELU's summary.
template <class Act, double Problem::*kPct>
void fused_row(benchmark::State& state, Problem* p) {
  p->setup();
  for (int i = 0; i < 3; ++i) p->time([&] { p->ours_plain(); p->ours_fused<Act>(); p->lt_fused(); }, 5);  // warm-up
  std::vector<double> fused, plain, lt;
  for (auto _ : state) {
    lt.push_back(p->time([&] { p->lt_fused(); }, p->batch));
    plain.push_back(p->time([&] { p->ours_plain(); }, p->batch));
    fused.push_back(p->time([&] { p->ours_fused<Act>(); }, p->batch));
    state.SetIterationTime(fused.back() * 1e-3);
  }
  const double ms = median(fused);
  state.counters["median_us"] = ms * 1e3;
  state.counters["TFLOPs"] = 2.0 * p->m * p->n * double(p->k) / (ms * 1e9);
  state.counters["pct_cublaslt"] = 100.0 * median(lt) / ms;
  state.counters["pct_plain"] = 100.0 * median(plain) / ms;
  state.counters["lt_us"] = median(lt) * 1e3;
  state.counters["plain_us"] = median(plain) * 1e3;
  state.counters["max_rel_diff_lt"] = p->diff_to_lt<Act>();
  if (p->forward) p->*kPct = 100.0 * median(lt) / ms;
  p->release();
}

}  // namespace

int main(int argc, char** argv) {
  // --gemm_forward (ours, taken out before Google Benchmark reads the rest): the forward shapes too.
  bool forward = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--gemm_forward") == 0) {
      forward = true;
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc, --i;
    }
  benchmark::Initialize(&argc, argv);
  std::vector<Problem*> problems;
  const auto add = [&](int m, int n, int k, bool plain) {
    auto* p = new Problem(m, n, k);
    problems.push_back(p);
    const std::string shape = "NT/" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    if (plain)
      benchmark::RegisterBenchmark(("gemm/bf16/Tuned/" + shape).c_str(), plain_row, p)
          ->UseManualTime()->Iterations(25)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("gemm/bf16/Tuned/bias_gelu/" + shape).c_str(), fused_row<gemm::act::GeluTanh, &Problem::pct_cublaslt>, p)
        ->UseManualTime()->Iterations(forward ? 9 : 25)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("gemm/bf16/Tuned/bias_gelu_fast/" + shape).c_str(),
                                 fused_row<gemm::act::GeluTanhFast, &Problem::pct_cublaslt_fast>, p)
        ->UseManualTime()->Iterations(forward ? 9 : 25)->Unit(benchmark::kMicrosecond);
    return p;
  };
  for (int s : {4096, 8192}) add(s, s, s, true);
  if (forward)
    for (const gemm_bench::SpaceShape& s : gemm_bench::shape_space())
      if (s.type == "bf16" && s.cls == "forward" && s.layout == "NT") add(s.m, s.n, s.k, false)->forward = true;
  benchmark::RunSpecifiedBenchmarks();
  // The forward shapes' summary for each GELU (the rows a filter left out count as not run).
  const auto summary = [&](const char* name, double Problem::*pct) {
    std::vector<double> ratios;
    const Problem* worst = nullptr;
    for (const Problem* p : problems)
      if (p->forward && p->*pct > 0) {
        ratios.push_back(p->*pct / 100.0);
        if (worst == nullptr || p->*pct < worst->*pct) worst = p;
      }
    if (worst != nullptr)
      std::printf("forward shapes, bias + GELU (%s) against cuBLASLt GELU_BIAS: %zu shapes, geometric mean %.3f, "
                  "worst %.3f (%dx%dx%d NT)\n", name, ratios.size(), gemm_bench::geomean(ratios), worst->*pct / 100.0,
                  worst->m, worst->n, worst->k);
  };
  summary("act::GeluTanh", &Problem::pct_cublaslt);
  summary("act::GeluTanhFast", &Problem::pct_cublaslt_fast);
  benchmark::Shutdown();
  return 0;
}
