// What a lock is made from and written to: the inputs read and checked, the hash that says
// whether a lock is stale, and where the lockfile lives.
#include <system_error>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/project_folder.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/input_file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/project/pyproject.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

namespace {

// A project's pyproject.toml (`label`: how messages name it); the fields it leaves dynamic are
// read through `read_metadata` (its build backend) when given.
project::ProjectInput load_pyproject(const std::filesystem::path& path, const std::string& label,
                                     const project::PyprojectSelection& selection,
                                     const ProjectMetadataReader& read_metadata) {
    auto parsed = project::read_pyproject(path, label);
    if (!parsed) throw parsed.error().to_error();
    std::optional<pep::CoreMetadata> built;
    if ((parsed->is_dynamic("dependencies") || parsed->is_dynamic("optional-dependencies")) &&
        read_metadata && !selection.dynamic_may_stay_unread) {
        built = read_metadata(path.parent_path());
    }
    auto loaded = project::from_pyproject(*parsed, selection, built ? &*built : nullptr);
    if (!loaded) throw loaded.error().to_error();
    return std::move(*loaded);
}

project::ProjectInput load_requirements(const std::filesystem::path& path,
                                        const project::RequirementsReadOptions& options) {
    auto file = project::read_requirements_file(path, options);
    if (!file) throw file.error().to_error();
    auto input = project::from_requirements(*file, util::utf8_of(path.stem()));
    input.described_as = util::utf8_of(path.filename()) + " (pip requirements file)";
    return input;
}

project::ProjectInput load_manifest(const std::optional<std::filesystem::path>& path,
                                    const std::optional<std::filesystem::path>& project_dir,
                                    const project::RequirementsReadOptions& options) {
    auto manifest = path ? project::read_manifest(*path)
                         : project::parse_manifest(project::builtin_manifest_text(),
                                                   project::builtin_manifest_name());
    if (!manifest) throw manifest.error().to_error();
    auto loaded = project::from_manifest(*manifest, project_dir, options);
    if (!loaded) throw loaded.error().to_error();
    loaded->described_as =
        (path ? util::utf8_of(path->filename()) + " (manifest"
              : std::string(project::builtin_manifest_name()) + " (built-in manifest") +
        (project_dir ? ", with the requirement files of " + util::utf8_of(*project_dir) + ")"
                     : std::string(")"));
    return std::move(*loaded);
}

// --extra, --group and their kin select from a pyproject.toml; given for another input they
// would change nothing, which the user did not mean (uv pip refuses them alike).
project::ProjectInput refuse_project_flags(const project::PyprojectSelection& s,
                                           project::ProjectInput loaded) {
    std::string flag;
    if (!s.extras.empty()) {
        flag = "--extra " + s.extras.front();
    } else if (s.all_extras) {
        flag = "--all-extras";
    } else if (!s.groups.empty()) {
        flag = "--group " + s.groups.front();
    } else if (s.no_default_groups) {
        flag = "--no-default-groups";
    } else if (!s.install_project) {
        flag = "--no-install-project";
    }
    if (flag.empty()) return loaded;
    throw util::InputError(flag + ": " + loaded.described_as +
                               " is no pyproject.toml: it has no extras, groups or project to "
                               "select",
                           "drop " + flag + ", or name the project's pyproject.toml");
}

}  // namespace

project::ProjectInput load_project_input(const InputSelection& input,
                                         const std::filesystem::path& cwd,
                                         const util::Environment& environment,
                                         const ProjectMetadataReader& read_metadata) {
    int chosen =
        (input.manifest ? 1 : 0) + (input.requirements ? 1 : 0) + (input.conda_file ? 1 : 0);
    if (chosen > 1) {
        throw util::InputError("-m, -r and -f are alternatives", "give one input");
    }
    project::RequirementsReadOptions read_options;
    read_options.environment = environment;
    std::optional<std::filesystem::path> project_dir;
    if (input.project_dir) project_dir = fs::absolute_from(cwd, *input.project_dir);
    if (input.requirements) {
        auto path = fs::absolute_from(cwd, *input.requirements);
        // `-r pyproject.toml`, as `uv pip install -r pyproject.toml` takes it: by its name, and
        // as a list of requirements (the dependencies, the extras and groups asked for), not as
        // `uv sync` takes the project: neither the project itself nor its default groups.
        if (is_pyproject_file(path)) {
            auto selection = input.pyproject;
            selection.install_project = false;
            selection.no_default_groups = true;
            return load_pyproject(path, util::utf8_of(*input.requirements), selection,
                                  read_metadata);
        }
        return refuse_project_flags(input.pyproject, load_requirements(path, read_options));
    }
    if (input.conda_file) {
        auto path = fs::absolute_from(cwd, *input.conda_file);
        auto env = project::read_conda_environment(path, read_options);
        if (!env) throw env.error().to_error();
        auto imported = project::import_conda_environment(*env, input.skip_unmapped);
        if (!imported) throw imported.error().to_error();
        auto loaded = project::from_conda(*imported, *env);
        loaded.described_as = util::utf8_of(path.filename()) + " (conda environment)";
        return refuse_project_flags(input.pyproject, std::move(loaded));
    }
    if (input.manifest) {
        return refuse_project_flags(
            input.pyproject,
            load_manifest(fs::absolute_from(cwd, *input.manifest), project_dir, read_options));
    }
    // No input named: the project's folder (--project DIR, else the current one) decides.
    const auto folder = project_dir.value_or(cwd);
    const auto decided = decide_folder_input(folder);
    const auto label = [&](const std::filesystem::path& file) {
        return input.project_dir ? util::utf8_of(*input.project_dir / file.filename())
                                 : util::utf8_of(file.filename());
    };
    switch (decided.kind) {
        case FolderInputKind::ai_toolkit_checkout:
            return refuse_project_flags(input.pyproject,
                                        load_manifest(std::nullopt, folder, read_options));
        case FolderInputKind::pyproject:
            return load_pyproject(decided.file, label(decided.file), input.pyproject,
                                  read_metadata);
        case FolderInputKind::requirements:
            return refuse_project_flags(input.pyproject,
                                        load_requirements(decided.file, read_options));
        case FolderInputKind::builtin_manifest:
            break;
    }
    if (project_dir) {
        throw util::InputError(
            "--project " + util::utf8_of(*input.project_dir) +
                ": the folder holds no pyproject.toml with a [project] table and no "
                "requirements.txt",
            "give the project's folder, or name its input with -r, -m or -f");
    }
    return refuse_project_flags(input.pyproject,
                                load_manifest(std::nullopt, std::nullopt, read_options));
}

std::string lock_input_hash(const project::ProjectInput& input, const std::string& python,
                            const std::vector<std::string>& targets,
                            const std::vector<lock::LockedIndex>& indexes,
                            std::string_view index_strategy, const std::string& glibc_cap,
                            const std::string& macos_cap) {
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
    if (!index_strategy.empty()) field("index-strategy", index_strategy);
    if (!glibc_cap.empty()) field("glibc", glibc_cap);
    if (!macos_cap.empty()) field("macos", macos_cap);
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
