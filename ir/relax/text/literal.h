// Exact text of constant data and attribute values, shared by the Relax printer (which writes
// them) and the Relax parser (which reads them back): the two must agree on every rule, so
// both live here. A float element prints as the shortest decimal that, read with strtod and
// stored in the tensor's dtype (HostTensor::SetDouble), gives back the same bits; NaN and
// infinities print as float("nan"), float("inf") and float("-inf").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/host_tensor.h"
#include "ir/relax/attrs.h"

namespace kiln::ir::relax::text {

// Element `flat` of `t` (a scalar dtype) as a Python literal: True, -3, 1.5, float("nan").
std::string ElementLiteral(const HostTensor& t, int64_t flat);
// The whole tensor as a Python literal: a scalar for a 0-d tensor, else nested lists.
std::string TensorLiteral(const HostTensor& t);
// A double as a Python float literal (always with a '.' or an exponent), or float("nan").
std::string FloatText(double v);
// An attribute value as a keyword argument value: True, 3, 0.5, "NCHW", [1, 2], "float32".
std::string AttrText(const AttrValue& value);

// The value of float("...") for the strings the printer writes ("nan", "inf", "-inf", and
// their capitalized forms); nullopt for anything else.
std::optional<double> SpecialFloat(std::string_view name);

// The value of an integer literal token: decimal, or hexadecimal after 0x (Python has no
// octal "010"). nullopt when it does not fit 64 bits or is malformed.
std::optional<uint64_t> ParseIntLiteral(std::string_view text);

// Whether `value` fits the integer dtype `dtype` (bool takes 0 and 1); `is_unsigned_big`
// marks a literal above INT64_MAX held as its uint64 bits.
bool IntFits(DataType dtype, int64_t value, bool is_unsigned_big);

}  // namespace kiln::ir::relax::text
