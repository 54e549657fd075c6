#pragma once
// cuBLASLt's FP8 GEMM as a baseline for gemm::gemm<__nv_fp8_e4m3>'s natural call (gemm_bench's FP8
// rows, gemm_fp8_accuracy): row-major
//
//   C (m x n) = alpha * A_deq (m x k, row-major, lda) * B_deq^T (B stored n x k, row-major, ldb: a weight)
//
// e4m3 x e4m3, CUBLAS_COMPUTE_32F, scale type CUDA_R_32F, D of Out (bf16, fp16 or float), beta = 0,
// with the scales of a gemm::Scales (scales.cuh) in any of its three modes.
//
// Row-major C is column-major C^T (n x m) = B_deq A_deq^T over the same storage. So cuBLASLt's "A" is
// our B, stored k x n column-major (ld = ldb), with CUBLAS_OP_T; its "B" is our A, stored k x m (ld =
// lda), with CUBLAS_OP_N: the TN form, the only one Hopper's FP8 kernels take. Its A scales are those of
// our B, its B scales those of our A:
//
//   gemm::ScaleMode   cuBLASLt A (our B, weights)      cuBLASLt B (our A, activations)   memory
//   Tensor            SCALAR_32F                       SCALAR_32F                        1 float each, as ours
//   Rowwise           OUTER_VEC_32F (n floats)         OUTER_VEC_32F (m floats)          ours as they are
//   Block             BLK128x128_32F                   VEC128_32F                        copied, see below
//
// OUTER_VEC_32F (cublasLt.h): element (i, j) of cuBLASLt's m_lt x n_lt product is multiplied by A's
// scale i and B's scale j. Here m_lt = n and n_lt = m, so its A vector is our b (one per column of C)
// and its B vector our a (one per row of C): our buffers need no change.
//
// Block scales. cuBLAS's documentation ("Scaling factors layouts", https://docs.nvidia.com/cuda/cublas/
// #scaling-factors-layouts; both modes since cuBLAS 12.9, Hopper only) lays them out as restated by
// PyTorch's scaled_mm, which fixed silent wrong answers with it (pytorch/pytorch#166752: "1x128 x
// 128x128: A_scale [M, K/128] stride [1, M]; B_scale [L4, N/128] stride [1, L4], L4 = round_up(K/128,
// 4)"), and as TransformerEngine's Float8BlockQuantizer writes its GEMM-ready scales
// (transformer_engine/pytorch/tensor/float8_blockwise_tensor.py, get_scale_shape). For an operand
// stored with k contiguous and `rows` rows of k (rows = m for our A, n for our B), kb = ceil(k / 128):
//
//   VEC128_32F      kb x rows floats, rows contiguous: block (r, kb_i) at kb_i * ld + r, ld = rows
//                   (TransformerEngine rounds ld up to a multiple of 4; cuBLAS 13.1 has no algorithm
//                   for m % 4 != 0 anyway, so the two readings never differ in a call that runs)
//   BLK128x128_32F  ceil(rows / 128) x kb floats, kb contiguous: block (rb, kb_i) at rb * round_up(kb, 4)
//                   + kb_i (each row of blocks padded to 16 bytes)
//
// Ours (scales.cuh): a[kb_i * m + i], VEC128's layout with ld = m; b[nb * kb + kb_i], BLK128x128's with
// rows of kb. prepare() copies both into buffers of its own with cuBLASLt's padded pitches (the pads
// zeroed, never read), which differ from ours only when m % 4 or kb % 4 is not 0 (k = 4104: 33 blocks,
// rows of 36). Checked on an H200 with cuBLAS 13.1 against an fp64 product of the dequantized inputs:
// these layouts agree with it to cuBLASLt's own error (1e-4 normwise with fp32 D) in every mode, for
// kb % 4 == 0 and != 0 (k = 640, 656, 1280) and m down to 4; BLK128x128 rows of kb without the padding
// are off by 0.2 to 0.4 wherever kb % 4 != 0.
//
// cuBLASLt may have no algorithm for a problem: FP8 needs 16-byte-aligned leading dimensions (k = 4104
// with tensor scales is refused), and cuBLAS 13.1 has none for block scales with m % 4 != 0 or with
// fast accumulation. prepare() then returns LtStatus::Refused and message() says why, and run() launches
// nothing. Nothing here throws or exits.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <gemm/scales.cuh>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace gemm_bench {

enum class LtStatus {
  Success,
  Refused,    // cuBLASLt declined: no algorithm, or an attribute or cublasLtMatmul returned an error
  CudaError,  // a CUDA runtime call failed (allocation, copy): the device is in trouble
};

inline const char* lt_scale_mode_name(int32_t mode) {
  switch (mode) {
    case CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F: return "SCALAR_32F";
    case CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F: return "OUTER_VEC_32F";
    case CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F: return "VEC128_32F";
    case CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F: return "BLK128x128_32F";
    default: return "?";
  }
}

template <class Out>
class CublasLtFp8 {
  static_assert(std::is_same_v<Out, __nv_bfloat16> || std::is_same_v<Out, __half> || std::is_same_v<Out, float>,
                "cuBLASLt's FP8 GEMM writes D in bf16, fp16 or float here");

 public:
  static constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

  CublasLtFp8() = default;  // touches no device: the handle and workspace come with the first prepare()
  CublasLtFp8(const CublasLtFp8&) = delete;
  CublasLtFp8& operator=(const CublasLtFp8&) = delete;
  ~CublasLtFp8() {
    release_problem();
    if (scale_buf_) cudaFree(scale_buf_);
    if (workspace_) cudaFree(workspace_);
    if (handle_) cublasLtDestroy(handle_);
  }

  // Binds an m x n x k problem with these leading dimensions, scales and accumulation, and picks
  // cuBLASLt's first heuristic algorithm for 256-byte-aligned A, B and C. Block scales are copied
  // (on `stream`) into cuBLASLt's layout now: prepare again after changing their values; tensor and
  // row scales are read where they are, at each run.
  LtStatus prepare(int m, int n, int k, int lda, int ldb, int ldc, const gemm::Scales& scales, bool fast_accum = false,
                   cudaStream_t stream = 0) {
    release_problem();
    m_ = m, n_ = n, k_ = k, fast_accum_ = fast_accum, mode_ = scales.mode;
    if (m <= 0 || n <= 0 || k <= 0) return refuse("empty problem");
    if (!scales.a || !scales.b || scales.a_count < gemm::Scales::needed_a(scales.mode, m, k) ||
        scales.b_count < gemm::Scales::needed_b(scales.mode, n, k))
      return refuse(std::string("scales missing or too small for mode ") + gemm::to_string(scales.mode));
    if (!handle_ && !lt_ok(cublasLtCreate(&handle_), "cublasLtCreate")) return status_;
    if (!workspace_ && !cuda_ok(cudaMalloc(&workspace_, kWorkspaceBytes), "cudaMalloc (workspace)")) return status_;

    // cuBLASLt's A is our B and its B our A, scales included.
    const void* scale_a = scales.b;
    const void* scale_b = scales.a;
    switch (scales.mode) {
      case gemm::ScaleMode::Tensor:
        mode_a_ = mode_b_ = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
        break;
      case gemm::ScaleMode::Rowwise:
        mode_a_ = mode_b_ = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
        break;
      case gemm::ScaleMode::Block: {
        mode_a_ = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
        mode_b_ = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
        const std::size_t kb = static_cast<std::size_t>(gemm::Scales::k_blocks(k));
        const std::size_t nb = (static_cast<std::size_t>(n) + gemm::kScaleBlock - 1) / gemm::kScaleBlock;
        const std::size_t a_pitch = round_up4(kb);  // floats per row of 128 x 128 blocks of our B
        const std::size_t b_pitch = round_up4(static_cast<std::size_t>(m));  // floats per k block of our A
        const std::size_t a_floats = nb * a_pitch, floats = a_floats + kb * b_pitch;
        if (floats > scale_capacity_) {
          if (scale_buf_) cudaFree(scale_buf_);
          scale_buf_ = nullptr, scale_capacity_ = 0;
          if (!cuda_ok(cudaMalloc(&scale_buf_, floats * sizeof(float)), "cudaMalloc (block scales)")) return status_;
          scale_capacity_ = floats;
        }
        float* lt_a = scale_buf_;
        // The second buffer 16-byte aligned too: a_floats is a multiple of 4.
        float* lt_b = scale_buf_ + a_floats;
        if (!cuda_ok(cudaMemsetAsync(scale_buf_, 0, floats * sizeof(float), stream), "cudaMemsetAsync (block scales)") ||
            !cuda_ok(cudaMemcpy2DAsync(lt_a, a_pitch * sizeof(float), scales.b, kb * sizeof(float), kb * sizeof(float), nb,
                                       cudaMemcpyDeviceToDevice, stream),
                     "cudaMemcpy2DAsync (B's block scales)") ||
            !cuda_ok(cudaMemcpy2DAsync(lt_b, b_pitch * sizeof(float), scales.a, std::size_t(m) * sizeof(float),
                                       std::size_t(m) * sizeof(float), kb, cudaMemcpyDeviceToDevice, stream),
                     "cudaMemcpy2DAsync (A's block scales)"))
          return status_;
        scale_a = lt_a, scale_b = lt_b;
        break;
      }
      default:
        return refuse("unknown gemm::ScaleMode");
    }

    if (!lt_ok(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate"))
      return status_;
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    const int8_t fast = fast_accum ? 1 : 0;
    if (!set(CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa, "TRANSA") ||
        !set(CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb, "TRANSB") ||
        !set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_a_, sizeof mode_a_, "A_SCALE_MODE") ||
        !set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_b_, sizeof mode_b_, "B_SCALE_MODE") ||
        !set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a, sizeof scale_a, "A_SCALE_POINTER") ||
        !set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b, sizeof scale_b, "B_SCALE_POINTER") ||
        !set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast, "FAST_ACCUM"))
      return status_;
    if (!lt_ok(cublasLtMatrixLayoutCreate(&layout_a_, CUDA_R_8F_E4M3, k, n, ldb), "cublasLtMatrixLayoutCreate (A)") ||
        !lt_ok(cublasLtMatrixLayoutCreate(&layout_b_, CUDA_R_8F_E4M3, k, m, lda), "cublasLtMatrixLayoutCreate (B)") ||
        !lt_ok(cublasLtMatrixLayoutCreate(&layout_c_, out_type(), n, m, ldc), "cublasLtMatrixLayoutCreate (C)"))
      return status_;

    cublasLtMatmulPreference_t pref = nullptr;
    if (!lt_ok(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate")) return status_;
    const std::size_t bytes = kWorkspaceBytes;
    const cublasStatus_t ps =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t hs =
        ps != CUBLAS_STATUS_SUCCESS
            ? ps
            : cublasLtMatmulAlgoGetHeuristic(handle_, desc_, layout_a_, layout_b_, layout_c_, layout_c_, pref, 1, &result,
                                             &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (hs != CUBLAS_STATUS_SUCCESS || found == 0)
      return refuse("no algorithm for " + problem() + " (cublasLtMatmulAlgoGetHeuristic: " +
                    (hs != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusName(hs) : "0 results") + ")");
    algo_ = result.algo;
    ready_ = true;
    status_ = LtStatus::Success;
    message_.clear();
    return status_;
  }

  // C = alpha * A_deq * B_deq^T on `stream`, with the prepared problem (pointers 256-byte aligned).
  LtStatus run(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, Out* C, float alpha = 1.0f, cudaStream_t stream = 0) {
    if (!ready_) return status_ == LtStatus::Success ? refuse("not prepared") : status_;
    const float beta = 0.0f;
    const cublasStatus_t st = cublasLtMatmul(handle_, desc_, &alpha, B, layout_a_, A, layout_b_, &beta, C, layout_c_, C,
                                             layout_c_, &algo_, workspace_, kWorkspaceBytes, stream);
    if (st == CUBLAS_STATUS_SUCCESS) return LtStatus::Success;
    message_ = std::string("cublasLtMatmul: ") + cublasLtGetStatusName(st) + " for " + problem();
    return LtStatus::Refused;
  }

  bool ready() const { return ready_; }
  LtStatus status() const { return status_; }
  const std::string& message() const { return message_; }  // why the last prepare() or run() failed

  // "cublasLtMatmul e4m3 TN, CUBLAS_COMPUTE_32F, D bf16, scales BLK128x128_32F (B) x VEC128_32F (A)".
  std::string describe() const {
    std::string s = std::string("cublasLtMatmul e4m3 TN, CUBLAS_COMPUTE_32F, D ") + out_name() + ", scales " +
                    lt_scale_mode_name(mode_a_) + " (B) x " + lt_scale_mode_name(mode_b_) + " (A)";
    return fast_accum_ ? s + ", fast accumulation" : s;
  }

 private:
  static std::size_t round_up4(std::size_t x) { return (x + 3) / 4 * 4; }
  static constexpr cudaDataType_t out_type() {
    if constexpr (std::is_same_v<Out, __nv_bfloat16>) return CUDA_R_16BF;
    else if constexpr (std::is_same_v<Out, __half>) return CUDA_R_16F;
    else return CUDA_R_32F;
  }
  static constexpr const char* out_name() {
    if constexpr (std::is_same_v<Out, __nv_bfloat16>) return "bf16";
    else if constexpr (std::is_same_v<Out, __half>) return "fp16";
    else return "fp32";
  }
  std::string problem() const {
    return std::to_string(m_) + "x" + std::to_string(n_) + "x" + std::to_string(k_) + " with " +
           gemm::to_string(mode_) + " scales" + (fast_accum_ ? " and fast accumulation" : "");
  }

  LtStatus refuse(const std::string& why) {
    message_ = why;
    return status_ = LtStatus::Refused;
  }
  bool lt_ok(cublasStatus_t st, const char* what) {
    if (st == CUBLAS_STATUS_SUCCESS) return true;
    refuse(std::string(what) + ": " + cublasLtGetStatusName(st) + " for " + problem());
    return false;
  }
  bool cuda_ok(cudaError_t err, const char* what) {
    if (err == cudaSuccess) return true;
    message_ = std::string(what) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
    status_ = LtStatus::CudaError;
    return false;
  }
  bool set(cublasLtMatmulDescAttributes_t attr, const void* value, std::size_t size, const char* name) {
    const cublasStatus_t st = cublasLtMatmulDescSetAttribute(desc_, attr, value, size);
    if (st == CUBLAS_STATUS_SUCCESS) return true;
    refuse(std::string("cublasLtMatmulDescSetAttribute(") + name + "): " + cublasLtGetStatusName(st) + " for " +
           problem());
    return false;
  }

  void release_problem() {
    if (layout_c_) cublasLtMatrixLayoutDestroy(layout_c_);
    if (layout_b_) cublasLtMatrixLayoutDestroy(layout_b_);
    if (layout_a_) cublasLtMatrixLayoutDestroy(layout_a_);
    if (desc_) cublasLtMatmulDescDestroy(desc_);
    layout_a_ = layout_b_ = layout_c_ = nullptr;
    desc_ = nullptr;
    ready_ = false;
  }

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  float* scale_buf_ = nullptr;  // block scales in cuBLASLt's layout: its A's, then its B's
  std::size_t scale_capacity_ = 0;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  int32_t mode_a_ = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, mode_b_ = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  int m_ = 0, n_ = 0, k_ = 0;
  bool fast_accum_ = false, ready_ = false;
  gemm::ScaleMode mode_ = gemm::ScaleMode::Tensor;
  LtStatus status_ = LtStatus::Success;
  std::string message_;
};

}  // namespace gemm_bench
