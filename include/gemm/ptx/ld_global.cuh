#pragma once
// 16- and 8-byte global loads through registers, with the cache hints of a read-once stream.
//
//   load_streaming_16: ld.global.nc.L1::no_allocate.L2::256B: data read once (a weight in a decode
//                      product) neither evicts L1 nor waits alone: L2 fetches the whole 256-byte
//                      neighbourhood, which the next loads of the row ask for (H200, 1 x 28672 x 4096
//                      bf16: 58.5 us against 61.7 without the L2 hint).
//   load_shared_16:    ld.global.nc: data many blocks read (the few rows of A), kept in L1.
//   load_streaming_8, load_shared_8: the same, 8 bytes (rows aligned to 8 bytes but not 16).
// The pointer must be aligned to the load's size and the data read-only for the kernel's lifetime.
#include <cstdint>
#include <cuda_runtime.h>

namespace gemm::ptx {

__device__ __forceinline__ uint4 load_streaming_16(const void* p) {
  uint4 r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
#else
  r = *static_cast<const uint4*>(p);
#endif
  return r;
}

__device__ __forceinline__ uint4 load_shared_16(const void* p) {
  uint4 r;
#if defined(__CUDA_ARCH__)
  asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
#else
  r = *static_cast<const uint4*>(p);
#endif
  return r;
}

__device__ __forceinline__ uint2 load_streaming_8(const void* p) {
  uint2 r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];\n" : "=r"(r.x), "=r"(r.y) : "l"(p));
#else
  r = *static_cast<const uint2*>(p);
#endif
  return r;
}

__device__ __forceinline__ uint2 load_shared_8(const void* p) {
  uint2 r;
#if defined(__CUDA_ARCH__)
  asm("ld.global.nc.v2.u32 {%0, %1}, [%2];\n" : "=r"(r.x), "=r"(r.y) : "l"(p));
#else
  r = *static_cast<const uint2*>(p);
#endif
  return r;
}

}  // namespace gemm::ptx
