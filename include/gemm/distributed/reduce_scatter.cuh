#pragma once
// The plan of Algorithm::ReduceScatter (gemm.cuh has what it does): the partial products fill an
// m x n buffer in scalar_t<T>; step q computes the rows of rank q's block and ncclReduces them in
// place onto rank q beside the next step's multiply (ncclReduce, not ncclReduceScatter: that needs
// equal counts, which uneven row blocks do not have); add_partial_kernel then gives the owner's C.
#include <algorithm>
#include "../ptx/grid_dependency.cuh"
#include "shard_plan.cuh"

namespace gemm::distributed::detail {

// The last pass: C = partial + beta * C on the owner's rows (beta == 0: C is not read). One block
// per row (grid-stride over rows), threads along the row.
template <class P, class Out, class S>
__global__ void add_partial_kernel(int rows, int cols, const P* __restrict__ partial, long long ldp, S beta,
                                   Out* __restrict__ C, long long ldc) {
  ::gemm::ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  for (int i = blockIdx.x; i < rows; i += gridDim.x) {
    const P* p = partial + i * ldp;
    Out* c = C + i * ldc;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
      S v = static_cast<S>(p[j]);
      if (beta != S(0)) v += beta * ::gemm::detail::convert<S>(c[j]);
      c[j] = ::gemm::detail::convert<Out>(v);
    }
  }
}

template <class T, class Policy, class Out>
class ReduceScatterPlan : public ShardPlan<T, Policy, Out> {
  using Core = ShardPlan<T, Policy, Out>;
  using typename Core::In, typename Core::S;
  using Core::A_, Core::B_, Core::C_, Core::alpha_, Core::beta_, Core::op_a_, Core::op_b_, Core::m_, Core::n_,
      Core::k_, Core::p_, Core::r_, Core::stream_, Core::dev_, Core::error_;
  using Core::prepare_multiplies, Core::workspace, Core::multiply, Core::comm, Core::comm_stream,
      Core::wait_for_previous_call, Core::start_transfers, Core::multiply_done, Core::transfer_waits_for_multiply,
      Core::join_transfers, Core::finish;

 public:
  using Core::Core;

  static constexpr bool kCommunicates = true;
  int steps() const { return p_; }

  Status prepare() {
    return prepare_multiplies([&] { return take_workspace(); }, [&](int q) { return block_args(q); });
  }

  void begin() {
    wait_for_previous_call();
    start_transfers();
  }

  void before(int s) {
    multiply(block_args(s), s >= 1);  // beside the reduction of the previous block
    multiply_done();
    transfer_waits_for_multiply();
  }

  ncclResult_t exchange(int s) {
    const Range rows = partition(m_, p_, s);
    const std::size_t count = partial_count(rows.size, n_, ldp_);
    S* block = partial_ + static_cast<std::size_t>(rows.offset) * ldp_;
    if (count == 0) return ncclSuccess;
    return ncclReduce(block, block, count, nccl_type<S>(), ncclSum, s, comm(), comm_stream());
  }

  void after(int) {}

  void end() {
    join_transfers();
    add_partial();
    finish();
  }

 private:
  static constexpr int kPartialAlign = static_cast<int>(16 / sizeof(S));

  Status take_workspace() {
    ldp_ = partial_ld(n_, kPartialAlign);
    const std::size_t bytes = align256(static_cast<std::size_t>(m_) * static_cast<std::size_t>(ldp_) * sizeof(S));
    void* base = nullptr;
    if (Status s = workspace(bytes, base); s != Status::Success) return s;
    partial_ = static_cast<S*>(base);
    return Status::Success;
  }

  // Step q: rows of rank q's block, this rank's k slice, into the partial buffer.
  GemmArgs<In, S> block_args(int q) const {
    const Range rows = partition(m_, p_, q);
    const In* a = A_.data == nullptr ? nullptr
                  : op_a_ == Op::N   ? A_.data + static_cast<std::size_t>(rows.offset) * A_.ld
                                     : A_.data + rows.offset;
    return {rows.size, n_, local_k(), alpha_, a, A_.ld, B_.data, B_.ld, S(0),
            partial_ + static_cast<std::size_t>(rows.offset) * ldp_, static_cast<int>(ldp_), op_a_, op_b_};
  }
  int local_k() const { return partition(k_, p_, r_).size; }

  void add_partial() {
    if (error_ != Status::Success || C_.rows == 0) return;
    const Range rows = partition(m_, p_, r_);
    const S* src = partial_ + static_cast<std::size_t>(rows.offset) * ldp_;
    const long long blocks = std::min(rows.size, 4096);
    const Status s = ::gemm::detail::launch_kernel<&add_partial_kernel<S, Out, S>>(
        blocks, 256, 0, stream_, dev_, rows.size, n_, src, static_cast<long long>(ldp_), beta_, C_.data,
        static_cast<long long>(C_.ld));
    if (s != Status::Success) error_ = s;
  }

  // The m x n partial products, rows ldp_ apart.
  S* partial_ = nullptr;
  long long ldp_ = 1;
};

}  // namespace gemm::distributed::detail
