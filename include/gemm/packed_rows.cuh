#pragma once
// PackedRows<Inner>: a policy adapter for the CUDA-core (tiled) compositions. A TiledPolicy loads
// A and B and stores C in 16-byte pieces only where every row of them starts on 16 bytes; one
// odd leading dimension of floats (1023 x 1025 x 1021 row-major, say) sends the whole call down
// its element-by-element path, at 46% of cuBLAS on the H100. This adapter first copies each
// operand whose rows are not 16-byte aligned, and such a C, into 64-byte-aligned rows of
// stream-ordered scratch (kernel/scratch_copies.cuh, shared with the Hopper family), runs
// Inner's vector path on the copies and copies C back. It changes nothing where the rows are
// aligned, for batches, or for fused epilogues (those run Inner as it is).
//
// The scratch comes from the library's pool or a gemm::CallerWorkspace (workspace_bytes says how
// much). The copies are an optimisation, not a requirement: where a caller's workspace is too small
// and Inner has a path for misaligned rows, the call runs that path instead (same result, slower).
#include <cstddef>
#include <string>
#include <type_traits>
#include "args.cuh"
#include "detail/launch.cuh"
#include "detail/workspace.cuh"
#include "epilogue.cuh"
#include "kernel/scratch_copies.cuh"

namespace gemm {

namespace detail {
template <class P, class = void>
struct HasLoaderPart : std::false_type {};
template <class P>
struct HasLoaderPart<P, std::void_t<typename P::Loader>> : std::true_type {};

// Calls PackedRows copies: one matrix, no fused epilogue (whose D and bias would need their own
// staging). Others run the wrapped composition as it is.
template <class Args>
inline constexpr bool kPacksRows = Args::kBatching == Batch::None && !has_epilogue<Args>;
}  // namespace detail

template <class Inner>
struct PackedRows {
  static_assert(detail::HasLoaderPart<Inner>::value,
                "PackedRows<P>: P must be a CUDA-core composition (a TiledPolicy, with a loader part); the Hopper "
                "compositions copy misaligned operands themselves (PackMisalignedOperands).");
  static constexpr int kMinArch = Inner::kMinArch;
  template <class X>
  using WithTargets = PackedRows<typename Inner::template WithTargets<X>>;
  static const char* name() { return "PackedRows"; }
  static std::string parts() {
    return std::string("rows not 16-byte aligned copied into aligned scratch rows first, then ") + Inner::name() +
           "<" + Inner::parts() + ">";
  }
  template <class T, class Out>
  static constexpr bool kServes = Inner::template kServes<T, Out>;
  template <class In>
  static int smem_bytes() { return Inner::template smem_bytes<In>(); }

  template <class T, class Args>
  static Status check_alignment(const Args& args) {
    if constexpr (detail::kPacksRows<Args>) return Status::Success;  // misaligned rows are copied
    else return Inner::template check_alignment<T>(args);
  }

  // Which of A, B, C are copied (their rows not 16-byte aligned), as what, and where in the block.
  template <class Args>
  static detail::ScratchCopies plan_staging(const Args& args) {
    detail::ScratchCopies st;
    if constexpr (detail::kPacksRows<Args>) {
      using In = typename Args::Element;
      // Stored extents: op(A) is m x k, kept as m rows of k (N) or k rows of m (T); op(B) k x n likewise.
      const bool a_n = args.op_a == Op::N, b_n = args.op_b == Op::N;
      if (detail::reads_ab(args) && !detail::vector_aligned(args.A, args.lda))
        st.add(0, a_n ? args.m : args.k, a_n ? args.k : args.m, sizeof(In));
      if (detail::reads_ab(args) && !detail::vector_aligned(args.B, args.ldb))
        st.add(1, b_n ? args.k : args.n, b_n ? args.n : args.k, sizeof(In));
      if (!detail::vector_aligned(args.C, args.ldc)) st.add(2, args.m, args.n, sizeof(typename Args::Output));
    }
    return st;
  }

  // Scratch memory the call takes (what gemm::plan reports).
  template <class T, class Args>
  static std::size_t workspace_bytes(const Args& args, const detail::DeviceInfo&) { return plan_staging(args).bytes; }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& caller_args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if constexpr (!detail::kPacksRows<Args>) {
      return Inner::template launch<T, Layouts>(caller_args, dev, stream);
    } else {
      using In = typename Args::Element;
      const detail::ScratchCopies st = plan_staging(caller_args);
      if (st.bytes == 0) return Inner::template launch<T, Layouts>(caller_args, dev, stream);
      // Whether Inner can run here at all, before anything is copied (its launch checks the same).
      if (dev.arch < Inner::kMinArch) return Status::UnsupportedArchitecture;
      if (Inner::template smem_bytes<In>() > dev.smem_optin) return Status::SharedMemoryTooLarge;
      detail::StreamWorkspace workspace(stream, dev.device);  // freed in stream order after the copy back
      char* scratch = nullptr;
      if (Status s = workspace.allocate(scratch, st.bytes); s != Status::Success) {
        if (s == Status::WorkspaceTooSmall && !Inner::Loader::kRejectsMisaligned)
          return Inner::template launch<T, Layouts>(caller_args, dev, stream);
        return s;
      }
      Args args = caller_args;
      if (Status s = st.stage_in(args, scratch, dev, stream); s != Status::Success) return s;
      if (Status s = Inner::template launch<T, Layouts>(args, dev, stream); s != Status::Success) return s;
      return st.stage_out(caller_args, args, dev, stream);
    }
  }
};

}  // namespace gemm
