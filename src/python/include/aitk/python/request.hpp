#pragma once
// Which interpreter a user asks for (`--python`, `python find SPEC`): a version ("3.12" means
// any 3.12.x, "3.12.1" exactly that), a PEP 440 specifier set (">=3.10,<3.13"), or an
// executable (a path, or a name such as "python3.11" looked up on PATH).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/specifier.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::python {

struct InterpreterRequest {
    enum class Kind { version, specifier, path, program };
    Kind kind = Kind::specifier;
    std::string text;             // as given
    pep::SpecifierSet specifier;  // version ("3.12" → ==3.12.*) and specifier kinds
    std::filesystem::path path;   // path: as given; program: the name to look up on PATH

    // Whether a discovered interpreter satisfies a version or specifier request (path and
    // program requests match by the executable they name, see find_interpreters()).
    bool matches(const Interpreter& interpreter) const;
    // "Python 3.12", "Python >=3.10,<3.13", "/opt/py/bin/python3".
    std::string describe() const;
};

// The error message says what the forms are.
util::Expected<InterpreterRequest, util::ParseError> parse_interpreter_request(
    std::string_view spec);

// The interpreters that satisfy `request`, newest version first (ties keep discovery order).
// A path or program request asks that one executable; nothing when it is not a Python.
std::vector<Interpreter> find_interpreters(const InterpreterRequest& request,
                                           const DiscoveryOptions& options);

// The newest interpreter for `spec`, nothing when none matches. Throws util::InputError for a
// spec that is none of the forms, and for a path that does not exist or is not a Python (the
// message says why).
std::optional<Interpreter> find_interpreter(std::string_view spec, const DiscoveryOptions& options);

}  // namespace aitk::python
