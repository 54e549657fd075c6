#pragma once
// Fused epilogues: D = act(alpha * op(A) op(B) + beta * C + bias), in the accumulator type (float,
// or double for double), rounded once to D's type.
//
//   gemm::Epilogue<Out, Act, Bias> epi{D, ldd, bias, gemm::BiasKind::PerColumn};
//   gemm::gemm<T>(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, epi, stream);
//
// Act is a compile-time functor, so its math inlines into every kernel's store: one of gemm::act's,
// or the caller's own, called as act(v) or act(v, row, col) (row and column of D in the caller's
// frame: column-major coordinates for gemm::blas). This header is the only place the per-element math
// lives: each kernel family computes alpha * acc + beta * C as before and passes it through
// detail::epilogue_of(args)(v, row, col); without an epilogue that is the identity, inlined away.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include "args.cuh"
#include "ptx/fast_math.cuh"
#include "status.cuh"
#include "types.cuh"

namespace gemm {

// Which bias is added: none, bias[row] (one value per row of D) or bias[col] (one per column).
enum class BiasKind { None, PerRow, PerColumn };

// The activations. Each takes the accumulator scalar (float or double) and returns the same type;
// NaN goes through as NaN, and the formulas below are what the tests' double references compute.
namespace act {

// The two operations of the logistic-shaped activations (GeluTanh, SiLU); in float on the device the
// hardware's approximations, a few instructions instead of exp2f's and IEEE division's sequences,
// since the epilogue runs once per element of D.
namespace fast {
// a / b for b in [1, inf): __fdividef, 2 ulp (an infinite b gives 0).
template <class S>
__host__ __device__ S divide(S a, S b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<S, float>) return __fdividef(a, b);
#endif
  return a / b;
}
// 2^x: ex2.approx.ftz in float on the device (2 ulp; results below 2^-126 flush to 0).
template <class S>
__host__ __device__ S exp2(S x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<S, float>) return ptx::exp2_approx(x);
#endif
  return std::exp2(x);
}
}  // namespace fast

struct Identity {
  template <class S>
  __host__ __device__ S operator()(S v) const { return v; }
};

// max(v, 0); NaN stays NaN.
struct ReLU {
  template <class S>
  __host__ __device__ S operator()(S v) const { return v < S(0) ? S(0) : v; }
};

// 0.5 v (1 + erf(v / sqrt 2)): the exact GELU.
struct GeluErf {
  template <class S>
  __host__ __device__ S operator()(S v) const { return S(0.5) * v * (S(1) + erf(v * S(0.70710678118654752440))); }
};

// The tanh approximation of GELU's argument: u = kGeluTanhScale (v + kGeluTanhCubic v^3).
inline constexpr double kGeluTanhScale = 0.79788456080286535588;  // sqrt(2 / pi)
inline constexpr double kGeluTanhCubic = 0.044715;

// 0.5 v (1 + tanh(u)), u = sqrt(2 / pi) (v + 0.044715 v^3): the tanh approximation of GELU (what
// cuBLASLt's CUBLASLT_EPILOGUE_GELU computes). Evaluated as v / (1 + 2^(-2 u log2(e))), the same
// function: one exponential and one division instead of tanh's longer sequence, and the constants
// folded so that the exponent is v (k0 + k1 v^2), two instructions.
struct GeluTanh {
  template <class S>
  __host__ __device__ S operator()(S v) const {
    constexpr double k0 = -2 * kGeluTanhScale * 1.44269504088896340736;  // -2 sqrt(2 / pi) log2(e)
    constexpr double k1 = k0 * kGeluTanhCubic;
    return fast::divide(v, S(1) + fast::exp2(v * (S(k0) + S(k1) * v * v)));
  }
};

// The same tanh approximation of GELU through the hardware's tanh (ptx::tanh_approx), for 16-bit
// outputs: 0.5 v + 0.5 v tanh(u), one special-function instruction per element instead of
// GeluTanh's two (ex2 and a reciprocal), which set the fused epilogue's pace on a short k. Its error
// is absolute, up to about |v| 2^-12, so small negative results lose relative accuracy: against
// GELU in double, bf16 results of magnitude 1e-3 to 0.05 (pre-activation about -1.5 to -4) were off
// by up to 6.3e-3 relative, GeluTanh's by 3.9-5.7e-3, and cuBLASLt's CUBLASLT_EPILOGUE_GELU by
// this functor's amounts to every digit measured (docs/design/epilogue.md). In double (host
// references) it computes GeluTanh's function with std::tanh.
struct GeluTanhFast {
  template <class S>
  __host__ __device__ S operator()(S v) const {
    const S u = v * (S(kGeluTanhScale) + S(kGeluTanhScale * kGeluTanhCubic) * v * v);
    const S h = S(0.5) * v;
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<S, float>) return fmaf(h, ptx::tanh_approx(u), h);
#endif
    return h + h * std::tanh(u);
  }
};

// v / (1 + e^-v) (also called swish).
struct SiLU {
  template <class S>
  __host__ __device__ S operator()(S v) const {
    return fast::divide(v, S(1) + fast::exp2(v * S(-1.44269504088896340736)));
  }
};

// min(max(v, lo), hi); NaN stays NaN.
struct Clamp {
  float lo = 0.0f, hi = 6.0f;
  template <class S>
  __host__ __device__ S operator()(S v) const { return v < S(lo) ? S(lo) : (v > S(hi) ? S(hi) : v); }
};

}  // namespace act

// What a call passes to fuse an epilogue. D receives the result (m x n, ldd >= n for row-major
// calls, >= m for gemm::blas); D == C computes in place; otherwise C is only read (and may be null
// when beta == 0). bias: bias_kind's vector of float or of D's type (m values per row, n per column,
// in the caller's frame). Out: D's (and C's) type.
template <class Out, class Act = act::Identity, class Bias = float>
struct Epilogue {
  static_assert(std::is_same_v<Bias, float> || std::is_same_v<Bias, Out>,
                "gemm::Epilogue<Out, Act, Bias>: the bias holds float or the output type Out.");
  Out* D = nullptr;
  int ldd = 0;
  const Bias* bias = nullptr;
  BiasKind bias_kind = BiasKind::None;
  Act act = {};
};

namespace detail {

template <class T>
struct NonDeduced {
  using type = T;
};

// The epilogue a kernel applies when it has none: the identity, so the stores compile as before.
// (Its split form, below, is the identity too: no bias, no activation.)
struct NoEpilogue {
  static constexpr bool kActive = false;
  template <class S>
  __host__ __device__ __forceinline__ S operator()(S v, int, int) const { return v; }
  template <class S>
  __host__ __device__ __forceinline__ S row_bias(int) const { return S(0); }
};

// The epilogue in split form: a kernel that holds many elements of few rows and columns (the Hopper
// consumers: 2 rows and 64 columns per thread) loads the bias once per row (epi.row_bias, 0 unless a
// bias per row) and per column (from epi.column_bias_vector(), null unless a bias per column: loaded
// once per tile, sm90::ColumnBias), and applies the rest per element here. The result
// is epi(alpha * acc, row, col)'s, except that a row bias joins the product in one fma (one rounding
// instead of two); without an epilogue it is alpha * acc.
template <class S, class Epi>
__host__ __device__ __forceinline__ S hoisted(const Epi& epi, S alpha, S acc, S row_bias, S column_bias, int row,
                                              int col) {
  if constexpr (Epi::kActive)
    return epi.activate_only(fma(alpha, acc, row_bias) + column_bias, row, col);
  else
    return alpha * acc;
}

// Calls act(v, row, col) where the functor takes coordinates, act(v) otherwise.
template <class Act, class S>
__host__ __device__ __forceinline__ S activate(const Act& act, S v, int row, int col) {
  if constexpr (std::is_invocable_v<const Act&, S, int, int>)
    return static_cast<S>(act(v, row, col));
  else
    return static_cast<S>(act(v));
}

// What the kernels receive: bias and activation. (row, col) are the row-major problem's; kSwapped
// (gemm::blas, which computes the transposed problem) turns them back into the caller's.
// The bias through the read-only data cache where there is one: it is never written during a call.
template <class Bias>
__host__ __device__ __forceinline__ Bias load_bias(const Bias* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

template <class Act, class Bias, bool kSwapped>
struct FusedEpilogue {
  static constexpr bool kActive = true;
  const Bias* bias;
  BiasKind bias_kind;
  Act act;

  template <class S>
  __host__ __device__ __forceinline__ S operator()(S v, int row, int col) const {
    if constexpr (kSwapped) {
      const int t = row;
      row = col, col = t;
    }
    // One load, no branch per kind: an if/else chain here had the compiler copy every unrolled store
    // loop once per bias kind (the fused Hopper kernel's PTX grew 7x).
    if (bias_kind != BiasKind::None) v += convert<S>(load_bias(bias + (bias_kind == BiasKind::PerRow ? row : col)));
    return activate(act, v, row, col);
  }
  using BiasType = Bias;
  // The bias along the row-major problem's columns, or null (no bias, or one per row): for kernels
  // that load a tile's column bias once (sm90::ColumnBias).
  __host__ __device__ __forceinline__ const Bias* column_bias_vector() const {
    return bias_kind == (kSwapped ? BiasKind::PerRow : BiasKind::PerColumn) ? bias : nullptr;
  }
  // The split form (see hoisted()), in the row-major problem's coordinates.
  template <class S>
  __host__ __device__ __forceinline__ S row_bias(int row) const {
    return bias_if<S>(kSwapped ? BiasKind::PerColumn : BiasKind::PerRow, row);
  }
  // bias[i] when the bias is of this kind, else 0.
  template <class S>
  __host__ __device__ __forceinline__ S bias_if(BiasKind kind, int i) const {
    return bias_kind == kind ? convert<S>(load_bias(bias + i)) : S(0);
  }
  template <class S>
  __host__ __device__ __forceinline__ S activate_only(S v, int row, int col) const {
    if constexpr (kSwapped)
      return activate(act, v, col, row);
    else
      return activate(act, v, row, col);
  }
};

}  // namespace detail

// GemmArgs with an epilogue, what the kernels receive from a fused call. C and ldc there are D's:
// the kernels read beta * C from where they write (see detail::run_fused).
template <class In, class Out, class Op>
struct EpilogueArgs : GemmArgs<In, Out> {
  Op epilogue;
};

namespace detail {

// A bias of this kind: present and aligned to its type (a kind of None needs none).
template <class Bias>
Status validate_bias(BiasKind kind, const Bias* bias) {
  if (kind == BiasKind::None) return Status::Success;
  if (bias == nullptr) return Status::NullPointerBias;
  if (reinterpret_cast<std::uintptr_t>(bias) % alignof(Bias) != 0) return Status::MisalignedBias;
  return Status::Success;
}

template <class In, class Out, Batch kBatch>
__host__ __device__ __forceinline__ NoEpilogue epilogue_of(const GemmArgs<In, Out, kBatch>&) { return {}; }
template <class In, class Out, class Op>
__host__ __device__ __forceinline__ const Op& epilogue_of(const EpilogueArgs<In, Out, Op>& args) {
  return args.epilogue;
}

template <class Args>
inline constexpr bool has_epilogue = std::decay_t<decltype(epilogue_of(std::declval<const Args&>()))>::kActive;

// The same call without its epilogue: for the passes that must not apply it (beta before split-K,
// the first two of 3xTF32's three products).
template <class In, class Out, Batch kBatch>
GemmArgs<In, Out, kBatch> without_epilogue(const GemmArgs<In, Out, kBatch>& args) { return args; }

}  // namespace detail
}  // namespace gemm
