#pragma once
// The Hopper epilogue: C = alpha * acc + beta * C straight from the wgmma accumulators.
// A lane holds pairs of neighbouring columns (see ptx/wgmma_ops.cuh), so where C's rows allow it a
// pair moves as one 4-byte (bf16, fp16) or 8-byte (float) access; every element is bounds-checked
// on its own row and column, and beta == 0 never reads C.
#include <cstdint>
#include "../types.cuh"

namespace gemm::sm90 {

template <class Out>
struct alignas(2 * sizeof(Out)) Pair {
  Out x, y;
};

// acc: one warpgroup's 64 x BN block at (row0, col0) of C, in the m64nBN fragment layout.
template <int BN, class Args>
__device__ __forceinline__ void store_block(const float (&acc)[BN / 2], const Args& args, int row0, int col0,
                                            bool pairs) {
  using Out = typename Args::Output;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int r = row0 + warp * 16 + lane / 4;
  const int c0 = col0 + 2 * (lane % 4);
  const float alpha = args.alpha, beta = args.beta;
  const bool read_c = beta != 0.0f;
#pragma unroll
  for (int g = 0; g < BN / 8; ++g) {
    const int col = c0 + 8 * g;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = r + 8 * h;
      if (row >= args.m || col >= args.n) continue;
      Out* c = args.C + static_cast<long long>(row) * args.ldc + col;
      float v0 = alpha * acc[4 * g + 2 * h], v1 = alpha * acc[4 * g + 2 * h + 1];
      if (pairs && col + 1 < args.n) {
        Pair<Out> p;
        if (read_c) {
          p = *reinterpret_cast<const Pair<Out>*>(c);
          v0 += beta * detail::convert<float>(p.x);
          v1 += beta * detail::convert<float>(p.y);
        }
        p.x = detail::convert<Out>(v0);
        p.y = detail::convert<Out>(v1);
        *reinterpret_cast<Pair<Out>*>(c) = p;
      } else {
        if (read_c) v0 += beta * detail::convert<float>(c[0]);
        c[0] = detail::convert<Out>(v0);
        if (col + 1 < args.n) {
          if (read_c) v1 += beta * detail::convert<float>(c[1]);
          c[1] = detail::convert<Out>(v1);
        }
      }
    }
  }
}

// Whether every column pair (even column) of C starts on a pair boundary.
template <class Args>
__host__ __device__ inline bool pairs_aligned(const Args& args) {
  using Out = typename Args::Output;
  return reinterpret_cast<std::uintptr_t>(args.C) % (2 * sizeof(Out)) == 0 && args.ldc % 2 == 0;
}

}  // namespace gemm::sm90
