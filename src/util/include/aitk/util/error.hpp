#pragma once
// Errors shared by every layer. Parsers produce ParseError values; orchestration code throws
// Error subclasses, and main() maps each kind to one exit code (see ExitCode).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace aitk::util {

// Exit codes fixed by the command-line contract (docs/cli.md).
enum class ExitCode : int {
    ok = 0,
    failure = 1,
    bad_input = 2,
    unsatisfiable = 3,
    drift = 4,
    interrupted = 130,
};

// A precise parse failure: what was wrong and where (a 0-based offset into `input`).
struct ParseError {
    static constexpr std::size_t no_position = static_cast<std::size_t>(-1);

    std::string message;
    std::string input;
    std::size_t position = no_position;

    // "message (at column N of 'input')"; caret rendering is left to the CLI.
    std::string describe() const;
};

class Error : public std::runtime_error {
  public:
    Error(ExitCode code, std::string message, std::string hint = {})
        : std::runtime_error(std::move(message)), code_(code), hint_(std::move(hint)) {}
    ExitCode code() const noexcept { return code_; }
    const std::string& hint() const noexcept { return hint_; }

  private:
    ExitCode code_;
    std::string hint_;
};

// Bad input from the user: a file, a flag, a requirement string (exit 2).
class InputError : public Error {
  public:
    explicit InputError(std::string message, std::string hint = {})
        : Error(ExitCode::bad_input, std::move(message), std::move(hint)) {}
};

#ifdef _WIN32
// What Windows says about an error code (GetLastError, LSTATUS), without its final period.
std::string windows_error_text(unsigned long code);
#endif

}  // namespace aitk::util
