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

// A block copies kRowSpan consecutive elements of one row (blockIdx.x: which span, the grid's y
// and z: which row), neighbouring threads on neighbouring elements: a warp's loads and stores each
// cover 32 consecutive elements whatever the alignment of either row. Each thread loads all its
// elements before storing any, so that kCopyUnroll loads are in flight. No division per element:
// the first version, a thread per 16-byte destination piece found by 64-bit division, ran at a
// fraction of copy bandwidth (4096 x 4097 bf16: the C round trip cost more than the multiply).
inline constexpr int kCopyThreads = 256, kCopyUnroll = 8, kRowSpan = kCopyThreads * kCopyUnroll;

template <class T>
__global__ void __launch_bounds__(kCopyThreads) copy_rows_kernel(const RowCopies<T> copies) {
  long long r = batch_index();
  const bool in_first = r < copies.first.rows;
  if (!in_first) r -= copies.first.rows;
  const RowCopy<T> job = in_first ? copies.first : copies.second;
  if (r >= job.rows) return;
  const int c0 = static_cast<int>(blockIdx.x) * kRowSpan + static_cast<int>(threadIdx.x);
  if (c0 >= job.cols) return;
  const T* s = job.src + r * job.ld_src;
  T* d = job.dst + r * job.ld_dst;
  T v[kCopyUnroll];
#pragma unroll
  for (int u = 0; u < kCopyUnroll; ++u) {
    const int c = c0 + u * kCopyThreads;
    if (c < job.cols) v[u] = s[c];
  }
#pragma unroll
  for (int u = 0; u < kCopyUnroll; ++u) {
    const int c = c0 + u * kCopyThreads;
    if (c < job.cols) d[c] = v[u];
  }
}

template <class T>
Status copy_rows(const RowCopies<T>& copies, const DeviceInfo& dev, cudaStream_t stream) {
  const long long rows = static_cast<long long>(copies.first.rows) + copies.second.rows;
  const int cols = std::max(copies.first.cols, copies.second.cols);
  if (rows <= 0 || cols <= 0) return Status::Success;
  return launch_kernel<&copy_rows_kernel<T>>(Grid(ceil_div(cols, kRowSpan), rows), kCopyThreads, 0, stream, dev,
                                             copies);
}

template <class T>
Status copy_rows(const T* src, int ld_src, int rows, int cols, T* dst, int ld_dst, const DeviceInfo& dev,
                 cudaStream_t stream) {
  return copy_rows(RowCopies<T>{{src, ld_src, rows, cols, dst, ld_dst}, {}}, dev, stream);
}

}  // namespace gemm::detail
