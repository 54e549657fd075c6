#pragma once
// Scratch device memory for one call, allocated and freed in the call's stream order
// (cudaMallocAsync / cudaFreeAsync), so it needs no synchronisation, costs little once the
// stream's memory pool is warm, and is captured into CUDA graphs as allocation nodes.
#include <cstddef>
#include <cuda_runtime.h>
#include "../status.cuh"

namespace gemm::detail {

class StreamWorkspace {
 public:
  explicit StreamWorkspace(cudaStream_t stream) : stream_(stream) {}
  StreamWorkspace(const StreamWorkspace&) = delete;
  StreamWorkspace& operator=(const StreamWorkspace&) = delete;
  // Frees (in stream order, after everything enqueued so far) whatever was allocated.
  ~StreamWorkspace() {
    for (void* p : blocks_)
      if (p) cudaFreeAsync(p, stream_);
  }

  // bytes of scratch at out (256-byte aligned); Status::CudaError when the pool cannot provide them.
  template <class T>
  Status allocate(T*& out, std::size_t count) {
    void* p = nullptr;
    const cudaError_t err = count ? cudaMallocAsync(&p, count * sizeof(T), stream_) : cudaSuccess;
    if (err != cudaSuccess) {
      cudaGetLastError();
      last_cuda_error_slot() = err;
      return Status::CudaError;
    }
    for (void*& slot : blocks_)
      if (!slot) {
        slot = p;
        break;
      }
    out = static_cast<T*>(p);
    return Status::Success;
  }

 private:
  cudaStream_t stream_;
  void* blocks_[4] = {};
};

}  // namespace gemm::detail
