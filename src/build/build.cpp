#include "aitk/build/build.hpp"

#include <system_error>

#include "aitk/archive/reader.hpp"
#include "aitk/build/error.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/pep/wheel_filename.hpp"

namespace aitk::build {

namespace stdfs = std::filesystem;

namespace {

// One build's scratch folder: removed after success, kept after a failure so that the
// reproduce command in the error still finds the project copy and the driver.
class Scratch {
  public:
    explicit Scratch(const BuildOptions& options)
        : dir_(fs::TempDir::create_in(
              options.work_dir.empty() ? stdfs::temp_directory_path() : options.work_dir,
              "aitk-build")) {}
    const stdfs::path& path() const { return dir_.path(); }
    void keep() { dir_.keep(); }

  private:
    fs::TempDir dir_;
};

// Runs `body`, keeping the scratch folder when a backend failed.
template <class F>
auto keeping_on_failure(Scratch& scratch, F&& body) {
    try {
        return body();
    } catch (const BuildError&) {
        scratch.keep();
        throw;
    }
}

HookRunner runner_for(const python::Interpreter& interpreter, const BuildOptions& options,
                      const stdfs::path& work_dir) {
    HookRunner runner;
    runner.python = interpreter.executable.empty() ? interpreter.path : interpreter.executable;
    runner.environment = options.environment;
    runner.timeout = options.timeout;
    runner.work_dir = work_dir;
    return runner;
}

struct Prepared {
    BuildSystem system;
    BuildEnvironment environment;
};

// Steps 1–3: the declared build system, its environment, and the environment again with what
// the backend's get_requires hook adds.
Prepared prepare_environment(const stdfs::path& project, const std::string& label,
                             BuildEnvironmentProvider& provider, const HookRunner& runner,
                             const BuildOptions& options, Hook get_requires) {
    auto loaded = read_build_system(project);
    if (!loaded) {
        throw BuildError("building " + label + ": " + loaded.error().describe(),
                         loaded.error().hint);
    }
    Prepared prepared{std::move(*loaded), {}};
    const std::string purpose = "build requirements of " + label;
    prepared.environment = provider.prepare(prepared.system.requirements, purpose);

    HookCall call;
    call.hook = get_requires;
    call.project = project;
    call.build_system = prepared.system;
    call.environment = prepared.environment;
    call.config_settings = options.config_settings;
    call.isolated = options.isolated;
    call.label = label;
    HookResult asked = run_hook(runner, call);

    std::vector<pep::Requirement> all = prepared.system.requirements;
    bool added = false;
    for (const std::string& text : asked.requirements) {
        auto requirement = pep::Requirement::parse(text);
        if (!requirement) {
            throw BuildError(
                "building " + label + ": the backend's " + std::string(to_string(get_requires)) +
                    " hook asked for '" + text +
                    "', which is not a PEP 508 requirement: " + requirement.error().describe(),
                "the build backend broke the PEP 517 contract; report it to the "
                "project");
        }
        bool known = false;
        for (const auto& have : all)
            known = known || have == *requirement;
        if (known) continue;
        all.push_back(std::move(*requirement));
        added = true;
    }
    if (added) {
        prepared.environment = provider.prepare(
            all, purpose + " (with those " + std::string(to_string(get_requires)) + " added)");
    }
    return prepared;
}

stdfs::path checked_wheel(const stdfs::path& folder, const std::string& name,
                          const std::string& label, std::string_view hook) {
    if (!pep::WheelFilename::parse(name)) {
        throw BuildError("building " + label + ": the backend's " + std::string(hook) +
                             " hook made '" + name + "', which is not a valid wheel file name",
                         "the build backend broke the PEP 517 contract; report it to the project");
    }
    std::error_code ec;
    stdfs::path wheel = folder / name;
    if (!stdfs::is_regular_file(wheel, ec)) {
        throw BuildError("building " + label + ": the backend's " + std::string(hook) +
                         " hook named " + name + " but did not write it");
    }
    return wheel;
}

// Where a wheel that is not cached goes.
stdfs::path deliver(const stdfs::path& wheel, const stdfs::path& output_dir) {
    stdfs::create_directories(output_dir);
    stdfs::path target = output_dir / wheel.filename();
    stdfs::copy_file(wheel, target, stdfs::copy_options::overwrite_existing);
    return target;
}

std::optional<WheelCacheKey> cache_key(const BuildSource& source,
                                       const python::Interpreter& interpreter,
                                       const BuildOptions& options) {
    if (options.cache == nullptr || source.id().empty() || !options.isolated) return std::nullopt;
    return WheelCacheKey::for_interpreter(source.id(), interpreter, options.config_settings);
}

void require_output_dir(const BuildOptions& options, const std::string& label) {
    if (options.output_dir.empty()) {
        throw util::Error(util::ExitCode::failure,
                          "building " + label + ": no output folder for the wheel",
                          "internal: set BuildOptions::output_dir or a cache");
    }
}

// Runs a hook that makes a wheel (build_wheel, build_editable) into <scratch>/wheel and returns
// the wheel it names, checked.
stdfs::path run_wheel_hook(Hook hook, const char* hook_name, const stdfs::path& project,
                           const std::string& label, const Prepared& prepared,
                           const HookRunner& runner, const BuildOptions& options,
                           const stdfs::path& scratch) {
    const stdfs::path out = scratch / "wheel";
    stdfs::create_directories(out);
    HookCall call;
    call.hook = hook;
    call.project = project;
    call.build_system = prepared.system;
    call.environment = prepared.environment;
    call.config_settings = options.config_settings;
    call.isolated = options.isolated;
    call.wheel_directory = out;
    call.label = label;
    HookResult built = run_hook(runner, call);
    return checked_wheel(out, built.name, label, hook_name);
}

}  // namespace

BuiltWheel build_wheel(const BuildSource& source, BuildEnvironmentProvider& provider,
                       const python::Interpreter& interpreter, const BuildOptions& options) {
    auto key = cache_key(source, interpreter, options);
    std::optional<fs::FileLock> entry_lock;
    if (key) {
        if (auto hit = options.cache->find(*key)) return {*hit, true};
        // Another process building the same wheel finishes first; then it is a hit.
        entry_lock.emplace(options.cache->lock(*key));
        if (auto hit = options.cache->find(*key)) return {*hit, true};
    } else {
        require_output_dir(options, source.label());
    }

    Scratch scratch(options);
    return keeping_on_failure(scratch, [&]() -> BuiltWheel {
        const stdfs::path project = source.materialize(scratch.path());
        HookRunner runner = runner_for(interpreter, options, scratch.path());
        Prepared prepared = prepare_environment(project, source.label(), provider, runner, options,
                                                Hook::get_requires_for_build_wheel);
        stdfs::path wheel =
            run_wheel_hook(Hook::build_wheel, "build_wheel", project, source.label(), prepared,
                           runner, options, scratch.path());
        if (key) return {options.cache->store(*key, wheel), false};
        return {deliver(wheel, options.output_dir), false};
    });
}

PreparedMetadata prepare_metadata(const BuildSource& source, BuildEnvironmentProvider& provider,
                                  const python::Interpreter& interpreter,
                                  const BuildOptions& options) {
    auto key = cache_key(source, interpreter, options);
    auto from_cached = [](const stdfs::path& wheel) {
        return PreparedMetadata{archive::read_wheel_metadata(wheel).content, false, wheel};
    };
    std::optional<fs::FileLock> entry_lock;
    if (key) {
        if (auto hit = options.cache->find(*key)) return from_cached(*hit);
        entry_lock.emplace(options.cache->lock(*key));
        if (auto hit = options.cache->find(*key)) return from_cached(*hit);
    }

    Scratch scratch(options);
    return keeping_on_failure(scratch, [&]() -> PreparedMetadata {
        const stdfs::path project = source.materialize(scratch.path());
        HookRunner runner = runner_for(interpreter, options, scratch.path());
        Prepared prepared = prepare_environment(project, source.label(), provider, runner, options,
                                                Hook::get_requires_for_build_wheel);
        const stdfs::path metadata_dir = scratch.path() / "metadata";
        const stdfs::path wheel_dir = scratch.path() / "wheel";
        stdfs::create_directories(metadata_dir);
        stdfs::create_directories(wheel_dir);
        HookCall call;
        call.hook = Hook::prepare_metadata_for_build_wheel;
        call.project = project;
        call.build_system = prepared.system;
        call.environment = prepared.environment;
        call.config_settings = options.config_settings;
        call.isolated = options.isolated;
        call.wheel_directory = wheel_dir;
        call.metadata_directory = metadata_dir;
        call.label = source.label();
        HookResult answer = run_hook(runner, call);

        const stdfs::path metadata_file = metadata_dir / answer.name / "METADATA";
        std::error_code ec;
        if (!stdfs::is_regular_file(metadata_file, ec)) {
            throw BuildError("building " + source.label() +
                                 ": prepare_metadata_for_build_wheel made no " + answer.name +
                                 "/METADATA",
                             "the build backend broke the PEP 517 contract; report it to the "
                             "project");
        }
        PreparedMetadata out{fs::read_file(metadata_file), !answer.hook_missing, std::nullopt};
        if (answer.hook_missing && !answer.fallback_wheel.empty()) {
            stdfs::path wheel =
                checked_wheel(wheel_dir, answer.fallback_wheel, source.label(), "build_wheel");
            if (key) {
                out.wheel = options.cache->store(*key, wheel);
            } else if (!options.output_dir.empty()) {
                out.wheel = deliver(wheel, options.output_dir);
            }
        }
        return out;
    });
}

BuiltWheel build_editable(const stdfs::path& project_dir, BuildEnvironmentProvider& provider,
                          const python::Interpreter& interpreter, const BuildOptions& options) {
    BuildSource source = BuildSource::directory(project_dir);
    require_output_dir(options, source.label());
    Scratch scratch(options);
    return keeping_on_failure(scratch, [&]() -> BuiltWheel {
        const stdfs::path project = source.materialize(scratch.path());
        HookRunner runner = runner_for(interpreter, options, scratch.path());
        Prepared prepared = prepare_environment(project, source.label(), provider, runner, options,
                                                Hook::get_requires_for_build_editable);
        return {deliver(run_wheel_hook(Hook::build_editable, "build_editable", project,
                                       source.label(), prepared, runner, options, scratch.path()),
                        options.output_dir),
                false};
    });
}

}  // namespace aitk::build
