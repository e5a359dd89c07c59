// Shape buckets: the flags' forms, their errors, the cross product and its weights, and the
// JSON a submitted job carries.
#include "ir/model/shape_buckets.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln::ir::model {
namespace {

std::string ErrorOf(const std::vector<std::string>& buckets,
                    const std::vector<std::string>& max_dims = {},
                    const std::vector<std::string>& weights = {}) {
  try {
    ParseBucketFlags(buckets, max_dims, weights);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(ShapeBuckets, ListedValuesAreSortedAndLabelled) {
  BucketSpec spec = ParseBucketFlags({"seq=64,16,32"}, {}, {});
  ASSERT_EQ(spec.dims.size(), 1u);
  EXPECT_EQ(spec.dims[0].values, (std::vector<int64_t>{16, 32, 64}));
  std::vector<ShapeBucket> b = spec.Expand();
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].Label(), "seq=16");
  EXPECT_EQ(b[2].dims.at("seq"), 64);
  EXPECT_DOUBLE_EQ(b[1].weight, 1.0);
}

TEST(ShapeBuckets, BareBucketTakesPowersOfTwoUpToTheMax) {
  EXPECT_EQ(ParseBucketFlags({"batch"}, {"batch=8"}, {}).dims[0].values,
            (std::vector<int64_t>{1, 2, 4, 8}));
  // The max itself closes the list when it is not a power of two.
  EXPECT_EQ(ParseBucketFlags({"seq"}, {"seq=100"}, {}).dims[0].values,
            (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 100}));
}

TEST(ShapeBuckets, CrossProductWeighsTheProductOfWeights) {
  BucketSpec spec = ParseBucketFlags({"batch=1,4", "seq=32,64"}, {}, {"seq=64:3", "batch=4:0.5"});
  std::vector<ShapeBucket> b = spec.Expand();
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].Label(), "batch=1,seq=32");
  EXPECT_EQ(b[3].Label(), "batch=4,seq=64");
  EXPECT_DOUBLE_EQ(b[0].weight, 1.0);
  EXPECT_DOUBLE_EQ(b[1].weight, 3.0);
  EXPECT_DOUBLE_EQ(b[2].weight, 0.5);
  EXPECT_DOUBLE_EQ(b[3].weight, 1.5);
}

TEST(ShapeBuckets, NoBucketsIsOneEmptyBucket) {
  std::vector<ShapeBucket> b = BucketSpec{}.Expand();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_TRUE(b[0].dims.empty());
  EXPECT_EQ(b[0].Label(), "");
}

TEST(ShapeBuckets, BadFlagsNameTheFlag) {
  EXPECT_NE(ErrorOf({"seq=16,0"}).find("--bucket seq=16,0: the value '0' is not a positive"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"seq=16,x"}).find("'x' is not a positive integer"), std::string::npos);
  EXPECT_NE(ErrorOf({"seq=16,16"}).find("16 of seq is given twice"), std::string::npos);
  EXPECT_NE(ErrorOf({"seq=16", "seq=32"}).find("seq is bucketed twice"), std::string::npos);
  EXPECT_NE(ErrorOf({"seq"}).find("give --max-dim"), std::string::npos);
  EXPECT_NE(ErrorOf({"seq=16"}, {"batch=4"}).find("batch is not bucketed"), std::string::npos);
  EXPECT_NE(ErrorOf({"seq=16"}, {}, {"seq=32:2"}).find("32 is not a bucket of seq"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"seq=16"}, {}, {"seq=16:-1"}).find("positive number"), std::string::npos);
  EXPECT_NE(ErrorOf({"seq=16"}, {}, {"seq=16"}).find("NAME=VALUE:WEIGHT"), std::string::npos);
  EXPECT_NE(ErrorOf({"a=1,2,3,4,5,6,7,8", "b=1,2,3,4,5,6,7,8,9"}).find("72 bucket combinations"),
            std::string::npos);
}

TEST(ShapeBuckets, JsonRoundTripsAndIsChecked) {
  BucketSpec spec = ParseBucketFlags({"seq=16,32"}, {}, {"seq=32:2"});
  BucketSpec back = BucketSpecFromJson(BucketSpecToJson(spec), "options.buckets");
  ASSERT_EQ(back.dims.size(), 1u);
  EXPECT_EQ(back.dims[0].values, spec.dims[0].values);
  EXPECT_DOUBLE_EQ(back.dims[0].weights.at(32), 2.0);
  auto error = [](const char* text) -> std::string {
    try {
      BucketSpecFromJson(nlohmann::json::parse(text), "options.buckets");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error(R"({"seq": 1})").find("options.buckets: expected an array"), std::string::npos);
  EXPECT_NE(error(R"([{"name": "seq", "values": [0]}])").find("options.buckets[0].values: 0"),
            std::string::npos);
  EXPECT_NE(error(R"([{"name": "seq", "values": [1], "extra": 1}])").find("unknown field 'extra'"),
            std::string::npos);
  EXPECT_NE(error(R"([{"name": "seq", "values": [1], "weights": {"2": 1}}])")
                .find("2 is not a bucket of seq"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::ir::model
