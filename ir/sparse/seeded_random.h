// The seeded stream behind the sparse generators (R-MAT graphs, random attention blocks):
// splitmix64, the generator of search::RandomEngine and HostTensor::Random, here because ir/
// may not depend on search/. Draws depend only on the seed and the calls, never on the
// platform or the standard library (std distributions differ between libraries), so a
// generated matrix is the same on every machine.
#pragma once

#include <cstdint>

namespace kiln::ir::sparse {

class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), from the top 53 bits.
  double UniformReal() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for n >= 1, unbiased (the top partial bucket is rejected).
  uint64_t Below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
      x = Next();
    } while (x >= limit);
    return x % n;
  }

 private:
  uint64_t state_;
};

}  // namespace kiln::ir::sparse
