#pragma once
// mbarrier: the shared-memory barriers that TMA copies complete on and that producer and consumer
// warps hand pipeline stages back and forth with (sm_90). A barrier counts arrivals and, with
// expect_tx, bytes; when both reach zero its phase completes and its parity flips. Waiters name the
// parity of the phase they wait for.
#include <cstdint>
#include "cp_async.cuh"

namespace gemm::ptx {

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, int arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(detail::smem_address(bar)), "r"(arrivals));
#else
  (void)bar, (void)arrivals;
#endif
}

// Makes initialised barriers visible to the async proxy (TMA) and to the other threads of the cluster.
__device__ __forceinline__ void fence_barrier_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// One arrival that also announces `bytes` more bytes to come from TMA copies.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(detail::smem_address(bar)),
               "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
#endif
}

__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(detail::smem_address(bar)) : "memory");
#else
  (void)bar;
#endif
}

// Blocks until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, int parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_loop:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_loop;\n"
      "}" ::"r"(detail::smem_address(bar)),
      "r"(parity)
      : "memory");
#else
  (void)bar, (void)parity;
#endif
}

}  // namespace gemm::ptx
