#pragma once
// The app verbs as the tests call them: a request together with what the test gives the
// command's session (cache root, working directory, environment, network settings, observer),
// run with a fresh app::Session per call, as each aitk-env command gets one. A test can thus set
// `request.cache_root` next to the request's own fields and call `run_lock(request)`.
#include <filesystem>
#include <string_view>

#include "aitk/app/bundle.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/app/session.hpp"
#include "aitk/app/setup.hpp"
#include "aitk/app/snapshot.hpp"
#include "aitk/app/source_builds.hpp"
#include "aitk/app/sync.hpp"

namespace aitk::test {

struct SessionFields {
    std::filesystem::path cache_root;
    std::filesystem::path cwd;
    util::Environment environment;  // empty unless the test sets it
    app::NetworkSettings network;
    net::TransferObserver* observer = nullptr;

    app::SessionSettings session_settings() const {
        return {cache_root, cwd, environment, network, observer, nullptr};
    }
};

template <class Request>
struct WithSession : Request, SessionFields {};

using LockCall = WithSession<app::LockRequest>;
using SetupCall = WithSession<app::SetupRequest>;
using SyncCall = WithSession<app::SyncRequest>;
using BundleCall = WithSession<app::BundleRequest>;
using SnapshotCall = WithSession<app::SnapshotRequest>;
using PythonCall = WithSession<app::PythonOptions>;

inline app::LockOutcome run_lock(const LockCall& call) {
    app::Session session(call.session_settings());
    return app::run_lock(session, call);
}

inline app::SetupOutcome run_setup(const SetupCall& call) {
    app::Session session(call.session_settings());
    return app::run_setup(session, call);
}

inline app::SyncOutcome sync_prefix(const SyncCall& call) {
    app::Session session(call.session_settings());
    return app::sync_prefix(session, call);
}

inline app::BundleOutcome write_bundle(const BundleCall& call) {
    app::Session session(call.session_settings());
    return app::write_bundle(session, call);
}

inline app::SnapshotOutcome snapshot_prefix(const SnapshotCall& call) {
    app::Session session(call.session_settings());
    return app::snapshot_prefix(session, call);
}

inline app::EnsuredPython ensure_python(const PythonCall& call, std::string_view spec) {
    app::Session session(call.session_settings());
    return app::ensure_python(session, spec, call);
}

// SourceBuildRequest has an `environment` of its own (what backends start from): only the
// cache root goes to the session.
struct SourceBuildCall : app::SourceBuildRequest {
    std::filesystem::path cache_root;
};

inline std::vector<app::BuiltSource> build_source_packages(const SourceBuildCall& call) {
    app::Session session({call.cache_root, {}, {}, {}, nullptr, nullptr});
    return app::build_source_packages(session, call);
}

}  // namespace aitk::test
