#pragma once
// Internal to the python layer: reading the probe's JSON line and asking one candidate, shared by
// the probe, the answers cache and discovery so all read answers the same way.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/python/discovery.hpp"
#include "aitk/python/interpreter_cache.hpp"

namespace aitk::python::detail {

inline constexpr std::string_view probe_marker = "aitk-python-probe";

util::Expected<Interpreter, util::ParseError> parse_probe_answer(std::string_view json_line);

// The stored answer for `candidate` when its file is unchanged (`path` set to the candidate).
std::optional<Interpreter> cached(const std::filesystem::path& candidate,
                                  const InterpreterCache& cache);

struct Asked {
    util::Expected<Interpreter, std::string> result = util::Unexpected(std::string());
    std::optional<FileStamp> stamp;
    std::string answer;  // the JSON line, set when it may be cached (the binary itself answered)
};

// Runs `candidate`'s real file (so a venv's link reports the interpreter behind it); `path` of
// the result is the candidate. Safe to call from several threads.
Asked ask(const std::filesystem::path& candidate, const DiscoveryOptions& options);

// Stores what `ask` may cache.
void remember(InterpreterCache& cache, const Asked& asked);

}  // namespace aitk::python::detail
