// The shape space of gemm_bench --gemm_shape_space (shape_space.hpp says what it holds). Layer
// sizes are the public model configurations' (hidden size, intermediate size, attention heads).
#include "shape_space.hpp"

#include <cmath>
#include <cstdint>
#include <set>
#include <tuple>

namespace gemm_bench {
namespace {

struct Layer {
  const char* family;
  const char* name;
  int out, in;        // out_features x in_features
  const int* tokens;  // token counts of a training or prefill step (two are used per layer)
};

// Tokens per step: LLM prefill and training micro-batches; GPT-2 at 8 x 1024, BERT at 32 x 384,
// ViT-B/16 at 64 images of 197 patches.
constexpr int kLlmTokens[] = {512, 2048, 4096, 8192, 16384};
constexpr int kGpt2Tokens[] = {8192, 2048, 8192, 2048, 8192};
constexpr int kBertTokens[] = {12288, 4096, 12288, 4096, 12288};
constexpr int kVitTokens[] = {12608, 3152, 12608, 3152, 12608};

const Layer kLayers[] = {
    // LLaMA-3 8B: hidden 4096, 32 heads, 8 KV heads of 128, intermediate 14336 (gate and up fused).
    {"llama3-8b", "qkv", 6144, 4096, kLlmTokens},
    {"llama3-8b", "o", 4096, 4096, kLlmTokens},
    {"llama3-8b", "gate_up", 28672, 4096, kLlmTokens},
    {"llama3-8b", "down", 4096, 14336, kLlmTokens},
    // LLaMA-3 70B: hidden 8192, 64 heads, 8 KV heads, intermediate 28672.
    {"llama3-70b", "qkv", 10240, 8192, kLlmTokens},
    {"llama3-70b", "o", 8192, 8192, kLlmTokens},
    {"llama3-70b", "gate_up", 57344, 8192, kLlmTokens},
    {"llama3-70b", "down", 8192, 28672, kLlmTokens},
    // Mixtral 8x7B, its dense parts: attention (hidden 4096, 8 KV heads) and the router (8 experts).
    {"mixtral-8x7b", "qkv", 6144, 4096, kLlmTokens},
    {"mixtral-8x7b", "o", 4096, 4096, kLlmTokens},
    {"mixtral-8x7b", "router", 8, 4096, kLlmTokens},
    // DeepSeek-V3: hidden 7168; multi-head latent attention (q rank 1536, kv rank 512, 128 heads
    // of 128 + 64 rope dims); the dense layers' MLP (intermediate 18432, gate and up fused).
    {"deepseek-v3", "q_a", 1536, 7168, kLlmTokens},
    {"deepseek-v3", "q_b", 24576, 1536, kLlmTokens},
    {"deepseek-v3", "kv_a", 576, 7168, kLlmTokens},
    {"deepseek-v3", "kv_b", 32768, 512, kLlmTokens},
    {"deepseek-v3", "o", 7168, 16384, kLlmTokens},
    {"deepseek-v3", "dense_gate_up", 36864, 7168, kLlmTokens},
    {"deepseek-v3", "dense_down", 7168, 18432, kLlmTokens},
    // GPT-2 (124M): hidden 768; GPT-3 175B: hidden 12288.
    {"gpt2", "qkv", 2304, 768, kGpt2Tokens},
    {"gpt2", "o", 768, 768, kGpt2Tokens},
    {"gpt2", "fc", 3072, 768, kGpt2Tokens},
    {"gpt2", "proj", 768, 3072, kGpt2Tokens},
    {"gpt3-175b", "qkv", 36864, 12288, kLlmTokens},
    {"gpt3-175b", "o", 12288, 12288, kLlmTokens},
    {"gpt3-175b", "fc", 49152, 12288, kLlmTokens},
    {"gpt3-175b", "proj", 12288, 49152, kLlmTokens},
    // BERT-large: hidden 1024, intermediate 4096.
    {"bert-large", "qkv", 3072, 1024, kBertTokens},
    {"bert-large", "o", 1024, 1024, kBertTokens},
    {"bert-large", "fc", 4096, 1024, kBertTokens},
    {"bert-large", "proj", 1024, 4096, kBertTokens},
    // ViT-B/16: hidden 768, intermediate 3072.
    {"vit-b16", "qkv", 2304, 768, kVitTokens},
    {"vit-b16", "fc", 3072, 768, kVitTokens},
    {"vit-b16", "proj", 768, 3072, kVitTokens},
};

// Decode: the forward form with few tokens, for the layers a served model runs per token.
const char* const kDecodeLayers[][2] = {{"llama3-8b", "qkv"},  {"llama3-8b", "gate_up"}, {"llama3-8b", "down"},
                                        {"llama3-70b", "o"},   {"llama3-70b", "down"},   {"deepseek-v3", "q_b"}};
constexpr int kDecodeTokens[] = {1, 2, 4, 8, 16, 32, 64, 128};

std::string tokens_note(int t) { return std::to_string(t) + " tokens"; }

double flops(const SpaceShape& s) { return 2.0 * s.m * s.n * s.k; }

}  // namespace

const std::vector<std::string>& shape_classes() {
  static const std::vector<std::string> c = {"decode", "forward", "backward-data", "weight-gradient", "long-k",
                                             "random"};
  return c;
}

std::vector<SpaceShape> shape_space() {
  std::vector<SpaceShape> model;  // bf16 shapes from the models (decode and long k included)
  std::set<std::tuple<std::string, int, int, int>> seen;
  const auto add = [&](std::vector<SpaceShape>& to, SpaceShape s) {
    if (seen.insert({s.type + s.layout, s.m, s.n, s.k}).second) to.push_back(std::move(s));
  };
  int li = 0;
  for (const Layer& l : kLayers) {
    const std::string src = std::string(l.family) + " " + l.name;
    for (int j = 0; j < 2; ++j) {  // two token counts per layer, different for neighbouring layers
      const int t = l.tokens[(li + 2 * j) % 5];
      const std::string note = src + ", " + tokens_note(t);
      add(model, {"bf16", "NT", t, l.out, l.in, "forward", note});
      add(model, {"bf16", "NN", t, l.in, l.out, "backward-data", note});
      const bool long_k = t >= 16 * std::max(l.out, l.in);
      add(model, {"bf16", "TN", l.out, l.in, t, long_k ? "long-k" : "weight-gradient", note});
    }
    ++li;
  }
  for (const auto& dl : kDecodeLayers)
    for (const Layer& l : kLayers)
      if (std::string(l.family) == dl[0] && std::string(l.name) == dl[1])
        for (int t : kDecodeTokens)
          add(model, {"bf16", "NT", t, l.out, l.in, "decode",
                      std::string(l.family) + " " + l.name + ", decode, " + tokens_note(t)});
  // Weight gradients of small layers over many tokens (k >= 16 max(m, n)): the shapes where one
  // output tile per SM is far too little work to split by tiles alone.
  const int long_k[][3] = {{384, 384, 65536}, {768, 768, 131072}, {768, 3072, 131072}, {1024, 1024, 65536},
                           {576, 7168, 131072}, {2304, 768, 65536}, {8, 4096, 65536}, {1536, 1536, 32768}};
  for (const auto& s : long_k)
    add(model, {"bf16", "TN", s[0], s[1], s[2], "long-k", "weight gradient over many tokens"});

  // Random shapes, log-uniform in [1, 16384] per dimension (a fixed seed), in bf16 NT and NN.
  std::vector<SpaceShape> random;
  std::uint64_t x = 0x5eed5eed2026ull;
  const auto next = [&x] {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const auto draw = [&] {
    const double u = double(next() >> 11) / double(1ull << 53);
    return static_cast<int>(std::lround(std::exp(u * std::log(16384.0))));
  };
  for (int i = 0; i < 50; ++i) {
    const int m = draw(), n = draw(), k = draw();
    add(random, {"bf16", i % 2 ? "NN" : "NT", m, n, k, "random", "random (seeded)"});
  }

  std::vector<SpaceShape> out = model;
  out.insert(out.end(), random.begin(), random.end());
  // Subsets: every fourth model shape in fp16; strict fp32 and tf32 on every fourth shape of at most
  // 2e11 flop (about 4 ms for strict fp32 on an H100), and decode at 16 tokens.
  int i = 0;
  for (const SpaceShape& s : model) {
    const int index = i++;
    if (index % 4 == 1) {
      SpaceShape h = s;
      h.type = "fp16";
      add(out, h);
    }
    if ((index % 4 == 3 && flops(s) <= 2e11 && s.cls != "decode") || (s.cls == "decode" && s.m == 16)) {
      for (const char* t : {"float", "tf32"}) {
        SpaceShape f = s;
        f.type = t;
        add(out, f);
      }
    }
  }
  return out;
}

double geomean(const std::vector<double>& ratios) {
  double sum = 0;
  for (double x : ratios) sum += std::log(x);
  return ratios.empty() ? std::nan("") : std::exp(sum / double(ratios.size()));
}

}  // namespace gemm_bench
