#pragma once
// dst (cols x rows, leading dimension ld_dst) = src (rows x cols, leading dimension ld_src)^T,
// through 32 x 33 shared tiles (shared_tile.cuh) so that both the reads and the writes are coalesced.
// Used to give the tensor cores a k-contiguous copy of an operand they cannot read otherwise
// (TF32 wgmma reads only K-major operands).
#include "../detail/launch.cuh"
#include "../ptx/grid_dependency.cuh"
#include "shared_tile.cuh"

namespace gemm::detail {

template <class T>
__global__ void __launch_bounds__(kSharedTileThreads) transpose_kernel(const T* src, int ld_src, int rows, int cols,
                                                                        T* dst, int ld_dst) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  __shared__ SharedTile<T> tile;
  const SharedTilePlace at = stage_shared_tile(tile, src, ld_src, rows, cols);
#pragma unroll
  for (int i = 0; i < 32; i += 8) {
    const int c = at.c0 + at.ty + i, r = at.r0 + at.tx;
    if (r < rows && c < cols) dst[static_cast<long long>(c) * ld_dst + r] = tile[at.tx][at.ty + i];
  }
}

template <class T>
Status transpose(const T* src, int ld_src, int rows, int cols, T* dst, int ld_dst, const DeviceInfo& dev,
                 cudaStream_t stream) {
  return launch_kernel<&transpose_kernel<T>>(shared_tile_blocks(rows, cols), kSharedTileThreads, 0, stream, dev, src,
                                             ld_src, rows, cols, dst, ld_dst);
}

}  // namespace gemm::detail
