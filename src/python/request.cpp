#include "aitk/python/request.hpp"

#include <algorithm>

#include "aitk/pep/version.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::python {

namespace {

util::Unexpected<util::ParseError> request_error(
    std::string message, std::string_view spec,
    std::size_t position = util::ParseError::no_position) {
    return util::Unexpected(util::ParseError{std::move(message), std::string(spec), position});
}

// "3", "3.12", "3.12.1": digits and dots only, 1 to 3 parts.
bool is_plain_version(std::string_view text) {
    auto parts = util::split(text, '.');
    if (parts.empty() || parts.size() > 3) return false;
    return std::all_of(parts.begin(), parts.end(), [](std::string_view p) {
        return !p.empty() && p.size() <= 9 && std::all_of(p.begin(), p.end(), util::is_ascii_digit);
    });
}

bool is_specifier_start(char c) {
    return c == '<' || c == '>' || c == '=' || c == '!' || c == '~';
}

}  // namespace

util::Expected<InterpreterRequest, util::ParseError> parse_interpreter_request(
    std::string_view spec) {
    std::string_view text = util::trim(spec);
    InterpreterRequest request;
    request.text = std::string(text);
    if (text.empty()) {
        return request_error(
            "an empty Python request: give a version (3.12, 3.12.1), a specifier "
            "(>=3.10,<3.13) or a path",
            spec);
    }
    if (text.find('/') != std::string_view::npos || text.find('\\') != std::string_view::npos) {
        request.kind = InterpreterRequest::Kind::path;
        request.path = std::filesystem::path(std::string(text));
        return request;
    }
    if (is_plain_version(text)) {
        // PEP 440's "==3.12.*" is any 3.12.x; a full version is that version exactly.
        std::string clause = util::split(text, '.').size() == 3 ? "==" + std::string(text)
                                                                : "==" + std::string(text) + ".*";
        auto set = pep::SpecifierSet::parse(clause);
        if (!set) return util::Unexpected(set.error());
        request.kind = InterpreterRequest::Kind::version;
        request.specifier = std::move(*set);
        return request;
    }
    if (is_specifier_start(text[0])) {
        auto set = pep::SpecifierSet::parse(text);
        if (!set) {
            return request_error("\"" + std::string(text) +
                                     "\" is not a valid version specifier: " + set.error().message,
                                 spec, set.error().position);
        }
        request.kind = InterpreterRequest::Kind::specifier;
        request.specifier = std::move(*set);
        return request;
    }
    if (util::istarts_with(text, "python")) {
        request.kind = InterpreterRequest::Kind::program;
        request.path = std::filesystem::path(std::string(text));
        return request;
    }
    return request_error("\"" + std::string(text) +
                             "\" is not a Python version (3.12, 3.12.1), a version specifier "
                             "(>=3.10,<3.13), a path or a program name (python3.12)",
                         spec);
}

bool InterpreterRequest::matches(const Interpreter& interpreter) const {
    if (kind == Kind::path || kind == Kind::program) return false;
    return specifier.contains(interpreter.version);
}

std::string InterpreterRequest::describe() const {
    switch (kind) {
        case Kind::version:
            return "Python " + text;
        case Kind::specifier:
            return "Python " + specifier.to_string();
        case Kind::path:
        case Kind::program:
            return text;
    }
    return text;
}

namespace {

// Newest first; an unparsable version (never from the probe) sorts last.
void sort_newest_first(std::vector<Interpreter>& found) {
    std::stable_sort(found.begin(), found.end(), [](const Interpreter& a, const Interpreter& b) {
        auto va = pep::Version::parse(a.version);
        auto vb = pep::Version::parse(b.version);
        if (!va || !vb) return va.has_value() && !vb.has_value();
        return *vb < *va;
    });
}

std::optional<std::filesystem::path> executable_of(const InterpreterRequest& request,
                                                   const DiscoveryOptions& options) {
    if (request.kind == InterpreterRequest::Kind::path) return request.path;
    auto pathext = util::environment_lookup(options.environment, "PATHEXT", true);
    return util::find_program(util::utf8_of(request.path), options.path_value, options.windows,
                              pathext.value_or(".COM;.EXE;.BAT;.CMD"));
}

}  // namespace

std::vector<Interpreter> find_interpreters(const InterpreterRequest& request,
                                           const DiscoveryOptions& options) {
    if (request.kind == InterpreterRequest::Kind::path ||
        request.kind == InterpreterRequest::Kind::program) {
        auto exe = executable_of(request, options);
        if (!exe) return {};
        auto probed = probe_interpreter(*exe, options);
        if (!probed) return {};
        return {std::move(*probed)};
    }
    std::vector<Interpreter> found;
    for (auto& interp : discover_interpreters(options)) {
        if (request.matches(interp)) found.push_back(std::move(interp));
    }
    sort_newest_first(found);
    return found;
}

std::optional<Interpreter> find_interpreter(std::string_view spec,
                                            const DiscoveryOptions& options) {
    auto request = parse_interpreter_request(spec);
    if (!request) throw util::InputError(request.error().message);
    if (request->kind == InterpreterRequest::Kind::path) {
        auto probed = probe_interpreter(request->path, options);
        if (!probed) {
            throw util::InputError(probed.error(),
                                   "give the path of a Python executable, or a version such as "
                                   "3.12");
        }
        return std::move(*probed);
    }
    auto found = find_interpreters(*request, options);
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
}

}  // namespace aitk::python
