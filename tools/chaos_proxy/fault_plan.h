// FaultPlan: which fault, if any, the chaos proxy applies to each message it forwards. Each
// kind has a probability per message (at most one fault per message); the draws come from a
// seeded generator of its own (SplitMix64, the same on every platform and build), so the same
// seed and the same messages give the same faults. A plan is made per connection and
// direction from the proxy's seed, so that one connection's faults do not depend on how the
// others' messages interleave with it.
//
//   --faults drop=0.01,delay=0.02,duplicate=0.01,reorder=0.01,truncate=0.002,corrupt=0.002,
//            partition=0.0005
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::tools {

enum class FaultKind {
  kNone,
  kDrop,       // the message is not forwarded
  kDelay,      // the message (and what follows it on the connection) waits delay_ms
  kDuplicate,  // the message is forwarded twice
  kReorder,    // the message is held and forwarded after the next one
  kTruncate,   // part of the message is forwarded, then the connection is closed
  kCorrupt,    // one byte of the message's body is flipped
  kPartition,  // every connection is closed and new ones refused for partition_s
};
inline constexpr int kFaultKinds = 8;  // including kNone

std::string_view FaultKindName(FaultKind kind);

struct FaultOptions {
  // Probability per message of each kind, indexed by FaultKind (kNone's is unused).
  std::array<double, kFaultKinds> probability = {};
  double delay_ms = 100;   // a delayed message waits between half this and this
  double partition_s = 2;  // how long a partition lasts
  double& operator[](FaultKind kind) { return probability[static_cast<size_t>(kind)]; }
  double operator[](FaultKind kind) const { return probability[static_cast<size_t>(kind)]; }
};

// Reads "kind=probability,..." (kinds: drop, delay, duplicate, reorder, truncate, corrupt,
// partition; "none" or "" for no faults) into `options`' probabilities.
// kiln::Error(kParse) naming the entry for an unknown kind, a value that is not a number in
// [0, 1], or probabilities that add up to more than 1.
void ParseFaultSpec(std::string_view spec, FaultOptions& options);
// The spec back: only the kinds with a probability above 0, in FaultKind order.
std::string FaultSpecText(const FaultOptions& options);

// The seed of the plan of connection `connection` (numbered from 0 in the order accepted),
// direction 0 (client to upstream) or 1 (upstream to client).
uint64_t PlanSeed(uint64_t seed, uint64_t connection, int direction);

class FaultPlan {
 public:
  FaultPlan(const FaultOptions& options, uint64_t seed);
  // The fault of the next message.
  FaultKind Next();
  // A uniform draw in [0, 1) from the same sequence (where to cut, which byte, how long).
  double Uniform();
  uint64_t Bits();

 private:
  FaultOptions options_;
  uint64_t state_;
};

}  // namespace kiln::tools
