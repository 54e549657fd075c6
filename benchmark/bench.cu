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
#include <tuple>

#ifndef GEMM_GIT_COMMIT
#define GEMM_GIT_COMMIT "unknown"
#endif

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
// Device kernels: random fill and comparison
// ===========================================================================
namespace {

template <class T>
__global__ void fill_uniform_kernel(T* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<T>(uniform_pm1(seed, i));
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
    const double a = static_cast<double>(c[i]);
    const double b = static_cast<double>(ref[i]);
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

// ===========================================================================
// cuBLAS baseline
// ===========================================================================
cublasHandle_t cublas_handle_for(bool is_double) {
  // SGEMM: pedantic math, i.e. strict fp32 (no TF32, no BF16x9 emulation).
  // DGEMM: default math, which on this cuBLAS is plain fp64 (fp64 emulation
  // is opt-in), so the baseline is as fast as cuBLAS allows.
  static cublasHandle_t handles[2] = {nullptr, nullptr};
  cublasHandle_t& h = handles[is_double ? 1 : 0];
  if (!h) {
    GEMM_BENCH_CUBLAS(cublasCreate(&h));
    GEMM_BENCH_CUBLAS(
        cublasSetMathMode(h, is_double ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH));
  }
  return h;
}

const char* cublas_math_name(bool is_double) {
  return is_double ? "CUBLAS_DEFAULT_MATH" : "CUBLAS_PEDANTIC_MATH";
}

namespace {
// cublasSetStream only when the stream changes (handles start on stream 0).
cublasStatus_t set_stream(cublasHandle_t h, bool is_double, cudaStream_t stream) {
  static cudaStream_t current[2] = {nullptr, nullptr};
  cudaStream_t& cur = current[is_double ? 1 : 0];
  if (stream == cur) return CUBLAS_STATUS_SUCCESS;
  const cublasStatus_t st = cublasSetStream(h, stream);
  if (st == CUBLAS_STATUS_SUCCESS) cur = stream;
  return st;
}
}  // namespace

// Row-major C (m x n) = A (m x k) * B (k x n) is column-major C^T = B^T * A^T:
// call the column-major gemm with (n, m, k) and B before A.
template <>
cublasStatus_t cublas_gemm<float>(const Shape& s, float alpha, const float* A, const float* B,
                                  float beta, float* C, cudaStream_t stream) {
  cublasHandle_t h = cublas_handle_for(false);
  if (cublasStatus_t st = set_stream(h, false, stream); st != CUBLAS_STATUS_SUCCESS) return st;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, B, s.n, A, s.k, &beta,
                     C, s.n);
}
template <>
cublasStatus_t cublas_gemm<double>(const Shape& s, double alpha, const double* A,
                                   const double* B, double beta, double* C,
                                   cudaStream_t stream) {
  cublasHandle_t h = cublas_handle_for(true);
  if (cublasStatus_t st = set_stream(h, true, stream); st != CUBLAS_STATUS_SUCCESS) return st;
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, B, s.n, A, s.k, &beta,
                     C, s.n);
}

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
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
    return "unknown GPU";
  return fmt("%s, %d SMs, compute capability %d.%d", p.name, p.multiProcessorCount, p.major,
             p.minor);
}

std::vector<std::pair<std::string, std::string>> context_entries(const Options& opt) {
  std::vector<std::pair<std::string, std::string>> kv;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
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
  kv.emplace_back("cublas_sgemm_math", cublas_math_name(false));
  kv.emplace_back("cublas_dgemm_math", cublas_math_name(true));
  kv.emplace_back("git_commit", GEMM_GIT_COMMIT);
  kv.emplace_back("run_date_utc", utc_now());
  kv.emplace_back("gemm_bench_mode", opt.mode());
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
    for (int i = 0; i < 8; ++i) GEMM_BENCH_CUBLAS(cublas_gemm<float>(s, 1.f, a, a, 0.f, c, 0));
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
// Workspace: input sets of one (type, shape), rotated so small shapes are not
// timed out of the 50 MB L2.
// ===========================================================================
namespace {

constexpr double kRotationBytes = 200e6;  // total size of all sets, at least
constexpr int kMaxSets = 2048;

struct WorkspaceBase {
  virtual ~WorkspaceBase() = default;
};

template <class T>
struct Workspace : WorkspaceBase {
  Shape s;
  int sets = 1;
  std::size_t a_elems = 0, b_elems = 0, c_elems = 0, set_elems = 0;
  T* slab = nullptr;   // sets x (A, B, C), each matrix 256-byte aligned
  T* c_ref = nullptr;  // cuBLAS result on set 0
  int next = 0;        // next set to use

  static std::size_t pad(std::size_t elems) {
    const std::size_t q = 256 / sizeof(T);
    return (elems + q - 1) / q * q;
  }

  explicit Workspace(const Shape& shape) : s(shape) {
    a_elems = pad(std::size_t(s.m) * s.k);
    b_elems = pad(std::size_t(s.k) * s.n);
    c_elems = pad(std::size_t(s.m) * s.n);
    set_elems = a_elems + b_elems + c_elems;
    const double set_bytes = double(set_elems) * sizeof(T);
    sets = static_cast<int>(std::ceil(kRotationBytes / set_bytes));
    sets = std::max(1, std::min(sets, kMaxSets));
    try {
      GEMM_BENCH_CUDA(cudaMalloc(&slab, std::size_t(sets) * set_elems * sizeof(T)));
      GEMM_BENCH_CUDA(cudaMalloc(&c_ref, c_elems * sizeof(T)));
      const std::uint64_t seed =
          splitmix64((std::uint64_t(sizeof(T)) << 60) ^ (std::uint64_t(s.m) << 40) ^
                     (std::uint64_t(s.n) << 20) ^ std::uint64_t(s.k));
      fill_uniform(slab, std::size_t(sets) * set_elems, seed);
      GEMM_BENCH_CUBLAS(cublas_gemm<T>(s, T(1), A(0), B(0), T(0), c_ref, 0));
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    } catch (...) {
      release();
      throw;
    }
  }
  ~Workspace() override { release(); }
  void release() {
    if (slab) cudaFree(slab);
    if (c_ref) cudaFree(c_ref);
    slab = c_ref = nullptr;
  }
  T* A(int i) const { return slab + std::size_t(i) * set_elems; }
  T* B(int i) const { return A(i) + a_elems; }
  T* C(int i) const { return B(i) + b_elems; }
  int take() {
    const int i = next;
    next = (next + 1) % sets;
    return i;
  }
};

std::unique_ptr<WorkspaceBase> g_workspace;
std::string g_workspace_key;

template <class T>
Workspace<T>& workspace(const Shape& s) {
  const std::string key = std::string(TypeName<T>::value) + "/" + s.str();
  if (key != g_workspace_key) {
    g_workspace.reset();  // free the previous shape's buffers first
    g_workspace_key.clear();
    g_workspace = std::make_unique<Workspace<T>>(s);
    g_workspace_key = key;
  }
  return static_cast<Workspace<T>&>(*g_workspace);
}

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    GEMM_BENCH_CUDA(cudaEventCreate(&start));
    GEMM_BENCH_CUDA(cudaEventCreate(&stop));
  }
};
Events& events() {
  static Events e;
  return e;
}

// ===========================================================================
// Records: one per registered (or skipped) benchmark, in registration order.
// ===========================================================================
struct Record {
  std::string name;   // gemm/float/MultiStage/4096x4096x4096 or cublas/float/...
  std::string type;   // float / double
  std::string impl;   // preset name or "cuBLAS"
  Shape shape;
  std::size_t elem = 4;
  bool is_cublas = false;
  std::string skipped;  // non-empty: not registered, and why
  bool prepared = false;
  int batch = 0;        // launches per timed batch
  std::string error;    // non-empty: failed (reported with SkipWithError)
  std::vector<double> samples;  // per-launch seconds, one per repetition
};

std::vector<std::unique_ptr<Record>>& records() {
  static std::vector<std::unique_ptr<Record>> r;
  return r;
}

using CublasKey = std::tuple<std::string, int, int, int>;
std::map<CublasKey, Record*>& cublas_records() {
  static std::map<CublasKey, Record*> m;
  return m;
}
// Medians of cuBLAS measured on the side (when the cuBLAS benchmark of a
// shape was filtered out but a preset of it runs).
std::map<CublasKey, double>& cublas_side_medians() {
  static std::map<CublasKey, double> m;
  return m;
}

// One implementation (cuBLAS or a preset) bound to a type.
template <class T>
struct Impl {
  const Preset<T>* preset = nullptr;  // null: cuBLAS

  // Runs C(set) = A(set) * B(set). Returns false and fills *err on failure.
  bool launch(Workspace<T>& ws, int set, T* c_out, std::string* err) const {
    const Shape& s = ws.s;
    T* C = c_out ? c_out : ws.C(set);
    if (!preset) {
      const cublasStatus_t st = cublas_gemm<T>(s, T(1), ws.A(set), ws.B(set), T(0), C, 0);
      if (st == CUBLAS_STATUS_SUCCESS) return true;
      *err = std::string("cuBLAS returned ") + cublasGetStatusName(st);
      return false;
    }
    const gemm::Status st =
        preset->launch(s.m, s.n, s.k, T(1), ws.A(set), s.k, ws.B(set), s.n, T(0), C, s.n, 0);
    if (st == gemm::Status::Success) return true;
    *err = std::string("gemm::gemm failed: ") + gemm::to_string(st);
    if (gemm::last_cuda_error() != cudaSuccess)
      *err += std::string(" [") + cudaGetErrorName(gemm::last_cuda_error()) + ": " +
              cudaGetErrorString(gemm::last_cuda_error()) + "]";
    return false;
  }

  // Times n launches between two events; returns seconds for the batch.
  double time_batch(Workspace<T>& ws, int n, std::string* err) const {
    Events& ev = events();
    GEMM_BENCH_CUDA(cudaEventRecord(ev.start, 0));
    for (int i = 0; i < n; ++i) {
      if (!launch(ws, ws.take(), nullptr, err)) {
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

  // Warm-up, then the number of launches that makes one batch >= target_s.
  int calibrate(Workspace<T>& ws, double target_s, std::string* err) const {
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

// Median per-launch time of cuBLAS for a (type, shape). Uses the cuBLAS
// benchmark's samples when it ran; otherwise measures it here (untimed by
// Google Benchmark).
template <class T>
double cublas_median(Workspace<T>& ws, const Options& opt) {
  const CublasKey key{TypeName<T>::value, ws.s.m, ws.s.n, ws.s.k};
  auto it = cublas_records().find(key);
  if (it != cublas_records().end() && !it->second->samples.empty())
    return median(it->second->samples);
  if (it != cublas_records().end() && !it->second->error.empty()) return std::nan("");
  auto side = cublas_side_medians().find(key);
  if (side != cublas_side_medians().end()) return side->second;
  Impl<T> cublas;
  std::string err;
  const int batch = cublas.calibrate(ws, opt.batch_ms * 1e-3, &err);
  std::vector<double> v;
  for (int r = 0; r < std::max(1, opt.repetitions) && err.empty(); ++r)
    v.push_back(cublas.time_batch(ws, batch, &err) / batch);
  const double med = err.empty() ? median(v) : std::nan("");
  cublas_side_medians()[key] = med;
  return med;
}

std::string label_for(const Record& r, const std::string& describe) {
  std::string label = describe;
  const double ai = r.shape.intensity(r.elem);
  if (ai < kMemoryBoundIntensity)
    label += fmt("%smemory-bound (%.0f flop/B)", label.empty() ? "" : " | ", ai);
  return label;
}

template <class T>
void run_benchmark(benchmark::State& state, Record* rec, Impl<T> impl, std::string label,
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
    Workspace<T>& ws = workspace<T>(rec->shape);
    std::string err;
    if (!rec->prepared) {
      if (impl.preset) {
        // Check against cuBLAS on set 0 before timing anything. C is first
        // filled with a large value so unwritten elements are caught.
        // Bytes 0x7f: 3.4e38 as float, 1.4e306 as double.
        GEMM_BENCH_CUDA(cudaMemset(ws.C(0), 0x7f, ws.c_elems * sizeof(T)));
        if (!impl.launch(ws, 0, nullptr, &err)) return fail(where + ": " + err);
        GEMM_BENCH_CUDA(cudaDeviceSynchronize());
        const Comparison c =
            compare_device(ws.C(0), ws.c_ref, std::size_t(ws.s.m) * ws.s.n);
        if (c.nonfinite)
          return fail(where + fmt(": wrong result: %llu NaN/Inf elements in C", c.nonfinite));
        if (!(c.rel() <= tolerance<T>()))
          return fail(where + fmt(": wrong result: max rel error %.3e vs cuBLAS (tolerance "
                                  "%.0e)",
                                  c.rel(), tolerance<T>()));
      }
      rec->batch = impl.calibrate(ws, opt->batch_ms * 1e-3, &err);
      if (!err.empty()) return fail(where + ": " + err);
      rec->prepared = true;
    }
    const double cublas_s = impl.preset ? cublas_median<T>(ws, *opt) : std::nan("");

    double per_launch = 0;
    for (auto _ : state) {
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
    state.counters["GB/s"] = rec->shape.bytes(rec->elem) / per_launch * 1e-9;
    if (!impl.preset)
      state.counters["pct_cublas"] = 100.0;
    else if (std::isfinite(cublas_s))
      state.counters["pct_cublas"] = 100.0 * cublas_s / per_launch;
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
std::vector<Shape> parse_shapes(const std::string& spec) {
  std::vector<Shape> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    Shape s;
    char x1 = 0, x2 = 0;
    std::istringstream is(item);
    if (!(is >> s.m >> x1 >> s.n >> x2 >> s.k) || x1 != 'x' || x2 != 'x' || s.m <= 0 ||
        s.n <= 0 || s.k <= 0)
      throw Error("bad shape '" + item + "' in --gemm_shapes (want MxNxK)");
    out.push_back(s);
  }
  return out;
}

std::vector<Shape> full_grid() {
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

std::vector<Shape> default_grid(bool is_double) {
  if (is_double) return {{1024, 1024, 1024}};
  return {{1024, 1024, 1024}, {4096, 4096, 4096}, {4095, 4097, 4093}, {16, 4096, 4096}};
}

// Naive and Coalesced run at well under 1 TFLOP/s; beyond 2*4096^3 flop one
// launch takes seconds, and a benchmark needs about ten launches.
bool too_slow(const std::string& preset, const Shape& s) {
  const double limit = 2.0 * 4096.0 * 4096.0 * 4096.0;
  return (preset == "Naive" || preset == "Coalesced") && s.flops() > limit;
}

Record* add_record(const std::string& name, const char* type, const std::string& impl,
                   const Shape& s, std::size_t elem, bool is_cublas) {
  auto r = std::make_unique<Record>();
  r->name = name;
  r->type = type;
  r->impl = impl;
  r->shape = s;
  r->elem = elem;
  r->is_cublas = is_cublas;
  records().push_back(std::move(r));
  return records().back().get();
}

void configure(benchmark::internal::Benchmark* b, const Options& opt) {
  b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  if (opt.repetitions > 1) b->Repetitions(opt.repetitions)->ReportAggregatesOnly(true);
}

template <class T>
void register_type(const Options& opt, const std::vector<Shape>& shapes,
                   std::vector<std::string>& skipped) {
  const char* type = TypeName<T>::value;
  for (const Shape& s : shapes) {
    // cuBLAS first, so its median is known when the presets of the shape run.
    Record* cr = add_record(std::string("cublas/") + type + "/" + s.str(), type, "cuBLAS", s,
                            sizeof(T), true);
    cublas_records()[CublasKey{type, s.m, s.n, s.k}] = cr;
    const std::string clabel = label_for(
        *cr, std::string(std::is_same<T, float>::value ? "cublasSgemm " : "cublasDgemm ") +
                 cublas_math_name(std::is_same<T, double>::value));
    configure(benchmark::RegisterBenchmark(
                  cr->name.c_str(),
                  [cr, clabel, &opt](benchmark::State& st) {
                    run_benchmark<T>(st, cr, Impl<T>{}, clabel, &opt);
                  }),
              opt);
    for (const Preset<T>& p : presets<T>()) {
      const std::string name = std::string("gemm/") + type + "/" + p.name + "/" + s.str();
      Record* r = add_record(name, type, p.name, s, sizeof(T), false);
      if (too_slow(p.name, s)) {
        r->skipped = "predicted too slow";
        skipped.push_back(name);
        continue;
      }
      const std::string label = label_for(*r, p.describe);
      const Preset<T>* pp = &p;
      configure(benchmark::RegisterBenchmark(
                    r->name.c_str(),
                    [r, pp, label, &opt](benchmark::State& st) {
                      run_benchmark<T>(st, r, Impl<T>{pp}, label, &opt);
                    }),
                opt);
    }
  }
}

}  // namespace

void release_workspace() {
  g_workspace.reset();
  g_workspace_key.clear();
}

void register_benchmarks(const Options& opt) {
  bool want_float = true, want_double = true;
  if (!opt.types.empty()) {
    want_float = opt.types.find("float") != std::string::npos;
    want_double = opt.types.find("double") != std::string::npos;
  }
  const std::vector<Shape> custom = parse_shapes(opt.shapes);
  std::vector<std::string> skipped;
  auto grid = [&](bool is_double) {
    if (!custom.empty()) return custom;
    return opt.full ? full_grid() : default_grid(is_double);
  };
  if (want_float) register_type<float>(opt, grid(false), skipped);
  if (want_double) register_type<double>(opt, grid(true), skipped);
  if (!skipped.empty()) {
    std::printf("gemm_bench: skipped %zu benchmark(s) predicted to take too long "
                "(Naive/Coalesced above 2*4096^3 flop):",
                skipped.size());
    for (const std::string& s : skipped) std::printf(" %s", s.c_str());
    std::printf("\n");
    std::fflush(stdout);
  }
}

void print_summary(const Options& opt) {
  std::vector<const Record*> rows;
  for (const auto& r : records())
    if (!r->samples.empty() || !r->error.empty() || !r->skipped.empty()) rows.push_back(r.get());
  bool any_run = false;
  for (const Record* r : rows) any_run |= !r->samples.empty() || !r->error.empty();
  if (!any_run) return;
  std::printf("\n## gemm_bench summary (%s; median of %d repetition%s; %% of cuBLAS = cuBLAS "
              "median time / median time)\n\n",
              device_summary().c_str(), opt.repetitions, opt.repetitions == 1 ? "" : "s");
  std::printf("| type | shape | implementation | TFLOP/s | %% of cuBLAS | GB/s | note |\n");
  std::printf("|---|---|---|---:|---:|---:|---|\n");
  for (const Record* r : rows) {
    std::string tflops = "-", pct = "-", gbs = "-", note;
    if (!r->samples.empty()) {
      const double t = median(r->samples);
      tflops = fmt("%.2f", r->shape.flops() / t * 1e-12);
      gbs = fmt("%.0f", r->shape.bytes(r->elem) / t * 1e-9);
      double ct = std::nan("");
      const CublasKey key{r->type, r->shape.m, r->shape.n, r->shape.k};
      auto it = cublas_records().find(key);
      if (it != cublas_records().end() && !it->second->samples.empty())
        ct = median(it->second->samples);
      else if (cublas_side_medians().count(key))
        ct = cublas_side_medians()[key];
      if (std::isfinite(ct)) pct = fmt("%.1f%%", 100.0 * ct / t);
      if (r->shape.intensity(r->elem) < kMemoryBoundIntensity) note = "memory-bound";
    } else if (!r->error.empty()) {
      note = "ERROR: " + r->error;
    } else {
      note = "skipped (" + r->skipped + ")";
    }
    std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", r->type.c_str(),
                r->shape.str().c_str(), r->impl.c_str(), tflops.c_str(), pct.c_str(),
                gbs.c_str(), note.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace gemm_bench
