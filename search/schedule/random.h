// The seeded random engine behind sampling instructions, and the samplers themselves.
// Draws depend only on the seed and the sequence of calls, never on the platform or the
// standard library (std distributions are implementation-defined), so a schedule sampled
// with one seed is the same on every machine.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::search {

class RandomEngine {
 public:
  explicit RandomEngine(uint64_t seed = 1) { Seed(seed); }
  void Seed(uint64_t seed);
  uint64_t Next();
  // Uniform in [low, high) (high > low).
  int64_t UniformInt(int64_t low, int64_t high);
  // Uniform in [0, 1).
  double UniformReal();
  // A seed for an independent engine (for forking a schedule).
  uint64_t ForkSeed() { return Next(); }

 private:
  uint64_t state_ = 0;
};

// At most this many tilings are listed by PerfectTilings.
inline constexpr uint64_t kMaxListedTilings = 1000000;

// Every ordered list of `n` factors whose product is `extent` and whose last factor is at
// most `max_innermost_factor` (no bound when it is <= 0), in lexicographic order; a
// kiln::Error(kSchedule) when there are more than kMaxListedTilings.
std::vector<std::vector<int64_t>> PerfectTilings(int64_t extent, int n,
                                                 int64_t max_innermost_factor);
// One of PerfectTilings(...) drawn uniformly, without listing them (extents with millions of
// tilings are fine); throws kiln::Error(kSchedule) when none exists.
std::vector<int64_t> SamplePerfectTiling(RandomEngine& rng, int64_t extent, int n,
                                         int64_t max_innermost_factor);
// An index drawn with the given (non-negative, not all zero) weights.
int64_t SampleWeighted(RandomEngine& rng, const std::vector<double>& weights);

}  // namespace kiln::search
