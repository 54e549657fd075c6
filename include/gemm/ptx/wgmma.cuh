#pragma once
// Warpgroup-level helpers for Hopper (sm_90a): wgmma's fences and groups, shared-memory matrix
// descriptors, register reallocation between warpgroups, named barriers.
// The mma instructions themselves are in wgmma_ops.cuh (generated).
#include <cstdint>
#include "cp_async.cuh"
#include "wgmma_ops.cuh"

namespace gemm::ptx {

// Before the first wgmma of a sequence whose accumulators the threads touched.
__device__ __forceinline__ void wgmma_fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}

// Waits until at most Pending committed wgmma groups of this warpgroup are in flight.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
#endif
}

// Tells the compiler that wgmma has written these accumulators (keeps their uses after the wait).
template <int N>
__device__ __forceinline__ void wgmma_fence_operands(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The same for A fragments in registers (WgmmaRs): placed after the wait that shows their wgmmas
// done, it keeps the registers holding them until then (the compiler cannot see that the wgmma
// reads them after it is issued).
template <int N>
__device__ __forceinline__ void wgmma_fence_operands(unsigned (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

enum class Swizzle { None = 0, B128 = 1, B64 = 2, B32 = 3 };

// The 64-bit shared-memory matrix descriptor: start address, leading- and stride-dimension byte
// offsets (each >> 4, 14 bits) and the swizzle mode (bits 62-63). The base-offset field stays 0:
// every operand tile starts on a 1024-byte boundary (the 128-byte swizzle's repeat).
// Its high word holds the stride-byte offset and the swizzle only: a constant of the layout.
__host__ __device__ constexpr unsigned smem_descriptor_high(int sbo_bytes, Swizzle swizzle) {
  return static_cast<unsigned>((sbo_bytes >> 4) & 0x3FFF) | (static_cast<unsigned>(swizzle) << 30);
}
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* start, int lbo_bytes, int sbo_bytes,
                                                         Swizzle swizzle) {
  const std::uint64_t addr = detail::smem_address(start);
  return ((addr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>((lbo_bytes >> 4) & 0x3FFF) << 16) |
         (static_cast<std::uint64_t>(smem_descriptor_high(sbo_bytes, swizzle)) << 32);
}

// Gives this warpgroup's registers back to the pool (producer) or takes more (consumers).
template <int Regs>
__device__ __forceinline__ void setmaxnreg_dec() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
#endif
}
template <int Regs>
__device__ __forceinline__ void setmaxnreg_inc() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
#endif
}

// A named barrier among `threads` threads (a multiple of 32), id 1..15 (0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// Arrive at a named barrier without waiting: with `threads` counting both sides, the threads that
// named_barrier_sync it wait for these arrivals (one side signals, the other waits).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace gemm::ptx
