#pragma once
// The 32 x 32 shared tile of the kernels that read a row-major matrix and write it k-contiguous
// (transpose_kernel.cuh, split_kernel.cuh). Block b stages the b-th 32 x 32 piece of the source
// (pieces numbered along the columns first) with its 256 threads, 32 x 8: consecutive lanes read
// consecutive columns of a row, so the reads coalesce; the kernel then reads the tile back along
// either side, and writes coalesce too. Rows of 33 elements put the 32 elements of a column in 32
// different banks.
#include "../detail/launch.cuh"

namespace gemm::detail {

template <class T>
using SharedTile = T[32][33];

constexpr int kSharedTileThreads = 256;

// The blocks that cover a rows x cols source, one piece each.
inline long long shared_tile_blocks(int rows, int cols) { return ceil_div(rows, 32) * ceil_div(cols, 32); }

// Where a block's piece lies in the source, and this thread's place in the block.
struct SharedTilePlace {
  int r0, c0;  // the piece's first source row and column
  int tx, ty;  // this thread: column tx of the piece's rows ty, ty + 8, ty + 16 and ty + 24
};

// Stages this block's piece of src (rows x cols, leading dimension ld_src) in tile; elements outside
// the source are not read (their cells keep what they held). Returns after a __syncthreads().
template <class T>
__device__ __forceinline__ SharedTilePlace stage_shared_tile(SharedTile<T>& tile, const T* src, int ld_src, int rows,
                                                             int cols) {
  const int tiles_c = (cols + 31) / 32;
  const SharedTilePlace at{static_cast<int>(blockIdx.x / tiles_c) * 32, static_cast<int>(blockIdx.x % tiles_c) * 32,
                           static_cast<int>(threadIdx.x % 32), static_cast<int>(threadIdx.x / 32)};
#pragma unroll
  for (int i = 0; i < 32; i += 8) {
    const int r = at.r0 + at.ty + i, c = at.c0 + at.tx;
    if (r < rows && c < cols) tile[at.ty + i][at.tx] = src[static_cast<long long>(r) * ld_src + c];
  }
  __syncthreads();
  return at;
}

}  // namespace gemm::detail
