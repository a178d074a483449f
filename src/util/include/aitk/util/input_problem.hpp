#pragma once
// A problem in a file the user gave us (manifest, requirements file, environment.yml,
// lockfile): where it is (file:line:column, 1-based; 0 = unknown) and how to fix it. Loaders of
// such files return Loaded<T>; the app layer turns a problem into an InputError (exit 2).
#include <cstddef>
#include <string>

#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::util {

struct SourceLocation {
    std::string file;  // as the user named it (or a label such as "<inline>")
    std::size_t line = 0;
    std::size_t column = 0;

    // "file:line:column", leaving out the parts that are unknown ("file:12", "file").
    std::string to_string() const;
    friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

struct InputProblem {
    SourceLocation where;
    std::string message;  // what is wrong, without the location
    std::string hint;     // how to fix it; may be empty

    // "file:line:column: message" (the hint is not included).
    std::string describe() const;
    // An InputError carrying describe() and the hint, for orchestration code to throw.
    InputError to_error() const;
};

template <class T>
using Loaded = Expected<T, InputProblem>;

inline Unexpected<InputProblem> input_problem(SourceLocation where, std::string message,
                                              std::string hint = {}) {
    return Unexpected<InputProblem>(
        InputProblem{std::move(where), std::move(message), std::move(hint)});
}

}  // namespace aitk::util
