#pragma once
// Host side of TMA: describing A and B to the copy engine. cuTensorMapEncodeTiled is a driver
// function; it is fetched through the runtime (cudaGetDriverEntryPointByVersion), so the library
// needs no link to libcuda. Encoding touches no device: it only fills the 128-byte CUtensorMap,
// which travels to the kernel as a __grid_constant__ parameter.
#include <cstdint>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <type_traits>
#include "../status.cuh"
#include "../types.cuh"

namespace gemm::sm90 {

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

template <class T>
constexpr CUtensorMapDataType tensor_map_type() {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  else if constexpr (std::is_same_v<T, __half>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, double>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  else return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

// What TMA needs of a matrix's rows: a stride of whole multiples of 16 bytes.
template <class T>
bool tma_rows(int ld) {
  return (static_cast<long long>(ld) * sizeof(T)) % 16 == 0;
}
// What TMA needs of a matrix: a 16-byte-aligned base and rows as tma_rows.
template <class T>
bool tma_compatible(const T* base, int ld) {
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && tma_rows<T>(ld);
}

// A row-major matrix of rows x cols elements (row stride ld), copied in boxes of box_rows x
// box_cols with the 128-byte swizzle (box_cols * sizeof(T) must be 128). Elements past the matrix
// read as zeros. With batch > 0, a 3-D tensor of `batch` such matrices `stride` elements apart
// (a multiple of 16 bytes), each box within one matrix.
template <class T>
Status make_tensor_map(CUtensorMap& map, const T* base, long long rows, long long cols, long long ld, int box_rows,
                       int box_cols, long long batch = 0, long long stride = 0) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return Status::TensorMapFailed;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld) * sizeof(T), static_cast<cuuint64_t>(stride) * sizeof(T)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const cuuint32_t rank = batch > 0 ? 3 : 2;
  const CUresult r = encode(&map, tensor_map_type<T>(), rank, const_cast<T*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? Status::Success : Status::TensorMapFailed;
}

}  // namespace gemm::sm90
