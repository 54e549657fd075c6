#pragma once
// 3xTF32's split of one float, shared by the pre-pass of the Hopper path (kernel/split_kernel.cuh)
// and the in-register split of mma.sync (mma/mma_sync_math.cuh):
//   hi = x rounded to TF32 (10-bit mantissa, round to nearest), lo = (x - hi) rounded to TF32,
// so that x = hi + lo to about 2^-22 relative, and a product a * b is recovered to fp32 accuracy by
// three TF32 products: a_hi b_hi + a_hi b_lo + a_lo b_hi (a_lo b_lo is below fp32's rounding).
// The cross terms take hi_finite = hi with Inf and NaN replaced by 0 (and lo = 0 there): an Inf
// input then gives Inf (from hi hi) as in SGEMM, not Inf * 0 = NaN from a lo of 0; NaN still
// reaches the result through hi hi.
#include "../ptx/mma.cuh"

namespace gemm::detail {

__device__ __forceinline__ float round_to_tf32(float x) { return __uint_as_float(ptx::to_tf32(__float_as_uint(x))); }

struct Tf32Parts {
  float hi, lo, hi_finite;
};

__device__ __forceinline__ Tf32Parts split_tf32(float x) {
  const float hi = round_to_tf32(x);
  const bool finite = isfinite(hi);
  return {hi, finite ? round_to_tf32(x - hi) : 0.0f, finite ? hi : 0.0f};
}

}  // namespace gemm::detail
