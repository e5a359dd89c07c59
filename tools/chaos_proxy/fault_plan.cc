// FaultPlan: the fault spec's parser and the seeded draws.
#include "tools/chaos_proxy/fault_plan.h"

#include <charconv>
#include <cmath>

#include "support/error.h"

namespace kiln::tools {
namespace {

constexpr std::array<std::string_view, kFaultKinds> kNames = {
    "none", "drop", "delay", "duplicate", "reorder", "truncate", "corrupt", "partition"};

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) { return kNames[static_cast<size_t>(kind)]; }

void ParseFaultSpec(std::string_view spec, FaultOptions& options) {
  FaultOptions parsed = options;
  parsed.probability.fill(0);
  spec = Trim(spec);
  if (spec.empty() || spec == "none") {
    options = parsed;
    return;
  }
  double total = 0;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view entry = Trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    size_t eq = entry.find('=');
    KILN_CHECK(eq != std::string_view::npos, ErrorKind::kParse,
               "--faults: '" + std::string(entry) + "' is not kind=probability");
    std::string_view name = Trim(entry.substr(0, eq));
    std::string_view value = Trim(entry.substr(eq + 1));
    size_t kind = 1;
    while (kind < kNames.size() && kNames[kind] != name) ++kind;
    KILN_CHECK(kind < kNames.size(), ErrorKind::kParse,
               "--faults: unknown fault '" + std::string(name) +
                   "' (drop, delay, duplicate, reorder, truncate, corrupt, partition)");
    double p = -1;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), p);
    KILN_CHECK(ec == std::errc() && end == value.data() + value.size() && p >= 0 && p <= 1,
               ErrorKind::kParse,
               "--faults: " + std::string(name) + "=" + std::string(value) +
                   ": the probability must be a number in [0, 1]");
    parsed.probability[kind] = p;
    total = 0;
    for (size_t k = 1; k < kNames.size(); ++k) total += parsed.probability[k];
    KILN_CHECK(total <= 1 + 1e-12, ErrorKind::kParse,
               "--faults: the probabilities add up to " + std::to_string(total) +
                   ", more than 1 (one fault per message at most)");
  }
  options = parsed;
}

std::string FaultSpecText(const FaultOptions& options) {
  std::string out;
  for (size_t k = 1; k < kNames.size(); ++k) {
    if (options.probability[k] <= 0) continue;
    char value[32];
    auto [end, ec] = std::to_chars(value, value + sizeof value, options.probability[k],
                                   std::chars_format::fixed);
    out += (out.empty() ? "" : ",") + std::string(kNames[k]) + "=" + std::string(value, end);
  }
  return out.empty() ? "none" : out;
}

uint64_t PlanSeed(uint64_t seed, uint64_t connection, int direction) {
  uint64_t state = seed;
  uint64_t a = SplitMix64(state);
  state = a ^ (connection * 0xd1b54a32d192ed03ULL);
  uint64_t b = SplitMix64(state);
  state = b ^ static_cast<uint64_t>(direction + 1);
  return SplitMix64(state);
}

FaultPlan::FaultPlan(const FaultOptions& options, uint64_t seed)
    : options_(options), state_(seed) {}

uint64_t FaultPlan::Bits() { return SplitMix64(state_); }

double FaultPlan::Uniform() { return static_cast<double>(Bits() >> 11) * 0x1.0p-53; }

FaultKind FaultPlan::Next() {
  double u = Uniform();
  double edge = 0;
  for (size_t k = 1; k < kNames.size(); ++k) {
    edge += options_.probability[k];
    if (u < edge) return static_cast<FaultKind>(k);
  }
  return FaultKind::kNone;
}

}  // namespace kiln::tools
