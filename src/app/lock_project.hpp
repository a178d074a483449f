#pragma once
// What lock does for an input that names its own torch builds and platforms (a pyproject.toml):
// the project's metadata read through its build backend, each target checked against the
// project's platforms and backends, and the note that says which extra (or group) a target's
// backend enabled. Internal to the app layer; tests go through run_lock.
#include <optional>
#include <string>

#include "aitk/app/lock.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/project/target.hpp"

namespace aitk::app::lock_detail {

// Reads a project folder's metadata with its build backend (HostSourceInspector), with the
// request's indexes for build requirements and an interpreter of the request's Python X.Y.
ProjectMetadataReader project_metadata_reader(Session& session, const LockRequest& request,
                                              const std::string& python);

// A target the user named must be one the input can be locked for: inside its platforms (uv's
// `environments`), one of its backends where it lists any, the backend its --extra or --group
// names. Throws util::InputError (exit 2) saying which and what the input offers.
void check_named_target(const project::ProjectInput& input, const project::Target& target);

// "backend cu128: extra 'cu128' of pyproject.toml:92": which of the input's backend sources
// `target` takes torch from; nullopt when the input lists no backends there.
std::optional<std::string> backend_note(const project::ProjectInput& input,
                                        const project::Target& target);

}  // namespace aitk::app::lock_detail
