#pragma once
// Sums of k slices computed by different blocks, added in a fixed order: the scheme of the Hopper
// split-K (sm90/split_k.cuh) and of the decode kernel's k slices (mma/decode_kernel.cuh).
//
// Every block of a unit (an output tile, a group of rows) stores its slice's fp32 sums into scratch
// and counts itself in on the unit's counter; the block that counts last adds the slices in slice
// order, its own read back like the others, so the result does not depend on which block finished
// first and is bitwise the same from call to call. That block then sets the counter back to 0. The
// host zeroes the counters before the launch (they live in the call's stream-ordered scratch, so
// a call captured in a CUDA graph zeroes them on every replay).
//
// Only the layout of a slice's sums differs between the kernels; this header holds the counting.
#include <cstddef>
#include <cuda_runtime.h>
#include "../status.cuh"
#include "launch.cuh"

namespace gemm::detail {

// Host: the counters of `units` units, in the last bytes of their scratch, set to 0 in stream order.
inline Status zero_slice_counters(unsigned* counters, long long units, cudaStream_t stream) {
  if (cudaError_t err = cudaMemsetAsync(counters, 0, static_cast<std::size_t>(units) * sizeof(unsigned), stream);
      err != cudaSuccess) {
    cudaGetLastError();
    return record(err, Status::CudaError);
  }
  return Status::Success;
}

// Device, called by every thread that stored part of this block's slice, after its stores: true (in
// all of them) when this block is the unit's last of `slices` to count in, and may now read every
// slice. `sync` synchronises exactly those threads (the whole block, or a named barrier over the
// consumer warps); `leader` is one of them; `flag` a word of shared memory.
template <class Sync>
__device__ __forceinline__ bool counted_in_last(unsigned* counter, int slices, bool leader, int* flag,
                                                const Sync& sync) {
  __threadfence();  // this block's slice is visible to every block before the block counts itself in
  sync();
  if (leader) *flag = atomicAdd(counter, 1u) == static_cast<unsigned>(slices - 1);
  sync();
  if (!*flag) return false;
  __threadfence();  // the other blocks' slices, read next, are those they stored before counting in
  return true;
}

// Device, by the last block once its threads have read the slices: the counter ready for the next call.
__device__ __forceinline__ void reset_slice_counter(unsigned* counter, bool leader) {
  if (leader) *counter = 0;
}

}  // namespace gemm::detail
