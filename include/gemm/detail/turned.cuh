#pragma once
// A call computed turned around: C^T = op(B)^T op(A)^T. The kernel sees B as its A (m' = n rows)
// and A as its B (n' = m columns), and stores element (r, c) of its C^T at C's (c, r). A few rows of
// C against a wide B (decode: 16 tokens against a weight of thousands of rows) put the weight's rows
// on the tile's tall side and the tokens on its narrow one, instead of leaving most of a 64-row tile
// empty. Turned<Args> is the kernels' argument type for such a call: code that stores C asks
// is_turned<Args> (sm90/epilogue.cuh), everything else reads it as the call it holds.
#include <utility>
#include "../args.cuh"
#include "../scales.cuh"
#include "launch.cuh"

namespace gemm::detail {

template <class Args>
struct Turned : Args {};

template <class Args>
inline constexpr bool is_turned = false;
template <class Args>
inline constexpr bool is_turned<Turned<Args>> = true;

__host__ __device__ constexpr Op flipped(Op op) { return op == Op::N ? Op::T : Op::N; }

// The layouts the turned call reads: op(B)^T is B stored as it is, read with the other op (a B
// stored transposed, n x k, is a row-major n x k A), and op(A)^T likewise. A row-major A with B
// stored transposed (a PyTorch weight) stays so.
template <class Layouts>
struct TurnedLayouts {
  using type = Ops<flipped(Layouts::b), flipped(Layouts::a)>;
};
template <>
struct TurnedLayouts<AnyOps> {
  using type = AnyOps;
};

template <class Args>
Turned<Args> turned(const Args& args) {
  Turned<Args> t{args};
  t.m = args.n, t.n = args.m;
  t.A = args.B, t.lda = args.ldb, t.op_a = flipped(args.op_b);
  t.B = args.A, t.ldb = args.lda, t.op_b = flipped(args.op_a);
  t.stride_a = args.stride_b, t.stride_b = args.stride_a;
  t.A_array = args.B_array, t.B_array = args.A_array;
  // FP8 tensor and row scales follow their operands (B's per-column vector scales the turned call's
  // rows); block scales are refused on turned tiles before this (their 1 x 128 blocks would lie on
  // the tile's narrow side).
  if constexpr (has_scales<Args>) {
    std::swap(t.scales.a, t.scales.b);
    std::swap(t.scales.a_count, t.scales.b_count);
  }
  return t;
}

}  // namespace gemm::detail
