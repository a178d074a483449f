// What a lock is made from and written to: the inputs read and checked, the hash that says
// whether a lock is stale, and where the lockfile lives.
#include <system_error>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/input_file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

project::ProjectInput load_project_input(const InputSelection& input,
                                         const std::filesystem::path& cwd,
                                         const util::Environment& environment) {
    int chosen =
        (input.manifest ? 1 : 0) + (input.requirements ? 1 : 0) + (input.conda_file ? 1 : 0);
    if (chosen > 1) {
        throw util::InputError("-m, -r and -f are alternatives", "give one input");
    }
    project::RequirementsReadOptions read_options;
    read_options.environment = environment;
    if (input.requirements) {
        auto path = fs::absolute_from(cwd, *input.requirements);
        auto file = project::read_requirements_file(path, read_options);
        if (!file) throw file.error().to_error();
        return project::from_requirements(*file, util::utf8_of(path.stem()));
    }
    if (input.conda_file) {
        auto path = fs::absolute_from(cwd, *input.conda_file);
        auto env = project::read_conda_environment(path, read_options);
        if (!env) throw env.error().to_error();
        auto imported = project::import_conda_environment(*env, input.skip_unmapped);
        if (!imported) throw imported.error().to_error();
        return project::from_conda(*imported, *env);
    }
    auto manifest = input.manifest ? project::read_manifest(fs::absolute_from(cwd, *input.manifest))
                                   : project::parse_manifest(project::builtin_manifest_text(),
                                                             project::builtin_manifest_name());
    if (!manifest) throw manifest.error().to_error();
    std::optional<std::filesystem::path> project_dir;
    if (input.project_dir) project_dir = fs::absolute_from(cwd, *input.project_dir);
    auto loaded = project::from_manifest(*manifest, project_dir, read_options);
    if (!loaded) throw loaded.error().to_error();
    return std::move(*loaded);
}

std::string lock_input_hash(const project::ProjectInput& input, const std::string& python,
                            const std::vector<std::string>& targets,
                            const std::vector<lock::LockedIndex>& indexes) {
    fs::Sha256 hash;
    auto field = [&](std::string_view label, std::string_view value) {
        hash.update(label);
        hash.update(std::string_view("\0", 1));
        hash.update(std::to_string(value.size()));
        hash.update(std::string_view("\0", 1));
        hash.update(value);
    };
    field("format", std::to_string(lock::lock_format_version));
    for (const auto& [label, content] : input.hashed_inputs)
        field("input:" + label, content);
    field("python", python);
    for (const auto& target : targets)
        field("target", target);
    for (const auto& index : indexes)
        field("index",
              index.name + " " + std::string(lock::to_string(index.kind)) + " " + index.url);
    for (const auto& [name, specifier] : input.torch_packages)
        field("torch", name + specifier);
    return "sha256:" + hash.finish_hex();
}

std::filesystem::path default_lock_output(const InputSelection& input,
                                          const std::filesystem::path& cwd,
                                          const std::string& input_name) {
    const auto base = input.project_dir ? fs::absolute_from(cwd, *input.project_dir) : cwd;
    return base / lock::default_lockfile_path(input_name);
}

std::string read_lockfile_text(const std::filesystem::path& path, const std::string& label) {
    const std::string shown = label.empty() ? util::utf8_of(path) : label;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        throw util::InputError(
            "lockfile " + shown + " does not exist",
            "make one with `aitk-env lock`, or pass the path of an existing one");
    }
    auto text = fs::read_input_file(path, fs::lockfile);
    if (!text) {
        throw util::InputError("lockfile " + shown + ": " + text.error(),
                               "pass the lockfile `aitk-env lock` wrote");
    }
    return std::move(*text);
}

lock::Lockfile read_lockfile(const std::filesystem::path& path, const std::string& label) {
    // setup -l, sync -l and doctor -l read them as they are (read_any_lock); other commands
    // take the lockfile `lock --from` makes of them.
    refuse_foreign_lockfile(path);
    auto parsed = lock::parse_lockfile(read_lockfile_text(path, label),
                                       label.empty() ? util::utf8_of(path) : label);
    if (!parsed) throw parsed.error().to_error();
    return std::move(*parsed);
}

}  // namespace aitk::app
