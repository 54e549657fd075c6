#pragma once
// PackedRows<Inner>: a policy adapter for the CUDA-core (tiled) compositions. A TiledPolicy loads
// A and B and stores C in 16-byte pieces only where every row of them starts on 16 bytes; one
// odd leading dimension of floats (1023 x 1025 x 1021 row-major, say) sends the whole call down
// its element-by-element path, at 46% of cuBLAS on the H100. This adapter first copies each
// operand whose rows are not 16-byte aligned, and such a C, into 64-byte-aligned rows of
// stream-ordered scratch (kernel/pack_kernel.cuh: one pass at close to copy bandwidth), runs
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
#include "kernel/pack_kernel.cuh"

namespace gemm {

namespace detail {
template <class P, class = void>
struct HasLoaderPart : std::false_type {};
template <class P>
struct HasLoaderPart<P, std::void_t<typename P::Loader>> : std::true_type {};
}  // namespace detail

template <class Inner>
struct PackedRows {
  static_assert(detail::HasLoaderPart<Inner>::value,
                "PackedRows<P>: P must be a CUDA-core composition (a TiledPolicy, with a loader part); the Hopper "
                "compositions copy misaligned operands themselves (PackMisalignedOperands).");
  static constexpr int kMinArch = Inner::kMinArch;
  static constexpr int kPackedRowBytes = 64;  // the copies' rows start on 64-byte boundaries
  static const char* name() { return "PackedRows"; }
  static std::string parts() {
    return std::string("rows not 16-byte aligned copied into aligned scratch rows first, then ") + Inner::name() +
           "<" + Inner::parts() + ">";
  }
  template <class T, class Out>
  static constexpr bool kServes = Inner::template kServes<T, Out>;
  template <class In>
  static int smem_bytes() { return Inner::template smem_bytes<In>(); }

  // Calls this adapter copies: one matrix, no fused epilogue (whose D and bias would need their
  // own staging).
  template <class Args>
  static constexpr bool kStages = Args::kBatching == Batch::None && !detail::has_epilogue<Args>;

  template <class T, class Args>
  static Status check_alignment(const Args& args) {
    if constexpr (kStages<Args>) return Status::Success;  // misaligned rows are copied
    else return Inner::template check_alignment<T>(args);
  }

  // Which of A, B, C are copied, their stored extents and where they go in the scratch block.
  struct Staging {
    bool copy[3] = {false, false, false};  // A, B, C
    int rows[3] = {}, cols[3] = {}, ld[3] = {};
    std::size_t offset[3] = {}, bytes = 0;
  };

  template <class Args>
  static Staging plan_staging(const Args& args) {
    Staging st;
    if constexpr (kStages<Args>) {
      using In = typename Args::Element;
      using Out = typename Args::Output;
      const bool a_n = args.op_a == Op::N, b_n = args.op_b == Op::N;
      // Stored extents: op(A) is m x k, kept as m rows of k (N) or k rows of m (T); op(B) k x n likewise.
      const int rows[3] = {a_n ? args.m : args.k, b_n ? args.k : args.n, args.m};
      const int cols[3] = {a_n ? args.k : args.m, b_n ? args.n : args.k, args.n};
      const std::size_t bytes[3] = {sizeof(In), sizeof(In), sizeof(Out)};
      const bool reads = detail::reads_ab(args);
      const bool copy[3] = {reads && !detail::vector_aligned(args.A, args.lda),
                            reads && !detail::vector_aligned(args.B, args.ldb), !detail::vector_aligned(args.C, args.ldc)};
      for (int x = 0; x < 3; ++x) {
        if (!copy[x]) continue;
        const int per_row = kPackedRowBytes / static_cast<int>(bytes[x]);
        st.copy[x] = true;
        st.rows[x] = rows[x], st.cols[x] = cols[x];
        st.ld[x] = static_cast<int>(detail::ceil_div(std::max(1, cols[x]), per_row) * per_row);
        st.offset[x] = st.bytes;
        st.bytes += (static_cast<std::size_t>(rows[x]) * st.ld[x] * bytes[x] + 255) / 256 * 256;
      }
    }
    return st;
  }

  // Scratch memory the call takes (what gemm::plan reports).
  template <class T, class Args>
  static std::size_t workspace_bytes(const Args& args) { return plan_staging(args).bytes; }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& caller_args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if constexpr (!kStages<Args>) {
      return Inner::template launch<T, Layouts>(caller_args, dev, stream);
    } else {
      using In = typename Args::Element;
      using Out = typename Args::Output;
      const Staging st = plan_staging(caller_args);
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
      const In** operand[2] = {&args.A, &args.B};
      int* ld[2] = {&args.lda, &args.ldb};
      detail::RowCopies<In> packs;  // A's and B's copies in one launch
      for (int x = 0; x < 2; ++x) {
        if (!st.copy[x]) continue;
        In* copy = reinterpret_cast<In*>(scratch + st.offset[x]);
        (packs.first.rows == 0 ? packs.first : packs.second) = {*operand[x], *ld[x], st.rows[x], st.cols[x], copy,
                                                                 st.ld[x]};
        *operand[x] = copy;
        *ld[x] = st.ld[x];
      }
      if (Status s = detail::copy_rows(packs, dev, stream); s != Status::Success) return s;
      if (st.copy[2]) {
        Out* copy = reinterpret_cast<Out*>(scratch + st.offset[2]);
        if (args.beta != 0) {  // (with beta == 0 the kernel writes C without reading it)
          if (Status s = detail::copy_rows(args.C, args.ldc, args.m, args.n, copy, st.ld[2], dev, stream);
              s != Status::Success)
            return s;
        }
        args.C = copy;
        args.ldc = st.ld[2];
      }
      if (Status s = Inner::template launch<T, Layouts>(args, dev, stream); s != Status::Success) return s;
      if (!st.copy[2]) return Status::Success;
      return detail::copy_rows(args.C, args.ldc, args.m, args.n, caller_args.C, caller_args.ldc, dev, stream);
    }
  }
};

}  // namespace gemm
