// Shared declarations of the gemm_bench benchmark binary.
//
// The binary is split over several translation units so that they compile in
// parallel:
//   presets_<type>.cu   one per benchmarked type: every preset that serves the
//                       type (a fold over gemm::preset::AllServing<T, Out>),
//                       through the row-major entry point (the expensive part);
//                       each exports a table of plain function pointers;
//   presets_layouts.cu  the few presets that get layout rows (NT, TN, TT),
//                       through the op entry point, which compiles all four
//                       layouts of each kernel: Tuned for float, and Tuned and
//                       the Hopper presets for bf16;
//   bench.cu            workspaces, timing, cuBLAS baseline, result checking,
//                       registration, summary;
//   flow.cu             the whole-flow (host to host) table;
//   host_flow.cu        its gemm::host rows (host.cuh: overlapped copies);
//   fp8_bench.cu        the FP8 rows beside cuBLASLt (cublaslt_fp8.cuh), their own registration,
//                       timing and table;
//   grouped_bench.cu    the grouped GEMM rows (mixture-of-experts workloads) beside cuBLAS's grouped
//                       GEMM and a dense call, their own registration, timing and table;
//   main.cu             flags, context, main().
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <gemm/gemm.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
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
// Layouts: how A and B are stored (C is always row-major). First letter op(A),
// second op(B); N = stored as written (row-major), T = stored transposed.
// ---------------------------------------------------------------------------
enum class Layout { NN, NT, TN, TT };
constexpr Layout kAllLayouts[] = {Layout::NN, Layout::NT, Layout::TN, Layout::TT};

inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::NN: return "NN";
    case Layout::NT: return "NT";
    case Layout::TN: return "TN";
    case Layout::TT: return "TT";
  }
  return "?";
}
inline gemm::Op op_a(Layout l) { return l == Layout::TN || l == Layout::TT ? gemm::Op::T : gemm::Op::N; }
inline gemm::Op op_b(Layout l) { return l == Layout::NT || l == Layout::TT ? gemm::Op::T : gemm::Op::N; }

// ---------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------
struct Shape {
  int m = 0, n = 0, k = 0;
  std::string str() const;  // "MxNxK"
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Minimum traffic: read A and B once (in_bytes per element), write C once
  // (out_bytes per element).
  double bytes(std::size_t in_bytes, std::size_t out_bytes) const {
    return (double(m) * k + double(k) * n) * double(in_bytes) + double(m) * n * double(out_bytes);
  }
  double intensity(std::size_t in_bytes, std::size_t out_bytes) const {
    return flops() / bytes(in_bytes, out_bytes);
  }
  // Tight leading dimensions of the stored operands: a stored row of A holds
  // k elements for op N and m for op T; of B, n for N and k for T; C is m x n.
  int lda(Layout l) const { return op_a(l) == gemm::Op::N ? k : m; }
  int ldb(Layout l) const { return op_b(l) == gemm::Op::N ? n : k; }
  int ldc() const { return n; }
};

// ---------------------------------------------------------------------------
// Types: a benchmarked type is a math type T with an output type Out (the
// pair that gemm::gemm<T> and cublasGemmEx take).
// ---------------------------------------------------------------------------
template <class T, class O = gemm::storage_t<T>>
struct BenchType {
  using Math = T;
  using In = gemm::storage_t<T>;  // what A and B hold
  using Out = O;                  // what C holds
  using Scalar = gemm::scalar_t<T>;  // alpha, beta
  static const char* name() { return gemm::type_name<T, O>(); }
};

using Float = BenchType<float>;
using Tf32 = BenchType<gemm::tf32>;
using Tf32x3 = BenchType<gemm::tf32x3>;
using Double = BenchType<double>;
using Bf16 = BenchType<__nv_bfloat16>;
using Fp16 = BenchType<__half>;
using Bf16F32 = BenchType<__nv_bfloat16, float>;
using Fp16F32 = BenchType<__half, float>;

// Every type, in the order the rows are registered.
constexpr const char* kTypeNames[] = {"float", "tf32", "tf32x3", "double", "bf16", "bf16_f32out", "fp16", "fp16_f32out"};
// The FP8 rows' name in --gemm_types (fp8_bench.cu: e4m3 with bf16 C, beside cuBLASLt; registered after
// the types above, outside their tables).
constexpr const char* kFp8TypeName = "fp8";
// The grouped rows' name in --gemm_types (grouped_bench.cu: bf16 grouped GEMM on mixture-of-experts
// workloads; registered after the FP8 rows, outside the types' tables).
constexpr const char* kGroupedTypeName = "grouped";

// Result check against cuBLAS on set 0, as max |C - C_cublas| / max |C_cublas|
// (inputs uniform in (-1, 1)). Both sides are the same product in different
// summation orders (and, for tf32, different input rounding), so each bound is
// a generous multiple of the rounding the type allows.
template <class B> constexpr double tolerance();
// Strict fp32 both sides: only the summation order differs (~1e-6 seen).
template <> constexpr double tolerance<Float>() { return 1e-4; }
// fp64 both sides: summation order only.
template <> constexpr double tolerance<Double>() { return 1e-10; }
// cuBLAS rounds A and B to TF32 (10-bit mantissa, relative error 2^-11 per
// input); ours may compute in strict fp32 (Tuned does), so the two differ by
// TF32's input rounding, about 1e-4 of max|C| for k = 4096 of random data.
template <> constexpr double tolerance<Tf32>() { return 5e-3; }
// 3xTF32 against strict SGEMM (its cuBLAS baseline): about fp32's rounding on both sides.
template <> constexpr double tolerance<Tf32x3>() { return 1e-4; }
// C rounded to bf16 (8-bit mantissa): a different summation order can move a
// result by one bf16 ulp, 2^-8 = 3.9e-3 relative at the largest elements.
template <> constexpr double tolerance<Bf16>() { return 2e-2; }
// C rounded to fp16 (11-bit mantissa): one ulp is 2^-11 = 4.9e-4 relative.
template <> constexpr double tolerance<Fp16>() { return 5e-3; }
// 16-bit inputs, fp32 C: the products are exact in fp32 and only the fp32
// summation order differs.
template <> constexpr double tolerance<Bf16F32>() { return 1e-3; }
template <> constexpr double tolerance<Fp16F32>() { return 1e-3; }

// Ridge point (flop/byte) of a type on the H100 SXM: its peak rate over the
// measured memory bandwidth. Below it a shape is labelled "memory-bound".
// Peaks (dense, datasheet): fp32 on CUDA cores 67 TFLOP/s, fp64 on tensor
// cores 67, TF32 tensor cores 495, bf16/fp16 tensor cores 989. Bandwidth: a
// device-to-device copy moves about 2.9 TB/s on an H100 SXM (read plus write),
// taken as 3.0 TB/s. Ridges: ~22 flop/B for float and double, ~165 for tf32,
// ~330 for bf16 and fp16.
constexpr double kBandwidthTBs = 3.0;
template <class B>
constexpr double peak_tflops() {
  using T = typename B::Math;
  if constexpr (std::is_same_v<T, gemm::tf32>) return 495.0;
  else if constexpr (std::is_same_v<T, gemm::tf32x3>) return 495.0 / 3;  // three TF32 products each
  else if constexpr (gemm::is_16bit<T>) return 989.0;
  else return 67.0;  // float (CUDA cores) and double (tensor cores)
}
template <class B>
constexpr double ridge_intensity() { return peak_tflops<B>() / kBandwidthTBs; }

// ---------------------------------------------------------------------------
// Presets as run-time tables (filled in presets_<type>.cu by a fold over
// gemm::preset::AllServing<T, Out>, so new presets appear automatically, in
// ladder order).
// ---------------------------------------------------------------------------
// The row-major entry point (layout NN).
template <class B>
using RowMajorFn = gemm::Status (*)(int m, int n, int k, typename B::Scalar alpha, const typename B::In* A,
                                    int lda, const typename B::In* Bm, int ldb, typename B::Scalar beta,
                                    typename B::Out* C, int ldc, cudaStream_t stream);
// The op entry point (any layout).
template <class B>
using OpsFn = gemm::Status (*)(gemm::Op op_a, gemm::Op op_b, int m, int n, int k, typename B::Scalar alpha,
                               const typename B::In* A, int lda, const typename B::In* Bm, int ldb,
                               typename B::Scalar beta, typename B::Out* C, int ldc, cudaStream_t stream);
// Whether the policy accepts the alignment of a call with 256-byte-aligned
// A, B and C and these leading dimensions: the policy's own check_alignment,
// which touches no device (so rows it refuses can be skipped at registration).
using AlignmentFn = gemm::Status (*)(Layout layout, const Shape& s);

template <class B>
struct Preset {
  std::string name;      // Policy::name()
  std::string describe;  // Policy::describe()
  RowMajorFn<B> row_major = nullptr;  // set in the presets_<type>.cu tables
  OpsFn<B> ops = nullptr;             // set in the presets_layouts.cu tables
  AlignmentFn alignment = nullptr;
};

// Every preset serving the type, row-major entry point.
template <class B> const std::vector<Preset<B>>& presets();
template <> const std::vector<Preset<Float>>& presets<Float>();
template <> const std::vector<Preset<Tf32>>& presets<Tf32>();
template <> const std::vector<Preset<Tf32x3>>& presets<Tf32x3>();
template <> const std::vector<Preset<Double>>& presets<Double>();
template <> const std::vector<Preset<Bf16>>& presets<Bf16>();
template <> const std::vector<Preset<Fp16>>& presets<Fp16>();
template <> const std::vector<Preset<Bf16F32>>& presets<Bf16F32>();
template <> const std::vector<Preset<Fp16F32>>& presets<Fp16F32>();

// The presets compiled with every layout (op entry point); empty for most types.
template <class B> const std::vector<Preset<B>>& layout_presets();
template <> const std::vector<Preset<Float>>& layout_presets<Float>();
template <> const std::vector<Preset<Tf32>>& layout_presets<Tf32>();
template <> const std::vector<Preset<Tf32x3>>& layout_presets<Tf32x3>();
template <> const std::vector<Preset<Double>>& layout_presets<Double>();
template <> const std::vector<Preset<Bf16>>& layout_presets<Bf16>();
template <> const std::vector<Preset<Fp16>>& layout_presets<Fp16>();
template <> const std::vector<Preset<Bf16F32>>& layout_presets<Bf16F32>();
template <> const std::vector<Preset<Fp16F32>>& layout_presets<Fp16F32>();

// ---------------------------------------------------------------------------
// Command-line options of our own (all start with --gemm_ and are removed from
// argv before benchmark::Initialize sees it).
// ---------------------------------------------------------------------------
struct Options {
  bool full = false;         // --gemm_full: the full grid
  bool flow_only = false;    // --gemm_flow: only the whole-flow table
  bool no_flow = false;      // --gemm_no_flow: skip the whole-flow table
  bool list_only = false;    // --benchmark_list_tests was given
  bool filter_given = false; // --benchmark_filter was given
  std::string flow_out;      // --gemm_flow_out=PATH
  std::string shapes;        // --gemm_shapes=MxNxK,...      (overrides the grid)
  std::string types;         // --gemm_types=float,bf16,...   (only these types)
  std::string layouts;       // --gemm_layouts=NN,NT,TN,TT    (these layouts, every type)
  int repetitions = 7;       // --gemm_repetitions=N
  double batch_ms = 2.0;     // --gemm_batch_ms=X: minimum length of one timed batch
  int flow_runs = 20;        // --gemm_flow_runs=N
  bool shape_space = false;  // --gemm_shape_space: Tuned beside cuBLAS over the shape space (shape_space.hpp)
  std::string shape_space_out;  // --gemm_shape_space_out=PATH: its summary as JSON
  int fp8_promote = 128;     // --gemm_fp8_promote=K: the FP8 rows' Scales::promote_every (0: cuBLASLt's fast accumulation too)
  bool fp8_out_e4m3 = false; // --gemm_fp8_out=e4m3: ours stores e4m3 C with a D scale and amax (cuBLASLt: bf16 D)
  bool fp8_space = false;    // --gemm_fp8_space: the FP8 rows over the shape space's forward-form calls
  std::string mode() const {
    return shape_space ? "shape-space" : fp8_space ? "fp8-space" : flow_only ? "flow" : (full ? "full" : "default");
  }
};

// Checks --gemm_types and --gemm_layouts (throws Error with a message).
void validate_options(const Options& opt);

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

// Fills n elements with uniform_pm1 values rounded to T (float, double,
// __nv_bfloat16, __half); never zero.
template <class T> void fill_uniform(T* p, std::size_t n, std::uint64_t seed);

struct Comparison {
  double max_abs_diff = 0;        // max |c - ref| over finite c
  double max_abs_ref = 0;         // max |ref|
  unsigned long long nonfinite = 0;  // NaN/Inf elements in c (or ref)
  double rel() const { return max_abs_ref > 0 ? max_abs_diff / max_abs_ref : max_abs_diff; }
};
// Compares two device arrays of n elements of T (float, double, bf16, half),
// in double (synchronous).
template <class T> Comparison compare_device(const T* c, const T* ref, std::size_t n);

// cuBLAS baseline through cublasGemmEx: row-major C = alpha*op(A)*op(B) +
// beta*C with tight leading dimensions (Shape::lda/ldb/ldc).
template <class B>
cublasStatus_t cublas_gemm(Layout layout, const Shape& s, typename B::Scalar alpha, const typename B::In* A,
                           const typename B::In* Bm, typename B::Scalar beta, typename B::Out* C,
                           cudaStream_t stream);
// "cublasGemmEx CUBLAS_COMPUTE_32F_PEDANTIC, A/B CUDA_R_32F, C CUDA_R_32F".
template <class B> std::string cublas_label();

// Key/value facts about the machine and build, for the benchmark context and
// the flow JSON.
std::vector<std::pair<std::string, std::string>> context_entries(const Options& opt);

// Short "GPU name, N SMs" line.
std::string device_summary();

// A few hundred milliseconds of SGEMM so the GPU is at its boost clock.
void global_warmup();

// Registers every benchmark of the selected grid; prints the skipped ones.
void register_benchmarks(const Options& opt);
// The shape space's summary after the run (--gemm_shape_space): per class and overall, the geometric
// mean and the worst of Tuned / cuBLAS, and each shape's fraction of the roofline.
void print_shape_space_summary(const Options& opt);

// Markdown summary from our own medians (after RunSpecifiedBenchmarks).
void print_summary(const Options& opt);

// Two CUDA events for timing launches, created at first use (bench.cu).
struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events();
};
Events& events();
// Seconds for n calls of launch(err) between the two events (each call launches one GEMM); 0 when a
// call fails (it returns false and fills *err).
template <class Launch>
double time_launches(int n, Launch&& launch, std::string* err) {
  Events& ev = events();
  GEMM_BENCH_CUDA(cudaEventRecord(ev.start, 0));
  for (int i = 0; i < n; ++i) {
    if (!launch(err)) {
      cudaDeviceSynchronize();
      return 0;
    }
  }
  GEMM_BENCH_CUDA(cudaEventRecord(ev.stop, 0));
  GEMM_BENCH_CUDA(cudaEventSynchronize(ev.stop));
  GEMM_BENCH_CUDA(cudaGetLastError());
  float ms = 0;
  GEMM_BENCH_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
  return double(ms) * 1e-3;
}

// Warm-up (about 20 ms of calls of launch), then the number of calls that makes one timed batch at
// least target_s long (0 when a call fails).
template <class Launch>
int calibrate_launches(double target_s, Launch&& launch, std::string* err) {
  double t = time_launches(1, launch, err);
  if (!err->empty()) return 0;
  const int warm = static_cast<int>(std::min(1e5, std::max(1.0, std::ceil(20e-3 / std::max(t, 1e-9)))));
  time_launches(warm, launch, err);
  if (!err->empty()) return 0;
  const int probe = static_cast<int>(std::min(1e5, std::max(1.0, std::ceil(0.5e-3 / std::max(t, 1e-9)))));
  t = time_launches(probe, launch, err) / probe;
  if (!err->empty()) return 0;
  return static_cast<int>(std::max(1.0, std::min(std::ceil(target_s / std::max(t, 1e-9)), double(1 << 20))));
}

// Whether the current device is an sm_90 GPU (what sm_90a code runs on: the FP8 and grouped rows);
// if not, *why says "<need>; this is <name>, compute capability <x.y>" (or that there is no device).
bool sm90_device(const char* need, std::string* why);

// "gemm::gemm failed: <status>" and the CUDA error behind it, if any (bench.cu).
std::string launch_error(gemm::Status st);

// Frees the device buffers held between benchmarks.
void release_workspace();

// The FP8 rows (fp8_bench.cu): gemm/fp8_<tensor|rowwise|block>/<Tuned|Fp8>/NT/<m>x<n>x<k> beside
// cuBLASLt in the same scale mode; their markdown table after the run; their buffers.
void register_fp8_benchmarks(const Options& opt);
void print_fp8_summary(const Options& opt);
void release_fp8_workspace();
// FP8 data as those rows fill it (device, on the default stream): e4m3 values over nine binades, and
// positive scales in (2^-7, 2^-6) that keep C far inside bf16's range.
void fill_fp8(__nv_fp8_e4m3* p, std::size_t n, std::uint64_t seed);
void fill_fp8_scales(float* p, std::size_t n, std::uint64_t seed);
// gemm::gemm<__nv_fp8_e4m3, Tuned> of those rows: C (m x n, bf16) = A (m x k) B^T (B stored n x k).
gemm::Status tuned_fp8_nt(int m, int n, int k, const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, __nv_bfloat16* C,
                          const gemm::Scales& scales);

// The grouped rows (grouped_bench.cu): grouped/bf16/<contiguous|masked>/<workload> beside cuBLAS's
// grouped GEMM and one dense call; their markdown table after the run; their buffers.
void register_grouped_benchmarks(const Options& opt);
void print_grouped_summary(const Options& opt);
void release_grouped_workspace();

// "MxNxK,..." (--gemm_shapes); throws Error on a bad shape.
std::vector<Shape> parse_shapes(const std::string& spec);

// The whole-flow table (flow.cu). Returns 0 on success.
int run_flow(const Options& opt);

// The gemm::host rows of the whole-flow table (host_flow.cu): PCIe rates, host-memory flows at
// 1024^3 (from the given fp32 inputs, checked against the given fp64 reference) and 8192^3, one
// timeline per memory kind. `tables` is its markdown; `json` holds its members of the flow JSON.
struct HostFlowOutput {
  std::string json;
  std::string tables;  // markdown, printed by the caller after its own table
  bool ok = false;
  // gemm::host at 1024^3 with the planner's choices, for the whole-flow table's own row.
  double pinned_ms = 0, pageable_ms = 0, rel_err = 0;
  bool row_ok = false;
  std::string row_error, plan;
};
HostFlowOutput run_host_flows(const Options& opt, const std::vector<float>& a1024, const std::vector<float>& b1024,
                              const std::vector<double>& ref1024);

// Helpers shared by the TUs.
double median(std::vector<double> v);
std::string json_escape(const std::string& s);
std::string fmt(const char* format, ...);

}  // namespace gemm_bench
