#pragma once
// The plan of Algorithm::AllGather (gemm.cuh has what it does): p steps of the ring (ring_step in
// shard.hpp), each multiply beside the transfer of the next block into the other of two receive
// buffers. Through the context's events, the multiply of step s waits for the transfer of step
// s - 1 (its block arrived), and the transfer of step s for the multiply of step s - 1 (it
// overwrites the buffer that held that block).
#include <algorithm>
#include "gather_b.cuh"

namespace gemm::distributed::detail {

template <class T, class Policy, class Out>
class AllGatherPlan : public GatherBPlan<T, Policy, Out> {
  using Base = GatherBPlan<T, Policy, Out>;
  using typename Base::In;
  using Base::B_, Base::p_, Base::r_, Base::send_own_;
  using Base::prepare_multiplies, Base::wire, Base::block_args, Base::multiply, Base::comm, Base::comm_stream,
      Base::transfer_done, Base::wait_for_transfer, Base::multiply_done, Base::transfer_waits_for_multiply,
      Base::join_transfers, Base::finish;

 public:
  using Base::Base;

  int steps() const { return p_; }

  Status prepare() {
    return prepare_multiplies([&] { return take_workspace(); }, [&](int s) { return step_args(s); });
  }

  void before(int s) {
    if (s >= 1) wait_for_transfer();            // the block of step s has arrived
    if (s >= 2) transfer_waits_for_multiply();  // the buffer it overwrites has been multiplied
  }

  ncclResult_t exchange(int s) {
    const RingStep step = ring_step(r_, p_, s);
    if (!step.exchange) return ncclSuccess;
    constexpr ncclDataType_t type = nccl_type<In>();
    ncclResult_t r = ncclSuccess;
    const WireBlock out = wire(step.block), in = wire(step.recv_block);
    const In* src = s == 0 ? send_own_ : recv_[(s - 1) % 2];
    if (out.count() > 0) r = ncclSend(src, out.count(), type, step.send_to, comm(), comm_stream());
    if (r == ncclSuccess && in.count() > 0)
      r = ncclRecv(recv_[s % 2], in.count(), type, step.recv_from, comm(), comm_stream());
    return r;
  }

  void after(int s) {
    const bool exchanged = ring_step(r_, p_, s).exchange;
    if (exchanged) transfer_done();
    multiply(step_args(s), exchanged);
    multiply_done();
  }

  void end() {
    join_transfers();
    finish();
  }

 private:
  // Two receive buffers (one with two ranks), each for the largest block.
  Status take_workspace() {
    std::size_t largest = 0;
    for (int q = 0; q < p_; ++q) largest = std::max(largest, wire(q).size());
    const std::size_t buffer_bytes = align256(largest * sizeof(In));
    const int buffers = std::min(2, p_ - 1);
    char* received = nullptr;
    if (Status s = Base::take_workspace(buffers * buffer_bytes, received); s != Status::Success) return s;
    for (int i = 0; i < buffers; ++i) recv_[i] = reinterpret_cast<In*>(received + i * buffer_bytes);
    return Status::Success;
  }

  // Step s: the C columns of block j from the B block held at that step.
  GemmArgs<In, Out> step_args(int s) const {
    const int j = ring_step(r_, p_, s).block;
    const In* b = s == 0 ? B_.data : recv_[(s - 1) % 2];
    const int ldb = s == 0 ? B_.ld : static_cast<int>(wire(j).ld);
    return block_args(j, b, ldb);
  }

  In* recv_[2] = {nullptr, nullptr};
};

}  // namespace gemm::distributed::detail
