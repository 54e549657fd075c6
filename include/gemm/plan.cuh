#pragma once
// gemm::plan: what gemm::gemm<T, Policy> would run for a call, and why, without running it.
//
//   gemm::Plan p = gemm::plan<__nv_bfloat16>(gemm::Op::N, gemm::Op::N, m, n, k, 1.f, A, lda, B, ldb, 0.f, C, ldc);
//   std::puts(p.describe().c_str());
//       // Tuned: HopperPolicy: BlockTile<128,256>, ... -- sm_90, at least 128 tiles of 128x256: ...
//
// It takes the same arguments as the call (pointers are only inspected for null and alignment, never
// read) and goes through the same checks and the same decision code as the call (preset::Tuned's
// decide), so the status is the one the call would return before launching anything. With a Target
// it plans for a device described by hand (architecture, SMs, shared memory) and makes no CUDA call
// at all: for tests, or to see what another GPU would run. gemm::plan_strided_batched and
// gemm::plan_batched do the same for the batched calls.
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <cuda_runtime.h>
#include "args.cuh"
#include "detail/launch.cuh"
#include "gemm.cuh"
#include "status.cuh"
#include "tuned.cuh"
#include "types.cuh"

namespace gemm {

struct Plan {
  Status status = Status::Success;  // what the call would return before launching anything
  std::string preset;               // the policy named, or the default's name
  std::string composition;          // what would run: "Family<parts>", or the pass that runs instead
  std::string reason;               // why that one
  std::size_t workspace_bytes = 0;  // scratch device memory the call takes (stream-ordered, or from a
                                    // gemm::CallerWorkspace); 0 for most calls
  std::string rules;                // the default policy's decision constants for this device (rules.cuh)
  std::string describe() const {
    if (status != Status::Success) return preset + ": refused, " + to_string(status);
    return preset + ": " + composition + " -- " + reason;
  }
};

// A device to plan for without asking CUDA: compute capability as 10 * major + minor (90 for the
// H100), multiprocessors, and the opt-in shared memory per block in bytes. The binary is assumed to
// hold code for it.
struct Target {
  int arch = 90;
  int sms = 132;
  int smem_optin = 227 * 1024;
};

namespace detail {

// Whether composition P, with math type U, can run on dev; the same checks its launch makes first.
// Targets: the images that hold its kernels' bodies (parts/targets.cuh), which only a binary can tell.
template <class P, class U, class Targets = EveryImage>
Status can_run(const DeviceInfo& dev, bool check_binary) {
  constexpr bool kHopper = P::kMinArch == 90;  // wgmma and TMA: sm_90 (sm_90a code) only
  if (dev.arch < P::kMinArch || (kHopper && dev.arch != 90)) return Status::UnsupportedArchitecture;
  // A Hopper stage holds 128-byte operand rows whatever the type, so its size is the 16-bit one's
  // (the tf32 shapes exist only K-major; 3xTF32's shape is sized to fit by construction).
  using Sized = std::conditional_t<kHopper, __nv_bfloat16, storage_t<U>>;
  if (P::template smem_bytes<Sized>() > dev.smem_optin) return Status::SharedMemoryTooLarge;
  if (!check_binary) return Status::Success;
  if (kHopper) return runs_here<WithWgmma>(dev);
  return runs_here<Targets>(dev);
}

// Scratch bytes composition P takes for args on dev: its workspace_bytes<U>(args, dev) where it has one
// (the Hopper family's staging, split-K's partial tiles and 3xTF32's split; PackedRows' copies), else none.
template <class P, class U, class Args, class = void>
struct WorkspaceOf {
  static std::size_t bytes(const Args&, const DeviceInfo&) { return 0; }
};
template <class P, class U, class Args>
struct WorkspaceOf<P, U, Args,
                   std::void_t<decltype(P::template workspace_bytes<U>(std::declval<const Args&>(),
                                                                      std::declval<const DeviceInfo&>()))>> {
  static std::size_t bytes(const Args& args, const DeviceInfo& dev) { return P::template workspace_bytes<U>(args, dev); }
};

// Whether composition P runs this batch: its runs_batch<U>(args) where it has one (the Hopper
// family reads only batches TMA can), else yes.
template <class P, class U, class Args, class = void>
struct RunsBatchOf {
  static bool runs(const Args&) { return true; }
};
template <class P, class U, class Args>
struct RunsBatchOf<P, U, Args, std::void_t<decltype(P::template runs_batch<U>(std::declval<const Args&>()))>> {
  static bool runs(const Args& args) { return P::template runs_batch<U>(args); }
};

// "Family<parts>": the family (TiledPolicy, MmaPolicy, HopperPolicy) or preset, and its parts.
template <class P>
std::string composition() {
  return std::string(P::name()) + "<" + P::parts() + ">";
}

template <class T, class Policy, class Layouts, class Args>
void plan_launch(const Args& args, const DeviceInfo& dev, bool check_binary, Plan& plan) {
  if constexpr (std::is_same_v<Layouts, AnyOps>) {
    with_ops<Layouts>(args.op_a, args.op_b, [&](auto layouts) {
      plan_launch<T, Policy, decltype(layouts)>(args, dev, check_binary, plan);
      return Status::Success;
    });
  } else if constexpr (std::is_same_v<Policy, preset::Tuned>) {
    plan.rules = rules_for(dev.arch).describe();
    plan.status = Policy::template decide<T, Layouts>(args, dev, [&](auto pick, const char* why) {
      using Pick = decltype(pick);
      const Status s = can_run<typename Pick::Policy, typename Pick::Math, TargetsOf<Pick>>(dev, check_binary);
      if (s == Status::Success) {
        plan.composition = composition<typename Pick::Policy>();
        plan.reason = why;
        plan.workspace_bytes = WorkspaceOf<typename Pick::Policy, typename Pick::Math, Args>::bytes(args, dev);
      }
      return s;
    });
  } else {
    plan.status = can_run<Policy, T>(dev, check_binary);
    if (plan.status == Status::Success && !RunsBatchOf<Policy, T, Args>::runs(args)) plan.status = Status::UnsupportedBatch;
    plan.composition = composition<Policy>();
    plan.reason = "the policy named in the call";
    plan.workspace_bytes = WorkspaceOf<Policy, T, Args>::bytes(args, dev);
  }
}

// target: plan for it without CUDA calls; null: the current device. launch: what the kernels
// receive (args itself, or a fused call's EpilogueArgs), which is what Tuned decides on.
template <class T, class Policy, class Layouts, class Out, Batch kBatch, class Launch>
Plan plan(const GemmArgs<storage_t<T>, Out, kBatch>& args, const Launch& launch, const Target* target,
          Status epilogue_status = Status::Success) {
  Plan plan;
  plan.preset = Policy::name();
  if constexpr (check_types<T, Policy, Out>()) {
    bool empty = false;
    if constexpr (has_scales<Launch>) {  // (an FP8 call's scales are part of what the policy checks)
      if ((plan.status = check_scales<T>(args, scales_of(launch))) != Status::Success) return plan;
      if ((plan.status = check_arguments<T, Policy>(launch, empty)) != Status::Success) return plan;
    } else {
      if ((plan.status = check_arguments<T, Policy>(args, empty)) != Status::Success) return plan;
    }
    if ((plan.status = epilogue_status) != Status::Success) return plan;
    if (empty) {
      plan.composition = "nothing";
      plan.reason = "C is empty (m or n is 0)";
      return plan;
    }
    DeviceInfo dev;
    if (target) {
      dev.arch = target->arch, dev.sms = target->sms, dev.smem_optin = target->smem_optin;
    } else if ((plan.status = query_device(dev)) != Status::Success) {
      return plan;
    }
    if (!reads_ab(args)) {
      plan.composition = args.beta == 1 ? "nothing" : "scale_c_kernel";
      plan.reason = args.beta == 1 ? "no product term (k = 0 or alpha = 0) and beta = 1: C stays as it is"
                                   : "no product term (k = 0 or alpha = 0): C = beta * C";
      return plan;
    }
    plan_launch<T, Policy, Layouts>(launch, dev, target == nullptr, plan);
  }
  return plan;
}

// A call without an epilogue: the kernels receive its arguments as they are.
template <class T, class Policy, class Layouts, class Out, Batch kBatch = Batch::None>
Plan plan(const GemmArgs<storage_t<T>, Out, kBatch>& args, const Target* target) {
  return plan<T, Policy, Layouts, Out, kBatch>(args, args, target);
}

// A fused call: the checks of run_fused, then the plan of its EpilogueArgs.
template <class T, class Policy, class Out, class Act, class Bias>
Plan plan_fused(GemmArgs<storage_t<T>, Out> args, const Epilogue<Out, Act, Bias>& e, const Target* target) {
  if (args.C == nullptr && args.beta == 0) args.C = e.D, args.ldc = e.ldd;  // as run_fused
  const auto fused = fused_args<false>(args, e);
  return plan<T, Policy, AnyOps, Out, Batch::None>(args, fused, target, validate_epilogue(args, e));
}

}  // namespace detail

// Row-major A, B and C, the current device.
template <class T, class Policy = DefaultPolicy, class Out>
Plan plan(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb,
          scalar_t<T> beta, Out* C, int ldc) {
  return detail::plan<T, Policy, detail::Ops<Op::N, Op::N>, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc},
                                                                 nullptr);
}

// A and B stored as op_a, op_b say (as gemm::gemm with ops), the current device.
template <class T, class Policy = DefaultPolicy, class Out>
Plan plan(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
          const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc) {
  return detail::plan<T, Policy, detail::AnyOps, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b},
                                                      nullptr);
}

// The same for a device described by hand; no CUDA call.
template <class T, class Policy = DefaultPolicy, class Out>
Plan plan(const Target& target, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A,
          int lda, const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc) {
  return detail::plan<T, Policy, detail::AnyOps, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b},
                                                      &target);
}

// FP8 with scales (as gemm::gemm with scales): the current device, or one described by hand.
template <class T, class Policy = DefaultPolicy, class Out>
Plan plan(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
          const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, const Scales& scales,
          const Target* target = nullptr) {
  const GemmArgs<storage_t<T>, Out> args{m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b};
  return detail::plan<T, Policy, detail::AnyOps, Out, Batch::None>(args, detail::with_scales(args, scales), target);
}

// Batched calls: gemm::gemm_strided_batched's and gemm::gemm_batched's arguments, on the current
// device or, after a Target, on one described by hand (no CUDA call). The pointer arrays are not read.
namespace detail {
template <class T, class Policy, class Out>
Plan plan_strided_batched(const Target* target, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
                          const storage_t<T>* A, int lda, long long stride_a, const storage_t<T>* B, int ldb,
                          long long stride_b, scalar_t<T> beta, Out* C, int ldc, long long stride_c, int batch) {
  GemmArgs<storage_t<T>, Out, Batch::Strided> args{m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b};
  args.batch = batch, args.stride_a = stride_a, args.stride_b = stride_b, args.stride_c = stride_c;
  return plan<T, Policy, AnyOps, Out, Batch::Strided>(args, target);
}
template <class T, class Policy, class Out>
Plan plan_batched(const Target* target, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
                  const storage_t<T>* const* A_array, int lda, const storage_t<T>* const* B_array, int ldb,
                  scalar_t<T> beta, Out* const* C_array, int ldc, int batch) {
  GemmArgs<storage_t<T>, Out, Batch::Pointers> args{m, n, k, alpha, nullptr, lda, nullptr, ldb, beta, nullptr, ldc,
                                                     op_a, op_b};
  args.batch = batch, args.A_array = A_array, args.B_array = B_array, args.C_array = C_array;
  return plan<T, Policy, AnyOps, Out, Batch::Pointers>(args, target);
}
}  // namespace detail

template <class T, class Policy = DefaultPolicy, class Out>
Plan plan_strided_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                          long long stride_a, const storage_t<T>* B, int ldb, long long stride_b, scalar_t<T> beta,
                          Out* C, int ldc, long long stride_c, int batch) {
  return detail::plan_strided_batched<T, Policy>(nullptr, op_a, op_b, m, n, k, alpha, A, lda, stride_a, B, ldb,
                                                 stride_b, beta, C, ldc, stride_c, batch);
}
template <class T, class Policy = DefaultPolicy, class Out>
Plan plan_strided_batched(const Target& target, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
                          const storage_t<T>* A, int lda, long long stride_a, const storage_t<T>* B, int ldb,
                          long long stride_b, scalar_t<T> beta, Out* C, int ldc, long long stride_c, int batch) {
  return detail::plan_strided_batched<T, Policy>(&target, op_a, op_b, m, n, k, alpha, A, lda, stride_a, B, ldb,
                                                 stride_b, beta, C, ldc, stride_c, batch);
}
template <class T, class Policy = DefaultPolicy, class Out>
Plan plan_batched(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* const* A_array,
                  int lda, const storage_t<T>* const* B_array, int ldb, scalar_t<T> beta, Out* const* C_array, int ldc,
                  int batch) {
  return detail::plan_batched<T, Policy>(nullptr, op_a, op_b, m, n, k, alpha, A_array, lda, B_array, ldb, beta,
                                         C_array, ldc, batch);
}
template <class T, class Policy = DefaultPolicy, class Out>
Plan plan_batched(const Target& target, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
                  const storage_t<T>* const* A_array, int lda, const storage_t<T>* const* B_array, int ldb,
                  scalar_t<T> beta, Out* const* C_array, int ldc, int batch) {
  return detail::plan_batched<T, Policy>(&target, op_a, op_b, m, n, k, alpha, A_array, lda, B_array, ldb, beta,
                                         C_array, ldc, batch);
}

// A fused call (gemm::gemm with an Epilogue after ldc; C may be null when beta == 0): Tuned runs
// some fused calls on other compositions than the same call without its epilogue.
template <class T, class Policy = DefaultPolicy, class Out, class Act, class Bias>
Plan plan(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
          const storage_t<T>* B, int ldb, scalar_t<T> beta, detail::ReadOnly<Out> C, int ldc,
          const Epilogue<Out, Act, Bias>& epilogue) {
  return detail::plan_fused<T, Policy>({m, n, k, alpha, A, lda, B, ldb, beta, const_cast<Out*>(C), ldc, op_a, op_b},
                                       epilogue, nullptr);
}
template <class T, class Policy = DefaultPolicy, class Out, class Act, class Bias>
Plan plan(const Target& target, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A,
          int lda, const storage_t<T>* B, int ldb, scalar_t<T> beta, detail::ReadOnly<Out> C, int ldc,
          const Epilogue<Out, Act, Bias>& epilogue) {
  return detail::plan_fused<T, Policy>({m, n, k, alpha, A, lda, B, ldb, beta, const_cast<Out*>(C), ldc, op_a, op_b},
                                       epilogue, &target);
}

}  // namespace gemm
