// Window attributes and the padding stage.
#include "ir/relax/transform/legalize/window.h"

#include "ir/compute/math.h"
#include "ir/relax/dim.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

std::vector<int64_t> IntsAttr(const LegalizeContext& ctx, const std::string& name, size_t n) {
  std::vector<int64_t> v = ctx.attrs().GetInts(name);
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  KILN_CHECK(v.size() == n, ErrorKind::kType,
             ctx.op() + ": attribute '" + name + "' needs " + std::to_string(n) + " values, got " +
                 std::to_string(v.size()));
  return v;
}

Window ReadWindow(const LegalizeContext& ctx, size_t spatial) {
  Window w;
  w.strides = IntsAttr(ctx, "strides", spatial);
  w.dilation = IntsAttr(ctx, "dilation", spatial);
  std::vector<int64_t> p = ctx.attrs().GetInts("padding");
  if (p.size() == 1) {
    w.pad.assign(2 * spatial, p[0]);
  } else if (p.size() == spatial) {
    w.pad = p;
    w.pad.insert(w.pad.end(), p.begin(), p.end());
  } else {
    KILN_CHECK(p.size() == 2 * spatial, ErrorKind::kType,
               ctx.op() + ": attribute 'padding' needs 1, " + std::to_string(spatial) + " or " +
                   std::to_string(2 * spatial) + " values, got " + std::to_string(p.size()));
    w.pad = p;
  }
  return w;
}

Tensor PadSpatial(const Tensor& data, const std::vector<int64_t>& before,
                  const std::vector<ir::Expr>& extents, const ir::Expr& value,
                  const std::string& name) {
  size_t spatial = before.size();
  size_t lead = data.ndim() - spatial;
  bool same = true;
  for (size_t i = 0; i < spatial; ++i) {
    same = same && before[i] == 0 && ProveDimEqual(extents[i], data.shape()[lead + i]);
  }
  if (same) return data;
  std::vector<ir::Expr> shape(data.shape().begin(), data.shape().begin() + lead);
  shape.insert(shape.end(), extents.begin(), extents.end());
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d) names.push_back("i" + std::to_string(d));
  return compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> index = AsExprs(i);
        for (size_t s = 0; s < spatial; ++s) {
          index[lead + s] = AddConst(index[lead + s], -before[s]);
        }
        return compute::PaddedLoad(data, index, value);
      },
      name, names);
}

Tensor PadSpatial(const Tensor& data, const std::vector<int64_t>& pad, const ir::Expr& value,
                  const std::string& name) {
  size_t spatial = pad.size() / 2;
  size_t lead = data.ndim() - spatial;
  std::vector<int64_t> before(pad.begin(), pad.begin() + spatial);
  std::vector<ir::Expr> extents;
  for (size_t i = 0; i < spatial; ++i) {
    extents.push_back(AddConst(data.shape()[lead + i], pad[i] + pad[spatial + i]));
  }
  return PadSpatial(data, before, extents, value, name);
}

}  // namespace kiln::ir::relax::legalize
