// Fuzzes schedule traces: the input is read as trace JSON, validated by Trace::FromJSON and
// replayed on a fixed small matmul + relu. Malformed JSON and invalid traces must fail with
// kiln::Error (kParse from FromJSON, kSchedule from the replay); a crash, a sanitizer report,
// another exception or another error kind is a bug. A trace that replays must also compute
// what the unscheduled function computes (checked with the reference interpreter), print as
// a script, survive its JSON round trip, and replay again to the same function.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"

namespace {

using kiln::Error;
using kiln::ErrorKind;
using nlohmann::json;

// The workload of the seed traces (tests/search/testdata/traces/, written by
// tests/search/trace_corpus_test.cc from the same text).
constexpr const char* kWorkload = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    C = T.alloc_buffer((8, 8))
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(8, 8):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(C[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
)";

[[noreturn]] void Bug(const std::string& what, const kiln::search::Trace& trace) {
  std::fprintf(stderr, "trace_fuzzer: %s\ntrace:\n%s\n", what.c_str(), trace.AsPython().c_str());
  std::abort();
}

// The outputs of `f` on fixed random inputs.
std::vector<kiln::ir::HostTensor> Run(const kiln::ir::PrimFunc& f) {
  std::vector<kiln::ir::ArgValue> args;
  std::vector<kiln::ir::HostTensor> tensors;
  for (size_t i = 0; i < f->params.size(); ++i) {
    auto buffer = f->BufferOf(f->params[i]);
    tensors.push_back(kiln::ir::HostTensor::Random((*buffer)->dtype, {8, 8}, 7 + i));
    args.push_back(tensors.back());
  }
  kiln::ir::Interpret(f, args);
  return tensors;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const kiln::ir::PrimFunc workload = kiln::ir::ParsePrimFunc(kWorkload, "<workload>");
  static const std::vector<kiln::ir::HostTensor> expected = Run(workload);

  json j = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  kiln::search::Trace trace;
  try {
    trace = kiln::search::Trace::FromJSON(j);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kParse) Bug(std::string("FromJSON threw ") + e.what(), trace);
    return 0;
  }
  (void)trace.AsPython();
  json again = trace.ToJSON();
  try {
    if (kiln::search::Trace::FromJSON(again).ToJSON() != again) {
      Bug("the JSON round trip of a valid trace changed it", trace);
    }
  } catch (const Error& e) {
    Bug(std::string("the JSON of a valid trace does not parse: ") + e.what(), trace);
  }

  kiln::search::Schedule sch(workload, 1);
  try {
    trace.ApplyTo(sch);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kSchedule) {
      Bug(std::string("replay failed with another kind than kSchedule: ") + e.what(), trace);
    }
    return 0;
  }
  std::vector<kiln::ir::HostTensor> actual;
  try {
    actual = Run(sch.func());
  } catch (const Error& e) {
    Bug(std::string("the scheduled function does not run: ") + e.what() + "\n" +
            kiln::ir::PrintPrimFunc(sch.func()),
        trace);
  }
  kiln::ir::TensorComparison cmp = kiln::ir::CompareTensors(expected[2], actual[2], 1e-4, 1e-4);
  if (!cmp.ok) {
    Bug("the scheduled function computes something else: " + cmp.message + "\n" +
            kiln::ir::PrintPrimFunc(sch.func()),
        trace);
  }
  // The recorded trace (decisions filled in) replays to the same function.
  kiln::search::Schedule replay(workload, 2);
  try {
    sch.trace().ApplyTo(replay);
  } catch (const Error& e) {
    Bug(std::string("the recorded trace does not replay: ") + e.what(), sch.trace());
  }
  if (!kiln::ir::StructuralEqual(replay.func(), sch.func())) {
    Bug("the recorded trace replays to another function", sch.trace());
  }
  return 0;
}
