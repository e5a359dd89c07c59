// Register promotion analysis: constant-offset accesses of one allocation to slots.
#include "codegen/register_promotion.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>

#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

class AccessScanner : public IRVisitor {
 public:
  explicit AccessScanner(const VarNode* data) : data_(data) {}

  bool ok = true;
  std::map<int64_t, int> vectors;  // offset -> lanes
  std::vector<int64_t> scalars;

  void VisitExpr_(const VarNode* op) override {
    // The data handle used other than through a load or store (passed to a call, ...).
    if (op == data_) ok = false;
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer->data.get() == data_) {
      Access(op->indices);
    } else {
      IRVisitor::VisitExpr_(op);
    }
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (op->buffer->data.get() == data_) {
      Access(op->indices);
      VisitExpr(op->value);
    } else {
      IRVisitor::VisitStmt_(op);
    }
  }

 private:
  void Access(const std::vector<Expr>& indices) {
    if (indices.size() != 1) {
      ok = false;
      return;
    }
    const Expr& index = indices[0];
    if (auto c = AsConstInt(index); c && index.dtype().is_scalar()) {
      scalars.push_back(*c);
      return;
    }
    const auto* ramp = index.as<RampNode>();
    auto base = ramp ? AsConstInt(ramp->base) : std::nullopt;
    if (!ramp || !base || !IsConstInt(ramp->stride, 1)) {
      ok = false;
      return;
    }
    auto [it, inserted] = vectors.emplace(*base, ramp->lanes);
    if (!inserted && it->second != ramp->lanes) ok = false;
  }

  const VarNode* data_;
};

}  // namespace

std::optional<std::vector<RegisterSlot>> PlanRegisterSlots(const AllocateNode* alloc,
                                                           int64_t max_bytes) {
  const Buffer& buffer = alloc->buffer;
  if (buffer->shape.size() != 1 || !buffer->dtype.is_scalar()) return std::nullopt;
  auto size = AsConstInt(buffer->shape[0]);
  if (!size) return std::nullopt;
  AccessScanner scanner(buffer->data.get());
  scanner.VisitStmt(alloc->body);
  if (!scanner.ok) return std::nullopt;
  std::vector<RegisterSlot> slots;
  int64_t end = std::numeric_limits<int64_t>::min();
  for (const auto& [offset, lanes] : scanner.vectors) {
    if (offset < end || offset < 0 || offset + lanes > *size) return std::nullopt;
    slots.push_back({offset, lanes});
    end = offset + lanes;
  }
  auto inside = [&](int64_t offset) {
    auto it = std::upper_bound(slots.begin(), slots.end(), offset,
                               [](int64_t o, const RegisterSlot& s) { return o < s.offset; });
    return it != slots.begin() && offset < std::prev(it)->offset + std::prev(it)->lanes;
  };
  std::vector<RegisterSlot> scalar_slots;
  std::sort(scanner.scalars.begin(), scanner.scalars.end());
  scanner.scalars.erase(std::unique(scanner.scalars.begin(), scanner.scalars.end()),
                        scanner.scalars.end());
  for (int64_t offset : scanner.scalars) {
    if (offset < 0 || offset >= *size) return std::nullopt;
    if (!inside(offset)) scalar_slots.push_back({offset, 1});
  }
  slots.insert(slots.end(), scalar_slots.begin(), scalar_slots.end());
  std::sort(slots.begin(), slots.end(),
            [](const RegisterSlot& a, const RegisterSlot& b) { return a.offset < b.offset; });
  int64_t elements = 0;
  for (const RegisterSlot& s : slots) elements += s.lanes;
  if (elements * buffer->dtype.bytes() > max_bytes) return std::nullopt;
  return slots;
}

}  // namespace kiln::codegen
