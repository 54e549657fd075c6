#pragma once
// How an operand tile reaches shared memory in the mma family: cp.async copies of 16-byte chunks
// along the stored rows, straight into the layout the math reads (no registers, no transposition).
//
// OperandStage<In, MN, BK, kKMajor, Layout> describes one operand's tile of one stage: MN rows of the
// block tile (BM for A, BN for B) by BK of k, stored K-major (one row per m or n: A with op N, B with
// op T) or MN-major (one row per k: A with op T, B with op N), exactly as in global memory.
//
// The block's threads take the chunks round-robin along a row, so a thread keeps one chunk column
// and steps down the rows: its source addresses are one base plus multiples of (rows * ld).
// Edges zero-fill: a chunk's copy reads only the elements inside the matrix (cp.async's src-size),
// and a chunk wholly outside reads nothing. Two copy widths:
//   kWide:   one 16-byte copy per chunk (A or B rows 16-byte aligned: pointer and leading dimension);
//   narrow:  4-byte copies (8 for double) per chunk, for rows aligned only to that; 16-bit inputs
//            then need an even leading dimension and a 4-byte-aligned pointer (cp.async copies no
//            fewer than 4 bytes).
// And, for register-staged pipelines, fetch + store: each chunk is loaded element by element into
// registers (any alignment: an odd leading dimension of 16-bit elements, say) and stored to shared
// memory as one 16-byte piece, at the same place a copy would put it.
#include <cstdint>
#include "../detail/vector.cuh"
#include "../ptx/cp_async.cuh"
#include "../types.cuh"

namespace gemm::mma {

template <class In, int MN, int BK, bool kKMajorP, class LayoutP>
struct OperandStage {
  using Element = In;
  static constexpr bool kKMajor = kKMajorP;
  static constexpr int kRows = kKMajor ? MN : BK;  // stored rows
  static constexpr int kCols = kKMajor ? BK : MN;  // stored row length, elements
  static constexpr int kRowBytes = kCols * static_cast<int>(sizeof(In));
  static_assert(kRowBytes % 16 == 0,
                "mma operand tile: a stored row must be a whole number of 16-byte chunks (BM and BN a multiple of "
                "8 bf16/fp16, 4 tf32 or 2 doubles).");
  using Layout = typename LayoutP::template Tile<kRows, kRowBytes>;
  static constexpr int kChunksPerRow = kRowBytes / 16;
  static constexpr int kElemsPerChunk = 16 / static_cast<int>(sizeof(In));
  // Bytes of the tile in shared memory, rounded to 128 so that the next tile starts on a line.
  static constexpr int kBytes = (Layout::kBytes + 127) / 128 * 128;

  // Where element (mn, k) of the operand lies, in bytes from the tile's start.
  __host__ __device__ static constexpr int element_offset(int mn, int k) {
    const int row = kKMajor ? mn : k, col = kKMajor ? k : mn;
    return Layout::offset(row, col / kElemsPerChunk) + (col % kElemsPerChunk) * static_cast<int>(sizeof(In));
  }
};

// Copies one operand tile with kThreads threads. Narrow copies are 4 bytes (8 for double).
template <class Stage, int kThreads>
struct OperandCopy {
  using In = typename Stage::Element;
  static constexpr int kChunksPerRow = Stage::kChunksPerRow;
  static_assert(kThreads % kChunksPerRow == 0,
                "mma tile copy: the block's thread count must be a multiple of the chunks in a stored operand row "
                "(BM, BN or BK times the element size, over 16 bytes); use more warps or a narrower tile.");
  static constexpr int kRowStep = kThreads / kChunksPerRow;
  static_assert(Stage::kRows % kRowStep == 0,
                "mma tile copy: the stored rows of an operand tile (BM, BN or BK) must be a multiple of the rows "
                "the block copies at once (threads / chunks per row); use fewer warps or a deeper tile.");
  static constexpr int kIters = Stage::kRows / kRowStep;
  static constexpr bool kLinearRows = kRowStep % Stage::Layout::kRowPeriod == 0;
  static constexpr int kNarrowBytes = sizeof(In) >= 4 ? static_cast<int>(sizeof(In)) : 4;
  static constexpr int kElemsPerNarrow = kNarrowBytes / static_cast<int>(sizeof(In));

  // Chunk i of thread tid: its stored row and chunk column (the same for every tile), and where it
  // lands in the stage (a whole number of swizzle periods down, the XOR pattern repeats).
  __host__ __device__ static constexpr int chunk(int tid) { return tid % kChunksPerRow; }
  __host__ __device__ static constexpr int first_row(int tid) { return tid / kChunksPerRow; }
  __host__ __device__ static constexpr int row(int tid, int i) { return first_row(tid) + i * kRowStep; }
  __host__ __device__ static int dst_offset(int tid, int i) {
    if constexpr (kLinearRows)
      return Stage::Layout::offset(first_row(tid), chunk(tid)) + i * kRowStep * Stage::Layout::kRowStride;
    else
      return Stage::Layout::offset(row(tid, i), chunk(tid));
  }

  // origin: global address of the tile's stored element (0, 0), possibly outside the matrix;
  // rows, cols: how many of its stored rows and row elements lie inside the matrix (<= 0: none);
  // fallback: a valid, aligned address for copies that read nothing.
  template <bool kWide>
  __device__ static void copy(char* smem, const In* origin, long long ld, int rows, int cols, const In* fallback,
                              int tid) {
    const int c = chunk(tid), r0 = first_row(tid);
    const int col = c * Stage::kElemsPerChunk;
    const int col_left = cols - col;  // elements of this thread's chunks inside the matrix, if positive
    const In* first = origin + static_cast<long long>(r0) * ld + col;
    const long long step = static_cast<long long>(kRowStep) * ld;
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      const In* src = first + i * step;
      char* dst = smem + dst_offset(tid, i);
      const bool row_in = row(tid, i) < rows;
      if constexpr (kWide) {
        const int n = row_in ? min(max(col_left, 0), Stage::kElemsPerChunk) : 0;
        detail::cp_async<16>(dst, n > 0 ? src : fallback, n * static_cast<int>(sizeof(In)));
      } else if (row_in && col_left >= Stage::kElemsPerChunk) {  // a whole chunk: constant sizes, no state
#pragma unroll
        for (int p = 0; p < 16 / kNarrowBytes; ++p)
          detail::cp_async<kNarrowBytes>(dst + p * kNarrowBytes, src + p * kElemsPerNarrow, kNarrowBytes);
      } else {
#pragma unroll
        for (int p = 0; p < 16 / kNarrowBytes; ++p) {
          const int n = row_in ? min(max(col_left - p * kElemsPerNarrow, 0), kElemsPerNarrow) : 0;
          detail::cp_async<kNarrowBytes>(dst + p * kNarrowBytes, n > 0 ? src + p * kElemsPerNarrow : fallback,
                                         n * static_cast<int>(sizeof(In)));
        }
      }
    }
  }

  // Register-staged: this thread's chunks of the tile, element by element (2-, 4- or 8-byte loads;
  // any alignment), zeros outside the matrix; then one 16-byte shared store per chunk.
  using Chunk = detail::Vector<In, Stage::kElemsPerChunk>;
  struct Regs {
    Chunk chunk[kIters];
  };
  __device__ static void fetch(Regs& regs, const In* origin, long long ld, int rows, int cols, int tid) {
    const int col = chunk(tid) * Stage::kElemsPerChunk;
    const int col_left = cols - col;
    const In* first = origin + static_cast<long long>(first_row(tid)) * ld + col;
    const long long step = static_cast<long long>(kRowStep) * ld;
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      const In* src = first + i * step;
      const bool row_in = row(tid, i) < rows;
      if (row_in && col_left >= Stage::kElemsPerChunk) {
#pragma unroll
        for (int e = 0; e < Stage::kElemsPerChunk; ++e) regs.chunk[i].v[e] = src[e];
      } else {
#pragma unroll
        for (int e = 0; e < Stage::kElemsPerChunk; ++e)
          regs.chunk[i].v[e] = row_in && e < col_left ? src[e] : detail::convert<In>(0.0f);
      }
    }
  }
  __device__ static void store(const Regs& regs, char* smem, int tid) {
#pragma unroll
    for (int i = 0; i < kIters; ++i) *reinterpret_cast<Chunk*>(smem + dst_offset(tid, i)) = regs.chunk[i];
  }
};

}  // namespace gemm::mma
