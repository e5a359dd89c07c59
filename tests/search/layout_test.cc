// transform_layout and index maps: packing a cached matrix into tiles, transposing and
// flattening an intermediate, golden text, numeric equivalence, the trace round trip, and
// maps that are rejected (parameters, padding, maps that are not one-to-one).
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "search/schedule/schedule.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using nlohmann::json;
using testing::CheckGolden;
using testing::CompareNumerics;
using testing::ExpectError;
using testing::MakeMatmul;
using testing::MakeTwoStage;

TEST(IndexMap, TextRoundTrip) {
  IndexMap map = IndexMap::Parse("lambda k, j: (j // 16, k, j % 16)");
  ASSERT_EQ(map.params.size(), 2u);
  ASSERT_EQ(map.results.size(), 3u);
  EXPECT_EQ(map.ToText(), "lambda k, j: (j // 16, k, j % 16)");
  EXPECT_EQ(IndexMap::Parse(map.ToText()).ToText(), map.ToText());
  IndexMap one = IndexMap::Parse("lambda i, j: i * 8 + j");
  EXPECT_EQ(one.ToText(), "lambda i, j: (i * 8 + j,)");
  IndexMap built = IndexMap::FromFunction(2, [](const std::vector<ir::Var>& v) {
    return std::vector<ir::Expr>{v[1], v[0]};
  });
  EXPECT_EQ(built.ToText(), "lambda i0, i1: (i1, i0)");
  ExpectError([] { IndexMap::Parse("lambda i, i: (i,)"); }, ErrorKind::kParse,
              "parameter 'i' is repeated");
  ExpectError([] { IndexMap::Parse("lambda i: (i, k)"); }, ErrorKind::kParse, "undefined name 'k'");
  ExpectError([] { IndexMap::Parse("lambda i: (i,) extra"); }, ErrorKind::kParse,
              "expected the end of the index map");
  ExpectError([] { IndexMap::Parse("i: (i,)"); }, ErrorKind::kParse, "expected 'lambda'");
  ExpectError([] { IndexMap::Parse(""); }, ErrorKind::kParse, "empty index map");
}

TEST(TransformLayout, PacksCachedMatrixIntoTiles) {
  ir::PrimFunc f = MakeMatmul(16, 32, 8);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV pack = sch.CacheRead(c, 1, "global");
  sch.TransformLayout(pack, 0, BufferIndexType::kWrite,
                      IndexMap::Parse("lambda k, j: (j // 16, k, j % 16)"));
  const ir::BlockNode* consumer = sch.Get(c);
  ASSERT_EQ(consumer->reads.size(), 2u);
  const ir::Buffer& packed = consumer->reads[1].buffer;
  EXPECT_EQ(packed->name, "B_global");
  ASSERT_EQ(packed.ndim(), 3u);
  EXPECT_EQ(ir::AsConstInt(packed->shape[0]), 2);
  EXPECT_EQ(ir::AsConstInt(packed->shape[1]), 8);
  EXPECT_EQ(ir::AsConstInt(packed->shape[2]), 16);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("transform_layout_pack", f, sch.func()), "");
  // The same through the consumer's read index, and the trace replays it.
  Schedule other(f);
  BlockRV c2 = other.GetBlock("C");
  other.CacheRead(c2, 1, "global");
  other.TransformLayout(c2, 1, BufferIndexType::kRead,
                        IndexMap::Parse("lambda k, j: (j // 16, k, j % 16)"));
  EXPECT_TRUE(ir::StructuralEqual(other.func(), sch.func()));
  Trace parsed = Trace::FromJSON(json::parse(other.trace().ToJSON().dump()));
  EXPECT_TRUE(ir::StructuralEqual(ReplayTrace(f, parsed), sch.func()));
  EXPECT_EQ(parsed.AsPython(),
            "b0 = sch.get_block(\"C\")\n"
            "b1 = sch.cache_read(b0, read_buffer_index=1, storage_scope=\"global\")\n"
            "sch.transform_layout(b0, buffer=(\"read\", 1), index_map=lambda k, j: (j // 16, k, "
            "j % 16))\n");
}

TEST(TransformLayout, TransposesAndFlattensIntermediate) {
  ir::PrimFunc f = MakeTwoStage(8, 12);
  Schedule sch(f);
  BlockRV b = sch.GetBlock("B");
  sch.TransformLayout(b, 0, BufferIndexType::kWrite, IndexMap::Parse("lambda i, j: (j, i)"));
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("transform_layout_transpose", f, sch.func()), "");
  ir::PrimFunc transposed = sch.func();
  // (j, i) of shape (12, 8) flattened to one dimension: j * 8 + i.
  sch.TransformLayout(b, 0, BufferIndexType::kWrite, IndexMap::Parse("lambda a, b: (a * 8 + b,)"));
  const ir::Buffer& flat = sch.Get(b)->writes[0].buffer;
  ASSERT_EQ(flat.ndim(), 1u);
  EXPECT_EQ(ir::AsConstInt(flat->shape[0]), 96);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("transform_layout_flatten", transposed, sch.func()), "");
}

TEST(TransformLayout, RejectsInvalidMaps) {
  Schedule sch(MakeTwoStage(8, 12));
  BlockRV b = sch.GetBlock("B");
  BlockRV c = sch.GetBlock("C");
  ExpectError(
      [&] {
        sch.TransformLayout(c, 0, BufferIndexType::kWrite, IndexMap::Parse("lambda i, j: (j, i)"));
      },
      ErrorKind::kSchedule,
      "transform_layout: C written by block \"C\" is a parameter of the function; its layout is "
      "the kernel's interface");
  ExpectError(
      [&] {
        sch.TransformLayout(b, 0, BufferIndexType::kWrite, IndexMap::Parse("lambda i, j: (i,)"));
      },
      ErrorKind::kSchedule, "index j (extent 12) is dropped, so the map is not one-to-one");
  ExpectError(
      [&] {
        sch.TransformLayout(b, 0, BufferIndexType::kWrite,
                            IndexMap::Parse("lambda i, j: (j // 5, i, j % 5)"));
      },
      ErrorKind::kSchedule, "does not divide it; padding is not supported");
  ExpectError(
      [&] {
        sch.TransformLayout(b, 0, BufferIndexType::kWrite,
                            IndexMap::Parse("lambda i, j: (i + j, j)"));
      },
      ErrorKind::kSchedule, "mixed-radix coefficients");
  ExpectError(
      [&] {
        sch.TransformLayout(b, 0, BufferIndexType::kWrite,
                            IndexMap::Parse("lambda i, j: (i, j, i)"));
      },
      ErrorKind::kSchedule, "index i is used twice");
  ExpectError(
      [&] {
        sch.TransformLayout(b, 0, BufferIndexType::kWrite, IndexMap::Parse("lambda i: (i,)"));
      },
      ErrorKind::kSchedule, "takes 1 indices but B has 2 dimensions");
  ExpectError(
      [&] {
        sch.TransformLayout(b, 0, BufferIndexType::kWrite,
                            IndexMap::Parse("lambda i, j: (i + 1, j)"));
      },
      ErrorKind::kSchedule, "is offset by a constant");
  ExpectError(
      [&] {
        sch.TransformLayout(b, 3, BufferIndexType::kRead, IndexMap::Parse("lambda i, j: (j, i)"));
      },
      ErrorKind::kSchedule, "block \"B\" has 1 read buffers; index 3 is out of range");
  EXPECT_EQ(sch.trace().size(), 2u);  // the two GetBlock calls; nothing failed was recorded
}

TEST(TransformLayout, MalformedIndexMapInTraceIsAParseError) {
  Schedule sch(MakeTwoStage(8, 12));
  sch.TransformLayout(sch.GetBlock("B"), 0, BufferIndexType::kWrite,
                      IndexMap::Parse("lambda i, j: (j, i)"));
  json j = sch.trace().ToJSON();
  // In the shape that keeps the map as lambda text (Kiln's own, still read).
  j[0][1][1] = json::array({j[0][1][1][0]});
  j[0][1][2] = json::array({0, 1, "lambda i, j: (j, i"});
  ExpectError([&] { Trace::FromJSON(j); }, ErrorKind::kParse,
              "instruction 1: (TransformLayout) attr 2 is not an index map");
  j[0][1][2][2] = "lambda i, j: (j, i)";
  j[0][1][2][1] = 7;
  Trace bad = Trace::FromJSON(j);
  Schedule replay(MakeTwoStage(8, 12));
  ExpectError([&] { bad.ApplyTo(replay); }, ErrorKind::kSchedule,
              "buffer index type 7 is neither 0 (read) nor 1 (write)");
}

}  // namespace
}  // namespace kiln::search
