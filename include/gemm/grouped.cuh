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
// float; sm_90 (the persistent wgmma kernel with a grouped tile scheduler: empty groups cost nothing).
// Everything the host can see is checked before any launch (sizes, leading dimensions, strides that
// keep entries apart, null and misaligned pointers: A and B as TMA reads them, rows of whole 16
// bytes). Offsets and counts on the device cannot be checked there: the kernels clamp them into the
// buffers (negative or decreasing offsets, rows past total_rows or max_rows), so nothing outside the
// buffers is read or written, and set a flag that gemm::grouped_status() turns into
// Status::InvalidGroupRows (the first call of a process allocates that flag: make it before capturing).
#include <cuda_runtime.h>
#include "args.cuh"
#include "detail/batch.cuh"
#include "detail/launch.cuh"
#include "grouped_args.cuh"
#include "status.cuh"
#include "tuned.cuh"
#include "types.cuh"

namespace gemm {
namespace detail {

// The flag the grouped kernels set when a group's rows were out of range: one word of device memory
// per device, allocated at the first grouped call and freed when the program ends.
struct GroupedErrorFlags {
  unsigned* flags[64] = {};
  ~GroupedErrorFlags() {
    for (unsigned* p : flags)
      if (p != nullptr) cudaFree(p);  // (at exit: an error here has no one to report to)
  }
};
inline Status grouped_error_flag(int device, unsigned*& flag) {
  static GroupedErrorFlags all;
  unsigned** flags = all.flags;
  if (device < 0 || device >= 64) return Status::NoDevice;
  if (flags[device] == nullptr) {
    unsigned* p = nullptr;
    if (cudaError_t err = cudaMalloc(&p, sizeof(unsigned)); err != cudaSuccess) {
      cudaGetLastError();
      return record(err, Status::CudaError);
    }
    if (cudaError_t err = cudaMemset(p, 0, sizeof(unsigned)); err != cudaSuccess) {
      cudaGetLastError();
      cudaFree(p);
      return record(err, Status::CudaError);
    }
    flags[device] = p;
  }
  flag = flags[device];
  return Status::Success;
}

// C = beta * C over each group's rows (k == 0 or alpha == 0: no product term), rows clamped as the
// main kernel clamps them and flagged where out of range (so such a call reports them too); beta == 0
// writes zeros (C is not read), beta == 1 writes nothing.
template <class Args>
__global__ void grouped_scale_c_kernel(const Args args) {
  using Out = typename Args::Output;
  const long long gb = batch_index();
  if (gb >= args.batch) return;
  const int g = static_cast<int>(gb);
  if (blockIdx.x == 0 && threadIdx.x == 0 && !args.group_in_range(g)) atomicOr(args.error, 1u);
  if (args.beta == 1) return;
  const int rows = args.group_rows(g);
  const long long begin = args.group_begin(g);
  Out* c = args.form == GroupedForm::Masked ? args.C + g * args.stride_c : args.C + begin * args.ldc;
  const long long total = static_cast<long long>(rows) * args.n;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    Out* p = c + (i / args.n) * args.ldc + i % args.n;
    *p = convert<Out>(args.beta == 0 ? 0.0f : args.beta * convert<float>(*p));
  }
}

template <class T, class Out>
Status run_grouped(GroupedArgs<storage_t<T>, Out> args, cudaStream_t stream) {
  static_assert(is_16bit<T> && (std::is_same_v<Out, T> || std::is_same_v<Out, float>),
                "gemm grouped: T is __nv_bfloat16 or __half, C holds T or float.");
  using In = storage_t<T>;
  const bool masked = args.form == GroupedForm::Masked;
  // The host's checks, in the order of the arguments (m is max_rows: every entry's, or all of A's).
  if (args.batch < 0) return Status::InvalidBatchCount;
  if (Status s = validate_sizes(args); s != Status::Success) return s;
  const int b_rows = args.op_b == Op::T ? args.n : args.k;
  if (masked && args.batch > 1 && args.stride_a < static_cast<long long>(args.max_rows()) * args.lda)
    return Status::InvalidStrideA;
  if (args.stride_b < 0) return Status::InvalidStrideB;
  if (masked && args.batch > 1 && args.stride_c < static_cast<long long>(args.max_rows()) * args.ldc)
    return Status::InvalidStrideC;
  if (args.batch == 0 || args.max_rows() == 0 || args.n == 0) return Status::Success;
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
  if (!product) {
    // Blocks along x over a group's rows, the groups along y and z (detail::Grid); launched for
    // beta == 1 too, to check the rows.
    const long long blocks = std::min<long long>(ceil_div(static_cast<long long>(args.max_rows()) * args.n, 256), 1024);
    return launch_kernel<&grouped_scale_c_kernel<GroupedArgs<In, Out>>>(Grid(blocks, args.batch), 256, 0, stream, dev,
                                                                        args);
  }
  // Wide tiles where n fills them, else 128 x 128.
  using Wide = preset::Tuned::Hopper;
  using Narrow = preset::Tuned::HopperMedium;
  return args.n >= 256 ? Wide::template launch_grouped<T>(args, dev, stream)
                       : Narrow::template launch_grouped<T>(args, dev, stream);
}

}  // namespace detail

template <class T, class Out>
Status gemm_grouped_contiguous(Op op_b, int groups, int total_rows, int n, int k, scalar_t<T> alpha,
                               const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb, long long stride_b,
                               scalar_t<T> beta, Out* C, int ldc, const int* offsets, cudaStream_t stream = 0) {
  GroupedArgs<storage_t<T>, Out> args;
  static_cast<GemmArgs<storage_t<T>, Out, Batch::Strided>&>(args) = {total_rows, n, k, alpha, A, lda, B, ldb, beta,
                                                                     C, ldc, Op::N, op_b};
  args.batch = groups, args.stride_a = 0, args.stride_b = stride_b, args.stride_c = 0;
  args.form = GroupedForm::Contiguous, args.rows = offsets;
  return detail::run_grouped<T, Out>(args, stream);
}

template <class T, class Out>
Status gemm_grouped_masked(Op op_b, int groups, int max_rows, int n, int k, scalar_t<T> alpha, const storage_t<T>* A,
                           int lda, long long stride_a, const storage_t<T>* B, int ldb, long long stride_b,
                           scalar_t<T> beta, Out* C, int ldc, long long stride_c, const int* counts,
                           cudaStream_t stream = 0) {
  GroupedArgs<storage_t<T>, Out> args;
  static_cast<GemmArgs<storage_t<T>, Out, Batch::Strided>&>(args) = {max_rows, n, k, alpha, A, lda, B, ldb, beta,
                                                                     C, ldc, Op::N, op_b};
  args.batch = groups, args.stride_a = stride_a, args.stride_b = stride_b, args.stride_c = stride_c;
  args.form = GroupedForm::Masked, args.rows = counts;
  return detail::run_grouped<T, Out>(args, stream);
}

// Waits for the stream and reports whether a grouped call since the last query found offsets or
// counts out of range (Status::InvalidGroupRows; the flag is then cleared), else Success.
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
  unsigned value = 0;
  if (cudaError_t err = cudaMemcpy(&value, flag, sizeof(unsigned), cudaMemcpyDeviceToHost); err != cudaSuccess) {
    cudaGetLastError();
    return detail::record(err, Status::CudaError);
  }
  if (value == 0) return Status::Success;
  if (cudaError_t err = cudaMemset(flag, 0, sizeof(unsigned)); err != cudaSuccess) {
    cudaGetLastError();
    return detail::record(err, Status::CudaError);
  }
  return Status::InvalidGroupRows;
}

}  // namespace gemm
