#pragma once
// The plan of a call with nothing to communicate: RowSplit (A and C by rows, B replicated), any
// algorithm on one rank, and any call without a product (k == 0 or alpha == 0: C = beta * C). One
// local multiply on the caller's stream; an empty C (m == 0 or n == 0) does nothing, as gemm::gemm.
#include "shard_plan.cuh"

namespace gemm::distributed::detail {

template <class T, class Policy, class Out>
class LocalPlan : public ShardPlan<T, Policy, Out> {
  using Core = ShardPlan<T, Policy, Out>;
  using typename Core::In, typename Core::S;
  using Core::A_, Core::B_, Core::C_, Core::alpha_, Core::beta_, Core::op_a_, Core::op_b_, Core::m_, Core::n_,
      Core::k_, Core::product_;
  using Core::check_arguments, Core::query_device, Core::validate, Core::multiply, Core::wait_for_previous_call,
      Core::finish;

 public:
  using Core::Core;

  static constexpr bool kCommunicates = false;

  Status prepare() {
    if (Status s = check_arguments(); s != Status::Success) return s;
    if (empty()) return Status::Success;
    if (Status s = query_device(); s != Status::Success) return s;
    return validate(args());
  }

  void begin() {
    if (empty()) return;
    wait_for_previous_call();
  }

  void end() {
    if (empty()) return;
    multiply(args(), false);
    finish();
  }

 private:
  bool empty() const { return m_ == 0 || n_ == 0; }

  GemmArgs<In, Out> args() const { return product_ ? local_args() : scale_args(); }
  GemmArgs<In, Out> local_args() const {
    return {C_.rows, n_, k_, alpha_, A_.data, A_.ld, B_.data, B_.ld, beta_, C_.data, C_.ld, op_a_, op_b_};
  }
  GemmArgs<In, Out> scale_args() const {  // k = 0: C = beta * C
    return {C_.rows, n_, 0, alpha_, nullptr, 1, nullptr, std::max(1, n_), beta_, C_.data, C_.ld, Op::N, Op::N};
  }
};

}  // namespace gemm::distributed::detail
