#pragma once
// What the two all-gather algorithms (all_gather.cuh, all_gather_then_gemm.cuh) share: A and C by
// rows, B by columns, and every rank's B block sent to every other rank. The blocks travel in the
// wire layout (wire_block in shard.hpp: rows padded to 16 bytes, only the block's span sent); this
// rank sends its own block from its shard, or from a packed copy at the start of the workspace where
// the shard's leading dimension is not the wire's. Each received block multiplies into the C columns
// of its rank.
#include "shard_plan.cuh"

namespace gemm::distributed::detail {

template <class T, class Policy, class Out>
class GatherBPlan : public ShardPlan<T, Policy, Out> {
  using Core = ShardPlan<T, Policy, Out>;

 protected:  // (not private: the names stay visible to the two algorithms' plans)
  using typename Core::In;
  using Core::A_, Core::B_, Core::C_, Core::alpha_, Core::beta_, Core::op_a_, Core::op_b_, Core::n_, Core::k_,
      Core::p_, Core::r_, Core::stream_;
  using Core::wait_for_previous_call, Core::start_transfers, Core::note, Core::workspace;

 public:
  using Core::Core;

  static constexpr bool kCommunicates = true;

  void begin() {
    wait_for_previous_call();
    if (pack_)
      note(cudaMemcpy2DAsync(pack_, own_.ld * sizeof(In), B_.data, static_cast<std::size_t>(B_.ld) * sizeof(In),
                             own_.cols * sizeof(In), own_.rows, cudaMemcpyDeviceToDevice, stream_));
    start_transfers();
  }

 protected:
  static constexpr int kWireAlign = sizeof(In) >= 16 ? 1 : static_cast<int>(16 / sizeof(In));

  WireBlock wire(int block) const { return wire_block(op_b_, n_, k_, p_, block, kWireAlign); }

  // The workspace: the packed copy of this rank's block first (where it is packed), then
  // `received_bytes` for the blocks received, starting at `received`.
  Status take_workspace(std::size_t received_bytes, char*& received) {
    own_ = wire(r_);
    const bool pack = own_.count() > 0 && B_.ld != own_.ld;
    const std::size_t received_at = pack ? align256(own_.size() * sizeof(In)) : 0;
    const std::size_t bytes = received_at + received_bytes;
    void* base = nullptr;
    if (bytes > 0)
      if (Status s = workspace(bytes, base); s != Status::Success) return s;
    char* b = static_cast<char*>(base);
    pack_ = pack ? reinterpret_cast<In*>(b) : nullptr;
    send_own_ = pack ? pack_ : B_.data;
    received = b + received_at;
    return Status::Success;
  }

  // The C columns of block j from B block j at b, rows ldb apart.
  GemmArgs<In, Out> block_args(int j, const In* b, int ldb) const {
    const Range cols = partition(n_, p_, j);
    Out* c = C_.data ? C_.data + cols.offset : nullptr;
    return {C_.rows, cols.size, k_, alpha_, A_.data, A_.ld, b, ldb, beta_, c, C_.ld, op_a_, op_b_};
  }

  // This rank's block as it travels, the packed copy of it (where the shard's ld is not the
  // wire's), and where it is sent from.
  WireBlock own_;
  In* pack_ = nullptr;
  const In* send_own_ = nullptr;
};

}  // namespace gemm::distributed::detail
