// Parsing, checking and expanding shape buckets.
#include "ir/model/shape_buckets.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "support/error.h"

namespace kiln::ir::model {
namespace {

// A positive integer, or kiln::Error(kParse) "<where>: <what> 'TEXT' is not a positive integer".
int64_t PositiveInt(const std::string& text, const std::string& where, const std::string& what) {
  int64_t value = 0;
  bool ok = !text.empty();
  try {
    size_t used = 0;
    value = std::stoll(text, &used);
    ok = ok && used == text.size() && value > 0;
  } catch (const std::exception&) {
    ok = false;
  }
  KILN_CHECK(ok, ErrorKind::kParse,
             where + ": " + what + " '" + text + "' is not a positive integer");
  return value;
}

// Ascending, distinct; kParse naming `where` when a value repeats.
void Normalize(BucketDim& dim, const std::string& where) {
  std::sort(dim.values.begin(), dim.values.end());
  auto repeated = std::adjacent_find(dim.values.begin(), dim.values.end());
  KILN_CHECK(repeated == dim.values.end(), ErrorKind::kParse,
             where + ": the value " +
                 (repeated == dim.values.end() ? "" : std::to_string(*repeated)) + " of " +
                 dim.name + " is given twice");
  KILN_CHECK(!dim.values.empty(), ErrorKind::kParse, where + ": " + dim.name + " has no values");
}

void CheckCount(const BucketSpec& spec, const std::string& where) {
  double combinations = 1;
  for (const BucketDim& d : spec.dims) combinations *= static_cast<double>(d.values.size());
  KILN_CHECK(combinations <= static_cast<double>(kMaxBuckets), ErrorKind::kParse,
             where + ": " + std::to_string(static_cast<int64_t>(combinations)) +
                 " bucket combinations, more than the " + std::to_string(kMaxBuckets) +
                 " Kiln tunes and compiles");
}

}  // namespace

std::string ShapeBucket::Label() const {
  std::string out;
  for (const auto& [name, value] : dims) {
    out += (out.empty() ? "" : ",") + name + "=" + std::to_string(value);
  }
  return out;
}

std::vector<ShapeBucket> BucketSpec::Expand() const {
  std::vector<ShapeBucket> out(1);
  for (const BucketDim& d : dims) {
    std::vector<ShapeBucket> next;
    for (const ShapeBucket& b : out) {
      for (int64_t v : d.values) {
        ShapeBucket c = b;
        c.dims[d.name] = v;
        auto w = d.weights.find(v);
        c.weight *= w == d.weights.end() ? 1.0 : w->second;
        next.push_back(std::move(c));
      }
    }
    out = std::move(next);
  }
  return out;
}

BucketSpec ParseBucketFlags(const std::vector<std::string>& buckets,
                            const std::vector<std::string>& max_dims,
                            const std::vector<std::string>& weights) {
  std::map<std::string, int64_t> max;
  for (const std::string& m : max_dims) {
    std::string where = "--max-dim " + m;
    size_t eq = m.find('=');
    KILN_CHECK(eq != std::string::npos && eq > 0, ErrorKind::kParse,
               where + ": expected NAME=VALUE");
    KILN_CHECK(
        max.emplace(m.substr(0, eq), PositiveInt(m.substr(eq + 1), where, "the value")).second,
        ErrorKind::kParse, where + ": " + m.substr(0, eq) + " is given twice");
  }
  BucketSpec spec;
  std::set<std::string> seen;
  for (const std::string& b : buckets) {
    std::string where = "--bucket " + b;
    size_t eq = b.find('=');
    BucketDim dim;
    dim.name = b.substr(0, eq);
    KILN_CHECK(!dim.name.empty(), ErrorKind::kParse, where + ": expected NAME=V1,V2,... or NAME");
    KILN_CHECK(seen.insert(dim.name).second, ErrorKind::kParse,
               where + ": " + dim.name + " is bucketed twice");
    if (eq == std::string::npos) {
      auto m = max.find(dim.name);
      KILN_CHECK(m != max.end(), ErrorKind::kParse,
                 where + ": a bare --bucket takes the powers of two up to --max-dim " + dim.name +
                     "=V; give --max-dim, or the values (" + dim.name + "=16,32,64)");
      for (int64_t v = 1; v <= m->second; v *= 2) dim.values.push_back(v);
      if (dim.values.back() != m->second) dim.values.push_back(m->second);
    } else {
      std::string list = b.substr(eq + 1);
      size_t start = 0;
      while (true) {
        size_t comma = list.find(',', start);
        dim.values.push_back(PositiveInt(list.substr(start, comma - start), where, "the value"));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
    Normalize(dim, where);
    spec.dims.push_back(std::move(dim));
  }
  for (const auto& [name, value] : max) {
    KILN_CHECK(seen.count(name) != 0, ErrorKind::kParse,
               "--max-dim " + name + "=" + std::to_string(value) + ": " + name +
                   " is not bucketed (--bucket " + name + ")");
  }
  for (const std::string& w : weights) {
    std::string where = "--bucket-weight " + w;
    size_t eq = w.find('='), colon = w.find(':');
    KILN_CHECK(eq != std::string::npos && eq > 0 && colon != std::string::npos && colon > eq,
               ErrorKind::kParse, where + ": expected NAME=VALUE:WEIGHT");
    std::string name = w.substr(0, eq);
    int64_t value = PositiveInt(w.substr(eq + 1, colon - eq - 1), where, "the value");
    double weight = 0;
    try {
      size_t used = 0;
      weight = std::stod(w.substr(colon + 1), &used);
      KILN_CHECK(used == w.size() - colon - 1, ErrorKind::kParse, "");
    } catch (const std::exception&) {
      weight = -1;
    }
    KILN_CHECK(std::isfinite(weight) && weight > 0, ErrorKind::kParse,
               where + ": the weight must be a positive number");
    auto dim = std::find_if(spec.dims.begin(), spec.dims.end(),
                            [&](const BucketDim& d) { return d.name == name; });
    KILN_CHECK(dim != spec.dims.end(), ErrorKind::kParse,
               where + ": " + name + " is not bucketed (--bucket " + name + "=...)");
    KILN_CHECK(std::binary_search(dim->values.begin(), dim->values.end(), value), ErrorKind::kParse,
               where + ": " + std::to_string(value) + " is not a bucket of " + name);
    dim->weights[value] = weight;
  }
  CheckCount(spec, "--bucket");
  return spec;
}

nlohmann::json BucketSpecToJson(const BucketSpec& spec) {
  nlohmann::json out = nlohmann::json::array();
  for (const BucketDim& d : spec.dims) {
    nlohmann::json weights = nlohmann::json::object();
    for (const auto& [value, weight] : d.weights) weights[std::to_string(value)] = weight;
    out.push_back({{"name", d.name}, {"values", d.values}, {"weights", weights}});
  }
  return out;
}

BucketSpec BucketSpecFromJson(const nlohmann::json& json, const std::string& where) {
  KILN_CHECK(json.is_array(), ErrorKind::kParse, where + ": expected an array of bucketed dims");
  BucketSpec spec;
  std::set<std::string> seen;
  for (size_t i = 0; i < json.size(); ++i) {
    const nlohmann::json& d = json[i];
    std::string at = where + "[" + std::to_string(i) + "]";
    KILN_CHECK(d.is_object() && d.contains("name") && d["name"].is_string() &&
                   d.contains("values") && d["values"].is_array(),
               ErrorKind::kParse, at + ": expected {\"name\": NAME, \"values\": [V, ...]}");
    for (const auto& [key, value] : d.items()) {
      KILN_CHECK(key == "name" || key == "values" || key == "weights", ErrorKind::kParse,
                 at + ": unknown field '" + key + "'");
    }
    BucketDim dim;
    dim.name = d["name"].get<std::string>();
    KILN_CHECK(!dim.name.empty() && seen.insert(dim.name).second, ErrorKind::kParse,
               at + ": the name is empty or bucketed twice");
    for (const nlohmann::json& v : d["values"]) {
      KILN_CHECK(v.is_number_integer() && v.get<int64_t>() > 0, ErrorKind::kParse,
                 at + ".values: " + v.dump() + " is not a positive integer");
      dim.values.push_back(v.get<int64_t>());
    }
    Normalize(dim, at);
    if (d.contains("weights")) {
      KILN_CHECK(d["weights"].is_object(), ErrorKind::kParse, at + ".weights: expected an object");
      for (const auto& [key, w] : d["weights"].items()) {
        int64_t value = PositiveInt(key, at + ".weights", "the value");
        KILN_CHECK(std::binary_search(dim.values.begin(), dim.values.end(), value),
                   ErrorKind::kParse, at + ".weights: " + key + " is not a bucket of " + dim.name);
        KILN_CHECK(w.is_number() && std::isfinite(w.get<double>()) && w.get<double>() > 0,
                   ErrorKind::kParse, at + ".weights." + key + ": not a positive number");
        dim.weights[value] = w.get<double>();
      }
    }
    spec.dims.push_back(std::move(dim));
  }
  CheckCount(spec, where);
  return spec;
}

}  // namespace kiln::ir::model
