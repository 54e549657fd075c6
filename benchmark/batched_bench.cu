// gemm_batched_bench: batched GEMM against cuBLAS on the same data in the same run.
//
// Rows gemm/<type>/<preset>/batch<B>/<m>x<n>x<k> (gemm::gemm_strided_batched, paired with
// cublasGemmStridedBatchedEx) and gemm/<type>/<preset>/ptrbatch<B>/<m>x<n>x<k> (gemm::gemm_batched,
// paired with cublasGemmBatchedEx), row-major NN in the library's frame (cuBLAS gets the swapped
// column-major call, as gemm::blas does). Each iteration times a run of calls of cuBLAS and then of
// the preset between CUDA events (after warm-up); the iteration time is the preset's, and
// pct_cublas is the median over iterations of 100 * cuBLAS time / preset time.
// float rows use CUBLAS_COMPUTE_32F_PEDANTIC (strict fp32, as the main benchmark's float rows).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gemm/gemm.cuh>

namespace {

#define BB_CUDA(call)                                                                                   \
  do {                                                                                                  \
    const cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

// cuBLAS's element type and compute type for math type T (float: pedantic, strict fp32).
template <class T>
struct TypeInfo {
  static constexpr const char* name = gemm::detail::MathTraits<T>::kName;
  static constexpr cudaDataType_t data = std::is_same_v<T, double>          ? CUDA_R_64F
                                         : std::is_same_v<T, __nv_bfloat16> ? CUDA_R_16BF
                                         : std::is_same_v<T, __half>        ? CUDA_R_16F
                                                                            : CUDA_R_32F;
  static constexpr cublasComputeType_t compute = std::is_same_v<T, float>        ? CUBLAS_COMPUTE_32F_PEDANTIC
                                                 : std::is_same_v<T, gemm::tf32> ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                 : std::is_same_v<T, double>     ? CUBLAS_COMPUTE_64F
                                                                                 : CUBLAS_COMPUTE_32F;
};

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t x;
    if (cublasCreate(&x) != CUBLAS_STATUS_SUCCESS) std::exit(1);
    return x;
  }();
  return h;
}

struct Events {
  cudaEvent_t start, stop;
  Events() {
    BB_CUDA(cudaEventCreate(&start));
    BB_CUDA(cudaEventCreate(&stop));
  }
};

// The batch's buffers, filled once with random values in (-1, 1).
template <class T>
struct Batch {
  using In = gemm::storage_t<T>;
  int m, n, k, count;
  In *a = nullptr, *b = nullptr, *c = nullptr;
  const In **pa = nullptr, **pb = nullptr;
  In** pc = nullptr;
  Batch(int m_, int n_, int k_, int count_) : m(m_), n(n_), k(k_), count(count_) {
    const size_t ea = size_t(m) * k, eb = size_t(k) * n, ec = size_t(m) * n;
    BB_CUDA(cudaMalloc(&a, ea * count * sizeof(In)));
    BB_CUDA(cudaMalloc(&b, eb * count * sizeof(In)));
    BB_CUDA(cudaMalloc(&c, ec * count * sizeof(In)));
    std::vector<In> h(std::max({ea, eb}) * count);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& x : h) x = gemm::detail::convert<In>(u(rng));
    BB_CUDA(cudaMemcpy(a, h.data(), ea * count * sizeof(In), cudaMemcpyHostToDevice));
    BB_CUDA(cudaMemcpy(b, h.data(), eb * count * sizeof(In), cudaMemcpyHostToDevice));
    std::vector<const In*> ha(count), hb(count);
    std::vector<In*> hc(count);
    for (int i = 0; i < count; ++i) ha[i] = a + ea * i, hb[i] = b + eb * i, hc[i] = c + ec * i;
    BB_CUDA(cudaMalloc(&pa, count * sizeof(In*)));
    BB_CUDA(cudaMalloc(&pb, count * sizeof(In*)));
    BB_CUDA(cudaMalloc(&pc, count * sizeof(In*)));
    BB_CUDA(cudaMemcpy(pa, ha.data(), count * sizeof(In*), cudaMemcpyHostToDevice));
    BB_CUDA(cudaMemcpy(pb, hb.data(), count * sizeof(In*), cudaMemcpyHostToDevice));
    BB_CUDA(cudaMemcpy(pc, hc.data(), count * sizeof(In*), cudaMemcpyHostToDevice));
  }
  ~Batch() {
    cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(pa), cudaFree(pb), cudaFree(pc);
  }
};

template <class T, class Policy>
bool run_gemm(const Batch<T>& x, bool pointers) {
  using S = gemm::scalar_t<T>;
  const gemm::Status s =
      pointers ? gemm::gemm_batched<T, Policy>(gemm::Op::N, gemm::Op::N, x.m, x.n, x.k, S(1), x.pa, x.k, x.pb, x.n,
                                               S(0), x.pc, x.n, x.count)
               : gemm::gemm_strided_batched<T, Policy>(gemm::Op::N, gemm::Op::N, x.m, x.n, x.k, S(1), x.a, x.k,
                                                       (long long)x.m * x.k, x.b, x.n, (long long)x.k * x.n, S(0),
                                                       x.c, x.n, (long long)x.m * x.n, x.count);
  return s == gemm::Status::Success;
}

// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets (n, m, k) with B first.
template <class T>
bool run_cublas(const Batch<T>& x, bool pointers) {
  using S = gemm::scalar_t<T>;
  const S one = 1, zero = 0;
  constexpr auto dt = TypeInfo<T>::data;
  const cublasStatus_t s =
      pointers ? cublasGemmBatchedEx(handle(), CUBLAS_OP_N, CUBLAS_OP_N, x.n, x.m, x.k, &one,
                                     reinterpret_cast<const void* const*>(x.pb), dt, x.n,
                                     reinterpret_cast<const void* const*>(x.pa), dt, x.k, &zero,
                                     reinterpret_cast<void* const*>(x.pc), dt, x.n, x.count, TypeInfo<T>::compute,
                                     CUBLAS_GEMM_DEFAULT)
               : cublasGemmStridedBatchedEx(handle(), CUBLAS_OP_N, CUBLAS_OP_N, x.n, x.m, x.k, &one, x.b, dt, x.n,
                                            (long long)x.k * x.n, x.a, dt, x.k, (long long)x.m * x.k, &zero, x.c, dt,
                                            x.n, (long long)x.m * x.n, x.count, TypeInfo<T>::compute,
                                            CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS;
}

template <class F>
double time_calls(F&& f, int calls) {
  static Events ev;
  BB_CUDA(cudaEventRecord(ev.start));
  for (int i = 0; i < calls; ++i)
    if (!f()) return -1;
  BB_CUDA(cudaEventRecord(ev.stop));
  BB_CUDA(cudaEventSynchronize(ev.stop));
  float ms = 0;
  BB_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
  return ms * 1e-3 / calls;
}

template <class T, class Policy>
void bench(benchmark::State& state, int count, int m, int n, int k, bool pointers) {
  Batch<T> x(m, n, k, count);
  const auto ours = [&] { return run_gemm<T, Policy>(x, pointers); };
  const auto theirs = [&] { return run_cublas<T>(x, pointers); };
  // Warm-up (about 20 ms each), then runs of about 2 ms.
  double t = std::max(time_calls(ours, 1), time_calls(theirs, 1));
  if (t < 0) {
    state.SkipWithError("a call failed");
    return;
  }
  const int warm = std::max(1, int(20e-3 / t));
  time_calls(ours, warm), time_calls(theirs, warm);
  const int calls = std::max(1, int(2e-3 / t));
  std::vector<double> pct, mine, cublas;
  for (auto _ : state) {
    const double tc = time_calls(theirs, calls), tg = time_calls(ours, calls);
    if (tc < 0 || tg < 0) {
      state.SkipWithError("a call failed");
      return;
    }
    state.SetIterationTime(tg);
    pct.push_back(100 * tc / tg), mine.push_back(tg), cublas.push_back(tc);
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  const double flops = 2.0 * m * n * k * count;
  state.counters["pct_cublas"] = median(pct);
  state.counters["gemm_us"] = median(mine) * 1e6;
  state.counters["cublas_us"] = median(cublas) * 1e6;
  state.counters["TFLOPs"] = flops / median(mine) * 1e-12;
  state.counters["cublas_TFLOPs"] = flops / median(cublas) * 1e-12;
}

template <class T, class Policy>
void add(const char* preset, int count, int m, int n, int k, bool pointers) {
  const std::string name = std::string("gemm/") + TypeInfo<T>::name + "/" + preset + "/" +
                           (pointers ? "ptrbatch" : "batch") + std::to_string(count) + "/" + std::to_string(m) + "x" +
                           std::to_string(n) + "x" + std::to_string(k);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { bench<T, Policy>(s, count, m, n, k, pointers); })
      ->UseManualTime()
      ->Iterations(15)
      ->Unit(benchmark::kMicrosecond);
}

// Tuned's Hopper tiles by name, to compare them on the batched shapes.
struct Hopper128x256 : gemm::preset::Tuned::Hopper {
  static const char* name() { return "Hopper128x256"; }
};
struct Hopper128x128 : gemm::preset::Tuned::HopperMedium {
  static const char* name() { return "Hopper128x128"; }
};

}  // namespace

int main(int argc, char** argv) {
  using gemm::preset::Tuned;
  for (bool ptr : {false, true}) {
    add<__nv_bfloat16, Tuned>("Tuned", 64, 512, 512, 512, ptr);
    add<__nv_bfloat16, Tuned>("Tuned", 16, 1024, 1024, 1024, ptr);
    add<float, Tuned>("Tuned", 64, 512, 512, 512, ptr);
  }
  add<__nv_bfloat16, Hopper128x256>("Hopper128x256", 64, 512, 512, 512, false);
  add<__nv_bfloat16, Hopper128x128>("Hopper128x128", 64, 512, 512, 512, false);
  add<__nv_bfloat16, Hopper128x256>("Hopper128x256", 16, 1024, 1024, 1024, false);
  add<__nv_bfloat16, Hopper128x128>("Hopper128x128", 16, 1024, 1024, 1024, false);
  add<__half, Tuned>("Tuned", 64, 512, 512, 512, false);
  add<gemm::tf32, Tuned>("Tuned", 64, 512, 512, 512, false);
  add<double, Tuned>("Tuned", 64, 256, 256, 256, false);
  add<__nv_bfloat16, Tuned>("Tuned", 4096, 64, 64, 64, false);
  add<__nv_bfloat16, Tuned>("Tuned", 4096, 64, 64, 64, true);
  add<float, Tuned>("Tuned", 4096, 64, 64, 64, false);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
