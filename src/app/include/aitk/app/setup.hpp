#pragma once
// `aitk-env setup`: the whole job. Lockfile (given, or made now for this machine) → the lock
// target this machine runs (explained; exit 3 when none) → interpreter → venv prefix → sync
// (download, unpack, install) → shims → smoke test through the shim.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/lock.hpp"
#include "aitk/app/machine.hpp"
#include "aitk/app/sync.hpp"

namespace aitk::app {

struct SetupRequest {
    InputSelection input;
    std::optional<std::filesystem::path> lockfile;  // -l: no resolver, no index pages
    // --bundle: verified into the cache, then its lock installed offline (app/bundle.hpp)
    std::optional<std::filesystem::path> bundle;
    std::filesystem::path prefix = ".venv";
    std::optional<std::string> python;  // "3.12", "3.12.1" or a path
    // --glibc X.Y and --macos X.Y for the lock setup makes (LockRequest::glibc, ::macos);
    // refused with -l and --bundle, whose locks are made already.
    std::optional<std::string> glibc;
    std::optional<std::string> macos;
    install::LinkMode link_mode = install::LinkMode::automatic;
    bool dry_run = false;
    bool smoke_test = true;
    bool compile_bytecode = false;
    bool build_sources = true;  // false: --no-build (source nodes stay opaque and uninstalled)
    // The indexes to lock from; given with -l, where the lock's files are now (a mirror of
    // them). Where locked files are downloaded from is the session's rewrite rules.
    IndexSettings indexes;
    Machine machine;  // this machine (probe_machine), with what --backend / --force ask for
    // --target: the lock target to install (from -l), or to lock for (otherwise). Honoured
    // when its torch build runs here (or with --force), else refused; never replaced.
    std::optional<std::string> target;
    bool windows = false;
    // Told what setup reads (LockRequest::on_input; "x.lock.yml (lockfile)" for -l) as soon as
    // it is known, before the minutes of resolving and downloading.
    std::function<void(const std::string&)> on_input;
};

struct SetupOutcome {
    // What was read ("pyproject.toml (PEP 621 + tool.uv)", "x.lock.yml (lockfile)"): the first
    // line of the summary.
    std::string input;
    // The backend the user chose through a pyproject.toml's extra or group (LockOutcome's).
    std::optional<std::string> selected_backend;
    std::string selected_backend_by;
    std::filesystem::path lockfile;
    std::string target;
    std::string target_reason;
    std::filesystem::path prefix;
    std::string python;  // the interpreter's executable
    SyncOutcome sync;
    std::vector<std::filesystem::path> shims;
    std::string smoke;  // what the smoke test printed
    std::vector<std::string> notes;
    std::string stages;  // each stage's time, for `-v` (Stopwatch::describe)
    nlohmann::json to_json() const;
    // For people: what was done and how to run things; `with_input` false when on_input has
    // printed the input already.
    std::string summary(bool with_input = true) const;
};

// Throws util::InputError, resolve::Unsatisfiable, util::Error (smoke test failure: exit 1).
SetupOutcome run_setup(Session& session, const SetupRequest& request);

}  // namespace aitk::app
