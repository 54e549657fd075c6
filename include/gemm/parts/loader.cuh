#pragma once
// Loaders: how a tile moves from global to shared memory.
//
// A tile (R x C, row-major in global memory) is cut into chunks of V consecutive elements along c;
// the block's threads take chunks round-robin, so neighbouring threads read neighbouring addresses
// (coalesced). Elements outside the matrix are filled with zeros, so the math step never needs
// to know where the matrix ends. A chunk moves one of two ways, and the pipeline picks which:
//   fetch + store: global -> registers -> shared (lets a pipeline overlap the load with math);
//   copy_async:    global -> shared directly with cp.async (sm_80+), no registers involved.
#include <string>
#include <type_traits>
#include "../ptx/cp_async.cuh"
#include "../types.cuh"
#include "../detail/vector.cuh"

namespace gemm {

// One element per access: what the tutorials start with. Works for any pointer and leading dimension.
struct ScalarLoader {
  static constexpr bool kRejectsMisaligned = false;
  template <class T>
  static constexpr int kWidth = 1;
  static std::string describe() { return "ScalarLoader"; }
};

// What a vector loader does when a pointer or leading dimension is not 16-byte aligned.
enum class Misaligned {
  ScalarPath,  // run a second instantiation of the kernel that loads element by element
  Reject,      // gemm::gemm() returns Status::MisalignedA/B/C (one kernel fewer to compile)
};

// Vector accesses when A, B and C and their leading dimensions allow it: chunks of 16 bytes of the
// shared-memory type (4 floats or 2 doubles; 16-bit inputs, which shared memory holds as float,
// load 4 elements = 8 bytes at a time and convert them).
template <Misaligned OnMisaligned = Misaligned::ScalarPath>
struct VectorLoader {
  static constexpr bool kRejectsMisaligned = OnMisaligned == Misaligned::Reject;
  template <class T>
  static constexpr int kWidth = detail::kElemsPer16B<T>;
  static std::string describe() {
    return std::string("VectorLoader<16B,") + (kRejectsMisaligned ? "reject-misaligned>" : "scalar-path-if-misaligned>");
  }
};

namespace detail {

// Moves one R x C tile with kThreads threads into shared layout Layout. (r, c) are the math's
// coordinates: m x k for A, k x n for B. In global memory the tile is stored row-major (c
// contiguous) or, kTransposed, column-major (r contiguous: a transposed operand); chunks of V
// elements run along the stored rows, so neighbouring threads read neighbouring addresses either way.
// Src: the element type in global memory; Dst: in shared memory (store() converts, e.g. bf16 to
// float; cp.async copies bytes, so it needs Src == Dst).
// kVec: the pointers and leading dimensions are aligned for V-element accesses.
template <class Src, class Dst, int R, int C, int V, int kThreads, class Layout, bool kVec, bool kTransposed = false>
struct TileCopy {
  static constexpr int kRows = kTransposed ? C : R;  // stored rows
  static constexpr int kCols = kTransposed ? R : C;  // stored row length: the contiguous extent
  static_assert(kCols % V == 0,
                "Loader: the tile's contiguous extent (BK for row-major A, BM for transposed A, BN for row-major B, "
                "BK for transposed B) must be a multiple of the loader's vector width (4 floats or 2 doubles for "
                "VectorLoader); change the tile or use ScalarLoader.");
  static constexpr int kChunksPerRow = kCols / V;
  static constexpr int kChunks = kRows * kChunksPerRow;
  static constexpr int kIters = (kChunks + kThreads - 1) / kThreads;
  static constexpr bool kExact = kChunks % kThreads == 0;
  static constexpr bool kWholeChunks = kVec && V > 1;
  // Whether V consecutive stored elements are one aligned 16-byte piece in shared memory.
  static constexpr bool kDstVector = V == kElemsPer16B<Dst> && (kTransposed ? Layout::kVecAlongR : Layout::kVecAlongC);
  using Chunk = Vector<Src, V>;

  struct Regs {
    Chunk chunk[kIters];
  };

  // Where stored element (sr, sc) of the tile lands in shared memory.
  __device__ static int dst(int sr, int sc) { return kTransposed ? Layout::offset(sc, sr) : Layout::offset(sr, sc); }

  // When the thread count is a multiple of the chunks per row, a thread keeps one column and steps
  // down kRowStep rows per chunk, so its source addresses are one base plus i * (kRowStep * ld):
  // one multiply-add per chunk in the k loop instead of a full 64-bit address computation.
  static constexpr bool kFixedColumn = kThreads % kChunksPerRow == 0;
  static constexpr int kRowStep = kFixedColumn ? kThreads / kChunksPerRow : 0;

  __device__ static bool live(int tid, int i) { return kExact || tid + i * kThreads < kChunks; }
  __device__ static int row(int tid, int i) {
    return kFixedColumn ? tid / kChunksPerRow + i * kRowStep : (tid + i * kThreads) / kChunksPerRow;
  }
  __device__ static int col(int tid, int i) {
    return kFixedColumn ? tid % kChunksPerRow * V : (tid + i * kThreads) % kChunksPerRow * V;
  }
  // Where chunk i of this thread starts in global memory.
  __device__ static const Src* source(const Src* g, int ld, int tid, int i) {
    if constexpr (kFixedColumn) {
      const Src* base = g + static_cast<long long>(row(tid, 0)) * ld + col(tid, 0);
      return base + static_cast<long long>(i) * (static_cast<long long>(kRowStep) * ld);
    } else {
      return g + static_cast<long long>(row(tid, i)) * ld + col(tid, i);
    }
  }

  // g: the tile's origin in global memory; rows x cols of the *stored* tile lie inside the matrix.
  __device__ static void fetch(Regs& regs, const Src* g, int ld, int rows, int cols, int tid) {
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      if (!live(tid, i)) continue;
      const int r = row(tid, i), c = col(tid, i);
      const Src* src = source(g, ld, tid, i);
      if (kWholeChunks && r < rows && c + V <= cols) {
        regs.chunk[i] = *reinterpret_cast<const Chunk*>(src);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) regs.chunk[i].v[e] = (r < rows && c + e < cols) ? src[e] : Src(0.0f);
      }
    }
  }

  __device__ static void store(const Regs& regs, Dst* s, int tid) {
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      if (!live(tid, i)) continue;
      const int r = row(tid, i), c = col(tid, i);
      if constexpr (kDstVector) {
        Vector<Dst, V> out;
#pragma unroll
        for (int e = 0; e < V; ++e) out.v[e] = convert<Dst>(regs.chunk[i].v[e]);
        *reinterpret_cast<Vector<Dst, V>*>(s + dst(r, c)) = out;
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) s[dst(r, c + e)] = convert<Dst>(regs.chunk[i].v[e]);
      }
    }
  }

  // cp.async copies through a Cursor. With a fixed column, a thread's chunk i sits at the same place
  // relative to every tile's origin, so its address and its row are worked out once per block and
  // each chunk of each tile costs one multiply-add and one compare. The edge tests are branch-free
  // (a chunk outside the matrix copies 0 bytes, i.e. zero-fills, and reads nothing), so the compiler
  // can interleave the copies with the math.
  static constexpr bool kCursor = kFixedColumn && (V == 1 || (kWholeChunks && kDstVector));
  struct Cursor {
    long long offset;  // chunk 0's source, in elements from the tile origin
    int smem;          // chunk 0's destination, in elements from the stage origin
    int r, c;          // chunk 0's stored row and column in the tile
  };
  __device__ static Cursor cursor(int ld, int tid) {
    Cursor cur{};
    if constexpr (kCursor) {
      cur.r = row(tid, 0);
      cur.c = col(tid, 0);
      cur.offset = static_cast<long long>(cur.r) * ld + cur.c;
      cur.smem = dst(cur.r, cur.c);
    }
    (void)ld; (void)tid;
    return cur;
  }

  // g: the tile's origin; rows x cols of the stored tile lie inside the matrix (either may be 0 or
  // negative: then every chunk zero-fills and g need not point into the matrix).
  __device__ static void copy_async(Dst* s, const Src* g, int ld, int rows, int cols, int tid, const Cursor& cur) {
    static_assert(std::is_same_v<Src, Dst>, "cp.async copies bytes: it cannot convert the element type.");
    if constexpr (!kCursor) {
      copy_async(s, g, ld, rows, cols, tid);
    } else {
      const Src* first = g + cur.offset;
      const int rows_left = rows - cur.r;
      const int bytes = min(max(cols - cur.c, 0), V) * static_cast<int>(sizeof(Src));
#pragma unroll
      for (int i = 0; i < kIters; ++i) {
        if (!live(tid, i)) continue;
        // In a linear layout chunk i lands a constant distance from chunk 0; a swizzle needs its own offset.
        Dst* to = Layout::kLinear ? s + cur.smem + (dst(i * kRowStep, 0) - dst(0, 0)) : s + dst(row(tid, i), col(tid, i));
        cp_async<V * sizeof(Src)>(to, first + static_cast<long long>(i * kRowStep) * ld,
                                  i * kRowStep < rows_left ? bytes : 0);
      }
    }
  }

  __device__ static void copy_async(Dst* s, const Src* g, int ld, int rows, int cols, int tid) {
    static_assert(std::is_same_v<Src, Dst>, "cp.async copies bytes: it cannot convert the element type.");
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      if (!live(tid, i)) continue;
      const int r = row(tid, i), c = col(tid, i);
      if constexpr (kWholeChunks && kDstVector) {
        // One 16-byte copy; a chunk cut by the matrix edge copies its valid part and zero-fills the rest.
        const int valid = r < rows ? min(max(cols - c, 0), V) : 0;
        const Src* src = valid > 0 ? source(g, ld, tid, i) : g;
        cp_async<16>(s + dst(r, c), src, valid * static_cast<int>(sizeof(Src)));
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const bool in = r < rows && c + e < cols;
          const Src* src = in ? source(g, ld, tid, i) + e : g;
          cp_async<sizeof(Src)>(s + dst(r, c + e), src, in ? static_cast<int>(sizeof(Src)) : 0);
        }
      }
    }
  }
};

}  // namespace detail
}  // namespace gemm
