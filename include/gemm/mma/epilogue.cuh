#pragma once
// How the mma family's accumulators reach C: C = epilogue(alpha * acc + beta * C) in the accumulator
// type (float, or double for fp64; epilogue.cuh), rounded once to C's type. Every element is checked against m and n on
// its own, and beta == 0 never reads C. C needs only its element alignment.
//
// mma.sync and DMMA accumulators hold pairs of neighbouring columns (d[0], d[1] at columns 2t, 2t+1):
// store_pair moves such a pair as one 4-, 8- or 16-byte access where C's rows allow it (pointer and
// ldc aligned to two elements, both columns inside C), element by element otherwise.
#include <cstdint>
#include "../epilogue.cuh"
#include "../types.cuh"

namespace gemm::mma {

template <class Out>
struct alignas(2 * sizeof(Out)) OutPair {
  Out x, y;
};

// Whether every even column of C starts a two-element-aligned pair.
template <class Args>
__host__ __device__ inline bool pairs_aligned(const Args& args) {
  using Out = typename Args::Output;
  return reinterpret_cast<std::uintptr_t>(args.C) % (2 * sizeof(Out)) == 0 && args.ldc % 2 == 0;
}

template <class Args, class S>
__device__ __forceinline__ void store_element(const Args& args, int row, int col, S v) {
  using Out = typename Args::Output;
  if (row >= args.m || col >= args.n) return;
  Out* c = args.C + static_cast<long long>(row) * args.ldc + col;
  const S alpha = args.alpha, beta = args.beta;
  *c = detail::convert<Out>(
      detail::epilogue_of(args)(beta != S(0) ? alpha * v + beta * detail::convert<S>(*c) : alpha * v, row, col));
}

// Columns col (even) and col + 1 of one row.
template <class Args, class S>
__device__ __forceinline__ void store_pair(const Args& args, int row, int col, S v0, S v1, bool pairs) {
  using Out = typename Args::Output;
  if (row >= args.m || col >= args.n) return;
  const S alpha = args.alpha, beta = args.beta;
  Out* c = args.C + static_cast<long long>(row) * args.ldc + col;
  if (pairs && col + 1 < args.n) {
    OutPair<Out> p;
    S r0 = alpha * v0, r1 = alpha * v1;
    if (beta != S(0)) {
      p = *reinterpret_cast<const OutPair<Out>*>(c);
      r0 += beta * detail::convert<S>(p.x);
      r1 += beta * detail::convert<S>(p.y);
    }
    p.x = detail::convert<Out>(detail::epilogue_of(args)(r0, row, col));
    p.y = detail::convert<Out>(detail::epilogue_of(args)(r1, row, col + 1));
    *reinterpret_cast<OutPair<Out>*>(c) = p;
  } else {
    store_element(args, row, col, v0);
    store_element(args, row, col + 1, v1);
  }
}

}  // namespace gemm::mma
