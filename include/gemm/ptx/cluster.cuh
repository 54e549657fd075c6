#pragma once
// Thread block clusters (sm_90): the cluster's barrier, a block's rank in it, and reads of another
// block's shared memory (distributed shared memory). Callers compile these only for sm_90 and run
// them only in kernels launched with a cluster shape (detail::launch_kernel's `cluster`).
#include <cstdint>

namespace gemm::ptx {

// Every thread of every block of the cluster arrives; each waits for all of them. What a thread
// wrote to shared memory before is visible to the cluster's blocks after (release / acquire).
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

// This block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return r;
}

// The float at `local` (an address in this block's shared memory) in the shared memory of the
// cluster's block `rank` instead.
__device__ __forceinline__ float load_shared_of_rank(const float* local, unsigned rank) {
  float v = 0.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(local));
  std::uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
#endif
  return v;
}

}  // namespace gemm::ptx
