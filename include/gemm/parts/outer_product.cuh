#pragma once
// The CUDA-core math step: for each k of the shared tile, load the thread's A column fragment and
// B row fragment into registers and add their outer product to the accumulators. With TM x TN > 1
// each shared-memory load feeds several FMAs, which is the point of register tiling.
#include <string>
#include "../detail/vector.cuh"

namespace gemm {

namespace detail {

// Loads N elements of a run whose element i lies at base[offset(i)]. kVec: the layout keeps aligned
// 16-byte pieces contiguous along this run, so it loads piece by piece with vector loads.
template <class T, int N, bool kVec, class Offset>
__device__ __forceinline__ void load_run(T* dst, const T* base, Offset offset) {
  constexpr int P = kElemsPer16B<T>;
  if constexpr (kVec && N % P == 0) {
#pragma unroll
    for (int p = 0; p < N / P; ++p) {
      const Vector<T, P> piece = *reinterpret_cast<const Vector<T, P>*>(base + offset(p * P));
#pragma unroll
      for (int e = 0; e < P; ++e) dst[p * P + e] = piece.v[e];
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) dst[i] = base[offset(i)];
  }
}

}  // namespace detail

struct OuterProduct {
  static std::string describe() { return "OuterProduct"; }

  // As, Bs: one stage of shared memory; r0, c0: the thread's first fragment row and column in the tile.
  template <class T, class Shape, class Map, class ALayout, class BLayout, int FM, int FN>
  __device__ static void run(const T* As, const T* Bs, T (&acc)[FM][FN], int r0, int c0) {
#pragma unroll
    for (int kk = 0; kk < Shape::BK; ++kk) {
      T a[FM], b[FN];
#pragma unroll
      for (int gm = 0; gm < Map::kGroupsM; ++gm) {
        const int r = r0 + gm * Map::kGroupStrideM;
        detail::load_run<T, Shape::TM, ALayout::kVecAlongR>(a + gm * Shape::TM, As,
                                                             [&](int i) { return ALayout::offset(r + i, kk); });
      }
#pragma unroll
      for (int gn = 0; gn < Map::kGroupsN; ++gn) {
        const int c = c0 + gn * Map::kGroupStrideN;
        detail::load_run<T, Shape::TN, BLayout::kVecAlongC>(b + gn * Shape::TN, Bs,
                                                             [&](int j) { return BLayout::offset(kk, c + j); });
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) acc[i][j] += a[i] * b[j];
    }
  }
};

}  // namespace gemm
