#pragma once
// Shared-memory layouts: where element (r, c) of a tile lands in shared memory.
//
// A tile is R x C in the orientation it has in global memory (row-major): for A, r is m and c is k;
// for B, r is k and c is n. Loaders write chunks along c; the math step reads A along r (m) and
// B along c (n). A layout says which of those reads may use 16-byte vectors:
//   kVecAlongC: every aligned 16-byte piece along c is contiguous and 16-byte aligned;
//   kVecAlongR: the same along r.
// and kLinear: offset(r + d, c) - offset(r, c) depends on d only (no swizzle).
#include <string>
#include "../detail/describe.cuh"
#include "../detail/vector.cuh"

namespace gemm {

// Row-major, as in global memory, with Pad extra elements per row.
template <int Pad = 0>
struct RowMajor {
  static std::string describe() { return detail::templated("RowMajor", Pad); }
  template <class T, int R, int C>
  struct Tile {
    static constexpr int kStride = C + Pad;
    static constexpr int kElems = R * kStride;
    static constexpr bool kVecAlongC = kStride % detail::kElemsPer16B<T> == 0;
    static constexpr bool kVecAlongR = false;
    static constexpr bool kLinear = true;
    __device__ static int offset(int r, int c) { return r * kStride + c; }
  };
};

// Transposed (column-major): element (r, c) at c * (R + Pad) + r. For A this stores the tile k-major,
// so a thread's TM rows for one k are contiguous and load as vectors. Pad breaks the bank conflicts
// that the transposing stores otherwise hit (threads writing the same m for different k).
template <int Pad = 0>
struct Transposed {
  static std::string describe() { return detail::templated("Transposed", Pad); }
  template <class T, int R, int C>
  struct Tile {
    static constexpr int kStride = R + Pad;
    static constexpr int kElems = C * kStride;
    static constexpr bool kVecAlongC = false;
    static constexpr bool kVecAlongR = kStride % detail::kElemsPer16B<T> == 0;
    static constexpr bool kLinear = true;
    __device__ static int offset(int r, int c) { return c * kStride + r; }
  };
};

// Transposed with an XOR swizzle instead of padding: the 16-byte piece index along r is XORed with
// (c mod 8), so the eight c values a warp stores for one r land in eight different bank groups,
// at no extra shared memory. Pieces stay whole, so vector reads along r still work.
struct TransposedSwizzled {
  static std::string describe() { return "TransposedSwizzled"; }
  template <class T, int R, int C>
  struct Tile {
    static constexpr int kPiece = detail::kElemsPer16B<T>;
    static_assert(R % (8 * kPiece) == 0,
                  "TransposedSwizzled: the tile's r extent (BM for A) must be a multiple of eight 16-byte pieces "
                  "(32 floats or 16 doubles); use Transposed<Pad> for smaller tiles.");
    static constexpr int kElems = C * R;
    static constexpr bool kVecAlongC = false;
    static constexpr bool kVecAlongR = true;
    static constexpr bool kLinear = false;
    __device__ static int offset(int r, int c) { return c * R + (r ^ ((c & 7) * kPiece)); }
  };
};

// The pair of layouts a policy uses, one for the A tile and one for the B tile.
template <class ALayout, class BLayout>
struct SmemLayout {
  static std::string describe() { return "SmemLayout<A=" + ALayout::describe() + ",B=" + BLayout::describe() + ">"; }
  template <class T, class Shape>
  struct Tiles {
    using A = typename ALayout::template Tile<T, Shape::BM, Shape::BK>;
    using B = typename BLayout::template Tile<T, Shape::BK, Shape::BN>;
    // Keep every stage 16-byte aligned so vector and cp.async accesses stay aligned.
    static constexpr int kAlignElems = detail::kElemsPer16B<T>;
    static constexpr int kAElems = (A::kElems + kAlignElems - 1) / kAlignElems * kAlignElems;
    static constexpr int kBElems = (B::kElems + kAlignElems - 1) / kAlignElems * kAlignElems;
    static constexpr int kStageElems = kAElems + kBElems;
  };
};

}  // namespace gemm
