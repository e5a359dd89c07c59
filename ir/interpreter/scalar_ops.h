// The arithmetic of one lane, as the interpreter defines it for every dtype: integers are
// computed exactly in 64 bits and wrapped to the dtype's width after each operation (C
// semantics), floats are computed in double and rounded to the dtype after each operation, so
// a float16 result equals what a device computing in float16 produces. Kept apart from the IR
// walker so that each rule can be read (and tested) on its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/dtype.h"
#include "ir/node.h"

namespace kiln::ir::interp {

// One lane of a value. Integer-like dtypes (int, uint, bool) use `i` (uint64 as its bit
// pattern, bool as 0/1); float dtypes use `f`, always holding a value representable in the
// dtype. Both fields exist so that mixing them up reads a zero, not undefined memory.
struct Scalar {
  int64_t i = 0;
  double f = 0;
  static Scalar Int(int64_t v) { return Scalar{v, 0}; }
  static Scalar Float(double v) { return Scalar{0, v}; }
};

// `v` reduced to the dtype's width: sign-extended for int, zero-extended for uint, 0/1 for bool.
int64_t WrapInt(int64_t v, DataType t);
// `v` rounded to the precision of a float dtype (round to nearest even).
double RoundFloat(double v, DataType t);
// An immediate or a loaded value made canonical for `t` (wrapped or rounded).
Scalar Canonical(Scalar v, DataType t);

// Arithmetic, comparison and logic of the binary node `kind` on operands of dtype `t`
// (comparisons give a bool 0/1 in `i`). Integer division or modulo by zero throws
// kiln::Error(kRuntime).
Scalar BinaryOp(NodeKind kind, DataType t, Scalar a, Scalar b);

// A C-like conversion from `from` to `to`, except that float to integer saturates to the
// target's range (NaN gives 0) instead of being undefined.
Scalar CastScalar(Scalar v, DataType from, DataType to);

// The intrinsics of ir/op.h, resolved once from their names so the hot path does not compare
// strings.
enum class Intrinsic : uint8_t {
  kExp,
  kExp2,
  kExp10,
  kLog,
  kLog2,
  kLog10,
  kLog1p,
  kSqrt,
  kRsqrt,
  kTanh,
  kSigmoid,
  kErf,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kFloor,
  kCeil,
  kRound,
  kTrunc,
  kNearbyint,
  kFabs,
  kAbs,
  kIsnan,
  kIsinf,
  kIsfinite,
  kPow,
  kFmod,
  kAtan2,
  kCopysign,
};
// The intrinsic named `name`; throws kiln::Error(kUnsupported) for a name ir/op.h lacks.
Intrinsic ResolveIntrinsic(std::string_view name);
// Applies `op` to arguments of dtype `arg_t` giving a result of dtype `result_t`.
Scalar ApplyIntrinsic(Intrinsic op, DataType arg_t, DataType result_t, Scalar a, Scalar b);

}  // namespace kiln::ir::interp
