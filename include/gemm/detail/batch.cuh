#pragma once
// How a batched call reaches its entries. Non-persistent kernels run the batch as grid rows: entry
// b = blockIdx.y + gridDim.y * blockIdx.z (two dimensions, so batches beyond 65535 fit in one
// launch; the last row of z may hold a few blocks past the batch, which return at once). Each such
// kernel starts with `if (beyond_batch(params)) return; decltype(auto) args = block_entry(params);`:
// without a batch that is a reference to the parameters, so the kernel's code is what it was
// (checked in PTX; the mma kernel takes a copy, `const Args args = ...`, with which its PTX is
// unchanged and with a reference it was not).
#include "../args.cuh"

namespace gemm::detail {

__device__ __forceinline__ long long batch_index() {
  return blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z;
}

template <class Args>
__device__ __forceinline__ bool beyond_batch(const Args& params) {
  if constexpr (Args::kBatching == Batch::None) {
    (void)params;
    return false;
  } else {
    return batch_index() >= params.batch;
  }
}

template <class Args>
__device__ __forceinline__ decltype(auto) block_entry(const Args& params) {
  if constexpr (Args::kBatching == Batch::None)
    return (params);
  else
    return params.entry(batch_index());
}

// Entry b of a batch; without one, the parameters themselves (b is 0).
template <class Args>
__device__ __forceinline__ decltype(auto) entry_of(const Args& params, long long b) {
  if constexpr (Args::kBatching == Batch::None) {
    (void)b;
    return (params);
  } else {
    return params.entry(b);
  }
}

// The batch entry of this block in a grid of detail::Grid's shape: 0 without a batch.
template <class Args>
__device__ __forceinline__ long long block_batch() {
  if constexpr (Args::kBatching == Batch::None)
    return 0;
  else
    return batch_index();
}

}  // namespace gemm::detail
