// Shared declarations of the gemm_bench benchmark binary.
//
// The binary is split over several translation units so that they compile in
// parallel:
//   presets_float.cu / presets_double.cu  instantiate every preset for one type
//                                         (the expensive part) and export a
//                                         table of plain function pointers;
//   bench.cu                              workspaces, timing, cuBLAS baseline,
//                                         result checking, registration, summary;
//   flow.cu                               the whole-flow (host to host) table;
//   main.cu                               flags, context, main().
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <gemm/gemm.cuh>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gemm_bench {

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void cuda_check(cudaError_t err, const char* expr, const char* file, int line);
void cublas_check(cublasStatus_t st, const char* expr, const char* file, int line);

#define GEMM_BENCH_CUDA(expr) ::gemm_bench::cuda_check((expr), #expr, __FILE__, __LINE__)
#define GEMM_BENCH_CUBLAS(expr) ::gemm_bench::cublas_check((expr), #expr, __FILE__, __LINE__)

// ---------------------------------------------------------------------------
// Shapes and types
// ---------------------------------------------------------------------------
struct Shape {
  int m = 0, n = 0, k = 0;
  std::string str() const;  // "MxNxK"
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Minimum traffic: read A and B once, write C once.
  double bytes(std::size_t elem) const {
    return (double(m) * k + double(k) * n + double(m) * n) * double(elem);
  }
  double intensity(std::size_t elem) const { return flops() / bytes(elem); }
};

// Shapes with arithmetic intensity below this (flop/byte) are labelled
// "memory-bound".
constexpr double kMemoryBoundIntensity = 100.0;

template <class T> struct TypeName;
template <> struct TypeName<float> { static constexpr const char* value = "float"; };
template <> struct TypeName<double> { static constexpr const char* value = "double"; };

template <class T> constexpr double tolerance();
template <> constexpr double tolerance<float>() { return 1e-4; }
template <> constexpr double tolerance<double>() { return 1e-10; }

// ---------------------------------------------------------------------------
// Presets as a run-time table (filled in presets_<type>.cu by a fold over
// gemm::preset::All, so new presets appear automatically, in tutorial order).
// ---------------------------------------------------------------------------
template <class T>
using LaunchFn = gemm::Status (*)(int m, int n, int k, T alpha, const T* A, int lda,
                                  const T* B, int ldb, T beta, T* C, int ldc,
                                  cudaStream_t stream);

template <class T>
struct Preset {
  std::string name;      // Policy::name()
  std::string describe;  // Policy::describe()
  LaunchFn<T> launch;
};

template <class T> const std::vector<Preset<T>>& presets();
template <> const std::vector<Preset<float>>& presets<float>();
template <> const std::vector<Preset<double>>& presets<double>();

// ---------------------------------------------------------------------------
// Command-line options of our own (all start with --gemm_ and are removed from
// argv before benchmark::Initialize sees it).
// ---------------------------------------------------------------------------
struct Options {
  bool full = false;         // --gemm_full: every shape, both types
  bool flow_only = false;    // --gemm_flow: only the whole-flow table
  bool no_flow = false;      // --gemm_no_flow: skip the whole-flow table
  bool list_only = false;    // --benchmark_list_tests was given
  bool filter_given = false; // --benchmark_filter was given
  std::string flow_out;      // --gemm_flow_out=PATH
  std::string shapes;        // --gemm_shapes=MxNxK,...   (overrides the grid)
  std::string types;         // --gemm_types=float,double (overrides the grid)
  int repetitions = 7;       // --gemm_repetitions=N
  double batch_ms = 2.0;     // --gemm_batch_ms=X: minimum length of one timed batch
  int flow_runs = 20;        // --gemm_flow_runs=N
  std::string mode() const { return flow_only ? "flow" : (full ? "full" : "default"); }
};

// ---------------------------------------------------------------------------
// Device helpers (bench.cu)
// ---------------------------------------------------------------------------
// Deterministic uniform value in (-1, 1), never exactly 0. Same on host and
// device.
__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__host__ __device__ inline double uniform_pm1(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = splitmix64(seed ^ splitmix64(i));
  // (h >> 12) + 0.5 is a half-integer in (0, 2^52), exactly representable, so
  // the result is a non-zero multiple of 2^-52 in (-1, 1).
  const double u = double(h >> 12) + 0.5;
  return u * (1.0 / 2251799813685248.0) - 1.0;  // 2^51
}

template <class T> void fill_uniform(T* p, std::size_t n, std::uint64_t seed);

struct Comparison {
  double max_abs_diff = 0;        // max |c - ref| over finite c
  double max_abs_ref = 0;         // max |ref|
  unsigned long long nonfinite = 0;  // NaN/Inf elements in c (or ref)
  double rel() const { return max_abs_ref > 0 ? max_abs_diff / max_abs_ref : max_abs_diff; }
};
// Compares two device arrays of n elements (synchronous).
template <class T> Comparison compare_device(const T* c, const T* ref, std::size_t n);

// cuBLAS baseline: row-major C = alpha*A*B + beta*C with tight leading dims.
// SGEMM uses a handle in CUBLAS_PEDANTIC_MATH (strict fp32, no TF32).
cublasHandle_t cublas_handle_for(bool is_double);
const char* cublas_math_name(bool is_double);
template <class T>
cublasStatus_t cublas_gemm(const Shape& s, T alpha, const T* A, const T* B, T beta, T* C,
                           cudaStream_t stream);

// Key/value facts about the machine and build, for the benchmark context and
// the flow JSON.
std::vector<std::pair<std::string, std::string>> context_entries(const Options& opt);

// Short "GPU name, N SMs" line.
std::string device_summary();

// A few hundred milliseconds of SGEMM so the GPU is at its boost clock.
void global_warmup();

// Registers every benchmark of the selected grid; prints the skipped ones.
void register_benchmarks(const Options& opt);

// Markdown summary from our own medians (after RunSpecifiedBenchmarks).
void print_summary(const Options& opt);

// Frees the device buffers held between benchmarks.
void release_workspace();

// The whole-flow table (flow.cu). Returns 0 on success.
int run_flow(const Options& opt);

// Helpers shared by the TUs.
double median(std::vector<double> v);
std::string json_escape(const std::string& s);
std::string fmt(const char* format, ...);

}  // namespace gemm_bench
