#pragma once
// Grouped GEMM with host-side sizes: a list of independent products of any sizes, layouts and
// leading dimensions, each given on the host (the form of cublasGemmGroupedBatchedEx, whose groups
// of equal-sized problems are simply consecutive entries here). Every problem is checked first, as
// gemm::gemm checks it, and nothing is launched unless all pass; then each runs as its own call of
// the policy (Tuned: the composition for its shape), spread round-robin over a few streams forked
// from the caller's and joined back (detail/stream_fan.cuh), so that small problems run side by side.
// A problem whose C is empty costs nothing. The calls never synchronise with the host and can be
// captured in a CUDA graph. (Sizes known only on the device: gemm_grouped_contiguous and
// gemm_grouped_masked.)
#include <vector>
#include <cuda_runtime.h>
#include "detail/stream_fan.cuh"
#include "gemm.cuh"

namespace gemm {

// One product: C = alpha * op(A) * op(B) + beta * C, row-major, with gemm::gemm's arguments.
template <class T, class Out = storage_t<T>>
struct GroupedProblem {
  Op op_a = Op::N, op_b = Op::N;
  int m = 0, n = 0, k = 0;
  scalar_t<T> alpha = 1;
  const storage_t<T>* A = nullptr;
  int lda = 0;
  const storage_t<T>* B = nullptr;
  int ldb = 0;
  scalar_t<T> beta = 0;
  Out* C = nullptr;
  int ldc = 0;
};

namespace detail {
template <class T, class Out>
GemmArgs<storage_t<T>, Out> problem_args(const GroupedProblem<T, Out>& p) {
  return {p.m, p.n, p.k, p.alpha, p.A, p.lda, p.B, p.ldb, p.beta, p.C, p.ldc, p.op_a, p.op_b};
}

// swap: the problems are column-major ones turned row-major (gemm::blas), so statuses naming A or B
// name the caller's B or A.
template <class T, class Policy, class Out>
Status run_problem_list(const GroupedProblem<T, Out>* problems, int count, cudaStream_t stream, int* failed,
                        bool swap) {
  if (failed) *failed = -1;
  // Problem i's status as the caller names it (-1: none of the problems').
  const auto fail = [&](int i, Status s) {
    if (failed) *failed = i;
    return swap ? swap_ab(s) : s;
  };
  if (count < 0 || (count > 0 && problems == nullptr)) return Status::InvalidBatchCount;
  if (count == 0) return Status::Success;
  if constexpr (check_types<T, Policy, Out>()) {
    for (int i = 0; i < count; ++i) {
      bool empty = false;
      if (Status s = check_arguments<T, Policy>(problem_args(problems[i]), empty); s != Status::Success)
        return fail(i, s);
    }
    if (count == 1) {
      const Status s = run<T, Policy, AnyOps, Out>(problem_args(problems[0]), stream);
      return s == Status::Success ? s : fail(0, s);
    }
    int device = 0;
    if (Status s = cuda_status(cudaGetDevice(&device)); s != Status::Success) return s;
    StreamFan* fan = nullptr;
    if (Status s = stream_fans().acquire(device, fan); s != Status::Success) return s;
    Status s = fan->open(stream);
    int i = 0;
    for (; i < count && s == Status::Success; ++i)
      s = run<T, Policy, AnyOps, Out>(problem_args(problems[i]), fan->streams[i % kFanStreams]);
    // (A device or launch failure: the problems before it were launched. The streams join either way.)
    const bool problem_failed = s != Status::Success && i > 0;
    const Status joined = fan->close(stream);
    stream_fans().release(fan);
    if (s == Status::Success) s = joined;
    if (s != Status::Success) return fail(problem_failed ? i - 1 : -1, s);
  }
  return Status::Success;
}
}  // namespace detail

// problems[0, count): the status of the first problem that fails its checks (its index in *failed,
// else -1) with nothing launched; InvalidBatchCount for count < 0, or a null list with count > 0.
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm_grouped(const GroupedProblem<T, Out>* problems, int count, cudaStream_t stream = 0,
                    int* failed = nullptr) {
  return detail::run_problem_list<T, Policy, Out>(problems, count, stream, failed, false);
}

namespace blas {
// One column-major product: the fields of gemm::GroupedProblem read as cublasGemmGroupedBatchedEx's
// per-problem arguments (op_a, op_b are transa, transb): C (m x n, ldc >= m) = alpha * op(A) * op(B)
// + beta * C, as gemm::blas::gemm takes it.
template <class T, class Out = storage_t<T>>
using GroupedProblem = gemm::GroupedProblem<T, Out>;

// The list column-major; each problem is the row-major one of C^T = op(B)^T op(A)^T (gemm::blas),
// turned in a copy of the list on the host.
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm_grouped(const GroupedProblem<T, Out>* problems, int count, cudaStream_t stream = 0,
                    int* failed = nullptr) {
  std::vector<gemm::GroupedProblem<T, Out>> rows;
  for (int i = 0; problems != nullptr && i < count; ++i) {
    const GroupedProblem<T, Out>& p = problems[i];
    rows.push_back({p.op_b, p.op_a, p.n, p.m, p.k, p.alpha, p.B, p.ldb, p.A, p.lda, p.beta, p.C, p.ldc});
  }
  // (A count below 1 or a null list reaches the checks as given.)
  return gemm::detail::run_problem_list<T, Policy, Out>(rows.empty() ? problems : rows.data(), count, stream, failed,
                                                        true);
}
}  // namespace blas

}  // namespace gemm
