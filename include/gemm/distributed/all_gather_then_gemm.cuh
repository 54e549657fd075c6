#pragma once
// The plan of Algorithm::AllGatherThenGemm (gemm.cuh has what it does): one step, whose NCCL group
// holds p - 1 sends and receives into one buffer; once the transfers are joined, the multiplies
// block by block with all SMs.
#include <vector>
#include "gather_b.cuh"

namespace gemm::distributed::detail {

template <class T, class Policy, class Out>
class AllGatherThenGemmPlan : public GatherBPlan<T, Policy, Out> {
  using Base = GatherBPlan<T, Policy, Out>;
  using typename Base::In;
  using Base::B_, Base::p_, Base::r_, Base::own_, Base::send_own_;
  using Base::prepare_multiplies, Base::wire, Base::block_args, Base::multiply, Base::comm, Base::comm_stream,
      Base::join_transfers, Base::finish;

 public:
  using Base::Base;

  int steps() const { return 1; }

  Status prepare() {
    return prepare_multiplies([&] { return take_workspace(); }, [&](int j) { return received_args(j); });
  }

  void before(int) {}

  ncclResult_t exchange(int) {
    constexpr ncclDataType_t type = nccl_type<In>();
    ncclResult_t r = ncclSuccess;
    for (int d = 1; d < p_ && r == ncclSuccess; ++d) {
      const int to = positive_mod(r_ + d, p_), from = positive_mod(r_ - d, p_);
      if (own_.count() > 0) r = ncclSend(send_own_, own_.count(), type, to, comm(), comm_stream());
      const WireBlock in = wire(from);
      if (r == ncclSuccess && in.count() > 0)
        r = ncclRecv(gather_ + gather_offset_[from], in.count(), type, from, comm(), comm_stream());
    }
    return r;
  }

  void after(int) {
    join_transfers();
    for (int j = 0; j < p_; ++j) multiply(received_args(j), false);
  }

  void end() { finish(); }  // joined before the multiplies

 private:
  // One buffer for every other rank's block, each at gather_offset_.
  Status take_workspace() {
    gather_offset_.assign(p_, 0);
    std::size_t elements = 0;
    for (int q = 0; q < p_; ++q) {
      if (q == r_) continue;
      gather_offset_[q] = elements;
      elements += align256(wire(q).size() * sizeof(In)) / sizeof(In);
    }
    char* received = nullptr;
    if (Status s = Base::take_workspace(elements * sizeof(In), received); s != Status::Success) return s;
    gather_ = reinterpret_cast<In*>(received);
    return Status::Success;
  }

  // The C columns of block j from rank j's B block (this rank's own from its shard).
  GemmArgs<In, Out> received_args(int j) const {
    const In* b = j == r_ ? B_.data : gather_ + gather_offset_[j];
    const int ldb = j == r_ ? B_.ld : static_cast<int>(wire(j).ld);
    return block_args(j, b, ldb);
  }

  In* gather_ = nullptr;
  std::vector<std::size_t> gather_offset_;  // each block's offset in it
};

}  // namespace gemm::distributed::detail
