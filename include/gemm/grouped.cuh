#pragma once
// Grouped GEMM for mixture-of-experts: many products of different m and the same n, k, whose row
// counts live in device memory (known only after routing), in one launch that never synchronises
// with the host (so it can be captured in a CUDA graph and replayed with new counts).
//
//   Contiguous (tokens sorted by expert):
//     gemm::gemm_grouped_contiguous<T>(op_b, groups, total_rows, n, k, alpha, A, lda, B, ldb, stride_b,
//                                      beta, C, ldc, offsets[, stream])
//     A: total_rows x k (row-major), C: total_rows x n; group g owns rows [offsets[g], offsets[g + 1])
//     of both (offsets: groups + 1 ints in device memory); B: one weight per group, stride_b elements
//     apart, stored n x k (op_b T, as PyTorch keeps weights) or k x n (op_b N).
//   Masked (decode: a fixed slot of max_rows rows per expert):
//     gemm::gemm_grouped_masked<T>(op_b, groups, max_rows, n, k, alpha, A, lda, stride_a, B, ldb,
//                                  stride_b, beta, C, ldc, stride_c, counts[, stream])
//     entry g: A + g stride_a (max_rows x k), C + g stride_c (max_rows x n), B + g stride_b; its first
//     counts[g] rows are computed (counts: groups ints in device memory), the others never touched.
//
// C = alpha * A_g * op(B_g) + beta * C over each group's rows. T: __nv_bfloat16 or __half, C in T or
// float; or FP8 (__nv_fp8_e4m3, __nv_fp8_e5m2) with B stored n x k (op_b T), C in bf16, fp16, float or
// FP8; sm_90 (the persistent wgmma kernel with a grouped tile scheduler: empty groups cost nothing).
//
// FP8 scales (scales.cuh; a gemm::Scales after the offsets or counts) are laid out as those of one
// call whose A is all of A's rows (contiguous: total_rows; masked: groups x max_rows, entry g's rows
// from g max_rows), and of one B per group, each group's after the one before:
//   Tensor   a: 1 float;                              b: groups floats (one per weight)
//   Rowwise  a: one float per row of A;               b: groups x n
//   Block    a: ceil(k / 128) x rows of A, a[kb * rows + r] (rows: total_rows, or max_rows within each
//               of the groups entries of a masked call, entry g at g ceil(k / 128) max_rows);
//            b: groups x ceil(n / 128) x ceil(k / 128)
// (DeepSeek-V3's contiguous and masked layouts.) Grouped FP8 calls promote every 128 k (the default)
// or, with tensor and row scales, never (Scales::promote_every(0): 128x256 tiles where n >= 256, the
// tensor cores' own sums); a D scale and amax (Scales::output) apply over every group (amax: the
// largest of all of them).
// Everything the host can see is checked before any launch (sizes, leading dimensions, strides that
// keep entries apart, null and misaligned pointers: A and B as TMA reads them, rows of whole 16
// bytes). Offsets and counts on the device cannot be checked there: the kernels clamp them into the
// buffers (negative or decreasing offsets, rows past total_rows or max_rows), so nothing outside the
// buffers is read or written, and set a flag that gemm::grouped_status() turns into
// Status::InvalidGroupRows (the flag is host memory: a first call inside a graph capture is fine).
#include <cuda_runtime.h>
#include <climits>
#include <mutex>
#include "args.cuh"
#include "detail/batch.cuh"
#include "detail/launch.cuh"
#include "epilogue.cuh"
#include "grouped_args.cuh"
#include "kernel/scale_kernel.cuh"
#include "ptx/grid_dependency.cuh"
#include "scales.cuh"
#include "status.cuh"
#include "tuned.cuh"
#include "types.cuh"

namespace gemm {
namespace detail {

// The flag the grouped kernels set when a group's rows were out of range: one word per device of
// mapped, page-locked host memory, allocated at the first grouped call and freed when the program
// ends. Host memory, so that neither making it nor zeroing it is an operation on a stream: a
// process's first grouped call may be made inside a CUDA graph capture, where a legacy-stream
// cudaMemset (or cudaMemcpy) would invalidate the capture. The kernels only ever store 1 into it
// (only on bad input: one write across PCIe), grouped_status reads and clears it from the host.
struct GroupedErrorFlags {
  std::mutex mu;
  unsigned* flags[64] = {};
  ~GroupedErrorFlags() {
    for (unsigned* p : flags)
      if (p != nullptr) cudaFreeHost(p);  // (at exit: an error here has no one to report to)
  }
};
inline GroupedErrorFlags& grouped_error_flags() {
  static GroupedErrorFlags all;
  return all;
}
inline Status grouped_error_flag(int device, unsigned*& flag) {
  if (device < 0 || device >= 64) return Status::NoDevice;
  GroupedErrorFlags& all = grouped_error_flags();
  std::lock_guard<std::mutex> lock(all.mu);
  if (all.flags[device] == nullptr) {
    // A capture in the global mode (this thread's or another's) forbids "potentially unsafe" calls
    // such as allocations; this one does not touch any stream, so the thread's mode is relaxed around it.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    if (cudaError_t err = cudaThreadExchangeStreamCaptureMode(&mode); err != cudaSuccess) {
      cudaGetLastError();
      return record(err, Status::CudaError);
    }
    unsigned* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable);
    cudaThreadExchangeStreamCaptureMode(&mode);  // (back to the caller's mode)
    if (err != cudaSuccess) {
      cudaGetLastError();
      return record(err, Status::CudaError);
    }
    *static_cast<volatile unsigned*>(p) = 0;
    all.flags[device] = p;
  }
  flag = all.flags[device];
  return Status::Success;
}
// Whether a grouped call since the flag was last cleared found rows out of range; clears it.
inline bool take_grouped_error(unsigned* flag) {
  volatile unsigned* word = flag;
  const bool set = *word != 0;
  if (set) *word = 0;
  return set;
}

// C = beta * C over each group's rows (k == 0 or alpha == 0: no product term), rows clamped as the
// main kernel clamps them and flagged where out of range (so such a call reports them too); beta == 0
// writes zeros (C is not read), beta == 1 writes nothing.
template <class Args>
__global__ void grouped_scale_c_kernel(const Args args) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  using Out = typename Args::Output;
  const long long gb = batch_index();
  if (gb >= args.batch) return;
  const int g = static_cast<int>(gb);
  if (blockIdx.x == 0 && threadIdx.x == 0 && !args.group_in_range(g)) *args.error = 1u;  // (a store: every writer writes 1)
  if (args.beta == 1 && !has_epilogue<Args>) return;
  const auto entry = args.entry(g);  // (C at the group's first row, its bias)
  const long long total = static_cast<long long>(entry.m) * args.n;
  PassOutput<std::decay_t<decltype(entry)>> out(entry);  // (an FP8 call's D scale and amax)
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(i / args.n), col = static_cast<int>(i % args.n);
    scale_element(entry.C + static_cast<long long>(row) * args.ldc + col, args.beta, epilogue_of(entry), row, col,
                  out);
  }
  out.finish();
}

// FP8 scales of a grouped call (see the header): A's as a single call's over all of A's rows
// (contiguous: total_rows; masked: groups entries of max_rows), B's one weight's worth per group.
// D scale, amax and FP8 C need beta = 0, as for a single call.
template <class Args>
Status check_grouped_scales(const Args& args, const Scales& scales) {
  if (scales.scales_output() && args.beta != 0) return Status::InvalidOutputScaling;
  if (args.batch == 0 || args.max_rows() == 0 || args.n == 0 || !reads_ab(args)) return Status::Success;
  const long long a_rows =
      args.form == GroupedForm::Masked ? static_cast<long long>(args.batch) * args.max_rows() : args.max_rows();
  if (a_rows > INT_MAX) return Status::ScaleSizeMismatch;  // (more rows than one call's scales can count)
  // b_count >= groups * needed  <=>  b_count / groups >= needed (whole numbers): one weight's check.
  Scales one = scales;
  one.b_count = scales.b_count / args.batch;
  if (Status s = validate_scales(one, static_cast<int>(a_rows), args.n, args.k); s != Status::Success) return s;
  // Promoted every stage, or never (the wide tiles); other spans of Scales::promote_every have no
  // grouped kernel.
  if (scales.promote_k != kScaleBlock && scales.promote_k != 0) return Status::UnsupportedPromotion;
  return Status::Success;
}

// Every grouped call ends here. Args: GroupedArgs (with scales for an FP8 call that has them).
template <class T, class Args>
Status run_grouped(Args args, cudaStream_t stream) {
  using In = storage_t<T>;
  using Out = typename Args::Output;
  static_assert((is_16bit<T> && (std::is_same_v<Out, T> || std::is_same_v<Out, float>)) ||
                    (is_fp8<T> && is_supported_output<T, Out>),
                "gemm grouped: T is __nv_bfloat16 or __half with C in T or float, or __nv_fp8_e4m3 or "
                "__nv_fp8_e5m2 with C in __nv_bfloat16, __half, float or FP8.");
  static_assert(std::is_same_v<typename Args::Element, In>, "gemm grouped: A and B hold T.");
  const bool masked = args.form == GroupedForm::Masked;
  // The host's checks, in the order of the arguments (m is max_rows: every entry's, or all of A's).
  // FP8 tensor cores read B only k-contiguous, and a grouped call copies nothing.
  if (is_k_major_only<T> && args.op_b != Op::T) return Status::UnsupportedLayout;
  if (args.batch < 0) return Status::InvalidBatchCount;
  if (Status s = validate_sizes(args); s != Status::Success) return s;
  if (is_fp8<Out> && args.beta != 0) return Status::InvalidOutputScaling;  // FP8 C is written only
  const int b_rows = args.op_b == Op::T ? args.n : args.k;
  if (masked && args.batch > 1 && args.stride_a < static_cast<long long>(args.max_rows()) * args.lda)
    return Status::InvalidStrideA;
  if (args.stride_b < 0) return Status::InvalidStrideB;
  if (masked && args.batch > 1 && args.stride_c < static_cast<long long>(args.max_rows()) * args.ldc)
    return Status::InvalidStrideC;
  if constexpr (detail::has_scales<Args>) {
    if (Status s = check_grouped_scales(args, args.scales); s != Status::Success) return s;
  }
  if (args.batch == 0 || args.max_rows() == 0 || args.n == 0) return Status::Success;
  if constexpr (has_epilogue<Args>) {
    if (Status s = validate_bias(args.epilogue.bias_kind, args.epilogue.bias); s != Status::Success) return s;
  }
  if (args.rows == nullptr) return Status::NullPointerGroupRows;
  if (args.C == nullptr) return Status::NullPointerC;
  if (!aligned_to(args.C, alignof(Out))) return Status::MisalignedC;
  const bool product = args.k > 0 && args.alpha != 0;
  if (product) {
    if (args.A == nullptr) return Status::NullPointerA;
    if (args.B == nullptr) return Status::NullPointerB;
    // TMA reads A and B as stored: 16-byte-aligned pointers, rows and entry strides (a contiguous
    // A's stride is 0).
    if (!a_aligned(args, 16)) return Status::MisalignedA;
    if (!b_aligned(args, 16)) return Status::MisalignedB;
    if (args.stride_b != 0 && args.batch > 1 && args.stride_b < static_cast<long long>(b_rows) * args.ldb)
      return Status::InvalidStrideB;
  }
  DeviceInfo dev;
  if (Status s = query_device(dev); s != Status::Success) return s;
  if (dev.arch != 90) return Status::UnsupportedArchitecture;
  if (Status s = grouped_error_flag(dev.device, args.error); s != Status::Success) return s;
  if constexpr (detail::has_scales<Args>) {
    if (Status s = reset_amax(args.scales, stream); s != Status::Success) return s;
  }
  if (!product) {
    // Blocks along x over a group's rows, the groups along y and z (detail::Grid); launched for
    // beta == 1 too, to check the rows.
    const long long blocks = std::min<long long>(ceil_div(static_cast<long long>(args.max_rows()) * args.n, 256), 1024);
    return launch_kernel<&grouped_scale_c_kernel<Args>>(Grid(blocks, args.batch), 256, 0, stream, dev, args);
  }
  // 16-bit: wide tiles where n fills them, else 128 x 128. FP8: 128 x 128, whose math warpgroups own
  // 64 x 128 each and so can promote their sums (sm90/scaling.cuh); never promoted
  // (Scales::promote_every(0)), the 16-bit choice.
  using Wide = preset::Tuned::Hopper;
  using Narrow = preset::Tuned::HopperMedium;
  bool wide = args.n >= 256;
  if constexpr (is_fp8<T>) {
    if constexpr (detail::has_scales<Args>) wide = wide && args.scales.promote_k == 0;
    else wide = false;
  }
  return wide ? Wide::template launch_grouped<T>(args, dev, stream)
              : Narrow::template launch_grouped<T>(args, dev, stream);
}

// The arguments of a grouped call of either form (Base: GroupedArgs' base, see grouped_args.cuh).
template <class Base, class In, class Out>
GroupedArgs<In, Out, Base> grouped_args(GroupedForm form, Op op_b, int groups, int max_rows, int n, int k, float alpha,
                                        const In* A, int lda, long long stride_a, const In* B, int ldb,
                                        long long stride_b, float beta, Out* C, int ldc, long long stride_c,
                                        const int* rows) {
  GroupedArgs<In, Out, Base> args;
  args.m = max_rows, args.n = n, args.k = k, args.alpha = alpha, args.beta = beta;
  args.A = A, args.lda = lda, args.B = B, args.ldb = ldb, args.C = C, args.ldc = ldc;
  args.op_a = Op::N, args.op_b = op_b;
  args.batch = groups, args.stride_a = stride_a, args.stride_b = stride_b, args.stride_c = stride_c;
  args.form = form, args.rows = rows;
  return args;
}

template <class In, class Out>
using Plain = GemmArgs<In, Out, Batch::Strided>;
template <class In, class Out, class Epi = NoEpilogue>
using WithScales = ScaledArgs<In, Out, Epi>;
template <class Act, class Bias>
using GroupedFused = FusedEpilogue<Act, Bias, false>;

template <class Out, class Bias>
constexpr void check_grouped_bias() {
  static_assert(std::is_same_v<Bias, float> || std::is_same_v<Bias, Out>,
                "gemm::GroupedEpilogue<Act, Bias>: the bias holds float or C's type.");
}

}  // namespace detail

// A grouped call's fused epilogue, applied in place: C = act(alpha * A_g op(B_g) + beta * C + bias)
// over each group's rows (act: one of gemm::act's, or the caller's own, as for gemm::Epilogue). The
// bias, of float or C's type in device memory: BiasKind::PerColumn, one vector of n per group (group
// g's from bias + g n: a bias per expert); BiasKind::PerRow, one value per row of C (contiguous:
// total_rows; masked: groups x max_rows, entry g's from bias + g max_rows).
template <class Act = act::Identity, class Bias = float>
struct GroupedEpilogue {
  const Bias* bias = nullptr;
  BiasKind bias_kind = BiasKind::None;
  Act act = {};
};

template <class T, class Out>
Status gemm_grouped_contiguous(Op op_b, int groups, int total_rows, int n, int k, scalar_t<T> alpha,
                               const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb, long long stride_b,
                               scalar_t<T> beta, Out* C, int ldc, const int* offsets, cudaStream_t stream = 0) {
  return detail::run_grouped<T>(
      detail::grouped_args<detail::Plain<storage_t<T>, Out>>(GroupedForm::Contiguous, op_b, groups, total_rows, n, k,
                                                              alpha, A, lda, 0, B, ldb, stride_b, beta, C, ldc, 0,
                                                              offsets),
      stream);
}

template <class T, class Out>
Status gemm_grouped_masked(Op op_b, int groups, int max_rows, int n, int k, scalar_t<T> alpha, const storage_t<T>* A,
                           int lda, long long stride_a, const storage_t<T>* B, int ldb, long long stride_b,
                           scalar_t<T> beta, Out* C, int ldc, long long stride_c, const int* counts,
                           cudaStream_t stream = 0) {
  return detail::run_grouped<T>(
      detail::grouped_args<detail::Plain<storage_t<T>, Out>>(GroupedForm::Masked, op_b, groups, max_rows, n, k, alpha,
                                                              A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
                                                              stride_c, counts),
      stream);
}

// FP8 with scales (T = __nv_fp8_e4m3 or __nv_fp8_e5m2; op_b = Op::T): the layouts are in the header.
template <class T, class Out>
Status gemm_grouped_contiguous(Op op_b, int groups, int total_rows, int n, int k, float alpha, const storage_t<T>* A,
                               int lda, const storage_t<T>* B, int ldb, long long stride_b, float beta, Out* C,
                               int ldc, const int* offsets, const Scales& scales, cudaStream_t stream = 0) {
  static_assert(is_fp8<T>, "gemm grouped with gemm::Scales: scales are for FP8 calls only.");
  auto args = detail::grouped_args<detail::WithScales<storage_t<T>, Out>>(
      GroupedForm::Contiguous, op_b, groups, total_rows, n, k, alpha, A, lda, 0, B, ldb, stride_b, beta, C, ldc, 0,
      offsets);
  args.scales = scales;
  return detail::run_grouped<T>(args, stream);
}

template <class T, class Out>
Status gemm_grouped_masked(Op op_b, int groups, int max_rows, int n, int k, float alpha, const storage_t<T>* A,
                           int lda, long long stride_a, const storage_t<T>* B, int ldb, long long stride_b, float beta,
                           Out* C, int ldc, long long stride_c, const int* counts, const Scales& scales,
                           cudaStream_t stream = 0) {
  static_assert(is_fp8<T>, "gemm grouped with gemm::Scales: scales are for FP8 calls only.");
  auto args = detail::grouped_args<detail::WithScales<storage_t<T>, Out>>(
      GroupedForm::Masked, op_b, groups, max_rows, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
      stride_c, counts);
  args.scales = scales;
  return detail::run_grouped<T>(args, stream);
}

// With a fused epilogue (16-bit or FP8 without scales, then with scales).
template <class T, class Out, class Act, class Bias>
Status gemm_grouped_contiguous(Op op_b, int groups, int total_rows, int n, int k, scalar_t<T> alpha,
                               const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb, long long stride_b,
                               scalar_t<T> beta, Out* C, int ldc, const int* offsets,
                               const GroupedEpilogue<Act, Bias>& epilogue, cudaStream_t stream = 0) {
  detail::check_grouped_bias<Out, Bias>();
  using Base = EpilogueArgs<storage_t<T>, Out, detail::GroupedFused<Act, Bias>>;
  auto args = detail::grouped_args<Base>(GroupedForm::Contiguous, op_b, groups, total_rows, n, k, alpha, A, lda, 0, B,
                                         ldb, stride_b, beta, C, ldc, 0, offsets);
  args.epilogue = {epilogue.bias, epilogue.bias_kind, epilogue.act};
  return detail::run_grouped<T>(args, stream);
}

template <class T, class Out, class Act, class Bias>
Status gemm_grouped_masked(Op op_b, int groups, int max_rows, int n, int k, scalar_t<T> alpha, const storage_t<T>* A,
                           int lda, long long stride_a, const storage_t<T>* B, int ldb, long long stride_b,
                           scalar_t<T> beta, Out* C, int ldc, long long stride_c, const int* counts,
                           const GroupedEpilogue<Act, Bias>& epilogue, cudaStream_t stream = 0) {
  detail::check_grouped_bias<Out, Bias>();
  using Base = EpilogueArgs<storage_t<T>, Out, detail::GroupedFused<Act, Bias>>;
  auto args = detail::grouped_args<Base>(GroupedForm::Masked, op_b, groups, max_rows, n, k, alpha, A, lda, stride_a, B,
                                         ldb, stride_b, beta, C, ldc, stride_c, counts);
  args.epilogue = {epilogue.bias, epilogue.bias_kind, epilogue.act};
  return detail::run_grouped<T>(args, stream);
}

template <class T, class Out, class Act, class Bias>
Status gemm_grouped_contiguous(Op op_b, int groups, int total_rows, int n, int k, float alpha, const storage_t<T>* A,
                               int lda, const storage_t<T>* B, int ldb, long long stride_b, float beta, Out* C,
                               int ldc, const int* offsets, const Scales& scales,
                               const GroupedEpilogue<Act, Bias>& epilogue, cudaStream_t stream = 0) {
  static_assert(is_fp8<T>, "gemm grouped with gemm::Scales: scales are for FP8 calls only.");
  detail::check_grouped_bias<Out, Bias>();
  auto args = detail::grouped_args<detail::WithScales<storage_t<T>, Out, detail::GroupedFused<Act, Bias>>>(
      GroupedForm::Contiguous, op_b, groups, total_rows, n, k, alpha, A, lda, 0, B, ldb, stride_b, beta, C, ldc, 0,
      offsets);
  args.scales = scales;
  args.epilogue = {epilogue.bias, epilogue.bias_kind, epilogue.act};
  return detail::run_grouped<T>(args, stream);
}

template <class T, class Out, class Act, class Bias>
Status gemm_grouped_masked(Op op_b, int groups, int max_rows, int n, int k, float alpha, const storage_t<T>* A,
                           int lda, long long stride_a, const storage_t<T>* B, int ldb, long long stride_b, float beta,
                           Out* C, int ldc, long long stride_c, const int* counts, const Scales& scales,
                           const GroupedEpilogue<Act, Bias>& epilogue, cudaStream_t stream = 0) {
  static_assert(is_fp8<T>, "gemm grouped with gemm::Scales: scales are for FP8 calls only.");
  detail::check_grouped_bias<Out, Bias>();
  auto args = detail::grouped_args<detail::WithScales<storage_t<T>, Out, detail::GroupedFused<Act, Bias>>>(
      GroupedForm::Masked, op_b, groups, max_rows, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
      stride_c, counts);
  args.scales = scales;
  args.epilogue = {epilogue.bias, epilogue.bias_kind, epilogue.act};
  return detail::run_grouped<T>(args, stream);
}

// Waits for the stream and reports whether a grouped call since the last query found offsets or
// counts out of range (Status::InvalidGroupRows; the flag is then cleared), else Success. Pass the
// stream the calls were made on (or synchronise their streams first): the flag is read from the host
// once this stream is done, and a call still running on another stream may not have set it yet.
inline Status grouped_status(cudaStream_t stream = 0) {
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) {
    cudaGetLastError();
    return detail::record(err, Status::NoDevice);
  }
  unsigned* flag = nullptr;
  if (Status s = detail::grouped_error_flag(device, flag); s != Status::Success) return s;
  if (cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess) {
    cudaGetLastError();
    return detail::record(err, Status::CudaError);
  }
  if (!detail::take_grouped_error(flag)) return Status::Success;
  return Status::InvalidGroupRows;
}

}  // namespace gemm
