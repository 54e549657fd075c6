#pragma once
// The split pre-pass of 3xTF32 (gemm::tf32x3) on the Hopper path: every float x of an operand becomes
// hi, lo and hi_finite (detail/tf32_split.cuh). The copies are written K-major (k contiguous: what TF32 wgmma reads), transposing where the
// operand is stored the other way, through 32 x 33 shared tiles (shared_tile.cuh) so that both sides coalesce.
//
// Two planes per operand, rows of k padded to ld = round_up(k, 4) floats:
//   hi:    rows x ld, for the product a_hi b_hi;
//   cross: rows x 2 ld, a row holding lo and hi_finite one after the other (A: lo then hi_finite, B:
//          hi_finite then lo), zeros in the padding of each half: one GEMM over a k of 2 ld gives
//          a_lo b_hi_finite + a_hi_finite b_lo, both cross terms at once.
#include "../detail/launch.cuh"
#include "../detail/tf32_split.cuh"
#include "../ptx/grid_dependency.cuh"
#include "shared_tile.cuh"

namespace gemm::detail {

// src: rows x cols with leading dimension ld_src, row-major. kTranspose: output row j is source
// column j (k = rows), else output row i is source row i (k = cols). lo_first: where a cross row
// holds lo (at 0, hi_finite at ld) or hi_finite (at 0, lo at ld).
template <bool kTranspose>
__global__ void __launch_bounds__(kSharedTileThreads)
    split_tf32_kernel(const float* src, int ld_src, int rows, int cols, float* hi_out, float* cross_out, int ld,
                      bool lo_first) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  __shared__ SharedTile<float> tile;
  const SharedTilePlace at = stage_shared_tile(tile, src, ld_src, rows, cols);
  const int r0 = at.r0, c0 = at.c0, tx = at.tx, ty = at.ty;
  const int k = kTranspose ? rows : cols, out_rows = kTranspose ? cols : rows;
  const int lo_at = lo_first ? 0 : ld, hi_finite_at = lo_first ? ld : 0;
#pragma unroll
  for (int i = 0; i < 32; i += 8) {
    // Output element (orow, kk) = source (r, c); kk in [k, ld): the padding, zeros in the cross plane.
    const int r = kTranspose ? r0 + tx : r0 + ty + i, c = kTranspose ? c0 + ty + i : c0 + tx;
    const int orow = kTranspose ? c : r, kk = kTranspose ? r : c;
    if (orow >= out_rows || kk >= ld) continue;
    const bool inside = kk < k;
    const float x = !inside ? 0.0f : kTranspose ? tile[tx][ty + i] : tile[ty + i][tx];
    const Tf32Parts p = split_tf32(x);
    if (inside) hi_out[static_cast<long long>(orow) * ld + kk] = p.hi;
    float* cross = cross_out + static_cast<long long>(orow) * 2 * ld + kk;
    cross[lo_at] = p.lo;
    cross[hi_finite_at] = p.hi_finite;
  }
}

// The blocks cover the source's rows x cols; the padding [k, ld) lies in the last 32 of k (ld - k < 4).
template <bool kTranspose>
Status split_tf32(const float* src, int ld_src, int rows, int cols, float* hi_out, float* cross_out, int ld,
                  bool lo_first, const DeviceInfo& dev, cudaStream_t stream) {
  return launch_kernel<&split_tf32_kernel<kTranspose>>(shared_tile_blocks(rows, cols), kSharedTileThreads, 0, stream,
                                                        dev, src, ld_src, rows, cols, hi_out, cross_out, ld, lo_first);
}

}  // namespace gemm::detail
