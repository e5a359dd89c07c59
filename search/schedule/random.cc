// Seeded sampling: splitmix64 for the stream, rejection sampling for unbiased integers.
#include "search/schedule/random.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

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
  KILN_CHECK(high > low, ErrorKind::kInternal, "UniformInt: empty range");
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

// Ordered factorizations of an extent, counted rather than listed: the count of tilings of
// every divisor into k factors is memoized, so that a loop of a large extent with many
// divisors is sampled without enumerating its (possibly astronomically many) tilings.
class TilingCounter {
 public:
  TilingCounter(int64_t extent, int64_t max_inner) : max_inner_(max_inner) {
    for (int64_t d = 1; d <= extent / d; ++d) {
      if (extent % d != 0) continue;
      divisors_.push_back(d);
      if (d != extent / d) divisors_.push_back(extent / d);
    }
    std::sort(divisors_.begin(), divisors_.end());
  }

  // Tilings of `rest` (a divisor of the extent) into `n` factors; saturates at kSaturated.
  uint64_t Count(int64_t rest, int n) {
    if (n == 1) return max_inner_ <= 0 || rest <= max_inner_ ? 1 : 0;
    auto key = std::make_pair(rest, n);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    uint64_t total = 0;
    for (int64_t d : divisors_) {
      if (d > rest) break;
      if (rest % d != 0) continue;
      uint64_t c = Count(rest / d, n - 1);
      total = c > kSaturated - total ? kSaturated : total + c;
    }
    memo_[key] = total;
    return total;
  }

  // The index-th tiling (lexicographic order) of `rest` into `n` factors.
  void Unrank(int64_t rest, int n, uint64_t index, std::vector<int64_t>* out) {
    for (; n > 1; --n) {
      for (int64_t d : divisors_) {
        if (d > rest || rest % d != 0) continue;
        uint64_t c = Count(rest / d, n - 1);
        if (index < c) {
          out->push_back(d);
          rest /= d;
          break;
        }
        index -= c;
      }
    }
    out->push_back(rest);
  }

  static constexpr uint64_t kSaturated = uint64_t{1} << 62;

 private:
  int64_t max_inner_;
  std::vector<int64_t> divisors_;
  std::map<std::pair<int64_t, int>, uint64_t> memo_;
};

}  // namespace

std::vector<std::vector<int64_t>> PerfectTilings(int64_t extent, int n,
                                                 int64_t max_innermost_factor) {
  std::vector<std::vector<int64_t>> out;
  if (n < 1 || extent < 1) return out;
  TilingCounter counter(extent, max_innermost_factor);
  uint64_t total = counter.Count(extent, n);
  KILN_CHECK(total <= kMaxListedTilings, ErrorKind::kSchedule,
             "perfect tilings: extent " + std::to_string(extent) + " has more than " +
                 std::to_string(kMaxListedTilings) + " tilings into " + std::to_string(n) +
                 " factors; sample them instead");
  for (uint64_t i = 0; i < total; ++i) {
    out.emplace_back();
    counter.Unrank(extent, n, i, &out.back());
  }
  return out;
}

std::vector<int64_t> SamplePerfectTiling(RandomEngine& rng, int64_t extent, int n,
                                         int64_t max_innermost_factor) {
  uint64_t total = 0;
  TilingCounter counter(extent, max_innermost_factor);
  if (n >= 1 && extent >= 1) total = counter.Count(extent, n);
  KILN_CHECK(total > 0, ErrorKind::kSchedule,
             "sample_perfect_tile: no tiling of extent " + std::to_string(extent) + " into " +
                 std::to_string(n) + " factors");
  KILN_CHECK(total < TilingCounter::kSaturated, ErrorKind::kSchedule,
             "sample_perfect_tile: extent " + std::to_string(extent) +
                 " has too many tilings into " + std::to_string(n) +
                 " factors to draw from uniformly");
  // The same draw as picking uniformly from the lexicographic list of all tilings.
  std::vector<int64_t> tiling;
  counter.Unrank(extent, n, static_cast<uint64_t>(rng.UniformInt(0, static_cast<int64_t>(total))),
                 &tiling);
  return tiling;
}

int64_t SampleWeighted(RandomEngine& rng, const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) {
    KILN_CHECK(
        std::isfinite(w) && w >= 0, ErrorKind::kSchedule,
        "sample_categorical: probability " + std::to_string(w) + " is negative or not finite");
    total += w;
  }
  KILN_CHECK(total > 0, ErrorKind::kSchedule, "sample_categorical: probabilities sum to zero");
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
