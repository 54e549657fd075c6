#pragma once
// Copies of an operand into scratch memory with 16-byte-aligned rows, for kernels whose copy engine
// (TMA) cannot read the caller's layout: rows whose length in bytes is not a multiple of 16, or a
// base that is not 16-byte aligned (an odd leading dimension of bf16, a matrix that starts one
// element into its allocation). One pass over the operand, at close to copy bandwidth.
//
//   pack_rows:   dst (rows x cols, ld_dst, aligned rows) = src (rows x cols, ld_src)
//   unpack_rows: dst (rows x cols, ld_dst) = src (rows x cols, ld_src, aligned rows): C back to the caller
//   transpose:   dst (cols x rows, ld_dst) = src (rows x cols, ld_src)^T   (transpose_kernel.cuh)
#include "../detail/launch.cuh"
#include "../detail/vector.cuh"

namespace gemm::detail {

// Each thread writes one 16-byte piece of a destination row (V elements), reading its V source
// elements one by one (the source rows have no alignment to speak of); a grid-stride loop covers
// every piece. Destination columns past cols are written as zeros (they are never read).
template <class T>
__global__ void __launch_bounds__(256) pack_rows_kernel(const T* src, int ld_src, int rows, int cols, T* dst,
                                                         int ld_dst) {
  constexpr int V = kElemsPer16B<T>;
  const int pieces_per_row = (cols + V - 1) / V;
  const long long pieces = static_cast<long long>(rows) * pieces_per_row;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < pieces;
       p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(p / pieces_per_row), c = static_cast<int>(p % pieces_per_row) * V;
    const T* s = src + static_cast<long long>(r) * ld_src + c;
    Vector<T, V> piece;
#pragma unroll
    for (int e = 0; e < V; ++e) piece.v[e] = c + e < cols ? s[e] : T(0.0f);
    *reinterpret_cast<Vector<T, V>*>(dst + static_cast<long long>(r) * ld_dst + c) = piece;
  }
}

// ld_dst must be a multiple of kElemsPer16B<T> and dst 16-byte aligned.
template <class T>
Status pack_rows(const T* src, int ld_src, int rows, int cols, T* dst, int ld_dst, const DeviceInfo& dev,
                 cudaStream_t stream) {
  const long long pieces = static_cast<long long>(rows) * ceil_div(cols, kElemsPer16B<T>);
  const long long blocks = std::min<long long>(ceil_div(pieces, 256), 8LL * dev.sms);
  return launch_kernel<&pack_rows_kernel<T>>(blocks, 256, 0, stream, dev, src, ld_src, rows, cols, dst, ld_dst);
}

// The reverse, element by element with neighbouring threads on neighbouring elements of a row,
// so that a warp's stores cover 32 consecutive elements (one 16-byte piece per thread, stored one
// element at a time, measured 8x slower: each store instruction touched 16 sectors for 64 bytes).
template <class T>
__global__ void __launch_bounds__(256) unpack_rows_kernel(const T* src, int ld_src, int rows, int cols, T* dst,
                                                           int ld_dst) {
  const long long elems = static_cast<long long>(rows) * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < elems;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = i / cols, c = i - r * cols;
    dst[r * ld_dst + c] = src[r * ld_src + c];
  }
}

template <class T>
Status unpack_rows(const T* src, int ld_src, int rows, int cols, T* dst, int ld_dst, const DeviceInfo& dev,
                   cudaStream_t stream) {
  const long long blocks = std::min<long long>(ceil_div(static_cast<long long>(rows) * cols, 256), 16LL * dev.sms);
  return launch_kernel<&unpack_rows_kernel<T>>(blocks, 256, 0, stream, dev, src, ld_src, rows, cols, dst, ld_dst);
}

}  // namespace gemm::detail
