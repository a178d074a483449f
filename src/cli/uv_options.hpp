#pragma once
// uv sync's selection flags on setup, sync and lock: which extras and dependency groups of a
// uv project to install (`--extra`, `--all-extras`, `--group`, `--no-default-groups`), and
// `--locked` (a uv.lock that no longer matches its pyproject.toml is an error).
#include <CLI/CLI.hpp>

#include "aitk/app/uv_lock_input.hpp"

namespace aitk::cli {

void add_uv_selection_flags(CLI::App& command, app::UvLockOptions& options);
void add_locked_flag(CLI::App& command, app::UvLockOptions& options);

}  // namespace aitk::cli
