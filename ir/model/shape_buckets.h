// Shape buckets: values of a model's symbolic dims that tuning specialises the model to and the
// compiled artifact dispatches on. `--bucket seq=16,32,64` lists a dim's values; a bare
// `--bucket seq` takes the powers of two from 1 up to `--max-dim seq=V` (and V itself when it is
// not one); `--bucket-weight seq=32:2` weighs a value in the task scheduler (1 by default), as a
// serving mix would. Several bucketed dims make the cross product of their values, each
// combination weighing the product of its values' weights.
//
// The spec travels with a submitted job as JSON (BucketSpecToJson), validated at the edge like
// the command-line flags.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kiln::ir::model {

// At most this many combinations: each is a specialised model to tune and to compile.
inline constexpr size_t kMaxBuckets = 64;

struct BucketDim {
  std::string name;
  std::vector<int64_t> values;        // ascending, distinct, positive
  std::map<int64_t, double> weights;  // value -> weight; absent: 1
};

// One combination: a value for each bucketed dim.
struct ShapeBucket {
  std::map<std::string, int64_t> dims;
  double weight = 1;
  // "seq=32", "batch=4,seq=32"; "" for the one bucket of a model without buckets.
  std::string Label() const;
};

struct BucketSpec {
  std::vector<BucketDim> dims;
  bool empty() const { return dims.empty(); }
  // The combinations, the first dim varying slowest; one empty bucket when there are no dims.
  std::vector<ShapeBucket> Expand() const;
};

// From the flags of `tune run`, `tune submit` and `tune compile`. kiln::Error(kParse) naming the
// flag and what it expected: a value that is not a positive integer, a dim given twice, a bare
// --bucket without --max-dim, a weight for a value that is not a bucket, more than kMaxBuckets
// combinations.
BucketSpec ParseBucketFlags(const std::vector<std::string>& buckets,
                            const std::vector<std::string>& max_dims,
                            const std::vector<std::string>& weights);

// [{"name": "seq", "values": [16, 32], "weights": {"32": 2}}, ...]
nlohmann::json BucketSpecToJson(const BucketSpec& spec);
// The same checks as ParseBucketFlags; `where` names the field in errors.
BucketSpec BucketSpecFromJson(const nlohmann::json& json, const std::string& where);

}  // namespace kiln::ir::model
