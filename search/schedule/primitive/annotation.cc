// Annotations on loops and blocks: key/value hints (an unroll depth, a cooperative-fetch
// vector length, a tiling structure) that later rules and postprocessors read.
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

Stmt BlockWithAnnotations(const BlockRealizeNode* realize, Annotations annotations) {
  auto block = CopyBlock(realize->block_node());
  block->annotations = std::move(annotations);
  return BlockRealize(realize->iter_values, realize->predicate, Block(block));
}

}  // namespace

void SetAnnotation(ScheduleState& state, int entry, const std::string& key, Expr value) {
  const SRef& ref = state.entry(entry);
  KILN_CHECK(!key.empty(), ErrorKind::kSchedule, "annotate: empty annotation key");
  KILN_CHECK(value.as<IntImmNode>() || value.as<FloatImmNode>() || value.as<StringImmNode>(),
             ErrorKind::kSchedule, "annotate: the value of \"" + key + "\" is not a constant");
  if (const ForNode* loop = ref.loop()) {
    Annotations annotations = loop->annotations;
    annotations[key] = std::move(value);
    state.Replace(loop, ForWithAnnotations(loop, std::move(annotations)));
  } else {
    const BlockRealizeNode* realize = ref.realize();
    Annotations annotations = realize->block_node()->annotations;
    annotations[key] = std::move(value);
    state.Replace(realize, BlockWithAnnotations(realize, std::move(annotations)));
  }
}

void RemoveAnnotation(ScheduleState& state, int entry, const std::string& key) {
  const SRef& ref = state.entry(entry);
  if (const ForNode* loop = ref.loop()) {
    Annotations annotations = loop->annotations;
    KILN_CHECK(annotations.erase(key) == 1, ErrorKind::kSchedule,
               "unannotate: " + LoopLabel(loop) + " has no annotation \"" + key + "\"");
    state.Replace(loop, ForWithAnnotations(loop, std::move(annotations)));
  } else {
    const BlockRealizeNode* realize = ref.realize();
    Annotations annotations = realize->block_node()->annotations;
    KILN_CHECK(
        annotations.erase(key) == 1, ErrorKind::kSchedule,
        "unannotate: " + BlockLabel(realize->block_node()) + " has no annotation \"" + key + "\"");
    state.Replace(realize, BlockWithAnnotations(realize, std::move(annotations)));
  }
}

}  // namespace kiln::search
