#pragma once
// Shared-memory layouts of the mma family's operand tiles.
//
// An operand tile is held as it is stored in global memory, so that cp.async can copy it in 16-byte
// chunks without transposing anything: Rows stored rows of RowBytes bytes (K-major: one row per m or
// n, k along the row; MN-major: one row per k, m or n along the row). A layout maps (row, chunk) to
// a byte offset; the fragment loads read it back in whatever orientation the mma needs
// (ldmatrix, ldmatrix.trans or scalar loads). Bank conflicts depend on which rows a warp reads at
// once, so each math part picks the layout that suits its loads:
//
//   PaddedRows       one 16-byte chunk of padding per row: eight consecutive rows start in eight
//                    different bank groups (what the WMMA tutorials do; WMMA cannot read a swizzle).
//   LdmatrixSwizzle  no padding; the chunk index is XORed with a function of the row so that the
//                    eight rows one ldmatrix phase reads (same logical chunk) fall in eight
//                    different 16-byte bank groups. Rows of 2, 4 or >= 8 chunks.
//   PairSwizzle      no padding; the chunk index is XORed with 2 (row mod 4), so that four
//                    consecutive rows each reading the same two adjacent chunks (a warp's 32- or
//                    64-bit fragment loads: tf32 stored MN-major, fp64) cover all eight bank groups
//                    of a 128-byte line. Rows of >= 8 chunks.
//
// Every XOR stays inside an aligned group of eight chunks, so eight threads copying the eight
// chunks of such a group still write eight different bank groups.
//
// Each layout also gives kRowStride (bytes from one row to the next) and kRowPeriod (rows after which
// its XOR pattern repeats), which let LaneCursor below turn a lane's accesses into one base register
// per distinct chunk offset (mod 8) plus compile-time constants.
#include <string>

namespace gemm {

struct PaddedRows {
  static std::string describe() { return "PaddedRows<16B>"; }
  template <int Rows, int RowBytes>
  struct Tile {
    static_assert(RowBytes % 16 == 0, "PaddedRows: an operand row must be a whole number of 16-byte chunks.");
    static constexpr int kStrideBytes = RowBytes + 16;
    static constexpr int kRowStride = kStrideBytes;
    static constexpr int kRowPeriod = 1;
    static constexpr int kBytes = Rows * kStrideBytes;
    __host__ __device__ static constexpr int offset(int row, int chunk) { return row * kStrideBytes + chunk * 16; }
  };
};

struct LdmatrixSwizzle {
  static std::string describe() { return "LdmatrixSwizzle"; }
  template <int Rows, int RowBytes>
  struct Tile {
    static constexpr int kChunks = RowBytes / 16;
    static_assert(RowBytes % 16 == 0 && (kChunks == 2 || kChunks == 4 || kChunks % 8 == 0),
                  "LdmatrixSwizzle: an operand row must be 2, 4 or a multiple of 8 chunks of 16 bytes.");
    static constexpr int kBytes = Rows * RowBytes;
    static constexpr int kRowStride = RowBytes;
    static constexpr int kRowPeriod = 8;
    // 8 rows x kChunks chunks form a whole number of 128-byte lines; rows sharing a line differ in
    // their low bits, rows in different lines get different XOR values.
    __host__ __device__ static constexpr int swizzle(int row) {
      return kChunks >= 8 ? (row & 7) : kChunks == 4 ? ((row >> 1) & 3) : ((row >> 2) & 1);
    }
    __host__ __device__ static constexpr int offset(int row, int chunk) {
      return row * RowBytes + ((chunk ^ swizzle(row)) << 4);
    }
  };
};

struct PairSwizzle {
  static std::string describe() { return "PairSwizzle"; }
  template <int Rows, int RowBytes>
  struct Tile {
    static constexpr int kChunks = RowBytes / 16;
    static_assert(RowBytes % 128 == 0,
                  "PairSwizzle: an operand row must be a whole number of 128-byte lines (for fp64 K-major tiles: "
                  "MmaTile's KBytes >= 128, i.e. 16 doubles of k per stage).");
    static constexpr int kBytes = Rows * RowBytes;
    static constexpr int kRowStride = RowBytes;
    static constexpr int kRowPeriod = 4;
    __host__ __device__ static constexpr int swizzle(int row) { return (row & 3) << 1; }
    __host__ __device__ static constexpr int offset(int row, int chunk) {
      return row * RowBytes + ((chunk ^ swizzle(row)) << 4);
    }
  };
};

// A lane's accesses to one tile at (row0 + dr, chunk0 + dc) (plus a byte offset inside the chunk for
// scalar loads): row0 and chunk0 depend on the lane and warp, dr and dc are compile-time constants once the loops are unrolled, and dr is a multiple of
// the layout's kRowPeriod. The XOR only changes the low three bits of a chunk index and a row shift
// by a whole period leaves it unchanged, so
//   offset(row0 + dr, chunk0 + dc) = offset(row0, chunk0 + dc % 8) + dr * kRowStride + 128 * (dc / 8):
// one register per distinct dc % 8 the lane uses (the compiler drops the rest), and each access is
// that register plus an immediate. The host tests check this identity against Layout::offset.
// Where a lane's accesses start: a row, a chunk and a byte inside the chunk (scalar loads).
struct LanePosition {
  int row, chunk, byte;
};

template <class Layout>
struct LaneCursor {
  int base[8];
  __host__ __device__ explicit LaneCursor(LanePosition p) {
#pragma unroll
    for (int q = 0; q < 8; ++q) base[q] = Layout::offset(p.row, p.chunk + q) + p.byte;
  }
  __host__ __device__ int operator()(int dr, int dc) const {
    return base[dc & 7] + dr * Layout::kRowStride + (dc >> 3) * 128;
  }
};

}  // namespace gemm
