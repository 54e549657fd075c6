#pragma once
// The split of 3xTF32 (gemm::tf32x3): every float x of an operand becomes
//   hi = x rounded to TF32 (10-bit mantissa, round to nearest), lo = (x - hi) rounded to TF32,
// so that x = hi + lo to about 2^-22 relative, and a product a * b is recovered to fp32 accuracy by
// three TF32 products: a_hi b_hi + a_hi b_lo + a_lo b_hi (a_lo b_lo is below fp32's rounding).
// The copies are written K-major (k contiguous: what TF32 wgmma reads), transposing where the
// operand is stored the other way, through 32 x 33 shared tiles so that both sides coalesce.
//
// Three planes per operand: hi, lo, and hi_finite = hi with Inf and NaN replaced by 0. The cross
// terms use hi_finite against the other operand's lo, so that an Inf input gives Inf (from hi hi) as
// in SGEMM, not Inf * 0 = NaN from a lo of 0; NaN still reaches the result through hi hi.
#include "../detail/launch.cuh"

namespace gemm::detail {

__device__ __forceinline__ float round_to_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
#else
  return x;
#endif
}

// src: rows x cols with leading dimension ld_src, row-major. kTranspose: output row j is source
// column j (out has cols rows of rows elements); else out row i is source row i. Output planes share
// ld_out and are each `plane` elements apart: out, out + plane (lo), out + 2 * plane (hi_finite).
template <bool kTranspose>
__global__ void __launch_bounds__(256) split_tf32_kernel(const float* src, int ld_src, int rows, int cols, float* out,
                                                          int ld_out, long long plane) {
  __shared__ float tile[32][33];
  const int tiles_c = (cols + 31) / 32;
  const int r0 = static_cast<int>(blockIdx.x / tiles_c) * 32, c0 = static_cast<int>(blockIdx.x % tiles_c) * 32;
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;  // 32 x 8 threads
#pragma unroll
  for (int i = 0; i < 32; i += 8) {
    const int r = r0 + ty + i, c = c0 + tx;
    if (r < rows && c < cols) tile[ty + i][tx] = src[static_cast<long long>(r) * ld_src + c];
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 32; i += 8) {
    // Output element (orow, ocol) = source (r, c).
    const int r = kTranspose ? r0 + tx : r0 + ty + i, c = kTranspose ? c0 + ty + i : c0 + tx;
    if (r >= rows || c >= cols) continue;
    const float x = kTranspose ? tile[tx][ty + i] : tile[ty + i][tx];
    const float hi = round_to_tf32(x);
    const bool finite = isfinite(hi);
    const float lo = finite ? round_to_tf32(x - hi) : 0.0f;
    const long long at = kTranspose ? static_cast<long long>(c) * ld_out + r : static_cast<long long>(r) * ld_out + c;
    out[at] = hi;
    out[at + plane] = lo;
    out[at + 2 * plane] = finite ? hi : 0.0f;
  }
}

template <bool kTranspose>
Status split_tf32(const float* src, int ld_src, int rows, int cols, float* out, int ld_out, long long plane,
                  const DeviceInfo& dev, cudaStream_t stream) {
  const long long blocks = ceil_div(rows, 32) * ceil_div(cols, 32);
  return launch_kernel<&split_tf32_kernel<kTranspose>>(blocks, 256, 0, stream, dev, src, ld_src, rows, cols, out,
                                                        ld_out, plane);
}

}  // namespace gemm::detail
