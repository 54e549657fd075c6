#pragma once
// gemm::distributed: one GEMM over several GPUs through NCCL (target gemm::distributed).
//
//   C (m x n, row-major) = alpha * op(A) * op(B) + beta * C,   op(A) m x k, op(B) k x n,
//
// the problem of gemm::gemm<T>(op_a, op_b, ...), with every rank holding a shard of A, B and C
// (shard.hpp says which; C is always split by rows). Two ways to call it:
//
//   gemm::distributed::gemm<T>(context, algorithm, op_a, op_b, m, n, k, alpha, A, B, beta, C, stream)
//       one rank: one process (or thread) per GPU, with your NCCL communicator wrapped in a Context;
//   gemm::distributed::gemm<T>(group, algorithm, op_a, op_b, m, n, k, alpha, As, Bs, beta, Cs)
//       every GPU of this process from one thread (LocalGroup), one shard per rank in each list.
//
// m, n, k, alpha, beta, the layouts, the types and the algorithm are global: every rank must pass
// the same (Options::check_agreement makes the ranks compare them). A, B, C are this rank's shards
// (Shard: pointer, rows x cols as stored, leading dimension); their shapes must be the ones
// stored_block() gives, or the call returns ShardMismatchA/B/C. Types: those of gemm::gemm (float,
// gemm::tf32, double, __nv_bfloat16, __half; C of the input type, or float for 16-bit inputs);
// layouts: op N or T for A and B, any leading dimensions. The local multiplies are gemm::gemm<T,
// Policy> calls (Policy: the default policy unless named).
//
// Algorithms (Algorithm in shard.hpp):
//   RowSplit           A and C by rows, B replicated: one local multiply, no communication.
//   AllGather          A and C by rows, B by columns. p steps around a ring: at step s a rank
//                      multiplies the B block it holds (its own first) into its C columns while NCCL
//                      sends that block to the next rank and receives the next one from the previous
//                      rank into the other of two buffers. NCCL runs on a high-priority stream with
//                      few CTAs (Options::comm_ctas) and the multiply beside it plans for the
//                      remaining SMs (gemm::SmLimit).
//   AllGatherThenGemm  AllGather's sharding: receive every B block first, then multiply (no
//                      overlap; the baseline for AllGather, and the simpler choice for small shapes).
//   ReduceScatter      A by columns and B by rows (k split): a rank computes the partial product of
//                      every row block of C (in scalar_t<T>: float for 16-bit inputs), and each block
//                      is summed onto its owner with ncclReduce while the next one is computed; the
//                      owner adds beta * C once.
//
// Every call validates everything on every rank before the first collective (sizes, shard shapes,
// leading dimensions, pointers, the device, the workspace), so an invalid call returns its Status
// and enqueues nothing. The single-process call checks all ranks before any of them starts. Ranks
// driven separately each check their own arguments: a rank that returns early leaves its peers
// waiting in a collective, unless Options::check_agreement is on. After CommunicatorError, abort
// the communicators (ncclCommAbort). The work is enqueued on `stream` (the group's streams) and the
// call returns without waiting; the shards must stay untouched until the stream has passed it.
//
// NVLink multicast must stay off: LocalGroup sets NCCL_NVLS_ENABLE=0 before creating communicators;
// if you create your own, call disable_nvls() first. Context::init refuses to run with
// NCCL_NVLS_ENABLE other than "0" (Options::allow_nvls overrides that where multicast is allowed).
#include <cstddef>
#include <memory>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>
#include "../gemm.cuh"
#include "all_gather.cuh"
#include "all_gather_then_gemm.cuh"
#include "context.cuh"
#include "local_plan.cuh"
#include "reduce_scatter.cuh"
#include "shard.hpp"

namespace gemm::distributed {

namespace detail {

// Runs prepared plans (one per rank of this thread, all of one algorithm) step by step; the NCCL
// calls of a step go in one group. Returns the first failure; `failed` gets its plan's index.
template <class PlanT>
Status execute(PlanT* const* plans, int count, int& failed) {
  failed = -1;
  auto each = [&](auto&& f) {
    for (int i = 0; i < count; ++i) {
      DeviceGuard guard(plans[i]->device());
      f(*plans[i]);
    }
  };
  each([](PlanT& p) { p.begin(); });
  if constexpr (PlanT::kCommunicates) {
    const int steps = plans[0]->steps();
    for (int s = 0; s < steps; ++s) {
      each([s](PlanT& p) { p.before(s); });
      ncclResult_t r = ncclGroupStart();
      int at = 0;
      for (; at < count && r == ncclSuccess; ++at) {
        DeviceGuard guard(plans[at]->device());
        r = plans[at]->exchange(s);
      }
      const ncclResult_t end = ncclGroupEnd();
      if (r != ncclSuccess || end != ncclSuccess) {
        failed = r != ncclSuccess ? at - 1 : 0;
        return nccl_status(r != ncclSuccess ? r : end);
      }
      each([s](PlanT& p) { p.after(s); });
    }
  }
  each([](PlanT& p) { p.end(); });
  for (int i = 0; i < count; ++i)
    if (plans[i]->status() != Status::Success) {
      failed = i;
      return plans[i]->status();
    }
  return Status::Success;
}

template <class T, class Policy, class Out>
constexpr bool check_types() {
  static_assert(is_math_type<T>,
                "gemm::distributed::gemm<T>: T must be float, gemm::tf32, double, __nv_bfloat16 or __half.");
  static_assert(!is_math_type<T> || is_supported_output<T, Out>,
                "gemm::distributed::gemm<T>: C must hold the input type, or float for __nv_bfloat16 and __half.");
  static_assert(!is_math_type<T> || !is_supported_output<T, Out> ||
                    (Policy::template kServes<T, Out> && Policy::template kServes<T, scalar_t<T>>),
                "gemm::distributed::gemm<T, Policy>: the policy must serve T with C of type Out, and with C of "
                "type scalar_t<T> (ReduceScatter's partial products).");
  return is_math_type<T> && is_supported_output<T, Out> && Policy::template kServes<T, Out> &&
         Policy::template kServes<T, scalar_t<T>>;
}

template <class PlanT>
struct PlanType {
  using type = PlanT;
};

// Calls f(PlanType<P>{}) with the plan P a call runs: its algorithm's, or LocalPlan where nothing
// needs communicating (an empty C, no product, one rank, RowSplit). p: the number of ranks.
template <class T, class Policy, class Out, class F>
Status with_plan_type(Algorithm algorithm, int p, int m, int n, int k, scalar_t<T> alpha, F&& f) {
  const bool product = k > 0 && alpha != scalar_t<T>(0);
  if (m == 0 || n == 0 || !product || p == 1 || algorithm == Algorithm::RowSplit)
    return f(PlanType<LocalPlan<T, Policy, Out>>{});
  if (algorithm == Algorithm::AllGather) return f(PlanType<AllGatherPlan<T, Policy, Out>>{});
  if (algorithm == Algorithm::AllGatherThenGemm) return f(PlanType<AllGatherThenGemmPlan<T, Policy, Out>>{});
  return f(PlanType<ReduceScatterPlan<T, Policy, Out>>{});
}

}  // namespace detail

// One rank's call: see the top of this file. `ctx` wraps this rank's communicator; the work goes
// on `stream` (a stream of ctx.device()) and on ctx's communication stream, joined back into
// `stream` before the call's end.
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm(Context& ctx, Algorithm algorithm, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
            Shard<const storage_t<T>> A, Shard<const storage_t<T>> B, scalar_t<T> beta, Shard<Out> C,
            cudaStream_t stream = 0) {
  if constexpr (!detail::check_types<T, Policy, Out>()) {
    return Status::InvalidSize;  // never compiled into a program: a static_assert has stopped the build
  } else {
    if (!ctx.ready()) return Status::InvalidCommunicator;
    detail::DeviceGuard guard(ctx.device());
    if (guard.error() != cudaSuccess) return detail::cuda_status(guard.error());
    return detail::with_plan_type<T, Policy, Out>(algorithm, ctx.size(), m, n, k, alpha, [&](auto type) {
      using PlanT = typename decltype(type)::type;
      PlanT plan(ctx, algorithm, op_a, op_b, m, n, k, alpha, A, B, beta, C, stream);
      const Status local = plan.prepare();
      if (ctx.options().check_agreement) {
        if (local == Status::InvalidCommunicator) return local;
        if (Status s = plan.agree(local); s != Status::Success) return s;
      } else if (local != Status::Success) {
        return local;
      }
      PlanT* plans[1] = {&plan};
      int failed = -1;
      return detail::execute(plans, 1, failed);
    });
  }
}

// Every GPU of `group` from this thread: A[r], B[r], C[r] are rank r's shards, the work of rank r
// goes on group.stream(r). Checks every rank before any work starts; on a refusal
// group.failed_rank() names the rank whose arguments were refused.
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm(LocalGroup& group, Algorithm algorithm, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
            const std::vector<Shard<const storage_t<T>>>& A, const std::vector<Shard<const storage_t<T>>>& B,
            scalar_t<T> beta, const std::vector<Shard<Out>>& C) {
  if constexpr (!detail::check_types<T, Policy, Out>()) {
    return Status::InvalidSize;  // never compiled into a program: a static_assert has stopped the build
  } else {
    group.set_failed_rank(-1);
    const int p = group.size();
    if (p == 0) return Status::InvalidCommunicator;
    if (A.size() != static_cast<std::size_t>(p) || B.size() != static_cast<std::size_t>(p) ||
        C.size() != static_cast<std::size_t>(p))
      return Status::InvalidCommunicator;
    return detail::with_plan_type<T, Policy, Out>(algorithm, p, m, n, k, alpha, [&](auto type) {
      using PlanT = typename decltype(type)::type;
      std::vector<std::unique_ptr<PlanT>> plans;
      std::vector<PlanT*> raw;
      for (int r = 0; r < p; ++r) {
        plans.push_back(std::make_unique<PlanT>(group.context(r), algorithm, op_a, op_b, m, n, k, alpha, A[r], B[r],
                                                beta, C[r], group.stream(r)));
        raw.push_back(plans.back().get());
      }
      for (int r = 0; r < p; ++r) {
        detail::DeviceGuard guard(group.device(r));
        if (guard.error() != cudaSuccess) {
          group.set_failed_rank(r);
          return detail::cuda_status(guard.error());
        }
        if (Status s = plans[r]->prepare(); s != Status::Success) {
          group.set_failed_rank(r);
          return s;
        }
      }
      int failed = -1;
      const Status s = detail::execute(raw.data(), p, failed);
      group.set_failed_rank(failed);
      return s;
    });
  }
}

}  // namespace gemm::distributed
