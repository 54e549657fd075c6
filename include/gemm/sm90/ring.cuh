#pragma once
// A place in a ring of shared-memory slots handed back and forth through mbarriers: which slot, and
// the parity of its current use (the stages of a block's mainloop, its queue of claimed units).

namespace gemm::sm90 {

template <int kSlots>
struct RingPosition {
  int stage = 0, phase = 0;
  __device__ void advance() {
    if (++stage == kSlots) stage = 0, phase ^= 1;
  }
  // n slots on (the ring wraps n / kSlots times or once more, each wrap flipping the parity).
  __device__ void advance(int n) {
    stage += n;
    phase ^= (stage / kSlots) & 1;
    stage %= kSlots;
  }
};

}  // namespace gemm::sm90
