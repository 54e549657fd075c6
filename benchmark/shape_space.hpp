#pragma once
// The shape space: the GEMMs models run, for judging a default by the user's shapes rather than by
// squares. Every linear layer (out_features x in_features, a weight stored as PyTorch keeps it, n x
// k with k contiguous) appears in three forms over T tokens:
//   forward          Y[T, out] = X[T, in] W^T            m = T,   n = out, k = in   (NT)
//   backward-data    dX[T, in] = dY[T, out] W            m = T,   n = in,  k = out  (NN)
//   weight-gradient  dW[out, in] = dY^T X                m = out, n = in,  k = T    (TN)
// plus decode (the forward form with T = 1 .. 128), long k (weight gradients whose k is at least 16
// times m and n) and shapes drawn log-uniformly in [1, 16384]^3 (seeded), in bf16 (NT and NN),
// with fp16, strict fp32 and tf32 subsets.
#include <string>
#include <vector>

namespace gemm_bench {

struct SpaceShape {
  std::string type;    // bf16, fp16, float, tf32
  std::string layout;  // NN, NT, TN
  int m = 0, n = 0, k = 0;
  std::string cls;     // decode, forward, backward-data, weight-gradient, long-k, random
  std::string source;  // the model layer and token count it comes from, or "random"
};

// The whole space, in a fixed order (the same on every run).
std::vector<SpaceShape> shape_space();

// The classes, in the order reports list them.
const std::vector<std::string>& shape_classes();

// The geometric mean of ratios, as the reports summarise a class (NaN for none).
double geomean(const std::vector<double>& ratios);

}  // namespace gemm_bench
