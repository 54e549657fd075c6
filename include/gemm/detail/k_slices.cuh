#pragma once
// One call run as several calls over slices of k, each adding its product into C:
//   C = epilogue(alpha op(A) op(B) + beta C) = slice 1: C = alpha op(A1) op(B1) + beta C,
//                                              slice 2: C = alpha op(A2) op(B2) + C, ...,
//                                              last:    C = epilogue(alpha op(An) op(Bn) + C).
// 3xTF32 uses it to shorten the chain of fp32 adds each accumulator is (its rounding error grows
// with the chain's length); the extra cost is one read and write of C per slice.
#include <algorithm>
#include "../epilogue.cuh"
#include "launch.cuh"

namespace gemm::detail {

// Args for the k range [k0, k0 + len) of args (A and B offset along k in their stored layouts); past
// the first slice beta is 1, since C then already holds beta C plus the earlier slices.
template <class Args>
Args k_range(Args args, int k0, int len) {
  static_assert(Args::kBatching != Batch::Pointers,
                "k_range: a pointer-array batch's operands cannot be offset on the host.");
  args.A += args.op_a == Op::N ? static_cast<long long>(k0) : static_cast<long long>(k0) * args.lda;
  args.B += args.op_b == Op::N ? static_cast<long long>(k0) * args.ldb : static_cast<long long>(k0);
  args.k = len;
  if (k0 > 0) args.beta = 1;
  return args;
}

// Slices of at most max_k, of equal length rounded up to a multiple of `multiple` (the last may be
// shorter); launch(slice_args) runs each: the slices before the last without the fused epilogue.
template <class Args, class Launch>
Status in_k_slices(const Args& args, int max_k, int multiple, Launch&& launch) {
  if (args.k <= max_k) return launch(args);
  const int k = args.k;
  const int slices = static_cast<int>(ceil_div(k, max_k));
  const int slice = static_cast<int>(ceil_div(ceil_div(k, slices), multiple) * multiple);
  const auto partial = without_epilogue(args);
  for (int k0 = 0; k0 < k; k0 += slice) {
    const int len = std::min(slice, k - k0);
    const Status s = k0 + len < k ? launch(k_range(partial, k0, len)) : launch(k_range(args, k0, len));
    if (s != Status::Success) return s;
  }
  return Status::Success;
}

}  // namespace gemm::detail
