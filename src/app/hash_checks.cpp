#include "hash_checks.hpp"

#include <algorithm>

#include "aitk/cache/cache.hpp"
#include "aitk/fs/digest.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "hash_downloads.hpp"

namespace aitk::app {

namespace {

constexpr std::string_view tamper_hint =
    "if you updated the version, update its --hash (`pip hash FILE` prints it); otherwise the "
    "index serves other bytes than the ones you pinned, which someone may have tampered with: "
    "do not install them";

// "sha256:7ac2…" for each digest, in the pins' form.
std::string digests_text(const index::Hashes& digests) {
    std::vector<std::string> parts;
    for (const auto& [algorithm, hex] : digests)
        parts.push_back(algorithm + ":" + hex);
    return parts.empty() ? std::string("no digest") : util::join(parts, ", ");
}

std::string pins_text(const project::HashPin& pin) {
    std::vector<std::string> all = pin.allowed;
    for (const auto& c : pin.constrained)
        all.push_back(c + " (a constraint)");
    return util::join(all, ", ");
}

// The file a locked package installs from, when it is one file that can be hashed.
struct PinnedArtifact {
    std::string filename;
    std::string url;
    std::string* sha256 = nullptr;
    std::optional<std::uint64_t>* size = nullptr;
};

std::optional<PinnedArtifact> artifact_of(lock::LockedPackage& package) {
    if (package.wheel) {
        return PinnedArtifact{package.wheel->filename, package.wheel->url, &package.wheel->sha256,
                              &package.wheel->size};
    }
    if (package.source && (package.source->kind == lock::SourceKind::sdist ||
                           package.source->kind == lock::SourceKind::url)) {
        const auto& url = package.source->url;
        auto slash = url.rfind('/');
        std::string filename = slash == std::string::npos ? url : url.substr(slash + 1);
        return PinnedArtifact{filename, url, &package.source->sha256, &package.source->size};
    }
    return std::nullopt;
}

std::string label(const lock::LockedPackage& package) {
    return package.version.empty() ? package.name : package.name + " " + package.version;
}

// Who needs `name` in the lock ("victim"), for a dependency the inputs do not list.
std::string dependents_of(const std::vector<lock::LockedPackage>& packages,
                          const std::string& name) {
    std::vector<std::string> out;
    for (const auto& p : packages) {
        if (std::find(p.dependencies.begin(), p.dependencies.end(), name) != p.dependencies.end())
            out.push_back(p.name);
    }
    return util::join(out, ", ");
}

}  // namespace

void refuse_unhashable_lines(const project::HashChecking& checking, const std::string& target_id) {
    if (!checking.on || checking.problems.empty()) return;
    const auto& first = checking.problems.front();
    if (checking.problems.size() == 1) {
        throw util::InputError(first.describe() + " (hash-checking mode is on for " + target_id +
                                   ": " + checking.reason + ")",
                               first.hint);
    }
    std::string message = "hash-checking mode is on for " + target_id + " (" + checking.reason +
                          "), and these lines cannot be hash-checked:";
    for (const auto& problem : checking.problems)
        message += "\n  " + problem.describe();
    throw util::InputError(message, first.hint);
}

void throw_if_refused_for_hashes(const std::vector<HashRefusal>& refusals,
                                 const std::string& target_id) {
    if (refusals.empty()) return;
    std::string message =
        "these files do not match the hashes pinned for them (" + target_id + "):";
    for (const auto& r : refusals) {
        message += "\n  " + r.name + " " + r.version.to_string() + " (" + r.filename +
                   "): " + r.pin->where.to_string() + " pins " + pins_text(*r.pin) +
                   "; the index gives " + digests_text(r.digests);
    }
    throw HashMismatch(message, std::string(tamper_hint));
}

void check_locked_hashes(Session& session, const project::HashChecking& checking,
                         std::vector<lock::LockedPackage>& packages, const std::string& target_id) {
    if (!checking.on) return;
    // Files with no sha256 yet are hashed first: both the checks and the lines a missing pin
    // needs want their digest.
    std::vector<PinnedArtifact> unhashed;
    std::vector<UnhashedFile> wanted;
    for (auto& package : packages) {
        auto artifact = artifact_of(package);
        if (artifact && artifact->sha256->empty()) {
            unhashed.push_back(*artifact);
            wanted.push_back({artifact->filename, artifact->url});
        }
    }
    auto found = download_to_hash(session, wanted, "hash-checking needs the digests of");
    for (std::size_t i = 0; i < found.size(); ++i) {
        *unhashed[i].sha256 = found[i].sha256;
        *unhashed[i].size = found[i].size;
    }

    std::vector<std::string> missing;    // what the message lists
    std::vector<std::string> add_lines;  // what the hint offers
    std::vector<std::string> mismatched;
    for (auto& package : packages) {
        auto artifact = artifact_of(package);
        const auto* pin = checking.find(package.name);
        if (!artifact) {
            missing.push_back(label(package) + ": installed from " +
                              (package.source ? util::redact_url(package.source->url)
                                              : std::string("an unknown source")) +
                              ", which is not one file that can be hash-checked");
            continue;
        }
        if (!pin || pin->allowed.empty()) {  // a constraint's hashes alone do not do, as in pip
            missing.push_back(label(package) +
                              (package.requested
                                   ? std::string(": its requirement has no --hash")
                                   : ": a dependency of " + dependents_of(packages, package.name) +
                                         " that the requirements do not list"));
            add_lines.push_back(package.name + "==" + package.version +
                                " --hash=sha256:" + *artifact->sha256);
            continue;
        }
        index::Hashes digests{{"sha256", *artifact->sha256}};
        auto verdict = pin->judge(digests);
        if (verdict == project::HashPin::Verdict::unknown) {
            // Pins of other algorithms only: the bytes answer.
            auto& cache = session.cache();
            auto hold = cache.hold();
            auto stored = cache.find_artifact(*artifact->sha256, artifact->filename);
            if (!stored) {
                download_to_hash(session, {{artifact->filename, artifact->url}},
                                 "hash-checking needs the bytes of");
                stored = cache.find_artifact(*artifact->sha256, artifact->filename);
            }
            if (!stored) {
                throw util::Error(util::ExitCode::failure,
                                  "cannot hash " + artifact->filename + " for its pins");
            }
            digests = fs::file_digests_hex(*stored, pin->algorithms());
            verdict = pin->judge(digests);
        }
        if (verdict != project::HashPin::Verdict::allowed) {
            mismatched.push_back(label(package) + " (" + artifact->filename +
                                 "): " + pin->where.to_string() + " pins " + pins_text(*pin) +
                                 "; the file has " + digests_text(digests));
        }
    }
    if (!mismatched.empty()) {
        throw HashMismatch("these files do not match the hashes pinned for them (" + target_id +
                               "):\n  " + util::join(mismatched, "\n  "),
                           std::string(tamper_hint));
    }
    if (!missing.empty()) {
        std::string hint =
            "in hash-checking mode every package installed, dependencies included, needs a "
            "pinned requirement line with its hashes";
        if (!add_lines.empty()) {
            hint +=
                "; these are the lines with the digests the index gives (check them "
                "against a source you trust):\n    " +
                util::join(add_lines, "\n    ");
        }
        throw util::InputError("hash-checking mode is on for " + target_id + " (" +
                                   checking.reason + "), and " + std::to_string(missing.size()) +
                                   (missing.size() == 1 ? " package has" : " packages have") +
                                   " no hashes in the inputs:\n  " + util::join(missing, "\n  "),
                               hint);
    }
}

void refuse_unhashed_locked_files(const lock::Lockfile& lockfile, const std::string& lock_label) {
    std::vector<std::string> unhashed;
    for (const auto& target : lockfile.targets) {
        for (auto package : target.packages) {
            auto artifact = artifact_of(package);
            if (!artifact || artifact->sha256->empty())
                unhashed.push_back(target.id + ": " + label(package));
        }
    }
    if (unhashed.empty()) return;
    throw util::InputError(lock_label + ": --require-hashes, and " +
                               std::to_string(unhashed.size()) +
                               (unhashed.size() == 1 ? " package installs" : " packages install") +
                               " from no file with a sha256:\n  " + util::join(unhashed, "\n  "),
                           "lock again from pinned, hashed requirements, or leave out "
                           "--require-hashes for this lock");
}

}  // namespace aitk::app
