#pragma once
// Scratch device memory for one call, allocated and freed in the call's stream order
// (cudaMallocAsync / cudaFreeAsync), so it needs no synchronisation, costs little once the
// stream's memory pool is warm, and is captured into CUDA graphs as allocation nodes.
#include <cstddef>
#include <cuda_runtime.h>
#include "../status.cuh"

namespace gemm::detail {

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
  // provide them. Call it once per workspace.
  template <class T>
  Status allocate(T*& out, std::size_t count) {
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

}  // namespace gemm::detail
