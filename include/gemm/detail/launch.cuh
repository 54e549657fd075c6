#pragma once
// Host side of a call: argument validation, device queries and the checked launch.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <cuda_runtime.h>
#include "../args.cuh"
#include "../status.cuh"
#include "../types.cuh"

namespace gemm {

namespace detail {
inline std::atomic<unsigned long long>& launch_counter() {
  static std::atomic<unsigned long long> count{0};
  return count;
}
}  // namespace detail

namespace detail {
// Whether the library's kernels are launched with programmatic dependent launch (sm_90; see
// launch_kernel_in_clusters): on, unless the environment holds GEMM_DEPENDENT_LAUNCH=0 when the
// first call is made (to time each kernel without overlap, or to rule the overlap out when chasing a
// problem).
inline std::atomic<bool>& dependent_launch_switch() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("GEMM_DEPENDENT_LAUNCH");
    return !(v != nullptr && v[0] == '0');
  }()};
  return on;
}
}  // namespace detail

// How many kernels gemm::gemm() has launched in this process: a diagnostic, and how the tests
// prove that a rejected call launched nothing.
inline unsigned long long kernel_launches() { return detail::launch_counter().load(); }

namespace detail {
inline int& sm_limit_slot() {
  thread_local int limit = 0;  // 0: no limit
  return limit;
}
}  // namespace detail

// While it lives, the calls this thread makes plan their grids for at most `sms` SMs: persistent
// kernels launch that many blocks (one per SM), stream-K sizes its waves by it. For a multiply that
// runs beside kernels holding some SMs (gemm::distributed: NCCL's communication kernels): a
// persistent grid sized for the whole GPU would leave the blocks that find no free SM waiting for
// the other kernel to finish. sms <= 0 lifts the limit; the previous limit returns at scope end.
class SmLimit {
 public:
  explicit SmLimit(int sms) : previous_(detail::sm_limit_slot()) { detail::sm_limit_slot() = sms > 0 ? sms : 0; }
  ~SmLimit() { detail::sm_limit_slot() = previous_; }
  SmLimit(const SmLimit&) = delete;
  SmLimit& operator=(const SmLimit&) = delete;

 private:
  int previous_;
};

namespace detail {

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

inline Status record(cudaError_t err, Status status) {
  last_cuda_error_slot() = err;
  return status;
}

// A runtime call's result as a Status: Success, or CudaError with the error recorded and cleared
// (not sticky for the caller's next call).
inline Status cuda_status(cudaError_t err) {
  if (err == cudaSuccess) return Status::Success;
  cudaGetLastError();
  return record(err, Status::CudaError);
}

// BLAS-style argument checks that need no device; they run before anything touches CUDA.
// A stored row of op(A) holds k elements for op N and m for op T; of op(B), n for N and k for T.
template <class Args>
Status validate_sizes(const Args& a) {
  if (a.m < 0 || a.n < 0 || a.k < 0) return Status::InvalidSize;
  const int a_row = a.op_a == Op::N ? a.k : a.m;
  const int b_row = a.op_b == Op::N ? a.n : a.k;
  if (a.lda < (a_row > 1 ? a_row : 1)) return Status::InvalidLeadingDimensionA;
  if (a.ldb < (b_row > 1 ? b_row : 1)) return Status::InvalidLeadingDimensionB;
  if (a.ldc < (a.n > 1 ? a.n : 1)) return Status::InvalidLeadingDimensionC;
  return Status::Success;
}

// A batch: count >= 0, strides >= 0, and entries of C that do not overlap (the kernels write them
// concurrently). Entries of A and B may overlap or coincide (stride 0 broadcasts one operand).
template <class Args>
Status validate_batch(const Args& a) {
  if constexpr (Args::kBatching != Batch::None) {
    if (a.batch < 0) return Status::InvalidBatchCount;
    if constexpr (Args::kBatching == Batch::Strided) {
      if (a.stride_a < 0) return Status::InvalidStrideA;
      if (a.stride_b < 0) return Status::InvalidStrideB;
      if (a.stride_c < 0) return Status::InvalidStrideC;
      const long long c_entry = a.m > 0 && a.n > 0 ? static_cast<long long>(a.m - 1) * a.ldc + a.n : 0;
      if (a.batch > 1 && c_entry > 0 && a.stride_c < c_entry) return Status::InvalidStrideC;
    }
  }
  (void)a;
  return Status::Success;
}

// Which operands the call reads: A and B only when the product term is present.
template <class Args>
bool reads_ab(const Args& a) {
  return a.k > 0 && a.alpha != 0;
}

template <class T>
__host__ __device__ bool aligned_to(const T* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

template <class Args>
Status validate_pointers(const Args& a) {
  using In = typename Args::Element;
  using Out = typename Args::Output;
  if constexpr (Args::kBatching == Batch::Pointers) {  // the entries live on the device: only the arrays here
    if (a.C_array == nullptr) return Status::NullPointerC;
    if (reads_ab(a) && a.A_array == nullptr) return Status::NullPointerA;
    if (reads_ab(a) && a.B_array == nullptr) return Status::NullPointerB;
    return Status::Success;
  }
  if (a.C == nullptr) return Status::NullPointerC;
  if (reads_ab(a)) {
    if (a.A == nullptr) return Status::NullPointerA;
    if (a.B == nullptr) return Status::NullPointerB;
    if (!aligned_to(a.A, alignof(In))) return Status::MisalignedA;
    if (!aligned_to(a.B, alignof(In))) return Status::MisalignedB;
  }
  if (!aligned_to(a.C, alignof(Out))) return Status::MisalignedC;
  return Status::Success;
}

// True when every row of a matrix starts on a `bytes` boundary (16 by default: vector access). Also
// asked on the device, of a pointer-array entry (mma::Mainloop::rows_aligned_16).
template <class T>
__host__ __device__ bool vector_aligned(const T* p, int ld, std::size_t bytes = 16) {
  return aligned_to(p, bytes) && (static_cast<long long>(ld) * sizeof(T)) % bytes == 0;
}

// Whether every row of every entry of A (B, C) starts on a `bytes` boundary: the pointer, the
// leading dimension and a batch's stride. Pointer arrays live on the device, so only the element
// alignment (which the caller promises, as with cuBLAS) is known.
template <class Args, class T>
bool rows_aligned(const Args& a, const T* p, int ld, long long stride, std::size_t bytes) {
  if constexpr (Args::kBatching == Batch::Pointers) return bytes <= alignof(T);
  const bool entries = Args::kBatching == Batch::None || (stride * static_cast<long long>(sizeof(T))) % bytes == 0;
  return entries && vector_aligned(p, ld, bytes);
}
template <class Args>
bool a_aligned(const Args& a, std::size_t bytes = 16) { return rows_aligned(a, a.A, a.lda, a.stride_a, bytes); }
template <class Args>
bool b_aligned(const Args& a, std::size_t bytes = 16) { return rows_aligned(a, a.B, a.ldb, a.stride_b, bytes); }
template <class Args>
bool c_aligned(const Args& a, std::size_t bytes = 16) { return rows_aligned(a, a.C, a.ldc, a.stride_c, bytes); }

template <class Args>
bool all_vector_aligned(const Args& a) {
  return a_aligned(a) && b_aligned(a) && c_aligned(a);
}

// A status about operand A of the row-major problem is about B of the caller's column-major one.
inline Status swap_ab(Status s) {
  switch (s) {
    case Status::InvalidLeadingDimensionA: return Status::InvalidLeadingDimensionB;
    case Status::InvalidLeadingDimensionB: return Status::InvalidLeadingDimensionA;
    case Status::NullPointerA: return Status::NullPointerB;
    case Status::NullPointerB: return Status::NullPointerA;
    case Status::MisalignedA: return Status::MisalignedB;
    case Status::MisalignedB: return Status::MisalignedA;
    case Status::NotHostMemoryA: return Status::NotHostMemoryB;
    case Status::NotHostMemoryB: return Status::NotHostMemoryA;
    case Status::InvalidStrideA: return Status::InvalidStrideB;
    case Status::InvalidStrideB: return Status::InvalidStrideA;
    default: return s;
  }
}

struct DeviceInfo {
  int device = 0;
  int arch = 0;        // compute capability as 10 * major + minor
  int smem_optin = 0;  // largest dynamic shared memory one block may ask for, in bytes
  int sms = 0;         // streaming multiprocessors
};

// The device's fixed properties, asked of CUDA once per device and process (a call then costs one
// cudaGetDevice): four attribute queries per call were a measurable part of a small call's host time.
inline Status query_device(DeviceInfo& info) {
  constexpr int kCached = 64;
  static DeviceInfo cache[kCached];
  static std::atomic<bool> known[kCached] = {};
  static std::mutex fill;
  cudaError_t err = cudaGetDevice(&info.device);
  const int d = info.device;
  if (err == cudaSuccess && d >= 0 && d < kCached && known[d].load(std::memory_order_acquire)) {
    info = cache[d];
  } else {
    int major = 0, minor = 0;
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&info.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&info.sms, cudaDevAttrMultiProcessorCount, d);
    if (err != cudaSuccess) {
      cudaGetLastError();  // do not leave the error sticky for the caller's next call
      const bool no_device = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
                             err == cudaErrorInitializationError || err == cudaErrorStubLibrary;
      return record(err, no_device ? Status::NoDevice : Status::CudaError);
    }
    info.arch = 10 * major + minor;
    if (d >= 0 && d < kCached) {
      std::lock_guard<std::mutex> lock(fill);
      if (!known[d].load(std::memory_order_relaxed)) {
        cache[d] = info;
        known[d].store(true, std::memory_order_release);
      }
    }
  }
  if (const int limit = sm_limit_slot(); limit > 0 && limit < info.sms) info.sms = limit;  // gemm::SmLimit
  return Status::Success;
}

// Once per device and kernel: confirm the binary holds code for this device and raise the
// dynamic shared-memory limit where the kernel needs more than the default 48 KB.
// min_ptx: the virtual architecture the kernel's code must come from (90 for sm_90a-only
// instructions: a binary built for sm_80 alone runs on an H100 by JIT-compiling sm_80 PTX, and
// that code has none of them). Templated on the kernel itself, so every kernel keeps its own record.
template <auto Kernel>
Status prepare_kernel(int smem_bytes, const DeviceInfo& dev, int min_ptx = 0) {
  static std::atomic<unsigned long long> prepared{0};  // bit d: done for device d (d < 64)
  const unsigned long long bit = dev.device < 64 ? 1ull << dev.device : 0;
  if (bit && (prepared.load(std::memory_order_acquire) & bit)) return Status::Success;
  cudaFuncAttributes attr{};
  cudaError_t err = cudaFuncGetAttributes(&attr, Kernel);
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    return record(err, Status::UnsupportedArchitecture);
  }
  if (err == cudaSuccess && attr.ptxVersion < min_ptx) return record(cudaErrorNoKernelImageForDevice, Status::UnsupportedArchitecture);
  if (err == cudaSuccess && smem_bytes > 48 * 1024)
    err = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return record(err, Status::CudaError);
  }
  prepared.fetch_or(bit, std::memory_order_acq_rel);
  return Status::Success;
}

// How many blocks of Kernel one SM holds at once (after prepare_kernel), cached per device.
template <auto Kernel>
Status resident_blocks(int threads, int smem_bytes, const DeviceInfo& dev, int& per_sm) {
  static std::atomic<int> cached[64] = {};
  if (dev.device < 64 && (per_sm = cached[dev.device].load(std::memory_order_relaxed)) > 0) return Status::Success;
  const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, smem_bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return record(err, Status::CudaError);
  }
  if (dev.device < 64) cached[dev.device].store(per_sm, std::memory_order_relaxed);
  return Status::Success;
}

// The launch attribute that groups a grid's x in thread block clusters of `cluster` blocks (sm_90).
inline cudaLaunchAttribute cluster_dimension(int cluster) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  return attr;
}

// How many thread block clusters of `cluster` blocks of Kernel the device holds at once (sm_90;
// after prepare_kernel; 0 where one does not fit), cached per device and cluster size (1 to 8).
template <auto Kernel>
Status resident_clusters(int cluster, int threads, int smem_bytes, const DeviceInfo& dev, int& count) {
  static std::atomic<int> cached[64][8] = {};  // the count + 1 (0: not asked yet)
  std::atomic<int>* slot = dev.device < 64 && cluster >= 1 && cluster <= 8 ? &cached[dev.device][cluster - 1] : nullptr;
  if (slot && (count = slot->load(std::memory_order_relaxed) - 1) >= 0) return Status::Success;
  cudaLaunchAttribute attr = cluster_dimension(cluster);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(cluster) * 1024u);  // (a multiple of the cluster; the count does not depend on it)
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
  config.attrs = &attr;
  config.numAttrs = 1;
  const cudaError_t err = cudaOccupancyMaxActiveClusters(&count, Kernel, &config);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return record(err, Status::CudaError);
  }
  if (slot) slot->store(count + 1, std::memory_order_relaxed);
  return Status::Success;
}

// A launch's blocks: `blocks` per batch entry, the entries along y and z (detail/batch.cuh).
struct Grid {
  long long blocks;
  long long batch = 1;
  Grid(long long blocks_, long long batch_ = 1) : blocks(blocks_), batch(batch_) {}  // NOLINT: from a count
  dim3 dims() const {
    const long long z = ceil_div(batch, 65535);
    return dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(ceil_div(batch, z)), static_cast<unsigned>(z));
  }
};

// Launches Kernel(params...) and counts the launch; every kernel of the library goes through here.
// On sm_90 with programmatic dependent launch (unless dependent_launch_switch() is off): Kernel's
// blocks may start (shared memory, barriers, registers) on the SMs the stream's previous kernel has
// left while it finishes, so every kernel of the library first waits for it
// (ptx::wait_for_prior_grid, before its first global access; tools/check_kernels.py checks that).
// cluster > 1 (sm_90): the grid's x in thread block clusters of that many blocks (it divides
// grid.blocks), for kernels whose blocks read each other's shared memory.
template <auto Kernel, class... Params>
Status launch_kernel_in_clusters(int cluster, Grid grid, int threads, int smem_bytes, cudaStream_t stream,
                                 const DeviceInfo& dev, const Params&... params) {
  if (grid.blocks > INT_MAX) return Status::InvalidSize;  // more tiles than one grid can hold
  if (grid.blocks == 0 || grid.batch == 0) return Status::Success;
  const Status prepared = prepare_kernel<Kernel>(smem_bytes, dev);
  if (prepared != Status::Success) return prepared;
  launch_counter().fetch_add(1, std::memory_order_relaxed);
  const bool dependent = dev.arch >= 90 && dependent_launch_switch().load(std::memory_order_relaxed);
  cudaError_t err;
  if (!dependent && cluster == 1) {
    Kernel<<<grid.dims(), threads, smem_bytes, stream>>>(params...);
    err = cudaGetLastError();
  } else {
    cudaLaunchAttribute attrs[2];
    int count = 0;
    if (dependent) {
      attrs[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attrs[count++].val.programmaticStreamSerializationAllowed = 1;
    }
    if (cluster > 1) attrs[count++] = cluster_dimension(cluster);
    cudaLaunchConfig_t config{};
    config.gridDim = grid.dims();
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
    config.stream = stream;
    config.attrs = attrs;
    config.numAttrs = static_cast<unsigned>(count);
    err = cudaLaunchKernelEx(&config, Kernel, params...);
    if (err != cudaSuccess) cudaGetLastError();
  }
  if (err != cudaSuccess) return record(err, Status::LaunchFailed);
  return Status::Success;
}
template <auto Kernel, class... Params>
Status launch_kernel(Grid grid, int threads, int smem_bytes, cudaStream_t stream, const DeviceInfo& dev,
                     const Params&... params) {
  return launch_kernel_in_clusters<Kernel>(1, grid, threads, smem_bytes, stream, dev, params...);
}

// The layouts of A and B as compile-time constants, for kernels specialised per layout.
template <Op A, Op B>
struct Ops {
  static constexpr Op a = A;
  static constexpr Op b = B;
};

// A composition and the math type to run it with: what preset::Tuned's decision hands its visitor.
// Targets (parts/targets.cuh): the images that compile its kernels' bodies for this pick, where the
// decision reaches it only on some devices (void: the composition's own).
template <class P, class U, class Targets = void>
struct Pick {
  using Policy = P;
  using Math = U;
  using Where = Targets;
};

// "Any layout, known at run time": what the entry points with op arguments pass down.
struct AnyOps {};

// Calls f(Ops<op_a, op_b>{}). With Layouts = AnyOps, one instantiation per layout combination is
// compiled and chosen at run time; the row-major entry point passes Ops<N, N>, so a caller that never
// transposes compiles one kernel per composition, not four.
template <class Layouts, class F>
Status with_ops(Op op_a, Op op_b, F&& f) {
  if constexpr (std::is_same_v<Layouts, AnyOps>) {
    if (op_a == Op::N) return op_b == Op::N ? f(Ops<Op::N, Op::N>{}) : f(Ops<Op::N, Op::T>{});
    return op_b == Op::N ? f(Ops<Op::T, Op::N>{}) : f(Ops<Op::T, Op::T>{});
  } else {
    (void)op_a, (void)op_b;
    return f(Layouts{});
  }
}

// f(std::integral_constant<int, R>{}) for R the smallest power of two of at least m, capped at Max
// (the kernels that keep every row of C in registers are compiled for 1, 2, 4, ... rows); an m past
// Max is refused (UnsupportedShape), before any launch.
template <int Max, int R = 1, class F>
Status with_rows_rounded(int m, F&& f) {
  if constexpr (R == 1) {
    if (m > Max) return Status::UnsupportedShape;
  }
  if constexpr (R < Max) {
    if (m > R) return with_rows_rounded<Max, (2 * R < Max ? 2 * R : Max)>(m, f);
  }
  return f(std::integral_constant<int, R>{});
}

}  // namespace detail
}  // namespace gemm
