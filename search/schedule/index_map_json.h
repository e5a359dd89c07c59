// TVM's form of an index map inside a trace: since 0.24, MetaSchedule writes TransformLayout's
// map as TVM's JSON object graph of a tirx.IndexMap (a string input of the instruction), where
// Kiln's trace keeps the lambda text (index_map.h). These convert between the two for the maps
// index_map.h reads: integer variables and constants under + - * // % min max.
#pragma once

#include <string>
#include <string_view>

#include "search/schedule/index_map.h"

namespace kiln::search {

// The JSON graph text of a tirx.IndexMap -> the map. Throws kiln::Error(kParse) naming the node
// for anything malformed or outside the supported expressions (an inverse map is ignored).
IndexMap IndexMapFromTvmJson(std::string_view json_text);

// The map -> the JSON graph text TVM 0.24+ writes (pretty-printed as TVM does).
std::string IndexMapToTvmJson(const IndexMap& map);

}  // namespace kiln::search
