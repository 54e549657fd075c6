#pragma once
// A 32-bit load from shared memory by its shared-window address (detail::smem_address), as a
// volatile instruction: it stays after the barrier wait that made the data visible (a plain C++
// load through a generic pointer could be moved above an asm wait, and is a generic load).
#include <cstdint>

namespace gemm::ptx {

__device__ __forceinline__ unsigned ld_shared_b32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

}  // namespace gemm::ptx
