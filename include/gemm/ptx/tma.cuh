#pragma once
// TMA (the bulk tensor copy engine, sm_90): tile copies between global and shared memory described
// by a CUtensorMap of 2, 3 or 4 dimensions; loads complete on an mbarrier, stores in bulk async-groups.
// Elements of the box outside the tensor are written as zeros, so tiles need no edge code.
#include <cstdint>
#include <cuda.h>
#include "cp_async.cuh"

namespace gemm::ptx {

// Box at (c0 = innermost coordinate, c1) of the tensor into dst; bytes count on bar.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1, std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          detail::smem_address(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(detail::smem_address(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)c0, (void)c1, (void)bar;
#endif
}

// Box at (c0, c1, c2) of a 3-D tensor (a batch of matrices, c2 the entry) into dst; bytes count on bar.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int c0, int c1, int c2,
                                            std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::
          "r"(detail::smem_address(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(detail::smem_address(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)c0, (void)c1, (void)c2, (void)bar;
#endif
}

// Box at (c0, c1, c2, c3) of a 4-D tensor (an address map: c2, c3 place the matrix) into dst.
__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap* map, int c0, int c1, int c2, int c3,
                                            std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];" ::"r"(detail::smem_address(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(detail::smem_address(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)c0, (void)c1, (void)c2, (void)c3, (void)bar;
#endif
}

// The box at (c0, c1) of the tensor from src (shared memory); writes outside the tensor are dropped.
// Completes in a bulk async-group of the issuing thread (bulk_commit / bulk_wait_read).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int c0, int c1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map), "r"(c0),
               "r"(c1), "r"(detail::smem_address(src))
               : "memory");
#else
  (void)map, (void)src, (void)c0, (void)c1;
#endif
}

// tma_store_2d for a 3-D tensor (c2: the batch entry).
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* src, int c0, int c1, int c2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(map), "r"(c0),
               "r"(c1), "r"(c2), "r"(detail::smem_address(src))
               : "memory");
#else
  (void)map, (void)src, (void)c0, (void)c1, (void)c2;
#endif
}

// tma_store_2d for a 4-D tensor (an address map).
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, const void* src, int c0, int c1, int c2, int c3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(map),
               "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(detail::smem_address(src))
               : "memory");
#else
  (void)map, (void)src, (void)c0, (void)c1, (void)c2, (void)c3;
#endif
}

// A plain (non-tensor) copy of `bytes` from global memory into shared memory, completing on the
// mbarrier `bar` as a TMA load does (its bytes counted in the barrier's expected transactions). dst,
// src and bytes are multiples of 16.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   detail::smem_address(dst)),
               "l"(src), "r"(bytes), "r"(detail::smem_address(bar))
               : "memory");
#else
  (void)dst, (void)src, (void)bytes, (void)bar;
#endif
}

__device__ __forceinline__ void bulk_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

// Waits until at most Pending bulk groups of this thread still read their shared-memory source.
template <int Pending>
__device__ __forceinline__ void bulk_wait_read() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
#endif
}

// Waits until at most Pending bulk groups of this thread are unfinished (their writes done too).
template <int Pending>
__device__ __forceinline__ void bulk_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

// Prefetches the tensor map's descriptor into the cache (once per block, before the first copy).
__device__ __forceinline__ void tma_prefetch_descriptor(const CUtensorMap* map) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
#else
  (void)map;
#endif
}

// Orders this thread's ordinary shared-memory accesses before later async-proxy (TMA, wgmma) ones.
__device__ __forceinline__ void fence_proxy_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

}  // namespace gemm::ptx
