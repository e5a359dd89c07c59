// A kernel call's given values on the wire (a validation's carved or live call, measured by a
// remote worker): a runtime::Reference (inputs in files, expected values in memory) turned
// into GivenParamMsg entries and back, and the tensors a worker returns after the run.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "runtime/reference_store.h"
#include "schemas/messages.h"

namespace kiln::schemas {

// Each parameter of `reference`: a tensor's input (read from its file) and expected values,
// or a scalar. kiln::Error(kIO) naming the file when an input cannot be read.
std::vector<GivenParamMsg> GivenFromReference(const runtime::Reference& reference);

// The reference a worker measures a candidate with: the inputs written under `dir` (made),
// `key` its key, `source` what it says it is. kiln::Error(kIO) when `dir` cannot be written.
std::shared_ptr<runtime::Reference> ReferenceFromGiven(const std::vector<GivenParamMsg>& given,
                                                       const std::string& dir, uint64_t key,
                                                       const std::string& source);

// The tensors after a run (runtime::MeasureDetails::outputs) and back.
std::vector<CallTensorMsg> OutputsToMsg(const std::map<int, ir::HostTensor>& outputs);
std::map<int, ir::HostTensor> OutputsFromMsg(const std::vector<CallTensorMsg>& outputs);

}  // namespace kiln::schemas
