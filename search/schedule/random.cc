// Seeded sampling: splitmix64 for the stream, rejection sampling for unbiased integers.
#include "search/schedule/random.h"

#include <string>

#include "support/error.h"

namespace kiln::search {

void RandomEngine::Seed(uint64_t seed) { state_ = seed; }

uint64_t RandomEngine::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t RandomEngine::UniformInt(int64_t low, int64_t high) {
  Check(high > low, ErrorKind::kInternal, "UniformInt: empty range");
  uint64_t span = static_cast<uint64_t>(high - low);
  // Reject the top partial bucket so every value is equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t x;
  do {
    x = Next();
  } while (x >= limit);
  return low + static_cast<int64_t>(x % span);
}

double RandomEngine::UniformReal() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

namespace {

void Enumerate(int64_t rest, int n, int64_t max_inner, std::vector<int64_t>& prefix,
               std::vector<std::vector<int64_t>>& out) {
  if (n == 1) {
    if (max_inner <= 0 || rest <= max_inner) {
      prefix.push_back(rest);
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int64_t d = 1; d <= rest; ++d) {
    if (rest % d != 0) continue;
    prefix.push_back(d);
    Enumerate(rest / d, n - 1, max_inner, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace

std::vector<std::vector<int64_t>> PerfectTilings(int64_t extent, int n,
                                                 int64_t max_innermost_factor) {
  std::vector<std::vector<int64_t>> out;
  if (n < 1 || extent < 1) return out;
  std::vector<int64_t> prefix;
  Enumerate(extent, n, max_innermost_factor, prefix, out);
  return out;
}

std::vector<int64_t> SamplePerfectTiling(RandomEngine& rng, int64_t extent, int n,
                                         int64_t max_innermost_factor) {
  auto all = PerfectTilings(extent, n, max_innermost_factor);
  Check(!all.empty(), ErrorKind::kSchedule,
        "sample_perfect_tile: no tiling of extent " + std::to_string(extent) + " into " +
            std::to_string(n) + " factors");
  return all[rng.UniformInt(0, static_cast<int64_t>(all.size()))];
}

int64_t SampleWeighted(RandomEngine& rng, const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) {
    Check(w >= 0, ErrorKind::kSchedule, "sample_categorical: negative probability");
    total += w;
  }
  Check(total > 0, ErrorKind::kSchedule, "sample_categorical: probabilities sum to zero");
  double x = rng.UniformReal() * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (x < weights[i]) return static_cast<int64_t>(i);
    x -= weights[i];
  }
  for (size_t i = weights.size(); i-- > 0;) {
    if (weights[i] > 0) return static_cast<int64_t>(i);
  }
  return 0;
}

}  // namespace kiln::search
