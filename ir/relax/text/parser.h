// Parses the Relax text format (the TVMScript subset ir/relax/text/printer.h prints, and what
// TVM users commonly write by hand) into an IRModule. Expressions are built with the checked
// builders (relax::Call and friends), so struct info is inferred as in any other front end
// and a shape error in a call is reported at the call. Errors are kiln::Error whose message
// starts with "SOURCE:LINE:COL: " and says what was expected: kParse for malformed text, or
// the builder's kind (kType for a shape mismatch, kUnsupported for an unknown op, kInvalidIR
// for a module that is not well formed) with the place of the offending construct.
//
// Values are normalized to A-normal form as TVM's parser normalizes them (block_builder.h): a
// call, tuple or projection nested in another expression, or returned by a function, is bound
// first to a fresh variable: R.multiply(R.nn.silu(gate), up) in a dataflow block reads as
// lv = R.nn.silu(gate); act = R.multiply(lv, up) (DataflowVars lv, lv1, ... inside dataflow
// blocks, Vars gv, gv1, ... outside; no fresh name is one the text uses).
//
// Accepted beyond the printed form: R.Tensor((n, 4), "float32") with a positional dtype,
// R.Tensor(ndim=2, dtype=...), bare R.Tensor / R.Shape / R.Tuple, shape variables defined by
// their first use in a parameter annotation (bare `n` or the string "n"), bindings without
// annotations, symbolic dim arithmetic (n * 2, n // 2, T.floordiv(n, 2), T.max(n, 1)), op
// attributes given positionally after the op's arguments, functions referenced before their
// definition (cls.f, Module.f or a bare name), and `from ... import` lines. R.function's
// `pure=` is accepted and ignored (Kiln does not model purity).
//
// Not supported (an error says so): Relax control flow (if/else), nested functions and
// closures, and dim expressions other than integer arithmetic, T.min/T.max, floor and
// truncated division and modulo, and T.Cast. Input nesting is bounded (kiln::Error, never a
// stack overflow), so any bytes are safe to parse.
#pragma once

#include <string_view>

#include "ir/relax/module.h"

namespace kiln::ir::relax {

// An `@I.ir_module class NAME:` holding @R.function and @T.prim_func definitions, optionally
// followed by the `metadata = {...}` section of large constants. The module is checked with
// CheckWellFormed.
IRModule ParseModule(std::string_view text, std::string_view source_name = "<input>");

// Exactly one standalone `@R.function` definition (it cannot call other functions).
Function ParseRelaxFunction(std::string_view text, std::string_view source_name = "<input>");

}  // namespace kiln::ir::relax
