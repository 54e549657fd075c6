#pragma once
// The named barriers (bar.sync ids) of the warp-specialised Hopper kernels. Id 0 is __syncthreads';
// each other id is used by one group of threads at a time, with the thread count its users agree on.
// Up to kMaxConsumers math warpgroups, 16 ids in all.
namespace gemm::sm90 {

inline constexpr int kMaxConsumers = 3;
// Consumer c's own epilogue (its 128 threads: the staged stores' buffer hand-offs), and its threads
// meeting after a unit whose mainloop it skips (consumer.cuh: skip_mainloop).
__host__ __device__ constexpr int epilogue_barrier(int consumer) { return 1 + consumer; }
// Ping-pong: consumer c may start its next tile's mainloop (256 threads: both consumers).
__host__ __device__ constexpr int turn_barrier(int consumer) { return 1 + kMaxConsumers + consumer; }
// The producer warpgroup's threads filling a pointer-array entry that TMA cannot read (128 threads).
inline constexpr int kFillBarrier = 3 + kMaxConsumers;
// Split-K: the consumers of a block agree on whether it reduces its tile (128 x consumers threads).
inline constexpr int kSplitKBarrier = 4 + kMaxConsumers;
// FP8 row scales: consumer c's copies of a unit's scales are in shared memory, or have all been read
// (its 128 threads; scaling.cuh: OutputScales).
__host__ __device__ constexpr int output_scale_barrier(int consumer) { return 5 + kMaxConsumers + consumer; }
static_assert(output_scale_barrier(kMaxConsumers - 1) < 16, "sm90 barriers: 16 named barrier ids per block.");

}  // namespace gemm::sm90
