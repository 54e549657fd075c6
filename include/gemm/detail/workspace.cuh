#pragma once
// Scratch device memory for one call, allocated and freed in the call's stream order
// (cudaMallocAsync / cudaFreeAsync), so it needs no synchronisation, costs little once the
// stream's memory pool is warm, and is captured into CUDA graphs as allocation nodes; or, while a
// gemm::CallerWorkspace lives, taken from the caller's own buffer.
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
#include "../status.cuh"

namespace gemm {

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
// TF32 operands that are not k-contiguous, and 3xTF32) from [ptr, ptr + bytes) instead of the stream's
// memory pool: no allocation at all, for callers who budget memory themselves. A call that needs more
// returns Status::WorkspaceTooSmall before launching anything. The buffer is device memory; the
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
  explicit StreamWorkspace(cudaStream_t stream) : stream_(stream) {}
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
    const cudaError_t err = count ? cudaMallocAsync(&block_, count * sizeof(T), stream_) : cudaSuccess;
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
  void* block_ = nullptr;
};

}  // namespace detail
}  // namespace gemm
