#pragma once
// Epilogues: write the accumulators to C as C = epilogue(alpha * acc + beta * C), rounded once to C's
// type (epilogue.cuh: bias and activation of a fused call, the identity otherwise).
// Every element is bounds-checked on its own row and column. With beta == 0, C is never read,
// so whatever C held before (NaN included) cannot leak into the result.
#include <string>
#include "../args.cuh"
#include "../detail/vector.cuh"
#include "../epilogue.cuh"
#include "../types.cuh"

namespace gemm {

namespace detail {

// Where accumulator acc[i][j] of a thread lies, relative to the thread's first row r0 and column c0:
// group i / TM (j / TN) of the thread map, element i % TM (j % TN) inside it.
template <class Shape, class Map>
__device__ __forceinline__ int fragment_row(int i) {
  return (i / Shape::TM) * Map::kGroupStrideM + i % Shape::TM;
}
template <class Shape, class Map>
__device__ __forceinline__ int fragment_col(int j) {
  return (j / Shape::TN) * Map::kGroupStrideN + j % Shape::TN;
}

template <bool kVectorStores>
struct LinearCombination {
  static std::string describe() { return kVectorStores ? "VectorEpilogue" : "ScalarEpilogue"; }

  // epilogue(alpha * acc + beta * c) in the accumulator type, rounded once to C's type.
  template <class Out, class T, class Args>
  __device__ static Out combine(T acc, const Args& args, const Out* c, bool read_c, int row, int col) {
    const T alpha = args.alpha, beta = args.beta;
    return convert<Out>(epilogue_of(args)(read_c ? alpha * acc + beta * convert<T>(*c) : alpha * acc, row, col));
  }

  // kVec: C and ldc are 16-byte aligned (host-checked), so whole pieces may use vector access.
  template <class Shape, class Map, bool kVec, class T, int FM, int FN, class Args>
  __device__ static void run(const T (&acc)[FM][FN], const Args& args, int m0, int n0, int r0, int c0) {
    using Out = typename Args::Output;
    constexpr int P = kElemsPer16B<Out>;
    constexpr bool kVector = kVectorStores && kVec && Shape::TN % P == 0;
    const bool read_c = args.beta != T(0);
#pragma unroll
    for (int gm = 0; gm < Map::kGroupsM; ++gm) {
#pragma unroll
      for (int tm = 0; tm < Shape::TM; ++tm) {
        const int i = gm * Shape::TM + tm;
        const int row = m0 + r0 + fragment_row<Shape, Map>(i);
        if (row >= args.m) continue;
        Out* c_row = args.C + static_cast<long long>(row) * args.ldc;
#pragma unroll
        for (int gn = 0; gn < Map::kGroupsN; ++gn) {
          const int col0 = n0 + c0 + fragment_col<Shape, Map>(gn * Shape::TN);
#pragma unroll
          for (int p = 0; p < (kVector ? Shape::TN / P : 1); ++p) {
            const int col = col0 + p * P;
            if (kVector && col + P <= args.n) {
              Vector<Out, P> out;
              if (read_c) out = *reinterpret_cast<const Vector<Out, P>*>(c_row + col);
#pragma unroll
              for (int e = 0; e < P; ++e)
                out.v[e] = combine(acc[i][gn * Shape::TN + p * P + e], args, &out.v[e], read_c, row, col + e);
              *reinterpret_cast<Vector<Out, P>*>(c_row + col) = out;
            } else {
              constexpr int kRun = kVector ? P : Shape::TN;
#pragma unroll
              for (int e = 0; e < kRun; ++e) {
                if (col + e >= args.n) break;
                c_row[col + e] = combine(acc[i][gn * Shape::TN + p * P + e], args, c_row + col + e, read_c, row, col + e);
              }
            }
          }
        }
      }
    }
  }
};

}  // namespace detail

using ScalarEpilogue = detail::LinearCombination<false>;  // one element per store
using VectorEpilogue = detail::LinearCombination<true>;   // 16-byte loads/stores of C where aligned

}  // namespace gemm
