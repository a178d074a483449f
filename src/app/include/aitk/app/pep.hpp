#pragma once
// `aitk-env pep`: packaging standards evaluated on request, one JSON object in, one out.
#include <iosfwd>

#include <nlohmann/json.hpp>

namespace aitk::app {

// Evaluates one request such as {"op":"compare","a":"1.0","b":"1.0.0"} and returns
// {"ok":true,"result":...} or {"ok":false,"error":"..."}. Never throws for bad input.
nlohmann::json pep_eval(const nlohmann::json& request);

// Reads JSON lines from `in` and writes one JSON line per non-blank input line to `out`, in
// order; a malformed line gets an error object and the batch goes on. Returns the number of
// lines answered with an error.
std::size_t pep_batch(std::istream& in, std::ostream& out);

}  // namespace aitk::app
