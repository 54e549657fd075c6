#pragma once
// Element types and operand layouts.
//
// A call names its *math type* T: gemm::gemm<T>(...). T decides what A and B hold in memory, the
// type of alpha and beta, what the accumulators are, and whether tensor cores may round the inputs:
//
//   T                 A, B in memory     C (and D)                accumulate   alpha, beta
//   float             float              float                    float        float   (strict fp32)
//   gemm::tf32        float              float                    float        float   (TF32 tensor cores)
//   gemm::tf32x3      float              float                    float        float   (3xTF32: fp32 accuracy)
//   double            double             double                   double       double
//   __nv_bfloat16     __nv_bfloat16      __nv_bfloat16 or float   float        float
//   __half            __half             __half or float          float        float
//   __nv_fp8_e4m3     __nv_fp8_e4m3      bf16, __half or float    float        float   (sm_90a: FP8 wgmma)
//   __nv_fp8_e5m2     __nv_fp8_e5m2      bf16, __half or float    float        float
//
// These are cublasGemmEx's combinations, plus 3xTF32. TF32 rounds A and B to a 10-bit mantissa, so
// it is never chosen for float: a caller asks for it by naming gemm::tf32. FP8 calls take scales
// (scales.cuh: per tensor, per row and column, or per 1 x 128 / 128 x 128 block); without them every
// scale is 1. gemm::tf32x3 splits each
// float into two TF32 parts and sums three TF32 products per product (a_hi b_hi + a_hi b_lo +
// a_lo b_hi): about as accurate as strict fp32, on the tensor cores.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <type_traits>

namespace gemm {

// The math type "float data, TF32 tensor-core products, fp32 accumulation".
struct tf32 {};
// The math type "float data, fp32-accurate result from three TF32 products per product".
struct tf32x3 {};

// op(X) for an operand of a row-major call: N, X is stored as written (row-major); T, X is stored
// transposed (the stored matrix is op(X)^T, i.e. op(X) is column-major).
enum class Op { N, T };

constexpr const char* to_string(Op op) { return op == Op::N ? "N" : "T"; }

namespace detail {
// An unsupported T still gets types here, so that gemm::gemm's static_assert, not a substitution
// failure, tells the caller what is supported.
template <class T>
struct MathTraits {
  using Storage = T;
  using Scalar = float;  // what GemmArgs<T> holds: the call must get as far as the static_assert
  static constexpr bool kSupported = false;
  static constexpr const char* kName = "unsupported";
};
template <>
struct MathTraits<float> {
  using Storage = float;
  using Scalar = float;
  static constexpr const char* kName = "float";
  static constexpr bool kSupported = true;
};
template <>
struct MathTraits<tf32> {
  using Storage = float;
  using Scalar = float;
  static constexpr const char* kName = "tf32";
  static constexpr bool kSupported = true;
};
template <>
struct MathTraits<tf32x3> {
  using Storage = float;
  using Scalar = float;
  static constexpr const char* kName = "tf32x3";
  static constexpr bool kSupported = true;
};
template <>
struct MathTraits<double> {
  using Storage = double;
  using Scalar = double;
  static constexpr const char* kName = "double";
  static constexpr bool kSupported = true;
};
template <>
struct MathTraits<__nv_bfloat16> {
  using Storage = __nv_bfloat16;
  using Scalar = float;
  static constexpr const char* kName = "bf16";
  static constexpr bool kSupported = true;
};
template <>
struct MathTraits<__half> {
  using Storage = __half;
  using Scalar = float;
  static constexpr const char* kName = "fp16";
  static constexpr bool kSupported = true;
};

template <>
struct MathTraits<__nv_fp8_e4m3> {
  using Storage = __nv_fp8_e4m3;
  using Scalar = float;
  static constexpr const char* kName = "fp8_e4m3";
  static constexpr bool kSupported = true;
};
template <>
struct MathTraits<__nv_fp8_e5m2> {
  using Storage = __nv_fp8_e5m2;
  using Scalar = float;
  static constexpr const char* kName = "fp8_e5m2";
  static constexpr bool kSupported = true;
};

}  // namespace detail

template <class T>
inline constexpr bool is_math_type = detail::MathTraits<T>::kSupported;

// What A and B hold in memory for math type T (float for gemm::tf32).
template <class T>
using storage_t = typename detail::MathTraits<T>::Storage;

// alpha, beta and the accumulators: double for double, float otherwise.
template <class T>
using scalar_t = typename detail::MathTraits<T>::Scalar;

template <class T>
inline constexpr bool is_16bit = std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>;

// FP8 (e4m3: 4 exponent bits, 3 mantissa; e5m2: 5 and 2), read by sm_90a's FP8 wgmma.
template <class T>
inline constexpr bool is_fp8 = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

// Math types whose tensor cores read both operands K-major only (A row-major, B transposed).
template <class T>
inline constexpr bool is_k_major_only = std::is_same_v<T, tf32> || is_fp8<T>;

// The output types each math type offers (cublasGemmEx's list; cublasLtMatmul's for FP8, less FP8 C).
template <class T, class Out>
inline constexpr bool is_supported_output =
    is_math_type<T> && ((!is_fp8<T> && std::is_same_v<Out, storage_t<T>>) || (is_16bit<T> && std::is_same_v<Out, float>) ||
                        (is_fp8<T> && (is_16bit<Out> || std::is_same_v<Out, float> || is_fp8<Out>)));

// Benchmark and log names: float, tf32, double, bf16, fp16, bf16_f32out, fp16_f32out.
template <class T, class Out>
const char* type_name() {
  if constexpr (is_16bit<T> && std::is_same_v<Out, float>)
    return std::is_same_v<T, __half> ? "fp16_f32out" : "bf16_f32out";
  else
    return detail::MathTraits<T>::kName;
}

namespace detail {

// Conversions between storage types and the accumulator type, host and device.
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(x));
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return static_cast<To>(__bfloat162float(x));
  } else if constexpr (std::is_same_v<From, __half>) {
    return static_cast<To>(__half2float(x));
  } else {
    return static_cast<To>(x);
  }
}

}  // namespace detail
}  // namespace gemm
