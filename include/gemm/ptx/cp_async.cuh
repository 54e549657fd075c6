#pragma once
// Wrappers for sm_80's asynchronous global-to-shared copies (cp.async).
// src_bytes < copy size zero-fills the rest of the destination, which is how tile edges are padded.
#include <cstdint>

namespace gemm::detail {

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Bytes is 4, 8 or 16. 16-byte copies bypass L1 (.cg); smaller ones must use .ca.
template <int Bytes>
__device__ __forceinline__ void cp_async(void* smem_dst, const void* gmem_src, int src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(smem_dst)), "l"(gmem_src),
                 "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_address(smem_dst)), "l"(gmem_src),
                 "n"(Bytes), "r"(src_bytes));
  }
#else
  // Unreachable: policies that use cp.async declare kMinArch = 80 and the host refuses older devices.
  (void)smem_dst; (void)gmem_src; (void)src_bytes;
  __trap();
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Wait until at most Pending committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

}  // namespace gemm::detail
