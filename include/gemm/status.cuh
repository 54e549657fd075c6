#pragma once
// gemm::Status: what gemm::gemm() returns instead of throwing.
#include <cuda_runtime.h>

namespace gemm {

enum class Status {
  Success,
  InvalidSize,                 // m, n or k is negative
  InvalidLeadingDimensionA,    // lda < max(1, stored row length of A): k for op N, m for op T (row-major call)
  InvalidLeadingDimensionB,    // ldb < max(1, stored row length of B): n for op N, k for op T
  InvalidLeadingDimensionC,    // ldc < max(1, n) (row-major call; m for a column-major call)
  NullPointerA,                // A is null although k > 0 and alpha != 0
  NullPointerB,
  NullPointerC,                // C is null although m > 0 and n > 0
  MisalignedA,                 // A or lda violates the alignment the policy's loads need
  MisalignedB,
  MisalignedC,
  NoDevice,                    // no usable CUDA device (or driver)
  UnsupportedArchitecture,     // the device is older than the policy needs, or the binary has no code for it
  SharedMemoryTooLarge,        // the policy's tile needs more shared memory than the device gives one block
  CudaError,                   // a CUDA runtime call failed before the launch (see last_cuda_error())
  LaunchFailed,                // the kernel launch itself failed (see last_cuda_error())
  TensorMapFailed,             // the driver refused to describe A or B for the TMA copy engine
  // gemm::distributed (include/gemm/distributed/): several GPUs through NCCL.
  CommunicatorError,           // an NCCL call failed (see gemm::distributed::last_nccl_error())
  InvalidCommunicator,         // no initialised distributed context, or shards given for another number of ranks
  DeviceMismatch,              // the stream belongs to another device than the rank's communicator
  ShardMismatchA,              // the A shard's rows x cols are not those its rank owns under the algorithm
  ShardMismatchB,
  ShardMismatchC,
  RanksDisagree,               // (agreement check) ranks passed different global shapes, layouts, types or algorithms
  PeerRejected,                // (agreement check) another rank's arguments were invalid; nothing was launched
  NvlsNotDisabled,             // NCCL_NVLS_ENABLE is not "0": NVLink multicast must stay off
  // gemm::host (host.cuh), the calls that take host memory:
  NotHostMemoryA,              // A is device or managed memory where host memory (pinned or pageable) is expected
  NotHostMemoryB,
  NotHostMemoryC,
  DeviceBudgetTooSmall,        // the device-memory budget cannot hold the buffers of one tile
  InvalidOption,               // a field of gemm::host::Options is out of range
  WorkspaceTooSmall,           // a gemm::CallerWorkspace is in force and holds fewer bytes than the call needs
  // Fused epilogues (epilogue.cuh):
  InvalidLeadingDimensionD,    // ldd < max(1, n) (row-major call; m for a column-major call)
  NullPointerD,                // the epilogue's D is null although m > 0 and n > 0
  MisalignedD,                 // D is not aligned to its element type
  NullPointerBias,             // a bias kind other than None with a null bias
  MisalignedBias,              // the bias is not aligned to its element type
  OverlappingOutput,           // D overlaps C's elements without being C itself (in place: pass D = C, ldd = ldc)
  // Batched calls (gemm::gemm_strided_batched, gemm::gemm_batched):
  InvalidBatchCount,           // batch < 0
  InvalidStrideA,              // stride_a < 0
  InvalidStrideB,              // stride_b < 0
  InvalidStrideC,              // stride_c < 0, or C entries overlap: stride_c smaller than one entry of C while batch > 1
  UnsupportedBatch,            // this policy cannot run this batched call (its message says what to change)
  // FP8 calls with scales (scales.cuh):
  InvalidScaleMode,            // the scales' mode is not one of gemm::ScaleMode's
  NullPointerScale,            // a scale pointer is null
  MisalignedScale,             // a scale pointer is not aligned to float
  ScaleSizeMismatch,           // a scale buffer holds fewer floats than its mode reads for this m, n, k
  UnsupportedScales,           // block scales through gemm::blas or on a turned-around composition (either swaps A and B, which would exchange their shapes)
  InvalidPromotion,            // Scales::promote_every: neither 0 nor a positive multiple of 128, or not 128 with block scales
  UnsupportedPromotion,        // FP8 on Hopper tiles too wide to promote (math warpgroups over 64 x 128), without promote_every(0); a grouped FP8 call promoted other than every 128 k or never
  InvalidOutputScaling,        // a D scale, an amax output or FP8 C with beta != 0
  // Grouped calls (grouped.cuh):
  NullPointerGroupRows,        // the offsets or counts pointer is null although there are groups
  InvalidGroupRows,            // (gemm::grouped_status) a grouped call found offsets or counts out of range on the device
  UnsupportedShape,            // a composition serving only some calls (DecodePolicy) was given another
  UnsupportedLayout,           // B stored k x n (op_b N) where only B stored n x k is read: FP8 grouped calls, DotRowsPolicy
};

constexpr const char* to_string(Status s) {
  switch (s) {
    case Status::Success: return "success";
    case Status::InvalidSize: return "invalid size: m, n and k must be >= 0";
    case Status::InvalidLeadingDimensionA:
      return "invalid leading dimension of A: lda must be >= max(1, length of a stored row of A): row-major call, k for "
             "op N and m for op T; column-major (blas) call, m for N and k for T";
    case Status::InvalidLeadingDimensionB:
      return "invalid leading dimension of B: ldb must be >= max(1, length of a stored row of B): row-major call, n for "
             "op N and k for op T; column-major (blas) call, k for N and n for T";
    case Status::InvalidLeadingDimensionC:
      return "invalid leading dimension of C: ldc must be >= max(1, n) for a row-major call, >= max(1, m) for a "
             "column-major (blas) call";
    case Status::NullPointerA: return "null pointer: A is needed when k > 0 and alpha != 0";
    case Status::NullPointerB: return "null pointer: B is needed when k > 0 and alpha != 0";
    case Status::NullPointerC: return "null pointer: C is needed when m > 0 and n > 0";
    case Status::MisalignedA: return "misaligned A: the pointer or lda does not meet the policy's alignment (see the policy's describe())";
    case Status::MisalignedB: return "misaligned B: the pointer or ldb does not meet the policy's alignment (see the policy's describe())";
    case Status::MisalignedC: return "misaligned C: the pointer or ldc does not meet the policy's alignment (see the policy's describe())";
    case Status::NoDevice: return "no usable CUDA device";
    case Status::UnsupportedArchitecture: return "unsupported architecture: the device is older than the policy needs, or the binary holds no code for it";
    case Status::SharedMemoryTooLarge: return "the policy's tile needs more shared memory per block than the device allows";
    case Status::CudaError: return "a CUDA runtime call failed (see gemm::last_cuda_error())";
    case Status::LaunchFailed: return "the kernel launch failed (see gemm::last_cuda_error())";
    case Status::WorkspaceTooSmall:
      return "the caller's workspace (gemm::CallerWorkspace) is smaller than the call needs (gemm::plan(...)."
             "workspace_bytes says how much)";
    case Status::TensorMapFailed:
      return "the driver could not encode a TMA tensor map for A or B (cuTensorMapEncodeTiled failed or is missing)";
    case Status::CommunicatorError:
      return "an NCCL call failed (see gemm::distributed::last_nccl_error()); abort the communicators before reusing them";
    case Status::InvalidCommunicator:
      return "invalid communicator: the distributed context or group is not initialised, or the shard lists do not "
             "hold one shard per rank";
    case Status::DeviceMismatch: return "the stream belongs to another device than the rank's communicator";
    case Status::ShardMismatchA:
      return "A shard mismatch: rows x cols of this rank's A shard (as stored) differ from what the algorithm gives "
             "the rank (gemm::distributed::stored_block)";
    case Status::ShardMismatchB:
      return "B shard mismatch: rows x cols of this rank's B shard (as stored) differ from what the algorithm gives "
             "the rank (gemm::distributed::stored_block)";
    case Status::ShardMismatchC:
      return "C shard mismatch: this rank's C shard must be its block of rows of C (gemm::distributed::stored_block)";
    case Status::RanksDisagree:
      return "the ranks passed different global shapes, layouts, types or algorithms; every rank must pass the same";
    case Status::PeerRejected: return "another rank's arguments were invalid; no rank launched anything";
    case Status::NvlsNotDisabled:
      return "NCCL_NVLS_ENABLE is not 0: NVLink multicast must stay off (call gemm::distributed::disable_nvls() before "
             "creating communicators)";
    case Status::NotHostMemoryA:
      return "A is device or managed memory: gemm::host takes host memory (pinned or pageable); gemm::gemm takes device "
             "pointers";
    case Status::NotHostMemoryB:
      return "B is device or managed memory: gemm::host takes host memory (pinned or pageable); gemm::gemm takes device "
             "pointers";
    case Status::NotHostMemoryC:
      return "C is device or managed memory: gemm::host takes host memory (pinned or pageable); gemm::gemm takes device "
             "pointers";
    case Status::DeviceBudgetTooSmall:
      return "the device-memory budget is too small: it must hold the buffers of one tile (two 256-byte slots each "
             "for A, B and C always do) and allow a plan of at most 65536 multiplies (gemm::host::Options::device_budget)";
    case Status::InvalidOption: return "a field of gemm::host::Options is out of range (negative, or too large)";
    case Status::InvalidLeadingDimensionD:
      return "invalid leading dimension of D: the epilogue's ldd must be >= max(1, n) for a row-major call, >= max(1, "
             "m) for a column-major (blas) call";
    case Status::NullPointerD: return "null pointer: the epilogue's D is needed when m > 0 and n > 0 (D = C computes in place)";
    case Status::MisalignedD: return "misaligned D: the epilogue's D is not aligned to its element type";
    case Status::NullPointerBias: return "null pointer: the epilogue names a bias kind but its bias is null";
    case Status::MisalignedBias: return "misaligned bias: the epilogue's bias is not aligned to its element type";
    case Status::OverlappingOutput:
      return "D overlaps C without being C: pass D = C and ldd = ldc to compute in place, or non-overlapping matrices";
    case Status::InvalidBatchCount: return "invalid batch count: batch must be >= 0 (0 does nothing)";
    case Status::InvalidStrideA: return "invalid stride of A: stride_a must be >= 0 (0 uses one A for every entry)";
    case Status::InvalidStrideB: return "invalid stride of B: stride_b must be >= 0 (0 uses one B for every entry)";
    case Status::InvalidStrideC:
      return "invalid stride of C: with batch > 1, stride_c must be at least one entry of C ((rows - 1) * ldc + "
             "row length elements) so that entries do not overlap";
    case Status::UnsupportedBatch:
      return "this policy cannot run this batched call: the Hopper presets need strided batches whose A and B TMA can "
             "read (16-byte-aligned pointers, leading dimensions and strides, each stride 0 or at least one entry; "
             "bf16, fp16, or tf32 with A row-major and B transposed); use preset::Tuned, which runs every batch";
    case Status::InvalidScaleMode: return "invalid scale mode: gemm::ScaleMode::Tensor, Rowwise or Block";
    case Status::NullPointerScale: return "null pointer: an FP8 call's scales need both a and b";
    case Status::MisalignedScale:
      return "misaligned scale: the scale pointers (a, b, and the output's d and amax) must be aligned to float";
    case Status::ScaleSizeMismatch:
      return "scale size mismatch: a scale buffer holds fewer floats than its mode reads (Tensor: 1 and 1; Rowwise: m "
             "and n; Block: ceil(k/128) * m and ceil(n/128) * ceil(k/128); scales.cuh gives the layouts)";
    case Status::UnsupportedScales:
      return "unsupported scales: block scales (1x128 on A, 128x128 on B) through gemm::blas, or on a composition "
             "that computes the call turned around (TurnedRegisterEpilogue), would exchange their shapes; make the "
             "row-major call (gemm::gemm) of the transposed problem, or use another composition (Tuned)";
    case Status::InvalidPromotion:
      return "invalid promotion: Scales::promote_every takes 0 (never: the tensor cores' own sums) or a positive "
             "multiple of 128 k; block scales change every 128 k and need 128 (the default)";
    case Status::UnsupportedPromotion:
      return "unsupported promotion: this policy's FP8 tiles are too wide to promote their sums (registers for one "
             "set of accumulators only); pass Scales::promote_every(0) to accumulate in the tensor cores, or use "
             "preset::Tuned or preset::Fp8. Grouped FP8 calls promote every 128 k (the default) or never (0)";
    case Status::InvalidOutputScaling:
      return "invalid output scaling: an FP8 call's D scale and amax (Scales::output) and an FP8 C need beta = 0 "
             "(C is written only)";
    case Status::NullPointerGroupRows: return "null pointer: a grouped call needs its offsets (or counts) when groups > 0";
    case Status::InvalidGroupRows:
      return "invalid group rows: a grouped call found offsets (negative, decreasing, past total_rows) or counts "
             "(negative, past max_rows) out of range on the device; they were clamped into the buffers";
    case Status::UnsupportedLayout:
      return "unsupported layout: B stored n x k only (op_b = Op::T, as PyTorch keeps weights): FP8 tensor cores read "
             "nothing else and a grouped call copies nothing; DotRowsPolicy reads B's rows along k. Store the weights "
             "transposed, or use another policy";
    case Status::UnsupportedShape:
      return "this composition serves only some calls: DecodePolicy takes single products of at most its tokens "
             "(m) with A row-major and B stored transposed, rows 16-byte aligned; use preset::Tuned, which runs "
             "every call";
  }
  return "unknown status";
}

namespace detail {
inline cudaError_t& last_cuda_error_slot() {
  thread_local cudaError_t err = cudaSuccess;
  return err;
}
}  // namespace detail

// The CUDA error behind the last CudaError / LaunchFailed / NoDevice status on this thread.
inline cudaError_t last_cuda_error() { return detail::last_cuda_error_slot(); }

}  // namespace gemm
