#pragma once
// Copies of an operand into scratch memory with 16-byte-aligned rows, for kernels whose copy engine
// (TMA) cannot read the caller's layout: rows whose length in bytes is not a multiple of 16, or a
// base that is not 16-byte aligned (an odd leading dimension of bf16, a matrix that starts one
// element into its allocation). One pass over the operand, at close to copy bandwidth.
//
//   copy_rows: dst (rows x cols, ld_dst) = src (rows x cols, ld_src): into 16-byte-aligned rows
//              (dst 16-byte aligned, ld_dst a multiple of 16 bytes; the padding past cols is not
//              written: TMA reads through a map of cols columns and fills beyond with zeros), and
//              a C computed in such a copy back to the caller's C
//   transpose: dst (cols x rows, ld_dst) = src (rows x cols, ld_src)^T   (transpose_kernel.cuh)
#include "../detail/batch.cuh"
#include <algorithm>
#include "../detail/launch.cuh"
#include "../ptx/grid_dependency.cuh"

namespace gemm::detail {

// One copy: dst (rows x cols, ld_dst) = src (rows x cols, ld_src).
template <class T>
struct RowCopy {
  const T* src = nullptr;
  int ld_src = 0, rows = 0, cols = 0;
  T* dst = nullptr;
  int ld_dst = 0;
};

// Up to two copies in one launch (A and B of a call: at 1023 x 1025 x 1021 a launch costs about as
// much as a copy), their rows one after the other along the grid's y and z.
template <class T>
struct RowCopies {
  RowCopy<T> first, second;
};

// Long rows: a block copies kRowSpan consecutive elements of one row, neighbouring threads on
// neighbouring elements: a warp's loads and stores each cover 32 consecutive elements whatever the
// alignment of either row. Each thread loads all its elements before storing any, so that
// kCopyUnroll loads are in flight. No division per element: the first version, a thread per 16-byte
// destination piece found by 64-bit division, ran at a fraction of copy bandwidth (4096 x 4097 bf16:
// the C round trip cost more than the multiply).
// Short rows (at most kShortRow elements, a warp's loads in flight): a warp per row, kRowsPerBlock
// rows a block. A block per row left most of its threads idle, and the blocks of a tall operand of
// short rows took longer than the multiply (1 x 51 x 2450 bf16: 2450 rows of 51, 6 us).
inline constexpr int kCopyThreads = 256, kCopyUnroll = 8, kRowSpan = kCopyThreads * kCopyUnroll;
inline constexpr int kShortRow = 32 * kCopyUnroll, kRowsPerBlock = kCopyThreads / 32;

// A copy's rows of blocks along the grid's y and z: groups of kRowsPerBlock short rows, else rows; and
// its blocks along x: one, else a row's spans.
template <class T>
__host__ __device__ inline long long copy_units(const RowCopy<T>& c) {
  if (c.rows <= 0 || c.cols <= 0) return 0;
  return c.cols <= kShortRow ? (static_cast<long long>(c.rows) + kRowsPerBlock - 1) / kRowsPerBlock : c.rows;
}
template <class T>
inline int copy_spans(const RowCopy<T>& c) {
  return c.rows <= 0 || c.cols <= kShortRow ? 1 : (c.cols + kRowSpan - 1) / kRowSpan;
}

// Elements c0 + u * step (u < kCopyUnroll) of a row that lie before cols: all loaded, then stored.
template <class T, int kStep>
__device__ __forceinline__ void copy_row_part(const T* s, T* d, int c0, int cols) {
  T v[kCopyUnroll];
#pragma unroll
  for (int u = 0; u < kCopyUnroll; ++u) {
    const int c = c0 + u * kStep;
    if (c < cols) v[u] = s[c];
  }
#pragma unroll
  for (int u = 0; u < kCopyUnroll; ++u) {
    const int c = c0 + u * kStep;
    if (c < cols) d[c] = v[u];
  }
}

// The grid's y and z number the first copy's units, then the second's; x the spans of a long row
// (the short rows' blocks past x = 0 have nothing to do).
template <class T>
__global__ void __launch_bounds__(kCopyThreads) copy_rows_kernel(const RowCopies<T> copies) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  long long w = batch_index();
  const long long first_units = copy_units(copies.first);
  const bool in_first = w < first_units;
  if (!in_first) w -= first_units;
  const RowCopy<T> job = in_first ? copies.first : copies.second;
  const bool short_rows = job.cols <= kShortRow;
  if (short_rows && blockIdx.x != 0) return;
  const long long r = short_rows ? w * kRowsPerBlock + static_cast<int>(threadIdx.x) / 32 : w;
  const int c0 = short_rows ? static_cast<int>(threadIdx.x) % 32
                            : static_cast<int>(blockIdx.x) * kRowSpan + static_cast<int>(threadIdx.x);
  if (r >= job.rows || c0 >= job.cols) return;
  const T* s = job.src + r * job.ld_src;
  T* d = job.dst + r * job.ld_dst;
  if (short_rows)
    copy_row_part<T, 32>(s, d, c0, job.cols);
  else
    copy_row_part<T, kCopyThreads>(s, d, c0, job.cols);
}

template <class T>
Status copy_rows(const RowCopies<T>& copies, const DeviceInfo& dev, cudaStream_t stream) {
  const long long units = copy_units(copies.first) + copy_units(copies.second);
  if (units <= 0) return Status::Success;
  return launch_kernel<&copy_rows_kernel<T>>(Grid(std::max(copy_spans(copies.first), copy_spans(copies.second)), units),
                                             kCopyThreads, 0, stream, dev, copies);
}

template <class T>
Status copy_rows(const T* src, int ld_src, int rows, int cols, T* dst, int ld_dst, const DeviceInfo& dev,
                 cudaStream_t stream) {
  return copy_rows(RowCopies<T>{{src, ld_src, rows, cols, dst, ld_dst}, {}}, dev, stream);
}

}  // namespace gemm::detail
