#pragma once
// Scratch copies of a call's A, B and C with 64-byte-aligned rows, carved out of one block of
// stream-ordered scratch: what kernels whose loads need aligned rows read and write instead of the
// caller's matrices (the Hopper family's TMA: HopperPolicy::plan_staging; the CUDA-core vector paths:
// PackedRows). A and B are copied row for row (pack_kernel.cuh, both in one launch) or transposed
// (transpose_kernel.cuh: an operand stored k x m or k x n made k-contiguous); C is computed in its
// copy, which first receives C where the kernel reads it (beta != 0), and goes back after. FP8 block
// scales (A's: a row of m per k block; B's: a row of ceil(k / 128) per column block) are copied row
// for row too, for kernels that copy them into shared memory in 16-byte runs.
#include <algorithm>
#include <cstddef>
#include "../args.cuh"
#include "../detail/launch.cuh"
#include "../scales.cuh"
#include "pack_kernel.cuh"
#include "transpose_kernel.cuh"

namespace gemm::detail {

struct ScratchCopies {
  static constexpr int kRowBytes = 64;  // what every copy's rows are aligned to
  static constexpr int kCopies = 5;
  bool copy[kCopies] = {};                       // A, B, C, A's block scales, B's block scales
  bool transposed[2] = {false, false};          // A, B copied transposed (stored rows of length k)
  int rows[kCopies] = {}, row_len[kCopies] = {}, ld[kCopies] = {};  // rows, their length, the leading dimension
  std::size_t offset[kCopies] = {}, bytes = 0;  // where each copy starts in the block; the block's size

  // Plans a copy of matrix x (0: A, 1: B, 2: C, 3 and 4: A's and B's block scales) as rows rows of
  // row_len elements of elem_bytes each.
  void add(int x, int rows_, int row_len_, std::size_t elem_bytes, bool transpose = false) {
    const int per_row = kRowBytes / static_cast<int>(elem_bytes);
    copy[x] = true;
    if (x < 2) transposed[x] = transpose;
    rows[x] = rows_, row_len[x] = row_len_;
    ld[x] = static_cast<int>(ceil_div(std::max(1, row_len_), per_row) * per_row);
    offset[x] = bytes;
    bytes += (static_cast<std::size_t>(rows_) * ld[x] * elem_bytes + 255) / 256 * 256;
  }

  // Makes the copies on the stream (before the kernel) in the block at scratch and points args at them.
  template <class Args>
  Status stage_in(Args& args, char* scratch, const DeviceInfo& dev, cudaStream_t stream) const {
    using In = typename Args::Element;
    using Out = typename Args::Output;
    const In** operand[2] = {&args.A, &args.B};
    int* lds[2] = {&args.lda, &args.ldb};
    RowCopies<In> packs;  // A's and B's row copies go in one launch
    for (int x = 0; x < 2; ++x) {
      if (!copy[x]) continue;
      In* dst = reinterpret_cast<In*>(scratch + offset[x]);
      if (transposed[x]) {
        if (Status s = transpose(*operand[x], *lds[x], row_len[x], rows[x], dst, ld[x], dev, stream);
            s != Status::Success)
          return s;
        (x == 0 ? args.op_a : args.op_b) = x == 0 ? Op::N : Op::T;
      } else {
        (packs.first.rows == 0 ? packs.first : packs.second) = {*operand[x], *lds[x], rows[x], row_len[x], dst, ld[x]};
      }
      *operand[x] = dst;
      *lds[x] = ld[x];
    }
    if (Status s = copy_rows(packs, dev, stream); s != Status::Success) return s;
    if (copy[2]) {
      Out* dst = reinterpret_cast<Out*>(scratch + offset[2]);
      if (args.beta != 0) {  // (with beta == 0 the kernel writes C without reading it)
        if (Status s = copy_rows(args.C, args.ldc, args.m, args.n, dst, ld[2], dev, stream); s != Status::Success)
          return s;
      }
      args.C = dst;
      args.ldc = ld[2];
    }
    if constexpr (has_scales<Args>) {
      Scales& sc = args.scales;
      RowCopies<float> scales;
      if (copy[3]) {
        float* dst = reinterpret_cast<float*>(scratch + offset[3]);
        scales.first = {sc.a, static_cast<int>(sc.a_step(args.m)), rows[3], row_len[3], dst, ld[3]};
        sc.a = dst;
        sc.a_k_stride = ld[3];
      }
      if (copy[4]) {
        float* dst = reinterpret_cast<float*>(scratch + offset[4]);
        const int ld_src = static_cast<int>(sc.b_step(args.k));
        (copy[3] ? scales.second : scales.first) = {sc.b, ld_src, rows[4], row_len[4], dst, ld[4]};
        sc.b = dst;
        sc.b_n_stride = ld[4];
      }
      if (Status s = copy_rows(scales, dev, stream); s != Status::Success) return s;
    }
    return Status::Success;
  }

  // After the kernel: a C computed in its copy (args, as stage_in left them) goes back to the caller's.
  template <class Args>
  Status stage_out(const Args& caller_args, const Args& args, const DeviceInfo& dev, cudaStream_t stream) const {
    if (!copy[2]) return Status::Success;
    return copy_rows(args.C, args.ldc, args.m, args.n, caller_args.C, caller_args.ldc, dev, stream);
  }
};

}  // namespace gemm::detail
