#pragma once
// Host side of a call: argument validation, device queries and the checked launch.
#include <atomic>
#include <climits>
#include <cstdint>
#include <cuda_runtime.h>
#include "../args.cuh"
#include "../status.cuh"

namespace gemm {

namespace detail {
inline std::atomic<unsigned long long>& launch_counter() {
  static std::atomic<unsigned long long> count{0};
  return count;
}
}  // namespace detail

// How many kernels gemm::gemm() has launched in this process: a diagnostic, and how the tests
// prove that a rejected call launched nothing.
inline unsigned long long kernel_launches() { return detail::launch_counter().load(); }

namespace detail {

inline Status record(cudaError_t err, Status status) {
  last_cuda_error_slot() = err;
  return status;
}

// BLAS-style argument checks that need no device; they run before anything touches CUDA.
template <class T>
Status validate_sizes(const GemmArgs<T>& a) {
  if (a.m < 0 || a.n < 0 || a.k < 0) return Status::InvalidSize;
  if (a.lda < (a.k > 1 ? a.k : 1)) return Status::InvalidLeadingDimensionA;
  if (a.ldb < (a.n > 1 ? a.n : 1)) return Status::InvalidLeadingDimensionB;
  if (a.ldc < (a.n > 1 ? a.n : 1)) return Status::InvalidLeadingDimensionC;
  return Status::Success;
}

// Which operands the call reads: A and B only when the product term is present.
template <class T>
bool reads_ab(const GemmArgs<T>& a) {
  return a.k > 0 && a.alpha != T(0);
}

template <class T>
bool aligned_to(const T* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

template <class T>
Status validate_pointers(const GemmArgs<T>& a) {
  if (a.C == nullptr) return Status::NullPointerC;
  if (reads_ab(a)) {
    if (a.A == nullptr) return Status::NullPointerA;
    if (a.B == nullptr) return Status::NullPointerB;
    if (!aligned_to(a.A, alignof(T))) return Status::MisalignedA;
    if (!aligned_to(a.B, alignof(T))) return Status::MisalignedB;
  }
  if (!aligned_to(a.C, alignof(T))) return Status::MisalignedC;
  return Status::Success;
}

// True when a matrix can be read with 16-byte accesses at every row start.
template <class T>
bool vector_aligned(const T* p, int ld) {
  return aligned_to(p, 16) && (static_cast<long long>(ld) * sizeof(T)) % 16 == 0;
}

template <class T>
bool all_vector_aligned(const GemmArgs<T>& a) {
  return vector_aligned(a.A, a.lda) && vector_aligned(a.B, a.ldb) && vector_aligned(a.C, a.ldc);
}

struct DeviceInfo {
  int device = 0;
  int arch = 0;        // compute capability as 10 * major + minor
  int smem_optin = 0;  // largest dynamic shared memory one block may ask for, in bytes
  int sms = 0;         // streaming multiprocessors
};

inline Status query_device(DeviceInfo& info) {
  cudaError_t err = cudaGetDevice(&info.device);
  int major = 0, minor = 0;
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, info.device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, info.device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&info.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, info.device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&info.sms, cudaDevAttrMultiProcessorCount, info.device);
  if (err != cudaSuccess) {
    cudaGetLastError();  // do not leave the error sticky for the caller's next call
    const bool no_device = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
                           err == cudaErrorInitializationError || err == cudaErrorStubLibrary;
    return record(err, no_device ? Status::NoDevice : Status::CudaError);
  }
  info.arch = 10 * major + minor;
  return Status::Success;
}

// Once per device and kernel: confirm the binary holds code for this device and raise the
// dynamic shared-memory limit where the kernel needs more than the default 48 KB.
// Templated on the kernel itself, so every kernel keeps its own record.
template <auto Kernel>
Status prepare_kernel(int smem_bytes, const DeviceInfo& dev) {
  static std::atomic<unsigned long long> prepared{0};  // bit d: done for device d (d < 64)
  const unsigned long long bit = dev.device < 64 ? 1ull << dev.device : 0;
  if (bit && (prepared.load(std::memory_order_acquire) & bit)) return Status::Success;
  cudaFuncAttributes attr{};
  cudaError_t err = cudaFuncGetAttributes(&attr, Kernel);
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    return record(err, Status::UnsupportedArchitecture);
  }
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

// Launches Kernel(params...) and counts the launch; every kernel of the library goes through here.
template <auto Kernel, class... Params>
Status launch_kernel(long long blocks, int threads, int smem_bytes, cudaStream_t stream, const DeviceInfo& dev,
                     const Params&... params) {
  if (blocks > INT_MAX) return Status::InvalidSize;  // more tiles than one grid can hold
  const Status prepared = prepare_kernel<Kernel>(smem_bytes, dev);
  if (prepared != Status::Success) return prepared;
  launch_counter().fetch_add(1, std::memory_order_relaxed);
  Kernel<<<static_cast<unsigned>(blocks), threads, smem_bytes, stream>>>(params...);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return record(err, Status::LaunchFailed);
  return Status::Success;
}

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

}  // namespace detail
}  // namespace gemm
