#pragma once
// What the mma family's math parts (WmmaMath, MmaSyncMath, DmmaMath) have in common, so that each
// part's Warp holds only what is its own (fragments, their loads, the mma, where accumulators lie):
//
//   WarpShape    the base of every Warp: a stage's k depth, each operand's stage (stored K-major or
//                MN-major, in the shared layout the part reads) and the warp tile. A Warp derives
//                from it, calls it Base (typename Warp::WarpShape, the base's injected name) and names
//                what it uses with using-declarations: the base depends on the Warp's template
//                parameters, so its names are not otherwise seen inside the Warp. The warp's place
//                (wm0, wn0, lane) stays a member of each Warp, after its lane cursors: in the base it
//                would come first, and that order alone changes ptxas's register allocation.
//   fill         sets every element of an accumulator array.
//   store_pairs  C = alpha * acc + beta * C for accumulators held as pairs of neighbouring columns
//                (mma.sync and DMMA), with store_pair (epilogue.cuh).
#include "../types.cuh"
#include "epilogue.cuh"
#include "tile_copy.cuh"

namespace gemm::mma {

// Whether A (B) is stored K-major: one row per m (n), k along the row; else one row per k.
template <class Layouts>
inline constexpr bool a_k_major = Layouts::a == Op::N;
template <class Layouts>
inline constexpr bool b_k_major = Layouts::b == Op::T;

// In: the operand element in shared memory; Tile, Warps, Layouts: the Warp's; LayoutA, LayoutB:
// the shared layouts (smem_layout.cuh) of A's and B's tiles.
template <class In_, class Tile, class Warps, class Layouts, class LayoutA, class LayoutB>
struct WarpShape {
  using In = In_;
  static constexpr int BK = Tile::template kBK<In>;  // k per stage
  static constexpr bool kAKMajor = a_k_major<Layouts>;  // A stored m x k
  static constexpr bool kBKMajor = b_k_major<Layouts>;  // B stored n x k
  using StageA = OperandStage<In, Tile::BM, BK, kAKMajor, LayoutA>;
  using StageB = OperandStage<In, Tile::BN, BK, kBKMajor, LayoutB>;
  static constexpr int WM = Warps::WM, WN = Warps::WN;
};

template <class S, int N>
__device__ __forceinline__ void fill(S (&a)[N], S v) {
#pragma unroll
  for (int i = 0; i < N; ++i) a[i] = v;
}
template <class S, int N, int M>
__device__ __forceinline__ void fill(S (&a)[N][M], S v) {
#pragma unroll
  for (int i = 0; i < N; ++i) fill(a[i], v);
}
template <class S, int N, int M, int R>
__device__ __forceinline__ void fill(S (&a)[N][M][R], S v) {
#pragma unroll
  for (int i = 0; i < N; ++i) fill(a[i], v);
}

// d[mi][nj][2h] and d[mi][nj][2h + 1] lie at row row(mi, h) and columns col(nj), col(nj) + 1 of the
// block tile at (m0, n0).
template <class Args, class S, int MT, int NT, int R, class Row, class Col>
__device__ __forceinline__ void store_pairs(const Args& args, int m0, int n0, const S (&d)[MT][NT][R], Row row,
                                            Col col) {
  static_assert(R % 2 == 0, "store_pairs: each accumulator tile holds whole pairs of columns.");
  const bool pairs = pairs_aligned(args);
#pragma unroll
  for (int mi = 0; mi < MT; ++mi)
#pragma unroll
    for (int nj = 0; nj < NT; ++nj)
#pragma unroll
      for (int h = 0; h < R / 2; ++h)
        store_pair(args, m0 + row(mi, h), n0 + col(nj), d[mi][nj][2 * h], d[mi][nj][2 * h + 1], pairs);
}

}  // namespace gemm::mma
