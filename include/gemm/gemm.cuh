#pragma once
// gemm: a header-only CUDA GEMM library whose presets are the classic optimisation stages.
//
//   gemm::Status s = gemm::gemm<float, gemm::preset::MultiStage>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
//
// computes C = alpha * op(A) * op(B) + beta * C on device matrices. Three entry points:
//
//   gemm::gemm<T, Policy>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc[, stream])
//       row-major A (m x k), B (k x n) and C (m x n);
//   gemm::gemm<T, Policy>(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc[, stream])
//       row-major C; op N: the operand is stored as written, op T: stored transposed (A as k x m,
//       B as n x k, row-major; i.e. op(A), op(B) column-major);
//   gemm::blas::gemm<T, Policy>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc[, stream])
//       column-major, in BLAS's (and cuBLAS's) argument order and meaning.
//
// Each takes an optional fused epilogue (epilogue.cuh) after ldc: D = act(alpha * op(A) * op(B) +
// beta * C + bias), with C then read-only (null allowed when beta == 0; D == C computes in place):
//
//   gemm::Epilogue<__nv_bfloat16, gemm::act::GeluTanh> epi{D, ldd, bias, gemm::BiasKind::PerColumn};
//   gemm::gemm<__nv_bfloat16>(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, epi, stream);
//
// Activations gemm::act::Identity, ReLU, GeluErf, GeluTanh, GeluTanhFast, SiLU, Clamp{lo, hi}, or a
// caller's functor of (value) or (value, row, col); bias per row or per column of D, float or D's
// type, in the caller's frame (a column-major call's PerRow bias has m values, one per row of its D).
//
// The three have batched forms, `batch` products of the same sizes, ops and scalars in one call:
//
//   gemm::gemm_strided_batched<T, Policy>(op_a, op_b, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b,
//                                         beta, C, ldc, stride_c, batch[, stream])
//       entry i reads A + i * stride_a, B + i * stride_b and writes C + i * stride_c (64-bit element
//       strides, >= 0; 0 shares one A or B; C entries must not overlap);
//   gemm::gemm_batched<T, Policy>(op_a, op_b, m, n, k, alpha, A_array, lda, B_array, ldb, beta, C_array,
//                                 ldc, batch[, stream])
//       entry i reads A_array[i], B_array[i] and writes C_array[i] (device arrays of device pointers);
//   gemm::blas::gemm_strided_batched / gemm::blas::gemm_batched
//       column-major, in cublasGemmStridedBatchedEx's / cublasGemmBatchedEx's argument order.
//
// FP8 calls (T = __nv_fp8_e4m3 or __nv_fp8_e5m2; C in bf16, __half or float) take their scales after
// ldc (after the epilogue in a fused call): per tensor, per row and column, or per 1 x 128 / 128 x 128
// block (scales.cuh); without them every scale is 1:
//
//   gemm::gemm<__nv_fp8_e4m3>(gemm::Op::N, gemm::Op::T, m, n, k, alpha, A, lda, W, ldw, beta, C, ldc,
//                             gemm::Scales::block(sa, Scales::k_blocks(k) * m, sw, sw_count), stream);
//
// T is the math type (types.cuh): float, gemm::tf32, double, __nv_bfloat16, __half or FP8. C holds the
// input type, or float for 16-bit inputs. It never throws: it validates everything it can before
// touching the device, launches nothing when the call is invalid, and returns a Status that says
// what was wrong.
#include <cstdint>
#include <type_traits>
#include <utility>
#include <cuda_runtime.h>
#include "args.cuh"
#include "detail/launch.cuh"
#include "epilogue.cuh"
#include "kernel/scale_kernel.cuh"
#include "policy.cuh"
#include "presets.cuh"
#include "scales.cuh"
#include "tuned.cuh"
#include "status.cuh"
#include "types.cuh"

namespace gemm {

// The policy gemm::gemm<T>() uses when none is named.
using DefaultPolicy = preset::Tuned;

namespace detail {

// Step 1 of every call (and of gemm::plan): the arguments, with no CUDA call. `empty`: C has no
// elements, a successful no-op (as in BLAS) that needs no device.
template <class T, class Policy, class Args>
Status check_arguments(const Args& args, bool& empty) {
  empty = false;
  if (Status s = validate_sizes(args); s != Status::Success) return s;
  if constexpr (is_fp8<typename Args::Output>) {
    if (args.beta != 0) return Status::InvalidOutputScaling;  // FP8 C is written only
  }
  if (Status s = validate_batch(args); s != Status::Success) return s;
  if ((empty = args.m == 0 || args.n == 0 || args.batch == 0)) return Status::Success;  // an empty batch too
  if (Status s = validate_pointers(args); s != Status::Success) return s;
  return Policy::template check_alignment<T>(args);
}

// What a call does on its stream before its kernels: nothing, except for a fused call that copies C
// into a distinct D (see run_fused).
struct NothingBefore {
  Status operator()(cudaStream_t) const { return Status::Success; }
};

// Every entry point ends here, with the row-major form of the call.
// Layouts: Ops<N, N> from the row-major entry point, AnyOps from those that take op arguments.
// Args: GemmArgs, or EpilogueArgs from a fused call.
template <class T, class Policy, class Layouts, class Args, class Before>
Status run_valid_types(const Args& args, cudaStream_t stream, const Before& before) {
  bool empty = false;
  if (Status s = check_arguments<T, Policy>(args, empty); s != Status::Success || empty) return s;
  // 2. The device.
  DeviceInfo dev;
  if (Status s = query_device(dev); s != Status::Success) return s;
  if (Status s = before(stream); s != Status::Success) return s;
  // 3. No product term: C = beta * C (and nothing at all when beta == 1 and there is no epilogue).
  if (!reads_ab(args)) return scale_c(args, dev, stream);
  return Policy::template launch<T, Layouts>(args, dev, stream);
}

// The compile-time checks of every entry point: true when T, C's type and the policy go together;
// otherwise a static_assert stops the build with what to change.
template <class T, class Policy, class Out>
constexpr bool check_types() {
  constexpr bool kTypeOk = is_math_type<T>;
  constexpr bool kOutputOk = is_supported_output<T, Out>;
  constexpr bool kPolicyOk = Policy::template kServes<T, Out>;
  static_assert(kTypeOk,
                "gemm::gemm<T>: T must be float, gemm::tf32 (float data, TF32 tensor cores), gemm::tf32x3 (float "
                "data, fp32 accuracy from three TF32 products), double, __nv_bfloat16, __half, __nv_fp8_e4m3 or "
                "__nv_fp8_e5m2.");
  static_assert(!kTypeOk || kOutputOk,
                "gemm::gemm<T>: C must hold the input type, or float for __nv_bfloat16 and __half inputs, or "
                "__nv_bfloat16, __half, float, __nv_fp8_e4m3 or __nv_fp8_e5m2 for FP8 inputs (float->float, "
                "tf32->float, tf32x3->float, double->double, bf16->bf16|float, half->half|float, "
                "fp8->bf16|half|float|fp8).");
  static_assert(!kTypeOk || !kOutputOk || kPolicyOk,
                "gemm::gemm<T, Policy>: this policy does not serve this type combination. CUDA-core presets compute "
                "float and double (WarpTiled also bf16 and fp16); TF32 runs on tensor cores, so gemm::tf32 needs a "
                "tensor-core preset or Tuned; the tensor-core presets compute bf16, fp16 and gemm::tf32 (the Hopper "
                "ones also gemm::tf32x3, as do mma.sync compositions with warp tiles of at most 32x64, such as "
                "Tuned::Mma3xTf32; Dmma: double) and never strict float: name gemm::tf32 to allow TF32 "
                "rounding, or use a CUDA-core preset or Tuned for float. Each preset's comment in presets.cuh lists "
                "its types.");
  return kTypeOk && kOutputOk && kPolicyOk;
}

template <class T, class Policy, class Layouts, class Out, class Args, class Before = NothingBefore>
Status run_args(const Args& args, cudaStream_t stream, const Before& before = {}) {
  if constexpr (check_types<T, Policy, Out>())
    return run_valid_types<T, Policy, Layouts>(args, stream, before);
  else
    return Status::InvalidSize;  // never compiled into a program: a static_assert above has stopped the build
}

// (kBatch defaults for the single-product entry points, which pass a braced list it cannot be deduced from.)
template <class T, class Policy, class Layouts, class Out, Batch kBatch = Batch::None>
Status run(const GemmArgs<storage_t<T>, Out, kBatch>& args, cudaStream_t stream) {
  return run_args<T, Policy, Layouts, Out>(args, stream);
}

// An FP8 call's scales join its arguments (ScaledArgs; scales.cuh), after they are checked: only where
// the call reads A and B (k > 0, alpha != 0; otherwise C = beta * C needs none). NoScales: a call
// without them.
template <class Args>
const Args& with_scales(const Args& args, NoScales) { return args; }
template <class In, class Out, class Op>
ScaledArgs<In, Out, Op> with_scales(const EpilogueArgs<In, Out, Op>& args, const Scales& scales) {
  ScaledArgs<In, Out, Op> scaled;
  static_cast<EpilogueArgs<In, Out, Op>&>(scaled) = args;
  scaled.scales = scales;
  return scaled;
}
template <class In, class Out, Batch kBatch>
ScaledArgs<In, Out, NoEpilogue> with_scales(const GemmArgs<In, Out, kBatch>& args, const Scales& scales) {
  static_assert(kBatch == Batch::None, "FP8 scales: single products only.");
  ScaledArgs<In, Out, NoEpilogue> scaled;
  static_cast<GemmArgs<In, Out>&>(scaled) = args;
  scaled.scales = scales;
  return scaled;
}
template <class T, class Args>
Status check_scales(const Args& args, const Scales& scales) {
  static_assert(is_fp8<T> || !is_math_type<T>,
                "gemm::gemm with gemm::Scales: scales are for FP8 calls only (T = __nv_fp8_e4m3 or __nv_fp8_e5m2).");
  if (scales.scales_output() && args.beta != 0) return Status::InvalidOutputScaling;
  if (args.m == 0 || args.n == 0 || !reads_ab(args)) return Status::Success;
  return validate_scales(scales, args.m, args.n, args.k);
}

template <class T, class Policy, class Layouts, class Out>
Status run_scaled(const GemmArgs<storage_t<T>, Out>& args, const Scales& scales, cudaStream_t stream) {
  if (Status s = validate_sizes(args); s != Status::Success) return s;
  if (Status s = check_scales<T>(args, scales); s != Status::Success) return s;
  return run_args<T, Policy, Layouts, Out>(with_scales(args, scales), stream,
                                           [&](cudaStream_t s) { return reset_amax(scales, s); });
}

// The epilogue's own arguments, before anything else (m == 0 or n == 0 is still a no-op once they
// are valid). args holds the caller's C, or D where C is null and unread (beta == 0).
template <class In, class Out, class Act, class Bias>
Status validate_epilogue(const GemmArgs<In, Out>& args, const Epilogue<Out, Act, Bias>& e) {
  if (e.ldd < (args.n > 1 ? args.n : 1)) return Status::InvalidLeadingDimensionD;
  if (args.m == 0 || args.n == 0) return Status::Success;
  if (e.D == nullptr) return Status::NullPointerD;
  if (!aligned_to(e.D, alignof(Out))) return Status::MisalignedD;
  if (Status s = validate_bias(e.bias_kind, e.bias); s != Status::Success) return s;
  if (args.C != nullptr && args.C != e.D) {  // distinct matrices must not share an element
    const auto span = [&](const Out* p, int ld) {
      const auto first = reinterpret_cast<std::uintptr_t>(p);
      return std::pair(first, first + ((static_cast<std::uintptr_t>(args.m) - 1) * ld + args.n) * sizeof(Out));
    };
    const auto c = span(args.C, args.ldc), d = span(e.D, e.ldd);
    if (c.first < d.second && d.first < c.second) return Status::OverlappingOutput;
  }
  return Status::Success;
}

// What the kernels of a fused call receive: the call's arguments with C and ldc pointing at D.
template <bool kSwapped, class In, class Out, class Act, class Bias>
EpilogueArgs<In, Out, FusedEpilogue<Act, Bias, kSwapped>> fused_args(const GemmArgs<In, Out>& args,
                                                                     const Epilogue<Out, Act, Bias>& e) {
  EpilogueArgs<In, Out, FusedEpilogue<Act, Bias, kSwapped>> fused;
  static_cast<GemmArgs<In, Out>&>(fused) = args;
  fused.C = e.D, fused.ldc = e.ldd;
  fused.epilogue = {e.bias, e.bias_kind, e.act};
  return fused;
}

// A fused call. The kernels read beta * C where they write, so a D distinct from C first receives a
// copy of C (one stream-ordered 2D copy, only when beta != 0: C itself is never written); then
// every kernel family applies args.epilogue where it combines alpha * acc + beta * C.
// kSwapped: the caller is column-major (gemm::blas), so rows and columns of the computed problem
// are the caller's columns and rows.
template <class T, class Policy, class Layouts, bool kSwapped, class Out, class Act, class Bias,
          class ScalesOrNone = NoScales>
Status run_fused(GemmArgs<storage_t<T>, Out> args, const Epilogue<Out, Act, Bias>& e, cudaStream_t stream,
                 const ScalesOrNone& scales = {}) {
  if (args.C == nullptr && args.beta == 0) args.C = e.D, args.ldc = e.ldd;  // C unread: stands for D in the checks
  if (Status s = validate_sizes(args); s != Status::Success) return s;
  if (Status s = validate_epilogue(args, e); s != Status::Success) return s;
  if constexpr (std::is_same_v<ScalesOrNone, Scales>) {
    if (Status s = check_scales<T>(args, scales); s != Status::Success) return s;
  }
  if (args.m == 0 || args.n == 0) return Status::Success;
  if (Status s = validate_pointers(args); s != Status::Success) return s;
  const auto fused = fused_args<kSwapped>(args, e);
  const bool copy_c = args.C != e.D && args.beta != 0;
  const auto copy_c_to_d = [&](cudaStream_t s) {
    if (!copy_c) return Status::Success;
    const std::size_t row = static_cast<std::size_t>(args.n) * sizeof(Out);
    return cuda_status(cudaMemcpy2DAsync(e.D, static_cast<std::size_t>(e.ldd) * sizeof(Out), args.C,
                                         static_cast<std::size_t>(args.ldc) * sizeof(Out), row, args.m,
                                         cudaMemcpyDeviceToDevice, s));
  };
  return run_args<T, Policy, Layouts, Out>(with_scales(fused, scales), stream, [&](cudaStream_t s) {
    const Status st = copy_c_to_d(s);
    return st != Status::Success ? st : reset_amax(scales, s);
  });
}

// A fused call's C: Out is deduced from the epilogue alone, so that C may be passed as nullptr.
template <class Out>
using ReadOnly = const typename NonDeduced<Out>::type*;

template <class T, class Out>
using EnableOtherOutput = std::enable_if_t<!std::is_same_v<Out, storage_t<T>>, int>;

}  // namespace detail

// Row-major A, B and C.
template <class T, class Policy = DefaultPolicy>
Status gemm(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb,
            scalar_t<T> beta, storage_t<T>* C, int ldc, cudaStream_t stream = 0) {
  return detail::run<T, Policy, detail::Ops<Op::N, Op::N>, storage_t<T>>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc},
                                                                         stream);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb,
            scalar_t<T> beta, Out* C, int ldc, cudaStream_t stream = 0) {
  return detail::run<T, Policy, detail::Ops<Op::N, Op::N>, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc}, stream);
}

// Row-major C; A and B each stored as written (Op::N) or transposed (Op::T).
template <class T, class Policy = DefaultPolicy>
Status gemm(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, storage_t<T>* C, int ldc, cudaStream_t stream = 0) {
  return detail::run<T, Policy, detail::AnyOps, storage_t<T>>(
      {m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b}, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, cudaStream_t stream = 0) {
  return detail::run<T, Policy, detail::AnyOps, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b},
                                                     stream);
}

// Fused epilogue, row-major C and D: D = act(alpha * op(A) * op(B) + beta * C + bias) (epilogue.cuh).
// C is only read (null allowed when beta == 0) unless D == C.
template <class T, class Policy = DefaultPolicy, class Out, class Act, class Bias>
Status gemm(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb,
            scalar_t<T> beta, detail::ReadOnly<Out> C, int ldc, const Epilogue<Out, Act, Bias>& epilogue,
            cudaStream_t stream = 0) {
  return detail::run_fused<T, Policy, detail::Ops<Op::N, Op::N>, false>(
      {m, n, k, alpha, A, lda, B, ldb, beta, const_cast<Out*>(C), ldc}, epilogue, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, class Act, class Bias>
Status gemm(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, detail::ReadOnly<Out> C, int ldc,
            const Epilogue<Out, Act, Bias>& epilogue, cudaStream_t stream = 0) {
  return detail::run_fused<T, Policy, detail::AnyOps, false>(
      {m, n, k, alpha, A, lda, B, ldb, beta, const_cast<Out*>(C), ldc, op_a, op_b}, epilogue, stream);
}

// FP8 with scales (scales.cuh), row-major C: C = alpha * op(scale_a A) * op(scale_b B) + beta * C.
// FP8 tensor cores read only k-contiguous operands: A stored as written (Op::N) and B transposed
// (Op::T, a weight stored n x k) is the natural call; other layouts are first copied transposed.
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, const Scales& scales,
            cudaStream_t stream = 0) {
  return detail::run_scaled<T, Policy, detail::AnyOps, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b},
                                                            scales, stream);
}
// FP8 with scales and a fused epilogue: D = act(alpha * op(scale_a A) * op(scale_b B) + beta * C + bias).
template <class T, class Policy = DefaultPolicy, class Out, class Act, class Bias>
Status gemm(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, detail::ReadOnly<Out> C, int ldc,
            const Epilogue<Out, Act, Bias>& epilogue, const Scales& scales, cudaStream_t stream = 0) {
  return detail::run_fused<T, Policy, detail::AnyOps, false>(
      {m, n, k, alpha, A, lda, B, ldb, beta, const_cast<Out*>(C), ldc, op_a, op_b}, epilogue, stream, scales);
}

// Batched, row-major C: `batch` products with the same sizes, ops and scalars. Strided: entry b
// reads A + b * stride_a and B + b * stride_b and writes C + b * stride_c (strides in elements,
// >= 0; stride 0 uses one A or B for every entry; C entries must not overlap). Pointer arrays:
// device arrays of `batch` device pointers (cublasGemmBatchedEx's form); entries may sit anywhere,
// in any order, aligned to their element type. batch == 0 does nothing.
namespace detail {
// (Layouts: AnyOps from the entry points; a test or tool may fix them at compile time.)
template <class T, class Policy, class Out, class Layouts = AnyOps>
Status strided_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                       long long stride_a, const storage_t<T>* B, int ldb, long long stride_b, scalar_t<T> beta,
                       Out* C, int ldc, long long stride_c, int batch, cudaStream_t stream) {
  GemmArgs<storage_t<T>, Out, Batch::Strided> args{m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b};
  args.batch = batch, args.stride_a = stride_a, args.stride_b = stride_b, args.stride_c = stride_c;
  return run<T, Policy, Layouts>(args, stream);
}
template <class T, class Policy, class Out, class Layouts = AnyOps>
Status pointer_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* const* A_array,
                       int lda, const storage_t<T>* const* B_array, int ldb, scalar_t<T> beta, Out* const* C_array,
                       int ldc, int batch, cudaStream_t stream) {
  GemmArgs<storage_t<T>, Out, Batch::Pointers> args{m,       n,       k,   alpha, nullptr, lda, nullptr,
                                                     ldb,     beta,    nullptr, ldc, op_a,  op_b};
  args.batch = batch, args.A_array = A_array, args.B_array = B_array, args.C_array = C_array;
  return run<T, Policy, Layouts>(args, stream);
}
}  // namespace detail

template <class T, class Policy = DefaultPolicy>
Status gemm_strided_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                            long long stride_a, const storage_t<T>* B, int ldb, long long stride_b, scalar_t<T> beta,
                            storage_t<T>* C, int ldc, long long stride_c, int batch, cudaStream_t stream = 0) {
  return detail::strided_batched<T, Policy>(op_a, op_b, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C,
                                            ldc, stride_c, batch, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm_strided_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                            long long stride_a, const storage_t<T>* B, int ldb, long long stride_b, scalar_t<T> beta,
                            Out* C, int ldc, long long stride_c, int batch, cudaStream_t stream = 0) {
  return detail::strided_batched<T, Policy>(op_a, op_b, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C,
                                            ldc, stride_c, batch, stream);
}
template <class T, class Policy = DefaultPolicy>
Status gemm_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* const* A_array,
                    int lda, const storage_t<T>* const* B_array, int ldb, scalar_t<T> beta,
                    storage_t<T>* const* C_array, int ldc, int batch, cudaStream_t stream = 0) {
  return detail::pointer_batched<T, Policy>(op_a, op_b, m, n, k, alpha, A_array, lda, B_array, ldb, beta, C_array, ldc,
                                            batch, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* const* A_array,
                    int lda, const storage_t<T>* const* B_array, int ldb, scalar_t<T> beta, Out* const* C_array,
                    int ldc, int batch, cudaStream_t stream = 0) {
  return detail::pointer_batched<T, Policy>(op_a, op_b, m, n, k, alpha, A_array, lda, B_array, ldb, beta, C_array, ldc,
                                            batch, stream);
}

// Column-major, as BLAS and cuBLAS: C (m x n, ldc >= m) = alpha * op(A) * op(B) + beta * C with
// op(A) m x k (transa N: A is m x k, lda >= m; T: A is k x m, lda >= k) and op(B) k x n (N: ldb >= k;
// T: ldb >= n). A cuBLAS call cublasGemmEx(h, transa, transb, m, n, k, ...) maps one to one.
namespace blas {

namespace detail {
// Column-major C is the row-major n x m matrix C^T = op(B)^T op(A)^T with the same storage, and a
// column-major operand with op X is a row-major one with the same op: so swap A and B (and the
// statuses that name them).
template <class T, class Policy, class Out>
Status run(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
           const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, cudaStream_t stream) {
  return gemm::detail::swap_ab(
      gemm::detail::run<T, Policy, gemm::detail::AnyOps, Out>(
          {n, m, k, alpha, B, ldb, A, lda, beta, C, ldc, transb, transa}, stream));
}
}  // namespace detail

template <class T, class Policy = DefaultPolicy>
Status gemm(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, storage_t<T>* C, int ldc, cudaStream_t stream = 0) {
  return detail::run<T, Policy, storage_t<T>>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, gemm::detail::EnableOtherOutput<T, Out> = 0>
Status gemm(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, cudaStream_t stream = 0) {
  return detail::run<T, Policy, Out>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

// FP8 with scales, column-major (cublasLtMatmul's frame): the caller's A scales the rows of its C
// (Rowwise: m values), its B the columns (n values). The row-major core computes C^T with the
// operands swapped, and the scales swap with them. Block scales (1 x 128 on A, 128 x 128 on B) would
// change places with the swap, which no kernel here takes: Status::UnsupportedScales (make the
// row-major call of the transposed problem instead).
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, const Scales& scales,
            cudaStream_t stream = 0) {
  if (scales.mode == ScaleMode::Block) return Status::UnsupportedScales;
  const Scales swapped{scales.mode,      scales.b, scales.b_count, scales.a,
                       scales.a_count,   scales.promote_k, scales.d, scales.amax};
  return gemm::detail::swap_ab(gemm::detail::run_scaled<T, Policy, gemm::detail::AnyOps, Out>(
      {n, m, k, alpha, B, ldb, A, lda, beta, C, ldc, transb, transa}, swapped, stream));
}

// Fused epilogue, column-major C and D (ldd >= m): BiasKind::PerRow adds bias[i] to row i of the
// caller's D (m values), PerColumn bias[j] to column j (n values); a functor taking (v, row, col)
// sees the caller's row and column.
template <class T, class Policy = DefaultPolicy, class Out, class Act, class Bias>
Status gemm(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, gemm::detail::ReadOnly<Out> C, int ldc,
            const Epilogue<Out, Act, Bias>& epilogue, cudaStream_t stream = 0) {
  return gemm::detail::swap_ab(gemm::detail::run_fused<T, Policy, gemm::detail::AnyOps, true>(
      {n, m, k, alpha, B, ldb, A, lda, beta, const_cast<Out*>(C), ldc, transb, transa}, epilogue, stream));
}

// Batched, column-major, in cublasGemmStridedBatchedEx's and cublasGemmBatchedEx's argument order
// (the row-major core with A and B swapped, as gemm::blas::gemm).
namespace detail {
template <class T, class Policy, class Out>
Status strided_batched(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                       long long stride_a, const storage_t<T>* B, int ldb, long long stride_b, scalar_t<T> beta,
                       Out* C, int ldc, long long stride_c, int batch, cudaStream_t stream) {
  return gemm::detail::swap_ab(gemm::detail::strided_batched<T, Policy, Out>(
      transb, transa, n, m, k, alpha, B, ldb, stride_b, A, lda, stride_a, beta, C, ldc, stride_c, batch, stream));
}
template <class T, class Policy, class Out>
Status pointer_batched(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* const* A_array,
                       int lda, const storage_t<T>* const* B_array, int ldb, scalar_t<T> beta, Out* const* C_array,
                       int ldc, int batch, cudaStream_t stream) {
  return gemm::detail::swap_ab(gemm::detail::pointer_batched<T, Policy, Out>(
      transb, transa, n, m, k, alpha, B_array, ldb, A_array, lda, beta, C_array, ldc, batch, stream));
}
}  // namespace detail

template <class T, class Policy = DefaultPolicy>
Status gemm_strided_batched(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A,
                            int lda, long long stride_a, const storage_t<T>* B, int ldb, long long stride_b,
                            scalar_t<T> beta, storage_t<T>* C, int ldc, long long stride_c, int batch,
                            cudaStream_t stream = 0) {
  return detail::strided_batched<T, Policy>(transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta,
                                            C, ldc, stride_c, batch, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, gemm::detail::EnableOtherOutput<T, Out> = 0>
Status gemm_strided_batched(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A,
                            int lda, long long stride_a, const storage_t<T>* B, int ldb, long long stride_b,
                            scalar_t<T> beta, Out* C, int ldc, long long stride_c, int batch, cudaStream_t stream = 0) {
  return detail::strided_batched<T, Policy>(transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta,
                                            C, ldc, stride_c, batch, stream);
}
template <class T, class Policy = DefaultPolicy>
Status gemm_batched(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* const* A_array,
                    int lda, const storage_t<T>* const* B_array, int ldb, scalar_t<T> beta,
                    storage_t<T>* const* C_array, int ldc, int batch, cudaStream_t stream = 0) {
  return detail::pointer_batched<T, Policy>(transa, transb, m, n, k, alpha, A_array, lda, B_array, ldb, beta, C_array,
                                            ldc, batch, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, gemm::detail::EnableOtherOutput<T, Out> = 0>
Status gemm_batched(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* const* A_array,
                    int lda, const storage_t<T>* const* B_array, int ldb, scalar_t<T> beta, Out* const* C_array,
                    int ldc, int batch, cudaStream_t stream = 0) {
  return detail::pointer_batched<T, Policy>(transa, transb, m, n, k, alpha, A_array, lda, B_array, ldb, beta, C_array,
                                            ldc, batch, stream);
}

}  // namespace blas
}  // namespace gemm
#include "plan.cuh"

// Grouped GEMM (mixture-of-experts): device-side group sizes, and lists of host-side problems.
#include "grouped.cuh"
#include "grouped_list.cuh"
