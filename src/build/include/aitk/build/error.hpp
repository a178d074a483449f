#pragma once
// The error of a source build that went wrong: the backend failed, timed out or answered
// nonsense, or the source itself (pyproject.toml, archive layout, git) is unusable. It carries
// what a user needs to act without rerunning anything: the backend's last lines of output and a
// command line that reruns the failing step by hand.
#include <string>

#include "aitk/util/error.hpp"

namespace aitk::build {

class BuildError : public util::Error {
  public:
    // `message` is complete (what failed, the output tail, the command); the parts are kept too
    // so callers can render them differently.
    BuildError(std::string message, std::string hint = {}, std::string output_tail = {},
               std::string reproduce = {})
        : util::Error(util::ExitCode::failure, std::move(message), std::move(hint)),
          output_tail_(std::move(output_tail)),
          reproduce_(std::move(reproduce)) {}

    // The backend's last lines (empty when no backend ran).
    const std::string& output_tail() const noexcept { return output_tail_; }
    // A POSIX shell command line that reruns the failing hook (empty when no backend ran).
    const std::string& reproduce_command() const noexcept { return reproduce_; }

  private:
    std::string output_tail_;
    std::string reproduce_;
};

}  // namespace aitk::build
