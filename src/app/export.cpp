#include "aitk/app/export.hpp"

#include <system_error>

#include "aitk/app/lock.hpp"
#include "aitk/app/prefix.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/lock/exporters.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::embedded {
std::string_view export_dockerfile_in();
std::string_view export_dockerignore_in();
}  // namespace aitk::embedded

namespace aitk::app {
namespace {

namespace stdfs = std::filesystem;

struct Loaded {
    lock::Lockfile lock;
    std::string label;          // the lockfile as the user named it
    stdfs::path path;           // absolute
    std::string prefix_target;  // -p: the target the prefix was set up for
    std::optional<stdfs::path> prefix;
};

stdfs::path absolute(const stdfs::path& path, const stdfs::path& cwd) {
    return fs::absolute_from(cwd, path).lexically_normal();
}

Loaded load(const ExportRequest& request) {
    if (request.lockfile.has_value() == request.prefix.has_value()) {
        throw util::InputError("export needs exactly one of -l LOCK and -p PREFIX",
                               "aitk-env export -l lockfiles/NAME.lock.yml --format FORMAT");
    }
    Loaded out;
    std::error_code ec;
    if (request.lockfile) {
        out.label = request.lockfile->string();
        out.path = absolute(*request.lockfile, request.cwd);
        if (!stdfs::exists(out.path, ec)) {
            throw util::InputError(out.label + ": no such lockfile",
                                   "write one with `aitk-env lock -o " + out.label + "`");
        }
        out.lock = read_lockfile(out.path, out.label);
        return out;
    }
    const stdfs::path prefix = absolute(*request.prefix, request.cwd);
    auto layout = open_prefix(prefix, request.windows);
    auto own = read_prefix_lock(layout);
    if (!own) {
        throw util::InputError(
            request.prefix->string() + " keeps no lockfile (no " +
                util::utf8_of(layout.state / "lock.yml") + ")",
            "give the prefix one with `aitk-env setup -p " + request.prefix->string() +
                "` or `aitk-env sync -l LOCK -p " + request.prefix->string() +
                "`, record what it holds with `aitk-env snapshot`, or export a lockfile with -l");
    }
    out.lock = std::move(own->lock);
    out.prefix_target = own->target;
    out.path = layout.state / "lock.yml";
    out.label = util::generic_utf8_of(*request.prefix / ".aitk-env" / "lock.yml");
    out.prefix = prefix;
    return out;
}

const lock::LockedTarget& choose_target(const Loaded& loaded, const std::string& wanted) {
    const lock::Lockfile& lock = loaded.lock;
    std::string id = wanted;
    if (id.empty()) id = loaded.prefix_target;
    if (id.empty()) id = lock.default_target;
    if (const auto* target = lock.find_target(id)) return *target;
    if (wanted.empty() && lock.targets.size() == 1) return lock.targets.front();
    std::string ids;
    for (const auto& target : lock.targets)
        ids += (ids.empty() ? "" : ", ") + target.id;
    if (ids.empty()) ids = "none";
    throw util::InputError(loaded.label + " has no target '" + id + "' (its targets: " + ids + ")",
                           "pass --target with one of them, or lock for it with `aitk-env lock "
                           "--target " +
                               (id.empty() ? std::string("OS-ARCH-BACKEND") : id) + "`");
}

// `path` relative to `base` when it lies below it, as POSIX text; nullopt otherwise.
std::optional<std::string> inside(const stdfs::path& path, const stdfs::path& base) {
    const auto relative = path.lexically_relative(base);
    if (relative.empty() || *relative.begin() == "..") return std::nullopt;
    return util::generic_utf8_of(relative);
}

lock::DockerfileOptions docker_options(const Loaded& loaded, const stdfs::path& context,
                                       std::vector<std::string>& notes) {
    lock::DockerfileOptions options;
    auto lock_path = inside(loaded.path, context);
    if (!lock_path) {
        lock_path = util::generic_utf8_of(loaded.path.filename());
        notes.push_back("the lockfile " + util::utf8_of(loaded.path) +
                        " lies outside the build context " + util::utf8_of(context) +
                        ": copy it to " + util::utf8_of(context / *lock_path) +
                        " before `docker build`");
    }
    options.lock_path = *lock_path;
    if (loaded.prefix) {
        // The prefix's lock copy is the one file of the prefix the build needs.
        if (auto prefix = inside(*loaded.prefix, context)) {
            options.ignore.push_back(*prefix);
            options.keep.push_back(*lock_path);
        }
    }
    return options;
}

}  // namespace

nlohmann::json ExportOutcome::to_json() const {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& path : written)
        files.push_back(util::utf8_of(path));
    return {{"format", format},
            {"target", target},
            {"written", files},
            {"left_out", left_out},
            {"notes", notes}};
}

ExportOutcome run_export(const ExportRequest& request) {
    const auto format = lock::parse_export_format(request.format);
    if (!format) {
        throw util::InputError("unknown export format '" + request.format + "'",
                               "--format takes one of " + lock::export_format_list());
    }
    const Loaded loaded = load(request);
    const lock::LockedTarget& target = choose_target(loaded, request.target);
    const lock::ExportSource source{loaded.label};

    ExportOutcome outcome;
    outcome.format = std::string(lock::export_format_name(*format));
    outcome.target = target.id;
    std::optional<std::string> dockerignore;
    switch (*format) {
        case lock::ExportFormat::env_yml:
            outcome.text = lock::export_env_yml(loaded.lock, target, source);
            outcome.left_out = lock::pip_section(loaded.lock, target).left_out;
            break;
        case lock::ExportFormat::requirements: {
            auto exported = lock::export_requirements(loaded.lock, target, source);
            outcome.text = std::move(exported.text);
            outcome.left_out = std::move(exported.left_out);
            break;
        }
        case lock::ExportFormat::pylock:
            outcome.text = lock::export_pylock(loaded.lock, target, source);
            break;
        case lock::ExportFormat::dockerfile: {
            const stdfs::path context =
                request.output ? absolute(*request.output, request.cwd).parent_path() : request.cwd;
            const auto options = docker_options(loaded, context, outcome.notes);
            outcome.text = lock::export_dockerfile(loaded.lock, target, source, options,
                                                   embedded::export_dockerfile_in());
            dockerignore = lock::export_dockerignore(options, embedded::export_dockerignore_in());
            break;
        }
    }
    if (!outcome.left_out.empty()) {
        std::string names;
        for (const auto& name : outcome.left_out)
            names += (names.empty() ? "" : ", ") + name;
        outcome.notes.push_back("left out, as pip cannot check them by hash: " + names);
    }
    if (request.output) {
        const stdfs::path path = absolute(*request.output, request.cwd);
        std::error_code ec;
        stdfs::create_directories(path.parent_path(), ec);  // write_file_atomic reports failure
        fs::write_file_atomic(path, outcome.text);
        outcome.written.push_back(path);
        if (dockerignore) {
            const stdfs::path ignore = path.parent_path() / ".dockerignore";
            fs::write_file_atomic(ignore, *dockerignore);
            outcome.written.push_back(ignore);
        }
    }
    return outcome;
}

}  // namespace aitk::app
