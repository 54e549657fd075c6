// gemm::blas::gemm against cuBLAS itself: the same column-major arguments (transposes, sizes, leading
// dimensions, alpha, beta) on the same data through cublasGemmEx, compared element by element.
// Both are checked against the fp64 reference elsewhere; here the point is that a cuBLAS call maps
// one to one onto ours.
#include <cublas_v2.h>
#include "check.cuh"

namespace {
using gemm::Op;

template <class T>
cudaDataType_t cuda_type() {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return CUDA_R_16BF;
  else if constexpr (std::is_same_v<T, __half>) return CUDA_R_16F;
  else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else return CUDA_R_32F;
}

template <class T>
cublasComputeType_t compute_type() {
  if constexpr (std::is_same_v<T, double>) return CUBLAS_COMPUTE_64F;
  else if constexpr (std::is_same_v<T, float>) return CUBLAS_COMPUTE_32F_PEDANTIC;
  else return CUBLAS_COMPUTE_32F;
}

struct Handle {
  cublasHandle_t h = nullptr;
  Handle() { REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS); }
  ~Handle() { cublasDestroy(h); }
};

// Column-major C (m x n) = alpha * op(A) * op(B) + beta * C through both libraries.
template <class T, class Out>
void compare_with_cublas(cublasHandle_t handle, Op ta, Op tb, int m, int n, int k, int pad, double alpha, double beta) {
  using In = gemm::storage_t<T>;
  using S = gemm::scalar_t<T>;
  const int lda = (ta == Op::N ? m : k) + pad, ldb = (tb == Op::N ? k : n) + pad, ldc = m + pad;
  const int a_cols = ta == Op::N ? k : m, b_cols = tb == Op::N ? n : k;
  std::vector<In> a(static_cast<size_t>(lda) * a_cols), b(static_cast<size_t>(ldb) * b_cols);
  std::vector<Out> c(static_cast<size_t>(ldc) * n);
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  gemm_test::fill_random(c);
  const char* type = gemm::type_name<T, Out>();
  INFO(type << " transa=" << gemm::to_string(ta) << " transb=" << gemm::to_string(tb) << " m=" << m << " n=" << n
            << " k=" << k << " lda=" << lda << " ldb=" << ldb << " ldc=" << ldc << " alpha=" << alpha << " beta=" << beta);
  gemm_test::DeviceBuffer<In> da(a.size()), db(b.size());
  gemm_test::DeviceBuffer<Out> ours(c.size()), theirs(c.size());
  CUDA_REQUIRE(cudaMemcpy(da.ptr, a.data(), a.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(db.ptr, b.data(), b.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(ours.ptr, c.data(), c.size() * sizeof(Out), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(theirs.ptr, c.data(), c.size() * sizeof(Out), cudaMemcpyHostToDevice));

  const S al = static_cast<S>(alpha), be = static_cast<S>(beta);
  const gemm::Status s = gemm::blas::gemm<T>(ta, tb, m, n, k, al, da.ptr, lda, db.ptr, ldb, be, ours.ptr, ldc);
  INFO("status: " << gemm::to_string(s));
  REQUIRE(s == gemm::Status::Success);
  const cublasStatus_t cs = cublasGemmEx(handle, ta == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T,
                                         tb == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T, m, n, k, &al, da.ptr, cuda_type<In>(),
                                         lda, db.ptr, cuda_type<In>(), ldb, &be, theirs.ptr, cuda_type<Out>(), ldc,
                                         compute_type<T>(), CUBLAS_GEMM_DEFAULT);
  REQUIRE(cs == CUBLAS_STATUS_SUCCESS);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<Out> x(c.size()), y(c.size());
  CUDA_REQUIRE(cudaMemcpy(x.data(), ours.ptr, x.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(y.data(), theirs.ptr, y.size() * sizeof(Out), cudaMemcpyDeviceToHost));

  // Each result is within the error model's bound of the exact one (|a|, |b|, |c| < 1 bounds the
  // summed terms by k |alpha| + |beta|), so the two are within twice that of each other. The padding
  // rows of C (beyond m in each column) must be untouched by both.
  const gemm_test::ErrorModel<T, Out> model;
  const double scale = k * std::fabs(alpha) + std::fabs(beta) + 1;
  long long bad = 0, stray = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) {
      const size_t idx = static_cast<size_t>(j) * ldc + i;
      const double u = gemm_test::to_double(x[idx]), v = gemm_test::to_double(y[idx]);
      if (i >= m) {
        stray += std::memcmp(&x[idx], &c[idx], sizeof(Out)) != 0;
        continue;
      }
      if (!(std::fabs(u - v) <= 2 * model.element(k, scale, std::fabs(beta), scale))) {
        if (bad < 3) UNSCOPED_INFO("C(" << i << "," << j << "): ours " << u << ", cuBLAS " << v);
        ++bad;
      }
    }
  CHECK(bad == 0);
  CHECK(stray == 0);
}

template <class T, class Out = gemm::storage_t<T>>
void compare_all_transposes(cublasHandle_t handle) {
  const int shapes[][4] = {{1, 1, 1, 0}, {37, 19, 53, 3}, {128, 96, 64, 0}, {300, 257, 129, 8}};
  int i = 0;
  for (Op ta : {Op::N, Op::T})
    for (Op tb : {Op::N, Op::T})
      for (const auto& s : shapes) {
        const double alpha = i % 2 ? -0.75 : 1.0, beta = i % 3 == 0 ? 0.0 : 0.5;
        compare_with_cublas<T, Out>(handle, ta, tb, s[0], s[1], s[2], s[3], alpha, beta);
        ++i;
      }
}
}  // namespace

TEST_CASE("gemm::blas::gemm matches cublasGemmEx called with the same arguments", "[gpu][blas]") {
  Handle handle;
  compare_all_transposes<float>(handle.h);
  compare_all_transposes<double>(handle.h);
  compare_all_transposes<__nv_bfloat16>(handle.h);
  compare_all_transposes<__nv_bfloat16, float>(handle.h);
  compare_all_transposes<__half>(handle.h);
  compare_all_transposes<__half, float>(handle.h);
}
