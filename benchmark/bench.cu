// Workspaces, timing, the cuBLAS baseline, result checks, benchmark
// registration and the summary table of gemm_bench.
#include "bench_common.cuh"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <sstream>
#include <type_traits>

#include "gemm_git_commit.h"  // GEMM_GIT_COMMIT, written at build time (cmake/git-commit.cmake)
#include "shape_space.hpp"

namespace gemm_bench {

// ===========================================================================
// Small helpers
// ===========================================================================
void cuda_check(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::ostringstream os;
  os << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") in "
     << expr << " at " << file << ":" << line;
  throw Error(os.str());
}

void cublas_check(cublasStatus_t st, const char* expr, const char* file, int line) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  std::ostringstream os;
  os << "cuBLAS error " << cublasGetStatusName(st) << " in " << expr << " at " << file << ":"
     << line;
  throw Error(os.str());
}

std::string Shape::str() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

std::string fmt(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  return buf;
}

std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt("\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
          out += c;
    }
  }
  return out;
}

// ===========================================================================
// Type dispatch: run-time type name -> BenchType
// ===========================================================================
namespace {

// Calls f(B{}) for the type named `name`; false if there is no such type.
template <class F>
bool with_type(const std::string& name, F&& f) {
  if (name == Float::name()) return f(Float{}), true;
  if (name == Tf32::name()) return f(Tf32{}), true;
  if (name == Tf32x3::name()) return f(Tf32x3{}), true;
  if (name == Double::name()) return f(Double{}), true;
  if (name == Bf16::name()) return f(Bf16{}), true;
  if (name == Bf16F32::name()) return f(Bf16F32{}), true;
  if (name == Fp16::name()) return f(Fp16{}), true;
  if (name == Fp16F32::name()) return f(Fp16F32{}), true;
  return false;
}

std::vector<std::string> split_list(const std::string& spec) {
  std::vector<std::string> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string all_type_names() {
  std::string s;
  for (const char* t : kTypeNames) s += (s.empty() ? "" : ",") + std::string(t);
  return s;
}

// The types of --gemm_types (all of them when it is not given), in kTypeNames order.
std::vector<std::string> selected_types(const Options& opt) {
  if (opt.types.empty()) return {std::begin(kTypeNames), std::end(kTypeNames)};
  const std::vector<std::string> wanted = split_list(opt.types);
  std::vector<std::string> out;
  for (const char* t : kTypeNames)
    if (std::find(wanted.begin(), wanted.end(), t) != wanted.end()) out.push_back(t);
  return out;
}

bool parse_layout(const std::string& s, Layout* out) {
  for (Layout l : kAllLayouts)
    if (s == layout_name(l)) return *out = l, true;
  return false;
}

}  // namespace

std::vector<Shape> parse_shapes(const std::string& spec);

void validate_options(const Options& opt) {
  parse_shapes(opt.shapes);  // throws on a bad shape
  for (const std::string& t : split_list(opt.types))
    if (t != kFp8TypeName && t != kGroupedTypeName && !with_type(t, [](auto) {}))
      throw Error("unknown type '" + t + "' in --gemm_types (one of " + all_type_names() + "," + kFp8TypeName + "," +
                  kGroupedTypeName + ")");
  if (!opt.types.empty() && split_list(opt.types).empty()) throw Error("--gemm_types is empty");
  Layout l;
  for (const std::string& s : split_list(opt.layouts))
    if (!parse_layout(s, &l)) throw Error("unknown layout '" + s + "' in --gemm_layouts (NN, NT, TN or TT)");
  if (!opt.layouts.empty() && split_list(opt.layouts).empty()) throw Error("--gemm_layouts is empty");
}

// ===========================================================================
// Device kernels: random fill and comparison
// ===========================================================================
namespace {

template <class T>
__device__ T from_double(double x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __double2bfloat16(x);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __double2half(x);
  } else {
    return static_cast<T>(x);
  }
}

template <class T>
__device__ double to_double(T x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<double>(__bfloat162float(x));
  } else if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(x));
  } else {
    return static_cast<double>(x);
  }
}

template <class T>
__global__ void fill_uniform_kernel(T* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double u = uniform_pm1(seed, i);
    T v = from_double<T>(u);
    // |u| >= 2^-52 never rounds to 0 in float, double or bf16 (whose exponent
    // range is float's), but below 2^-25 it rounds to 0 in fp16: use fp16's
    // smallest normal (2^-14) instead, with u's sign (about 1 value in 2^24).
    if (to_double(v) == 0.0) v = from_double<T>(u < 0 ? -6.103515625e-05 : 6.103515625e-05);
    p[i] = v;
  }
}

// out[0] = bits of max |c - ref| (over finite c), out[1] = bits of max |ref|,
// out[2] = number of non-finite elements. Non-negative doubles order like
// their bit patterns, so atomicMax on the bits is a max on the values.
template <class T>
__global__ void compare_kernel(const T* c, const T* ref, std::size_t n,
                               unsigned long long* out) {
  double max_diff = 0, max_ref = 0;
  unsigned long long bad = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double a = to_double(c[i]);
    const double b = to_double(ref[i]);
    if (!isfinite(a) || !isfinite(b)) {
      ++bad;
      continue;
    }
    max_diff = fmax(max_diff, fabs(a - b));
    max_ref = fmax(max_ref, fabs(b));
  }
  for (int off = 16; off > 0; off /= 2) {
    max_diff = fmax(max_diff, __shfl_down_sync(0xffffffffu, max_diff, off));
    max_ref = fmax(max_ref, __shfl_down_sync(0xffffffffu, max_ref, off));
    bad += __shfl_down_sync(0xffffffffu, bad, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&out[0], static_cast<unsigned long long>(__double_as_longlong(max_diff)));
    atomicMax(&out[1], static_cast<unsigned long long>(__double_as_longlong(max_ref)));
    if (bad) atomicAdd(&out[2], bad);
  }
}

int grid_for(std::size_t n) {
  static int sms = [] {
    int dev = 0, v = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev);
    return v > 0 ? v : 1;
  }();
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, 8 * sms)));
}

}  // namespace

template <class T>
void fill_uniform(T* p, std::size_t n, std::uint64_t seed) {
  if (n == 0) return;
  fill_uniform_kernel<T><<<grid_for(n), 256>>>(p, n, seed);
  GEMM_BENCH_CUDA(cudaGetLastError());
}
template void fill_uniform<float>(float*, std::size_t, std::uint64_t);
template void fill_uniform<double>(double*, std::size_t, std::uint64_t);
template void fill_uniform<__nv_bfloat16>(__nv_bfloat16*, std::size_t, std::uint64_t);
template void fill_uniform<__half>(__half*, std::size_t, std::uint64_t);

template <class T>
Comparison compare_device(const T* c, const T* ref, std::size_t n) {
  static unsigned long long* d_out = nullptr;
  if (!d_out) GEMM_BENCH_CUDA(cudaMalloc(&d_out, 3 * sizeof(unsigned long long)));
  GEMM_BENCH_CUDA(cudaMemset(d_out, 0, 3 * sizeof(unsigned long long)));
  compare_kernel<T><<<grid_for(n), 256>>>(c, ref, n, d_out);
  GEMM_BENCH_CUDA(cudaGetLastError());
  unsigned long long h[3];
  GEMM_BENCH_CUDA(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
  Comparison r;
  std::memcpy(&r.max_abs_diff, &h[0], sizeof(double));
  std::memcpy(&r.max_abs_ref, &h[1], sizeof(double));
  r.nonfinite = h[2];
  return r;
}
template Comparison compare_device<float>(const float*, const float*, std::size_t);
template Comparison compare_device<double>(const double*, const double*, std::size_t);
template Comparison compare_device<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, std::size_t);
template Comparison compare_device<__half>(const __half*, const __half*, std::size_t);

// ===========================================================================
// cuBLAS baseline: cublasGemmEx for every type and layout
// ===========================================================================
namespace {

template <class T>
constexpr cudaDataType_t cuda_data_type() {
  if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return CUDA_R_16BF;
  else if constexpr (std::is_same_v<T, __half>) return CUDA_R_16F;
  else return CUDA_R_32F;
}
template <class T>
constexpr const char* cuda_data_type_name() {
  if constexpr (std::is_same_v<T, double>) return "CUDA_R_64F";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "CUDA_R_16BF";
  else if constexpr (std::is_same_v<T, __half>) return "CUDA_R_16F";
  else return "CUDA_R_32F";
}

// The compute type of a math type: strict fp32 stays strict (pedantic: no
// TF32, no bf16x9 emulation); tf32 asks for TF32 tensor cores; tf32x3 is
// compared with strict SGEMM (cuBLAS has no 3xTF32 on Hopper); 16-bit inputs
// accumulate in fp32.
template <class B>
constexpr cublasComputeType_t cublas_compute_type() {
  using T = typename B::Math;
  if constexpr (std::is_same_v<T, double>) return CUBLAS_COMPUTE_64F;
  else if constexpr (std::is_same_v<T, gemm::tf32>) return CUBLAS_COMPUTE_32F_FAST_TF32;
  else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, gemm::tf32x3>) return CUBLAS_COMPUTE_32F_PEDANTIC;
  else return CUBLAS_COMPUTE_32F;
}
template <class B>
constexpr const char* cublas_compute_name() {
  using T = typename B::Math;
  if constexpr (std::is_same_v<T, double>) return "CUBLAS_COMPUTE_64F";
  else if constexpr (std::is_same_v<T, gemm::tf32>) return "CUBLAS_COMPUTE_32F_FAST_TF32";
  else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, gemm::tf32x3>) return "CUBLAS_COMPUTE_32F_PEDANTIC";
  else return "CUBLAS_COMPUTE_32F";
}

// One handle in the default math mode: each call's compute type says what
// cuBLAS may do (for double that is plain fp64: fp64 emulation is opt-in).
cublasHandle_t cublas_handle() {
  static cublasHandle_t h = nullptr;
  if (!h) GEMM_BENCH_CUBLAS(cublasCreate(&h));
  return h;
}

// cublasSetStream only when the stream changes (the handle starts on stream 0).
cublasStatus_t set_stream(cublasHandle_t h, cudaStream_t stream) {
  static cudaStream_t current = nullptr;
  if (stream == current) return CUBLAS_STATUS_SUCCESS;
  const cublasStatus_t st = cublasSetStream(h, stream);
  if (st == CUBLAS_STATUS_SUCCESS) current = stream;
  return st;
}

constexpr const char* kCublasMathMode = "CUBLAS_DEFAULT_MATH";

}  // namespace

// Row-major C (m x n) = op(A) op(B) is column-major C^T (n x m) =
// op(B)^T op(A)^T over the same storage: call the column-major gemm with
// (n, m, k) and B before A. A row-major operand stored as written is, read
// column-major, the transpose of itself, which is what the swapped call needs:
// CUBLAS_OP_N; one stored transposed needs CUBLAS_OP_T.
template <class B>
cublasStatus_t cublas_gemm(Layout layout, const Shape& s, typename B::Scalar alpha, const typename B::In* A,
                           const typename B::In* Bm, typename B::Scalar beta, typename B::Out* C,
                           cudaStream_t stream) {
  cublasHandle_t h = cublas_handle();
  if (cublasStatus_t st = set_stream(h, stream); st != CUBLAS_STATUS_SUCCESS) return st;
  const cublasOperation_t tb = op_b(layout) == gemm::Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ta = op_a(layout) == gemm::Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
  constexpr cudaDataType_t in = cuda_data_type<typename B::In>();
  constexpr cudaDataType_t out = cuda_data_type<typename B::Out>();
  return cublasGemmEx(h, tb, ta, s.n, s.m, s.k, &alpha, Bm, in, s.ldb(layout), A, in, s.lda(layout), &beta, C, out,
                      s.ldc(), cublas_compute_type<B>(), CUBLAS_GEMM_DEFAULT);
}

template <class B>
std::string cublas_label() {
  return std::string("cublasGemmEx ") + cublas_compute_name<B>() + ", A/B " +
         cuda_data_type_name<typename B::In>() + ", C " + cuda_data_type_name<typename B::Out>();
}

#define GEMM_BENCH_INSTANTIATE_CUBLAS(B)                                                                         \
  template cublasStatus_t cublas_gemm<B>(Layout, const Shape&, B::Scalar, const B::In*, const B::In*, B::Scalar, \
                                         B::Out*, cudaStream_t);                                                 \
  template std::string cublas_label<B>();
GEMM_BENCH_INSTANTIATE_CUBLAS(Float)
GEMM_BENCH_INSTANTIATE_CUBLAS(Tf32)
GEMM_BENCH_INSTANTIATE_CUBLAS(Tf32x3)
GEMM_BENCH_INSTANTIATE_CUBLAS(Double)
GEMM_BENCH_INSTANTIATE_CUBLAS(Bf16)
GEMM_BENCH_INSTANTIATE_CUBLAS(Fp16)
GEMM_BENCH_INSTANTIATE_CUBLAS(Bf16F32)
GEMM_BENCH_INSTANTIATE_CUBLAS(Fp16F32)
#undef GEMM_BENCH_INSTANTIATE_CUBLAS

// ===========================================================================
// Context
// ===========================================================================
namespace {
std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
std::string cuda_version_str(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
}  // namespace

std::string device_summary() {
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    cudaGetLastError();
    return "no GPU";
  }
  return fmt("%s, %d SMs, compute capability %d.%d", p.name, p.multiProcessorCount, p.major,
             p.minor);
}

std::vector<std::pair<std::string, std::string>> context_entries(const Options& opt) {
  std::vector<std::pair<std::string, std::string>> kv;
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
    int clock_khz = 0, mem_clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
    kv.emplace_back("gpu_name", p.name);
    kv.emplace_back("gpu_compute_capability", fmt("%d.%d", p.major, p.minor));
    kv.emplace_back("gpu_sm_count", std::to_string(p.multiProcessorCount));
    kv.emplace_back("gpu_clock_mhz", std::to_string(clock_khz / 1000));
    kv.emplace_back("gpu_memory_clock_mhz", std::to_string(mem_clock_khz / 1000));
    kv.emplace_back("gpu_memory_gib", fmt("%.1f", double(p.totalGlobalMem) / (1ull << 30)));
    kv.emplace_back("gpu_l2_cache_mib", fmt("%.1f", double(p.l2CacheSize) / (1 << 20)));
  }
  cudaGetLastError();
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  kv.emplace_back("cuda_driver_version", cuda_version_str(drv));
  kv.emplace_back("cuda_runtime_version", cuda_version_str(rt));
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  kv.emplace_back("cublas_version", fmt("%d.%d.%d", major, minor, patch));
  kv.emplace_back("cublas_math_mode", kCublasMathMode);
  for (const char* t : kTypeNames) {
    with_type(t, [&](auto b) {
      using B = decltype(b);
      kv.emplace_back(std::string("cublas_") + t, cublas_label<B>());
      kv.emplace_back(std::string("ridge_flop_per_byte_") + t, fmt("%.0f", ridge_intensity<B>()));
      kv.emplace_back(std::string("tolerance_") + t, fmt("%.0e", tolerance<B>()));
    });
  }
  kv.emplace_back("git_commit", GEMM_GIT_COMMIT);
  kv.emplace_back("run_date_utc", utc_now());
  kv.emplace_back("gemm_bench_mode", opt.mode());
  if (!opt.types.empty()) kv.emplace_back("gemm_bench_types", opt.types);
  if (!opt.layouts.empty()) kv.emplace_back("gemm_bench_layouts", opt.layouts);
  if (!opt.shapes.empty()) kv.emplace_back("gemm_bench_shapes", opt.shapes);
  kv.emplace_back("gemm_bench_repetitions", std::to_string(opt.repetitions));
  kv.emplace_back("gemm_bench_statistic", "median");
  return kv;
}

void global_warmup() {
  const Shape s{2048, 2048, 2048};
  const std::size_t n = std::size_t(s.m) * s.k;
  float *a = nullptr, *c = nullptr;
  GEMM_BENCH_CUDA(cudaMalloc(&a, n * sizeof(float)));
  GEMM_BENCH_CUDA(cudaMalloc(&c, n * sizeof(float)));
  fill_uniform(a, n, 1);
  cudaEvent_t e0, e1;
  GEMM_BENCH_CUDA(cudaEventCreate(&e0));
  GEMM_BENCH_CUDA(cudaEventCreate(&e1));
  float ms = 0;
  GEMM_BENCH_CUDA(cudaEventRecord(e0));
  // About 0.3 s of work, whatever the GPU's speed.
  for (int round = 0; round < 64 && ms < 300.f; ++round) {
    for (int i = 0; i < 8; ++i)
      GEMM_BENCH_CUBLAS(cublas_gemm<Float>(Layout::NN, s, 1.f, a, a, 0.f, c, 0));
    GEMM_BENCH_CUDA(cudaEventRecord(e1));
    GEMM_BENCH_CUDA(cudaEventSynchronize(e1));
    GEMM_BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(c);
}

// ===========================================================================
// Workspace: input sets of one (type, layout, shape), rotated so small shapes
// are not timed out of the 50 MB L2.
// ===========================================================================
Events::Events() {
  GEMM_BENCH_CUDA(cudaEventCreate(&start));
  GEMM_BENCH_CUDA(cudaEventCreate(&stop));
}
Events& events() {
  static Events e;
  return e;
}
bool sm90_device(const char* need, std::string* why) {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    cudaGetLastError();
    *why = "no CUDA device";
    return false;
  }
  if (major == 9 && minor == 0) return true;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) cudaGetLastError();
  *why = fmt("%s; this is %s, compute capability %d.%d", need, p.name, major, minor);
  return false;
}
std::string launch_error(gemm::Status st) {
  std::string e = std::string("gemm::gemm failed: ") + gemm::to_string(st);
  if (gemm::last_cuda_error() != cudaSuccess)
    e += std::string(" [") + cudaGetErrorName(gemm::last_cuda_error()) + ": " +
         cudaGetErrorString(gemm::last_cuda_error()) + "]";
  return e;
}

namespace {

constexpr double kRotationBytes = 200e6;  // total size of all sets, at least
constexpr int kMaxSets = 2048;

struct WorkspaceBase {
  virtual ~WorkspaceBase() = default;
};

template <class B>
struct Workspace : WorkspaceBase {
  using In = typename B::In;
  using Out = typename B::Out;
  Shape s;
  Layout layout = Layout::NN;
  int sets = 1;
  std::size_t a_elems = 0, b_elems = 0, c_elems = 0;  // each padded to 256 bytes
  In* inputs = nullptr;  // sets x (A, B), each matrix 256-byte aligned
  Out* outputs = nullptr;  // sets x C, each 256-byte aligned
  Out* c_ref = nullptr;  // cuBLAS result on set 0
  int next = 0;          // next set to use

  template <class T>
  static std::size_t pad(std::size_t elems) {
    const std::size_t q = 256 / sizeof(T);
    return (elems + q - 1) / q * q;
  }

  Workspace(const Shape& shape, Layout l) : s(shape), layout(l) {
    // A holds m x k elements whether stored m x k (op N) or k x m (op T); B likewise.
    a_elems = pad<In>(std::size_t(s.m) * s.k);
    b_elems = pad<In>(std::size_t(s.k) * s.n);
    c_elems = pad<Out>(std::size_t(s.m) * s.n);
    const double set_bytes = double(a_elems + b_elems) * sizeof(In) + double(c_elems) * sizeof(Out);
    sets = static_cast<int>(std::ceil(kRotationBytes / set_bytes));
    sets = std::max(1, std::min(sets, kMaxSets));
    try {
      GEMM_BENCH_CUDA(cudaMalloc(&inputs, std::size_t(sets) * (a_elems + b_elems) * sizeof(In)));
      GEMM_BENCH_CUDA(cudaMalloc(&outputs, std::size_t(sets) * c_elems * sizeof(Out)));
      GEMM_BENCH_CUDA(cudaMalloc(&c_ref, c_elems * sizeof(Out)));
      // Same data for every layout of a shape (and for float and tf32); only
      // how A and B are read differs.
      const std::uint64_t seed =
          splitmix64((std::uint64_t(sizeof(In)) << 60) ^ (std::uint64_t(s.m) << 40) ^
                     (std::uint64_t(s.n) << 20) ^ std::uint64_t(s.k));
      fill_uniform(inputs, std::size_t(sets) * (a_elems + b_elems), seed);
      GEMM_BENCH_CUBLAS(cublas_gemm<B>(layout, s, 1, A(0), Bm(0), 0, c_ref, 0));
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    } catch (...) {
      release();
      throw;
    }
  }
  ~Workspace() override { release(); }
  void release() {
    if (inputs) cudaFree(inputs);
    if (outputs) cudaFree(outputs);
    if (c_ref) cudaFree(c_ref);
    inputs = nullptr;
    outputs = c_ref = nullptr;
  }
  In* A(int i) const { return inputs + std::size_t(i) * (a_elems + b_elems); }
  In* Bm(int i) const { return A(i) + a_elems; }
  Out* C(int i) const { return outputs + std::size_t(i) * c_elems; }
  int take() {
    const int i = next;
    next = (next + 1) % sets;
    return i;
  }
};

std::unique_ptr<WorkspaceBase> g_workspace;
std::string g_workspace_key;

template <class B>
Workspace<B>& workspace(const Shape& s, Layout layout) {
  const std::string key = std::string(B::name()) + "/" + layout_name(layout) + "/" + s.str();
  if (key != g_workspace_key) {
    g_workspace.reset();  // free the previous shape's buffers first
    g_workspace_key.clear();
    g_workspace = std::make_unique<Workspace<B>>(s, layout);
    g_workspace_key = key;
  }
  return static_cast<Workspace<B>&>(*g_workspace);
}


// ===========================================================================
// Records: one per registered (or skipped) benchmark, in registration order.
// ===========================================================================
struct Record {
  std::string name;   // gemm/bf16/Persistent/NT/4096x4096x4096 or cublas/float/4096x4096x4096
  std::string type;   // float, tf32, double, bf16, ...
  Layout layout = Layout::NN;
  std::string impl;   // preset name or "cuBLAS"
  Shape shape;
  std::size_t in_bytes = 4, out_bytes = 4;  // per element of A and B, of C
  double ridge = 0;   // the type's ridge point, flop/byte
  bool is_cublas = false;
  std::string skipped;  // non-empty: not registered, and why
  bool prepared = false;
  int batch = 0;        // launches per timed batch
  std::string error;    // non-empty: failed (reported with SkipWithError)
  std::vector<double> samples;  // per-launch seconds, one per repetition
  // Preset rows: cuBLAS timed on the same data right before each repetition, and the ratios.
  std::vector<double> paired_pct;  // 100 * cuBLAS batch time / this batch time, per repetition
  std::string cls, source;  // the shape space's class and where the shape comes from (--gemm_shape_space)

  double bytes() const { return shape.bytes(in_bytes, out_bytes); }
  double intensity() const { return shape.intensity(in_bytes, out_bytes); }
  bool memory_bound() const { return intensity() < ridge; }
  // The (type, layout, shape) that cuBLAS and the presets share.
  std::string key() const { return type + "/" + layout_name(layout) + "/" + shape.str(); }
  // "4096x4096x4096", or "4096x4096x4096 NT" for other layouts.
  std::string shape_column() const {
    return layout == Layout::NN ? shape.str() : shape.str() + " " + layout_name(layout);
  }
};

std::vector<std::unique_ptr<Record>>& records() {
  static std::vector<std::unique_ptr<Record>> r;
  return r;
}

// cuBLAS record of each Record::key().
std::map<std::string, Record*>& cublas_records() {
  static std::map<std::string, Record*> m;
  return m;
}

// One implementation (cuBLAS or a preset) bound to a type.
template <class B>
struct Impl {
  const Preset<B>* preset = nullptr;  // null: cuBLAS

  // Runs C(set) = op(A(set)) op(B(set)) in the workspace's layout. Returns
  // false and fills *err on failure.
  bool launch(Workspace<B>& ws, int set, std::string* err) const {
    const Shape& s = ws.s;
    const Layout l = ws.layout;
    typename B::Out* C = ws.C(set);
    if (!preset) {
      const cublasStatus_t st = cublas_gemm<B>(l, s, 1, ws.A(set), ws.Bm(set), 0, C, 0);
      if (st == CUBLAS_STATUS_SUCCESS) return true;
      *err = std::string("cuBLAS returned ") + cublasGetStatusName(st);
      return false;
    }
    gemm::Status st;
    if (l == Layout::NN && preset->row_major) {
      st = preset->row_major(s.m, s.n, s.k, 1, ws.A(set), s.lda(l), ws.Bm(set), s.ldb(l), 0, C, s.ldc(), 0);
    } else if (preset->ops) {
      st = preset->ops(op_a(l), op_b(l), s.m, s.n, s.k, 1, ws.A(set), s.lda(l), ws.Bm(set), s.ldb(l), 0, C,
                       s.ldc(), 0);
    } else {
      *err = preset->name + " is not compiled with layout " + layout_name(l);
      return false;
    }
    if (st == gemm::Status::Success) return true;
    *err = launch_error(st);
    return false;
  }

  // Times n launches between two events; returns seconds for the batch.
  double time_batch(Workspace<B>& ws, int n, std::string* err) const {
    return time_launches(n, [&](std::string* e) { return launch(ws, ws.take(), e); }, err);
  }

  // Warm-up, then the number of launches that makes one batch >= target_s.
  int calibrate(Workspace<B>& ws, double target_s, std::string* err) const {
    double t = time_batch(ws, 1, err);
    if (!err->empty()) return 0;
    // Warm-up: about 20 ms of launches (at least one).
    const int warm = static_cast<int>(std::min(1e5, std::max(1.0, std::ceil(20e-3 / t))));
    time_batch(ws, warm, err);
    if (!err->empty()) return 0;
    // Re-estimate the per-launch time on a batch of >= ~0.5 ms.
    const int probe = static_cast<int>(std::min(1e5, std::max(1.0, std::ceil(0.5e-3 / t))));
    t = time_batch(ws, probe, err) / probe;
    if (!err->empty()) return 0;
    const double b = std::ceil(target_s / std::max(t, 1e-9));
    return static_cast<int>(std::max(1.0, std::min(b, double(1 << 20))));
  }
};

// The cuBLAS batch size that pairs with preset rows of this key (calibrated once, with warm-up);
// 0 when cuBLAS fails for it.
template <class B>
int cublas_pair_batch(Workspace<B>& ws, const std::string& key, const Options& opt, std::string* err) {
  static std::map<std::string, int> batches;
  auto it = batches.find(key);
  if (it != batches.end()) return it->second;
  const int b = Impl<B>{}.calibrate(ws, opt.batch_ms * 1e-3, err);
  batches[key] = err->empty() ? b : 0;
  return batches[key];
}

std::string label_for(const Record& r, const std::string& describe) {
  std::string label = describe;
  if (r.memory_bound())
    label += fmt("%smemory-bound (%.0f flop/B, %s ridge %.0f)", label.empty() ? "" : " | ", r.intensity(),
                 r.type.c_str(), r.ridge);
  return label;
}

template <class B>
void run_benchmark(benchmark::State& state, Record* rec, Impl<B> impl, std::string label,
                   const Options* opt) {
  auto fail = [&](const std::string& msg) {
    if (rec->error.empty()) rec->error = msg;
    state.SkipWithError(rec->error.c_str());
  };
  if (!rec->error.empty()) {
    state.SkipWithError(rec->error.c_str());
    return;
  }
  const std::string where = rec->name;
  try {
    Workspace<B>& ws = workspace<B>(rec->shape, rec->layout);
    std::string err;
    if (!rec->prepared) {
      if (impl.preset) {
        // Check against cuBLAS on set 0 before timing anything. C is first
        // filled with bytes 0x7f so unwritten elements are caught: 3.4e38 as
        // float and bf16, 1.4e306 as double (all far off any result), NaN as
        // fp16.
        GEMM_BENCH_CUDA(cudaMemset(ws.C(0), 0x7f, ws.c_elems * sizeof(typename B::Out)));
        if (!impl.launch(ws, 0, &err)) return fail(where + ": " + err);
        GEMM_BENCH_CUDA(cudaDeviceSynchronize());
        const Comparison c = compare_device(ws.C(0), ws.c_ref, std::size_t(ws.s.m) * ws.s.n);
        if (c.nonfinite)
          return fail(where + fmt(": wrong result: %llu NaN/Inf elements in C", c.nonfinite));
        if (!(c.rel() <= tolerance<B>()))
          return fail(where + fmt(": wrong result: max rel error %.3e vs cuBLAS (tolerance %.0e)", c.rel(),
                                  tolerance<B>()));
      }
      rec->batch = impl.calibrate(ws, opt->batch_ms * 1e-3, &err);
      if (!err.empty()) return fail(where + ": " + err);
      rec->prepared = true;
    }
    // pct_cublas pairs each repetition with a cuBLAS batch timed just before it on the same data, so
    // that clock and temperature drift over the run (seen: +-8% on an H200 within a minute) affects
    // both sides of the ratio alike.
    const int cublas_batch = impl.preset ? cublas_pair_batch<B>(ws, rec->key(), *opt, &err) : 0;
    if (!err.empty()) err.clear();  // no cuBLAS for this key: the row runs without pct_cublas

    double per_launch = 0, cublas_launch = std::nan("");
    for (auto _ : state) {
      if (cublas_batch > 0) {
        std::string cerr;
        const double c = Impl<B>{}.time_batch(ws, cublas_batch, &cerr);
        cublas_launch = cerr.empty() ? c / cublas_batch : std::nan("");
      }
      const double sec = impl.time_batch(ws, rec->batch, &err);
      if (!err.empty()) {
        fail(where + ": " + err);
        break;
      }
      per_launch = sec / rec->batch;
      state.SetIterationTime(per_launch);
    }
    if (!rec->error.empty()) return;
    rec->samples.push_back(per_launch);
    state.counters["TFLOP/s"] = rec->shape.flops() / per_launch * 1e-12;
    state.counters["GB/s"] = rec->bytes() / per_launch * 1e-9;
    if (!impl.preset) {
      state.counters["pct_cublas"] = 100.0;
    } else if (std::isfinite(cublas_launch)) {
      rec->paired_pct.push_back(100.0 * cublas_launch / per_launch);
      state.counters["pct_cublas"] = rec->paired_pct.back();
    }
    state.counters["batch"] = rec->batch;
    state.counters["sets"] = ws.sets;
    state.SetLabel(label.c_str());
  } catch (const std::exception& e) {
    fail(where + ": " + e.what());
  }
}

// --------------------------------------------------------------------------
// Grid
// --------------------------------------------------------------------------
}  // namespace

std::vector<Shape> parse_shapes(const std::string& spec) {
  std::vector<Shape> out;
  for (const std::string& item : split_list(spec)) {
    Shape s;
    char x1 = 0, x2 = 0;
    std::istringstream is(item);
    if (!(is >> s.m >> x1 >> s.n >> x2 >> s.k) || x1 != 'x' || x2 != 'x' || s.m <= 0 ||
        s.n <= 0 || s.k <= 0 || is.peek() != std::char_traits<char>::eof())
      throw Error("bad shape '" + item + "' in --gemm_shapes (want MxNxK)");
    out.push_back(s);
  }
  return out;
}

namespace {

const Shape kCube4096{4096, 4096, 4096};

// float and double with --gemm_full.
std::vector<Shape> full_cuda_core_grid() {
  std::vector<Shape> g;
  for (int s = 128; s <= 8192; s *= 2) g.push_back({s, s, s});
  g.push_back({1000, 1000, 1000});
  g.push_back({3072, 3072, 3072});  // 288 tiles of 128x256: 2.2 waves on 132 SMs (stream-K's case)
  g.push_back({4095, 4097, 4093});
  g.push_back({16, 4096, 4096});
  g.push_back({4096, 4096, 256});
  g.push_back({128, 8192, 8192});
  return g;
}

// bf16 by default: squares up to 8192, an LLM-like wide n (14336), and a
// ragged m that TMA still accepts (only leading dimensions must be aligned).
std::vector<Shape> bf16_grid() {
  return {{1024, 1024, 1024}, {2048, 2048, 2048}, kCube4096, {8192, 8192, 8192},
          {4096, 14336, 4096}, {4095, 4096, 4096}};
}

std::vector<Shape> grid_for_type(const std::string& type, bool full) {
  if (type == "float") {
    if (full) return full_cuda_core_grid();
    return {{1024, 1024, 1024}, kCube4096, {4095, 4097, 4093}, {16, 4096, 4096}};
  }
  if (type == "double") return full ? full_cuda_core_grid() : std::vector<Shape>{{1024, 1024, 1024}};
  if (type == "bf16" || type == "fp16") {
    std::vector<Shape> g = bf16_grid();
    if (type == "fp16" && !full) return {kCube4096, {8192, 8192, 8192}, {4096, 14336, 4096}};
    if (full) {
      // Leading dimensions that are not a multiple of 16 bytes (8 elements):
      // the Hopper presets refuse them (skipped rows); Tuned copies such an
      // operand with aligned rows first; cuBLAS drops to an Ampere-class kernel.
      g.push_back({4095, 4097, 4093});  // all three odd
      g.push_back({4096, 4096, 4093});  // A's rows odd
      g.push_back({4096, 4097, 4096});  // B's and C's rows odd
      g.push_back({4096, 4096, 4100});  // rows 8-byte aligned only
      g.push_back({1023, 1025, 1021});  // all odd, small
    }
    return g;
  }
  if (type == "tf32x3") {  // the 3xTF32 target shapes, beside strict SGEMM
    if (full) return {{1024, 1024, 1024}, {2048, 2048, 2048}, kCube4096, {8192, 8192, 8192}, {4095, 4097, 4093}};
    return {{2048, 2048, 2048}, kCube4096, {8192, 8192, 8192}, {4095, 4097, 4093}};
  }
  // tf32, bf16_f32out, fp16_f32out: 4096^3 by default.
  if (full) return {{1024, 1024, 1024}, {2048, 2048, 2048}, kCube4096, {8192, 8192, 8192}};
  return {kCube4096};
}

// The layouts of one (type, shape): --gemm_layouts for every type and shape;
// by default NN everywhere, plus NT, TN and TT for float and bf16 at 4096^3.
std::vector<Layout> layouts_for(const Options& opt, const std::string& type, const Shape& s) {
  std::vector<Layout> out;
  if (!opt.layouts.empty()) {
    const std::vector<std::string> wanted = split_list(opt.layouts);
    for (Layout l : kAllLayouts)
      if (std::find(wanted.begin(), wanted.end(), layout_name(l)) != wanted.end()) out.push_back(l);
    return out;
  }
  out.push_back(Layout::NN);
  const bool cube = s.m == kCube4096.m && s.n == kCube4096.n && s.k == kCube4096.k;
  if (cube && (type == "float" || type == "bf16")) {
    out.push_back(Layout::NT);
    out.push_back(Layout::TN);
    out.push_back(Layout::TT);
  }
  return out;
}

// Naive and Coalesced run at well under 1 TFLOP/s; beyond 2*4096^3 flop one
// launch takes seconds, and a benchmark needs about ten launches.
bool too_slow(const std::string& preset, const Shape& s) {
  const double limit = 2.0 * 4096.0 * 4096.0 * 4096.0;
  return (preset == "Naive" || preset == "Coalesced") && s.flops() > limit;
}

// Why a preset refuses a call's alignment, e.g. "Status::MisalignedA".
std::string refusal(gemm::Status s) {
  switch (s) {
    case gemm::Status::MisalignedA: return "Status::MisalignedA";
    case gemm::Status::MisalignedB: return "Status::MisalignedB";
    case gemm::Status::MisalignedC: return "Status::MisalignedC";
    default: return gemm::to_string(s);
  }
}

struct Skip {
  std::string name, reason;
  bool too_slow = false;
};

template <class B>
Record* add_record(const std::string& name, Layout layout, const std::string& impl, const Shape& s,
                   bool is_cublas) {
  auto r = std::make_unique<Record>();
  r->name = name;
  r->type = B::name();
  r->layout = layout;
  r->impl = impl;
  r->shape = s;
  r->in_bytes = sizeof(typename B::In);
  r->out_bytes = sizeof(typename B::Out);
  r->ridge = ridge_intensity<B>();
  r->is_cublas = is_cublas;
  records().push_back(std::move(r));
  return records().back().get();
}

void configure(benchmark::internal::Benchmark* b, const Options& opt) {
  b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  if (opt.repetitions > 1) b->Repetitions(opt.repetitions)->ReportAggregatesOnly(true);
}

// "gemm/bf16/Tuned/" + ("NT/" unless NN) + "4096x4096x4096".
std::string row_name(const std::string& head, Layout l, const Shape& s) {
  return head + (l == Layout::NN ? "" : std::string(layout_name(l)) + "/") + s.str();
}

template <class B>
void register_type(const Options& opt, const std::vector<Shape>& shapes, std::vector<Skip>& skipped,
                   std::vector<std::string>& notes) {
  const std::string type = B::name();
  bool noted = false;
  for (const Shape& s : shapes) {
    for (Layout l : layouts_for(opt, type, s)) {
      const std::vector<Preset<B>>& table = l == Layout::NN ? presets<B>() : layout_presets<B>();
      if (table.empty()) {
        if (!noted)
          notes.push_back("no " + type + " rows in layouts NT/TN/TT: no " + type +
                          " preset is compiled with layouts (presets_layouts.cu)");
        noted = true;
        continue;
      }
      // cuBLAS first, so its median is known when the presets of the shape run.
      Record* cr = add_record<B>(row_name("cublas/" + type + "/", l, s), l, "cuBLAS", s, true);
      cublas_records()[cr->key()] = cr;
      std::string cdescribe = cublas_label<B>();
      if (l != Layout::NN)
        cdescribe += fmt(", transa %s, transb %s (B first: row-major C^T)", op_b(l) == gemm::Op::N ? "N" : "T",
                         op_a(l) == gemm::Op::N ? "N" : "T");
      const std::string clabel = label_for(*cr, cdescribe);
      configure(benchmark::RegisterBenchmark(cr->name.c_str(),
                                             [cr, clabel, &opt](benchmark::State& st) {
                                               run_benchmark<B>(st, cr, Impl<B>{}, clabel, &opt);
                                             }),
                opt);
      for (const Preset<B>& p : table) {
        Record* r = add_record<B>(row_name("gemm/" + type + "/" + p.name + "/", l, s), l, p.name, s, false);
        if (too_slow(p.name, s)) {
          r->skipped = "predicted too slow";
          skipped.push_back({r->name, r->skipped, true});
          continue;
        }
        if (const gemm::Status st = p.alignment(l, s); st != gemm::Status::Success) {
          r->skipped = refusal(st) + fmt(" (lda %d, ldb %d of %zu-byte elements)", s.lda(l), s.ldb(l),
                                         r->in_bytes);
          skipped.push_back({r->name, r->skipped, false});
          continue;
        }
        const std::string label = label_for(*r, p.describe);
        const Preset<B>* pp = &p;
        configure(benchmark::RegisterBenchmark(r->name.c_str(),
                                               [r, pp, label, &opt](benchmark::State& st) {
                                                 run_benchmark<B>(st, r, Impl<B>{pp}, label, &opt);
                                               }),
                  opt);
      }
    }
  }
}

// One shape of the shape space: cuBLAS (once per type, layout and shape) and Tuned.
template <class B>
void register_space_shape(const Options& opt, const SpaceShape& sp) {
  Layout l = Layout::NN;
  parse_layout(sp.layout, &l);
  const Shape s{sp.m, sp.n, sp.k};
  const std::vector<Preset<B>>& table = l == Layout::NN ? presets<B>() : layout_presets<B>();
  const Preset<B>* tuned = nullptr;
  for (const Preset<B>& p : table)
    if (p.name == "Tuned") tuned = &p;
  if (!tuned) throw Error("no Tuned row for " + sp.type + " " + sp.layout);
  const std::string type = B::name();
  Record* cr = add_record<B>(row_name("cublas/" + type + "/", l, s), l, "cuBLAS", s, true);
  cublas_records()[cr->key()] = cr;
  const std::string clabel = label_for(*cr, cublas_label<B>());
  configure(benchmark::RegisterBenchmark(cr->name.c_str(),
                                         [cr, clabel, &opt](benchmark::State& st) {
                                           run_benchmark<B>(st, cr, Impl<B>{}, clabel, &opt);
                                         }),
            opt);
  Record* r = add_record<B>(row_name("gemm/" + type + "/Tuned/", l, s), l, "Tuned", s, false);
  r->cls = sp.cls, r->source = sp.source;
  const std::string label = sp.cls + ": " + sp.source;
  configure(benchmark::RegisterBenchmark(r->name.c_str(),
                                         [r, tuned, label, &opt](benchmark::State& st) {
                                           run_benchmark<B>(st, r, Impl<B>{tuned}, label, &opt);
                                         }),
            opt);
}

}  // namespace

void release_workspace() {
  g_workspace.reset();
  g_workspace_key.clear();
}

void register_benchmarks(const Options& opt) {
  if (opt.shape_space) {
    const std::vector<std::string> types = selected_types(opt);
    for (const SpaceShape& sp : shape_space())
      if (std::find(types.begin(), types.end(), sp.type) != types.end())
        with_type(sp.type, [&](auto b) { register_space_shape<decltype(b)>(opt, sp); });
    return;
  }
  const std::vector<Shape> custom = parse_shapes(opt.shapes);
  std::vector<Skip> skipped;
  std::vector<std::string> notes;
  for (const std::string& type : selected_types(opt)) {
    const std::vector<Shape> shapes = custom.empty() ? grid_for_type(type, opt.full) : custom;
    with_type(type, [&](auto b) { register_type<decltype(b)>(opt, shapes, skipped, notes); });
  }
  for (const std::string& n : notes) std::printf("gemm_bench: %s\n", n.c_str());
  std::size_t slow = 0;
  for (const Skip& s : skipped) slow += s.too_slow;
  if (slow) {
    std::printf("gemm_bench: skipped %zu benchmark(s) predicted to take too long "
                "(Naive/Coalesced above 2*4096^3 flop):",
                slow);
    for (const Skip& s : skipped)
      if (s.too_slow) std::printf(" %s", s.name.c_str());
    std::printf("\n");
  }
  if (slow < skipped.size()) {
    std::printf("gemm_bench: skipped %zu benchmark(s) whose preset refuses the input's alignment "
                "(the Hopper presets need A and B as TMA reads them; Tuned takes another path):\n",
                skipped.size() - slow);
    for (const Skip& s : skipped)
      if (!s.too_slow) std::printf("  %s: %s\n", s.name.c_str(), s.reason.c_str());
  }
  // Into the JSON output too, as context entries "skipped:<row name>".
  for (const Skip& s : skipped) benchmark::AddCustomContext("skipped:" + s.name, s.reason);
  std::fflush(stdout);
}

void print_summary(const Options& opt) {
  std::vector<const Record*> rows;
  for (const auto& r : records())
    if (!r->samples.empty() || !r->error.empty() || !r->skipped.empty()) rows.push_back(r.get());
  bool any_run = false;
  for (const Record* r : rows) any_run |= !r->samples.empty() || !r->error.empty();
  if (!any_run) return;
  std::printf("\n## gemm_bench summary (%s; median of %d repetition%s; %% of cuBLAS = cuBLAS "
              "median, over repetitions, of a cuBLAS batch's time / this batch's time, the cuBLAS batch run just before on the same data)\n\n",
              device_summary().c_str(), opt.repetitions, opt.repetitions == 1 ? "" : "s");
  std::printf("| type | shape | implementation | TFLOP/s | %% of cuBLAS | GB/s | note |\n");
  std::printf("|---|---|---|---:|---:|---:|---|\n");
  for (const Record* r : rows) {
    std::string tflops = "-", pct = "-", gbs = "-", note;
    if (!r->samples.empty()) {
      const double t = median(r->samples);
      tflops = fmt("%.2f", r->shape.flops() / t * 1e-12);
      gbs = fmt("%.0f", r->bytes() / t * 1e-9);
      if (r->is_cublas) pct = "100.0%";
      else if (!r->paired_pct.empty()) pct = fmt("%.1f%%", median(r->paired_pct));
      if (r->memory_bound()) note = fmt("memory-bound (%.0f < %.0f flop/B)", r->intensity(), r->ridge);
    } else if (!r->error.empty()) {
      note = "ERROR: " + r->error;
    } else {
      note = "skipped (" + r->skipped + ")";
    }
    std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", r->type.c_str(), r->shape_column().c_str(),
                r->impl.c_str(), tflops.c_str(), pct.c_str(), gbs.c_str(), note.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

// ===========================================================================
// The shape space's summary
// ===========================================================================
namespace {

// Device-to-device copy bandwidth, counting bytes read and written (median of 5 copies of 1 GiB).
double measure_hbm_bytes_per_s() {
  const std::size_t bytes = std::size_t(1) << 30;
  void *a = nullptr, *b = nullptr;
  GEMM_BENCH_CUDA(cudaMalloc(&a, bytes));
  GEMM_BENCH_CUDA(cudaMalloc(&b, bytes));
  GEMM_BENCH_CUDA(cudaMemset(a, 1, bytes));
  Events& ev = events();
  std::vector<double> t;
  for (int i = 0; i < 6; ++i) {
    GEMM_BENCH_CUDA(cudaEventRecord(ev.start, 0));
    GEMM_BENCH_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
    GEMM_BENCH_CUDA(cudaEventRecord(ev.stop, 0));
    GEMM_BENCH_CUDA(cudaEventSynchronize(ev.stop));
    float ms = 0;
    GEMM_BENCH_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    if (i > 0) t.push_back(ms * 1e-3);
  }
  cudaFree(a);
  cudaFree(b);
  return 2.0 * double(bytes) / median(t);
}

// The type's practical tensor (or CUDA-core) peak: cuBLAS on 8192^3, row-major, median of 5 launches.
template <class B>
double measure_peak_flops() {
  const Shape s{8192, 8192, 8192};
  Workspace<B>& ws = workspace<B>(s, Layout::NN);
  std::string err;
  const Impl<B> cublas{};
  cublas.time_batch(ws, 3, &err);
  std::vector<double> t;
  for (int i = 0; i < 5 && err.empty(); ++i) t.push_back(cublas.time_batch(ws, 1, &err));
  if (!err.empty()) throw Error("peak measurement: " + err);
  release_workspace();
  return s.flops() / median(t);
}

struct SpaceRow {
  const Record* r;
  double ratio, roofline, hbm_fraction;
};

}  // namespace

void print_shape_space_summary(const Options& opt) {
  std::vector<SpaceRow> rows;
  std::map<std::string, double> peaks;
  const double hbm = measure_hbm_bytes_per_s();
  for (const auto& r : records()) {
    if (r->cls.empty() || r->samples.empty() || r->paired_pct.empty()) continue;
    if (!peaks.count(r->type)) with_type(r->type, [&](auto b) { peaks[r->type] = measure_peak_flops<decltype(b)>(); });
    const double t = median(r->samples);
    const double floor_s = std::max(r->bytes() / hbm, r->shape.flops() / peaks[r->type]);
    rows.push_back({r.get(), median(r->paired_pct) / 100.0, floor_s / t, r->bytes() / t / hbm});
  }
  std::vector<std::string> groups = shape_classes();
  std::vector<std::string> types;
  for (const SpaceRow& row : rows)
    if (std::find(types.begin(), types.end(), row.r->type) == types.end()) types.push_back(row.r->type);
  std::string json = "{\n  \"device\": \"" + json_escape(device_summary()) + "\",\n  \"git_commit\": \"" +
                     GEMM_GIT_COMMIT + "\",\n  \"hbm_gb_per_s\": " + fmt("%.1f", hbm * 1e-9) + ",\n  \"peak_tflops\": {";
  bool first = true;
  for (const auto& [type, peak] : peaks) {
    json += fmt("%s\"%s\": %.1f", first ? "" : ", ", type.c_str(), peak * 1e-12);
    first = false;
  }
  json += "},\n  \"summary\": [\n";
  std::printf("\n## shape space: Tuned / cuBLAS (%s; HBM %.0f GB/s measured; median of paired repetitions)\n\n",
              device_summary().c_str(), hbm * 1e-9);
  std::printf("| type | class | shapes | geometric mean | worst | worst shape | median roofline fraction | "
              "HBM fraction, median / lowest |\n");
  std::printf("|---|---|---:|---:|---:|---|---:|---:|\n");
  // The classes, all shapes, and two bands of decode that the targets name: up to 64 tokens (against
  // cuBLAS) and up to 16 (against HBM bandwidth).
  struct Group {
    std::string name, cls;
    int max_m;
  };
  std::vector<Group> cls;
  for (const std::string& c : groups) cls.push_back({c, c, 0});
  cls.push_back({"decode, m <= 64", "decode", 64});
  cls.push_back({"decode, m <= 16", "decode", 16});
  cls.push_back({"all", "", 0});
  bool first_entry = true;
  for (const std::string& type : types) {
    for (const Group& g : cls) {
      std::vector<double> ratios, roof, hbm_fractions;
      const SpaceRow* worst = nullptr;
      for (const SpaceRow& row : rows) {
        if (row.r->type != type || (!g.cls.empty() && row.r->cls != g.cls)) continue;
        if (g.max_m > 0 && row.r->shape.m > g.max_m) continue;
        ratios.push_back(row.ratio);
        roof.push_back(row.roofline);
        hbm_fractions.push_back(row.hbm_fraction);
        if (!worst || row.ratio < worst->ratio) worst = &row;
      }
      if (ratios.empty()) continue;
      const std::string worst_shape = worst->r->shape_column();
      const double lowest_hbm = *std::min_element(hbm_fractions.begin(), hbm_fractions.end());
      std::printf("| %s | %s | %zu | %.3f | %.3f | %s (%s) | %.2f | %.2f / %.2f |\n", type.c_str(), g.name.c_str(),
                  ratios.size(), geomean(ratios), worst->ratio, worst_shape.c_str(), worst->r->source.c_str(),
                  median(roof), median(hbm_fractions), lowest_hbm);
      json += fmt("%s    {\"type\": \"%s\", \"class\": \"%s\", \"shapes\": %zu, \"geomean\": %.4f, \"worst\": %.4f, "
                  "\"worst_shape\": \"%s\", \"worst_source\": \"%s\", \"median_roofline_fraction\": %.4f, "
                  "\"median_hbm_fraction\": %.4f, \"lowest_hbm_fraction\": %.4f}",
                  first_entry ? "" : ",\n", type.c_str(), g.name.c_str(), ratios.size(), geomean(ratios),
                  worst->ratio, worst_shape.c_str(), json_escape(worst->r->source).c_str(), median(roof),
                  median(hbm_fractions), lowest_hbm);
      first_entry = false;
    }
  }
  json += "\n  ],\n  \"shapes\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Record* r = rows[i].r;
    json += fmt("    {\"name\": \"%s\", \"type\": \"%s\", \"layout\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, "
                "\"class\": \"%s\", \"source\": \"%s\", \"ratio\": %.4f, \"tflops\": %.2f, \"intensity\": %.2f, "
                "\"roofline_fraction\": %.4f, \"hbm_fraction\": %.4f}%s\n",
                r->name.c_str(), r->type.c_str(), layout_name(r->layout), r->shape.m, r->shape.n, r->shape.k,
                r->cls.c_str(), json_escape(r->source).c_str(), rows[i].ratio,
                r->shape.flops() / median(r->samples) * 1e-12, r->intensity(), rows[i].roofline,
                rows[i].hbm_fraction, i + 1 < rows.size() ? "," : "");
  }
  json += "  ]\n}\n";
  std::printf("\n");
  if (!opt.shape_space_out.empty()) {
    FILE* f = std::fopen(opt.shape_space_out.c_str(), "w");
    if (!f) throw Error("cannot write " + opt.shape_space_out);
    std::fputs(json.c_str(), f);
    std::fclose(f);
    std::printf("shape space summary written to %s\n", opt.shape_space_out.c_str());
  }
  std::fflush(stdout);
}

}  // namespace gemm_bench
