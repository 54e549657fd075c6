#pragma once
// Scratch device memory for one call, allocated and freed in the call's stream order
// (cudaMallocFromPoolAsync / cudaFreeAsync) from a memory pool the library owns, so it needs no
// synchronisation and is captured into CUDA graphs as allocation nodes; or, while a
// gemm::CallerWorkspace lives, taken from the caller's own buffer.
//
// Why a pool of our own: the device's default pool has a release threshold of 0, so every
// synchronisation hands its memory back to the driver and the next staging call maps it again
// (H100: 36 us for a bf16 4096^2 call's 64 MB, 0.7 ms for 3xTF32's 470 MB at 4095x4097x4093; a
// third of the call). Changing the default pool's threshold would change the caller's own
// allocations; our pool keeps up to gemm::set_scratch_cache_limit bytes (1 GiB unless set) and
// touches nothing else.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <cuda_runtime.h>
#include "../status.cuh"
#include "launch.cuh"

namespace gemm {

namespace detail {
inline std::atomic<unsigned long long>& scratch_cache_limit() {
  static std::atomic<unsigned long long> limit{1ull << 30};
  return limit;
}

// A stream-ordered pool of device memory on `device` that keeps up to `keep` bytes reserved after a
// synchronisation (the library's scratch pools and gemm::host's buffer pools).
inline cudaError_t create_device_pool(int device, unsigned long long keep, cudaMemPool_t& out) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  if (cudaError_t err = cudaMemPoolCreate(&out, &props); err != cudaSuccess) return err;
  return cudaMemPoolSetAttribute(out, cudaMemPoolAttrReleaseThreshold, &keep);
}

// One pool per device, created at its first staging call and kept for the process (never
// destroyed: CUDA may be torn down before static destructors run).
class ScratchPools {
 public:
  Status get(int device, cudaMemPool_t& out) {
    if (device < 0 || device >= kMax) return record(cudaErrorInvalidDevice, Status::CudaError);
    if (cudaMemPool_t p = pools_[device].load(std::memory_order_acquire)) {
      out = p;
      return Status::Success;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!pools_[device].load(std::memory_order_relaxed)) {
      cudaMemPool_t pool = nullptr;
      if (cudaError_t err = create_device_pool(device, scratch_cache_limit().load(), pool); err != cudaSuccess) {
        cudaGetLastError();
        if (pool) cudaMemPoolDestroy(pool);
        return record(err, Status::CudaError);
      }
      pools_[device].store(pool, std::memory_order_release);
    }
    out = pools_[device].load(std::memory_order_relaxed);
    return Status::Success;
  }
  // The device's pool if it exists already (nullptr if not: nothing is created).
  cudaMemPool_t existing(int device) const {
    return device >= 0 && device < kMax ? pools_[device].load(std::memory_order_acquire) : nullptr;
  }
  // Applies the limit to the pools that exist; release = true also trims them to it now.
  void set_limit(unsigned long long keep, bool release) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& slot : pools_) {
      if (cudaMemPool_t p = slot.load(std::memory_order_relaxed)) {
        cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep);
        if (release) cudaMemPoolTrimTo(p, static_cast<std::size_t>(keep));
      }
    }
    cudaGetLastError();
  }

 private:
  static constexpr int kMax = 64;
  std::mutex mu_;
  std::atomic<cudaMemPool_t> pools_[kMax] = {};
};
inline ScratchPools& scratch_pools() {
  static ScratchPools* pools = new ScratchPools;
  return *pools;
}

// The pool a call's scratch comes from: the device's library pool; or, while the call's stream is
// being captured into a graph before that pool exists (a process's first staging call made inside
// a capture), the device's default pool. No pool can be created during a capture (the attempt
// fails and invalidates the capture), and an allocation captured from either pool is the graph's own
// memory, made with the pool's properties: device memory on this device, the same for both.
inline Status scratch_pool_for(int device, cudaStream_t stream, cudaMemPool_t& out) {
  if (cudaMemPool_t pool = scratch_pools().existing(device)) {
    out = pool;
    return Status::Success;
  }
  // (The legacy default stream is never captured, and querying it during another stream's capture
  // would be an implicit synchronisation.)
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (stream != nullptr && cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError();  // (not a capture we can see: as before, the pool is created)
    capture = cudaStreamCaptureStatusNone;
  }
  if (capture != cudaStreamCaptureStatusNone) {
    if (cudaError_t err = cudaDeviceGetDefaultMemPool(&out, device); err != cudaSuccess) {
      return record(err, Status::CudaError);
    }
    return Status::Success;
  }
  return scratch_pools().get(device, out);
}
}  // namespace detail

// Device memory the scratch pools keep reserved between calls, per device (default 1 GiB): a
// staging call that needs more maps the rest at each call. Memory beyond the limit is returned at
// the next synchronisation; set_scratch_cache_limit(0) followed by release_scratch_memory() returns
// all of it now.
inline void set_scratch_cache_limit(std::size_t bytes) {
  detail::scratch_cache_limit().store(bytes);
  detail::scratch_pools().set_limit(bytes, false);
}
// Returns the scratch memory no call is using down to the cache limit, now.
inline void release_scratch_memory() {
  detail::scratch_pools().set_limit(detail::scratch_cache_limit().load(), true);
}
// The pool a device's staging calls take their scratch from (created if it does not exist yet),
// for callers who want its attributes (cudaMemPoolAttrUsedMemHigh, ReservedMemCurrent, ...).
inline Status scratch_memory_pool(int device, cudaMemPool_t& out) { return detail::scratch_pools().get(device, out); }

namespace detail {
struct CallerBuffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  bool active = false;
};
inline CallerBuffer& caller_buffer_slot() {
  thread_local CallerBuffer buffer;
  return buffer;
}
}  // namespace detail

// While it lives, the gemm::gemm and gemm::blas::gemm calls this thread makes take their scratch
// memory (gemm::plan(...).workspace_bytes: nonzero only for bf16/fp16/TF32 operands TMA cannot read,
// TF32 operands that are not k-contiguous, 3xTF32, pointer-array batches on the Hopper kernels,
// whose tensor maps are written per entry: 512 bytes each, and fp32 rows not 16-byte aligned that
// the default plan copies first) from [ptr, ptr + bytes) instead of the stream's memory pool: no
// allocation at all, for callers who budget memory themselves. A call that needs more returns
// Status::WorkspaceTooSmall before launching anything, except fp32 calls, whose copies only make
// them faster: those run on the caller's rows instead (PackedRows). The buffer is device memory; the
// caller keeps it alive and unshared until the calls that used it are done (one stream at a time,
// or one buffer per stream). gemm::host and gemm::distributed keep their own memory and ignore it.
class CallerWorkspace {
 public:
  CallerWorkspace(void* ptr, std::size_t bytes) : previous_(detail::caller_buffer_slot()) {
    // Scratch blocks start on 256-byte boundaries, like the pool's.
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(ptr), aligned = (p + 255) / 256 * 256;
    const std::size_t lost = static_cast<std::size_t>(aligned - p);
    detail::caller_buffer_slot() = {reinterpret_cast<void*>(aligned), ptr && bytes > lost ? bytes - lost : 0, true};
  }
  ~CallerWorkspace() { detail::caller_buffer_slot() = previous_; }
  CallerWorkspace(const CallerWorkspace&) = delete;
  CallerWorkspace& operator=(const CallerWorkspace&) = delete;

 private:
  detail::CallerBuffer previous_;
};

namespace detail {

// Inside gemm::host and gemm::distributed, whose concurrent internal calls must not share one buffer.
class IgnoreCallerWorkspace {
 public:
  IgnoreCallerWorkspace() : previous_(caller_buffer_slot()) { caller_buffer_slot() = {}; }
  ~IgnoreCallerWorkspace() { caller_buffer_slot() = previous_; }
  IgnoreCallerWorkspace(const IgnoreCallerWorkspace&) = delete;
  IgnoreCallerWorkspace& operator=(const IgnoreCallerWorkspace&) = delete;

 private:
  CallerBuffer previous_;
};

// One block of scratch, freed (in stream order, after everything enqueued so far) when the
// workspace goes out of scope. A call that needs several buffers carves them out of one block.
class StreamWorkspace {
 public:
  StreamWorkspace(cudaStream_t stream, int device) : stream_(stream), device_(device) {}
  StreamWorkspace(const StreamWorkspace&) = delete;
  StreamWorkspace& operator=(const StreamWorkspace&) = delete;
  ~StreamWorkspace() {
    if (block_) cudaFreeAsync(block_, stream_);
  }

  // count elements of scratch at out (256-byte aligned); Status::CudaError when the pool cannot
  // provide them (WorkspaceTooSmall when the caller's buffer cannot). Call it once per workspace.
  template <class T>
  Status allocate(T*& out, std::size_t count) {
    if (const CallerBuffer& caller = caller_buffer_slot(); caller.active) {
      if (count * sizeof(T) > caller.bytes) return Status::WorkspaceTooSmall;
      out = static_cast<T*>(caller.ptr);
      return Status::Success;
    }
    out = nullptr;
    if (count == 0) return Status::Success;
    cudaMemPool_t pool = nullptr;
    if (Status s = scratch_pool_for(device_, stream_, pool); s != Status::Success) return s;
    const cudaError_t err = cudaMallocFromPoolAsync(&block_, count * sizeof(T), pool, stream_);
    if (err != cudaSuccess) {
      cudaGetLastError();
      last_cuda_error_slot() = err;
      block_ = nullptr;
      return Status::CudaError;
    }
    out = static_cast<T*>(block_);
    return Status::Success;
  }

 private:
  cudaStream_t stream_;
  int device_;
  void* block_ = nullptr;
};

}  // namespace detail
}  // namespace gemm
