#pragma once
// FP8 scales: what an FP8 call multiplies its operands by.
//
// FP8 values span a narrow range, so each tensor (or row, or block) of them comes with an fp32 scale
// that says what the stored values stand for: the call computes with the dequantized operands
// A_deq = scale_a * A and B_deq = scale_b * B, at the granularity of the mode,
//
//   C = alpha * op(A_deq) * op(B_deq) + beta * C
//
// All scales are fp32 in device memory, read by the kernels (a scale computed on the device, as
// training's delayed scaling does, needs no copy to the host). In the row-major problem's terms
// (op(A) is m x k, op(B) is k x n; kb = k block of 128, nb = n block of 128):
//
//   ScaleMode::Tensor   a: 1 float (all of A), b: 1 float (all of B)             cuBLASLt's SCALAR_32F
//   ScaleMode::Rowwise  a: m floats, a[i] scales row i of op(A);                   cuBLASLt's OUTER_VEC_32F
//                       b: n floats, b[j] scales column j of op(B)
//   ScaleMode::Block    a: ceil(k / 128) x m floats, a[kb * m + i] scales A's      DeepSeek-V3's scaling:
//                          1 x 128 block (row i, k in [128 kb, 128 kb + 128));     activations per 1 x 128,
//                       b: ceil(n / 128) x ceil(k / 128) floats, row-major,        weights per 128 x 128
//                          b[nb * ceil(k / 128) + kb] scales B's 128 x 128 block
//                          (columns [128 nb, ...), k [128 kb, ...))
//
// The column-major entry point (gemm::blas) names the caller's matrices: its A's scales are the
// caller's A's (rows of the caller's C), its B's the caller's B's; the library swaps them with the
// operands. A scale of zero gives zero products, an infinite or NaN scale gives what IEEE arithmetic
// gives (NaN or infinity in the rows, columns or blocks it scales): nothing is checked on the device.
//
// The element counts travel with the pointers so that a buffer too small for the mode is refused
// before any launch (Status::ScaleSizeMismatch). Build them with the named constructors:
//
//   gemm::Scales::tensor(scale_a, scale_b)
//   gemm::Scales::rowwise(scale_a, m, scale_b, n)
//   gemm::Scales::block(scale_a, ceil(k / 128) * m, scale_b, ceil(n / 128) * ceil(k / 128))
//
// Promotion. FP8 wgmma sums its products with fewer bits than fp32, so the kernels let the tensor
// cores sum only promote_k values of k at a time and add each such partial sum to an fp32 sum in
// registers. 128 (the default) has cuBLASLt's error (docs/fp8.md); with tensor and row scales
// promote_every(256) or (512) trades error for speed (256: 1.4-1.6x the error, about 5% faster on
// large shapes; 512: 1.9-2.7x, about 20%) and promote_every(0) never promotes (cuBLASLt's
// FAST_ACCUM; 128x256 tiles where they fill the SMs). Every such
// error stays far below the FP8 rounding of the inputs themselves. Block scales change every 128 k:
// they need 128.
//
// The output (training's delayed scaling): scales.output(d, amax) multiplies every result by the
// float at d before it is stored, D = d * epilogue(alpha * op(A_deq) * op(B_deq)), and writes the
// largest magnitude of the results before that multiplication to the float at amax (NaN results
// aside); either may be null. C may then be FP8 itself (e4m3 or e5m2, saturating: results past the
// format's largest finite value store as that value, +-448 or +-57344). The D scale, amax and FP8 C
// need beta = 0 (C is written only: Status::InvalidOutputScaling). amax is set to 0 on the call's
// stream before the kernels raise it.
#include <cstdint>
#include "args.cuh"
#include "epilogue.cuh"
#include "status.cuh"

namespace gemm {

enum class ScaleMode { Tensor, Rowwise, Block };

constexpr const char* to_string(ScaleMode mode) {
  return mode == ScaleMode::Tensor ? "tensor" : mode == ScaleMode::Rowwise ? "rowwise" : "block";
}

// The granularity of ScaleMode::Block along k (and along n for B's blocks).
inline constexpr int kScaleBlock = 128;

struct Scales {
  ScaleMode mode = ScaleMode::Tensor;
  const float* a = nullptr;
  long long a_count = 0;  // floats the caller's buffer at a holds
  const float* b = nullptr;
  long long b_count = 0;
  int promote_k = kScaleBlock;  // k per promoted partial sum (0: never promoted); see above
  const float* d = nullptr;     // the D scale (null: 1); see above
  float* amax = nullptr;        // where the largest |result| goes (null: not computed)
  // (Kernels.) Floats from one k block of A's block scales to the next: 0 for m, as above; a group of
  // a grouped call reads its rows' scales inside its call's (grouped.cuh).
  long long a_k_stride = 0;
  // (Kernels.) Floats from one 128-column block of B's block scales to the next: 0 for ceil(k / 128);
  // an aligned copy's pitch (HopperPolicy::plan_staging).
  long long b_n_stride = 0;
  // The steps those strides stand for, 0 taken as said: floats from one k block of A's block scales
  // to the next (m rows), and from one 128-column block of B's to the next (k of the call).
  __host__ __device__ long long a_step(int m) const { return a_k_stride != 0 ? a_k_stride : m; }
  __host__ __device__ long long b_step(int k) const { return b_n_stride != 0 ? b_n_stride : k_blocks(k); }

  // These scales with the partial sums promoted every k values of k (0: never).
  Scales promote_every(int k) const {
    Scales s = *this;
    s.promote_k = k;
    return s;
  }
  // These scales with the output multiplied by *d_scale and its amax written to *amax_out.
  Scales output(const float* d_scale, float* amax_out) const {
    Scales s = *this;
    s.d = d_scale;
    s.amax = amax_out;
    return s;
  }
  bool scales_output() const { return d != nullptr || amax != nullptr; }
  // Stages of 128 k per promoted partial sum (kernels).
  __host__ __device__ int promote_stages() const { return promote_k == 0 ? (1 << 30) : promote_k / kScaleBlock; }

  static Scales tensor(const float* a, const float* b) { return {ScaleMode::Tensor, a, 1, b, 1}; }
  static Scales rowwise(const float* a, long long a_count, const float* b, long long b_count) {
    return {ScaleMode::Rowwise, a, a_count, b, b_count};
  }
  static Scales block(const float* a, long long a_count, const float* b, long long b_count) {
    return {ScaleMode::Block, a, a_count, b, b_count};
  }

  // Floats each mode reads, for an m x n x k call.
  __host__ __device__ static long long k_blocks(int k) { return (static_cast<long long>(k) + kScaleBlock - 1) / kScaleBlock; }
  __host__ __device__ static long long needed_a(ScaleMode mode, int m, int k) {
    return mode == ScaleMode::Tensor ? 1 : mode == ScaleMode::Rowwise ? m : k_blocks(k) * m;
  }
  __host__ __device__ static long long needed_b(ScaleMode mode, int n, int k) {
    return mode == ScaleMode::Tensor ? 1
           : mode == ScaleMode::Rowwise ? n
                                        : (static_cast<long long>(n) + kScaleBlock - 1) / kScaleBlock * k_blocks(k);
  }
};

// EpilogueArgs with scales (Epi: the fused epilogue, or detail::NoEpilogue): what the kernels of an
// FP8 call with scales receive. An FP8 call without scales gets plain GemmArgs (every scale 1).
// (Derived from EpilogueArgs so that detail::epilogue_of, whose overloads the kernels' headers see
// before this one, finds the epilogue.)
template <class In, class Out, class Epi>
struct ScaledArgs : EpilogueArgs<In, Out, Epi> {
  Scales scales;
};

namespace detail {

// The scales a kernel applies: none (every scale 1) unless the call carries them.
struct NoScales {
  static constexpr bool kActive = false;
};
template <class In, class Out, Batch kBatch>
__host__ __device__ __forceinline__ NoScales scales_of(const GemmArgs<In, Out, kBatch>&) { return {}; }
template <class In, class Out, class Epi>
__host__ __device__ __forceinline__ const Scales& scales_of(const ScaledArgs<In, Out, Epi>& args) {
  return args.scales;
}
template <class In, class Out, class Epi>
GemmArgs<In, Out> without_epilogue(const ScaledArgs<In, Out, Epi>& args) = delete;  // (no pass drops an FP8 call's scales)

template <class Args>
inline constexpr bool has_scales = !std::is_same_v<std::decay_t<decltype(scales_of(std::declval<const Args&>()))>, NoScales>;

// Whether a call carries FP8 block scales (a call without scales does not).
template <class Args>
inline bool block_scaled(const Args& args) {
  if constexpr (has_scales<Args>)
    return scales_of(args).mode == ScaleMode::Block;
  else
    return (void)args, false;
}

// The scales of an m x n x k call, before anything touches the device: both pointers present and
// float-aligned, each buffer holding what the mode reads.
inline Status validate_scales(const Scales& s, int m, int n, int k) {
  if (s.mode != ScaleMode::Tensor && s.mode != ScaleMode::Rowwise && s.mode != ScaleMode::Block)
    return Status::InvalidScaleMode;
  if (s.a == nullptr || s.b == nullptr) return Status::NullPointerScale;
  if (reinterpret_cast<std::uintptr_t>(s.a) % alignof(float) != 0 ||
      reinterpret_cast<std::uintptr_t>(s.b) % alignof(float) != 0 ||
      reinterpret_cast<std::uintptr_t>(s.d) % alignof(float) != 0 ||
      reinterpret_cast<std::uintptr_t>(s.amax) % alignof(float) != 0)
    return Status::MisalignedScale;
  if (s.a_count < Scales::needed_a(s.mode, m, k) || s.b_count < Scales::needed_b(s.mode, n, k))
    return Status::ScaleSizeMismatch;
  if (s.promote_k < 0 || s.promote_k % kScaleBlock != 0 || (s.mode == ScaleMode::Block && s.promote_k != kScaleBlock))
    return Status::InvalidPromotion;
  return Status::Success;
}

}  // namespace detail
}  // namespace gemm
