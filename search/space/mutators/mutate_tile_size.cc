// Mutate-tile-size: the neighbour of a tiling that keeps its product, so the replay always
// fits the loop: a divisor d > 1 of one factor moves to another factor.
#include "search/space/mutators/mutators.h"

namespace kiln::search {

namespace {

class MutateTileSize : public Mutator {
 public:
  std::string Name() const override { return "mutate_tile_size"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Mutator> Clone() const override {
    return std::make_unique<MutateTileSize>(*this);
  }

  std::optional<Trace> Apply(const Trace& trace, RandomEngine& rng) override {
    std::vector<size_t> sites;
    for (const auto& [index, decision] : trace.decisions()) {
      if (trace.instructions()[index].kind != "SamplePerfectTile") continue;
      int64_t product = 1;
      for (const auto& f : decision) product *= f.get<int64_t>();
      if (decision.size() >= 2 && product > 1) sites.push_back(index);
    }
    if (sites.empty()) return std::nullopt;
    // A few tries: a draw may break the innermost cap.
    for (int attempt = 0; attempt < 16; ++attempt) {
      size_t site = sites[rng.UniformInt(0, static_cast<int64_t>(sites.size()))];
      std::vector<int64_t> factors = trace.decisions().at(site).get<std::vector<int64_t>>();
      int64_t max_innermost = trace.instructions()[site].attrs[1].get<int64_t>();
      std::vector<size_t> from;
      for (size_t i = 0; i < factors.size(); ++i) {
        if (factors[i] > 1) from.push_back(i);
      }
      size_t x = from[rng.UniformInt(0, static_cast<int64_t>(from.size()))];
      std::vector<int64_t> divisors;
      for (int64_t d = 2; d <= factors[x]; ++d) {
        if (factors[x] % d == 0) divisors.push_back(d);
      }
      int64_t d = divisors[rng.UniformInt(0, static_cast<int64_t>(divisors.size()))];
      size_t y = rng.UniformInt(0, static_cast<int64_t>(factors.size()) - 1);
      if (y >= x) ++y;
      factors[x] /= d;
      factors[y] *= d;
      if (max_innermost > 0 && factors.back() > max_innermost) continue;
      return trace.WithDecision(site, nlohmann::json(factors));
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Mutator> MakeMutateTileSize() { return std::make_unique<MutateTileSize>(); }

}  // namespace kiln::search
