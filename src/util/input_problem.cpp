#include "aitk/util/input_problem.hpp"

namespace aitk::util {

std::string SourceLocation::to_string() const {
    std::string out = file.empty() ? std::string("<input>") : file;
    if (line == 0) return out;
    out += ':' + std::to_string(line);
    if (column != 0) out += ':' + std::to_string(column);
    return out;
}

std::string InputProblem::describe() const { return where.to_string() + ": " + message; }

InputError InputProblem::to_error() const { return InputError(describe(), hint); }

}  // namespace aitk::util
