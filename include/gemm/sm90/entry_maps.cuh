#pragma once
// Pointer-array batches on TMA. A tensor map names one matrix and is encoded on the host, but a
// pointer array's entries are known only on the device. So the host encodes one map per operand
// for the entries' common shape (rows, row length, leading dimension, boxes) at a placeholder
// address, and a small kernel, one thread per entry, copies those templates into stream-ordered
// scratch and gives each copy its entry's address (tensormap.replace). The GEMM kernel then reads
// entry b's maps from the scratch (EntryMaps[b]), after a tensor-map proxy fence.
//
// TMA reads only from 16-byte-aligned addresses, at coordinates along a row that are whole 16 bytes
// (measured: a box at an inner coordinate of 3 bf16 elements is an illegal instruction), and the
// host can check only the leading dimensions. An entry whose A or B pointer is not aligned gets no
// maps (tma_ab = 0): the kernel's producer warpgroup fills its stages with ordinary loads instead
// (OperandTile::fill), in the layout TMA would have written. Likewise C: TMA stores it only for
// entries whose C is aligned (c_by_tma); for the others the consumers store it themselves.
#include <cstdint>
#include <cuda.h>
#include "../detail/launch.cuh"
#include "../ptx/tma.cuh"

namespace gemm::sm90 {

// 128-byte aligned: each map in one cache line.
struct alignas(128) EntryMaps {
  CUtensorMap a, b, c;
  int tma_ab;    // a and b hold the entry's maps (A and B 16-byte aligned): TMA loads its tiles
  int c_by_tma;  // c holds the entry's C map: TMA may store it
};
static_assert(sizeof(EntryMaps) == 512, "EntryMaps: three 128-byte maps and two flags, 128-byte aligned.");

// *out = tmpl with base p (16-byte aligned).
__device__ __forceinline__ void place_map(CUtensorMap* out, const CUtensorMap& tmpl, const void* p) {
  *out = tmpl;
  ptx::tensormap_replace_address(out, p);
}

// Entry e's maps: A and B where both are aligned, C where store_c (the kernel stores C through TMA)
// and C_array[e] is aligned.
template <class In, class Out>
__global__ void write_entry_maps(const __grid_constant__ CUtensorMap tmpl_a, const __grid_constant__ CUtensorMap tmpl_b,
                                 const __grid_constant__ CUtensorMap tmpl_c, const In* const* A_array,
                                 const In* const* B_array, Out* const* C_array, int batch, int store_c,
                                 EntryMaps* out) {
  // Launched, like the GEMM kernel after it, with programmatic dependent launch: it may start while
  // the stream's previous kernel finishes, and waits for that kernel before reading the arrays it
  // may have written; the GEMM kernel's blocks may set up while this one runs.
  ptx::allow_dependent_launch();
  ptx::wait_for_prior_grid();
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < batch) {
    EntryMaps& maps = out[e];
    const In *a = A_array[e], *b = B_array[e];
    const Out* c = C_array[e];
    maps.tma_ab = detail::aligned_to(a, 16) && detail::aligned_to(b, 16);
    if (maps.tma_ab) place_map(&maps.a, tmpl_a, a), place_map(&maps.b, tmpl_b, b);
    maps.c_by_tma = store_c && detail::aligned_to(c, 16);
    if (maps.c_by_tma) place_map(&maps.c, tmpl_c, c);
  }
  ptx::fence_tensormap_release();
}

}  // namespace gemm::sm90
