#include "aitk/build/hooks.hpp"

#include <nlohmann/json.hpp>

#include "aitk/build/error.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/shell_quote.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "output_tail.hpp"

namespace aitk::embedded {
std::string_view build_pep517_driver_py();
}  // namespace aitk::embedded

namespace aitk::build {
namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;

constexpr std::size_t log_tail_bytes = 64 * 1024;

#ifdef _WIN32
constexpr bool windows_host = true;
#else
constexpr bool windows_host = false;
#endif

// Only what differs from the caller's environment, so the command stays readable:
// `env -u NAME ... NAME='value' ...`.
std::string environment_prefix(const util::Environment& before, const util::Environment& after) {
    std::string text = "env";
    for (const auto& [name, value] : before) {
        if (!after.contains(name)) text += " -u " + shell_quote(name);
    }
    for (const auto& [name, value] : after) {
        auto it = before.find(name);
        if (it == before.end() || it->second != value)
            text += " " + shell_quote(name + "=" + value);
    }
    return text;
}

std::string seconds_text(std::chrono::milliseconds duration) {
    auto ms = duration.count();
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
    return std::to_string(ms) + " ms";
}

struct Failure {
    std::string what;  // one line: why it failed
    std::string hint;
};

Failure describe_failure(std::string_view kind, const std::string& message, Hook hook) {
    if (kind == "backend-unavailable") {
        return {message,
                "the build requirements ([build-system] requires in pyproject.toml) "
                "must provide the backend; check its name and that list"};
    }
    if (kind == "backend-invalid") {
        return {message, "backend-path must name folders inside the project that hold the backend"};
    }
    if (kind == "hook-missing") {
        return {message, hook == Hook::build_editable
                             ? "this backend cannot make editable installs (PEP 660); install "
                               "the project without editable mode"
                             : "the build backend does not implement PEP 517"};
    }
    if (kind == "bad-return") {
        return {message, "the build backend broke the PEP 517 contract; report it to the project"};
    }
    return {message,
            "the output above says why; a missing compiler, system library or build requirement "
            "is the usual cause"};
}

}  // namespace

std::string_view to_string(Hook hook) noexcept {
    switch (hook) {
        case Hook::get_requires_for_build_wheel:
            return "get_requires_for_build_wheel";
        case Hook::prepare_metadata_for_build_wheel:
            return "prepare_metadata_for_build_wheel";
        case Hook::build_wheel:
            return "build_wheel";
        case Hook::get_requires_for_build_editable:
            return "get_requires_for_build_editable";
        case Hook::build_editable:
            return "build_editable";
    }
    return "build_wheel";
}

std::string_view driver_script() {
    return embedded::build_pep517_driver_py();
}

std::string shell_quote(std::string_view argument) {
    bool plain = !argument.empty();
    for (char c : argument) {
        if (!util::is_ascii_alnum(c) &&
            std::string_view("@%+=:,./_-").find(c) == std::string_view::npos) {
            plain = false;
        }
    }
    return plain ? std::string(argument) : util::sh_quote(argument);
}

HookResult run_hook(const HookRunner& runner, const HookCall& call) {
    const std::string hook_name(to_string(call.hook));
    const std::string label = call.label.empty() ? util::utf8_of(call.project) : call.label;
    stdfs::path parent = runner.work_dir.empty() ? stdfs::temp_directory_path() : runner.work_dir;
    auto work = fs::TempDir::create_in(parent, "pep517-" + hook_name);
    const stdfs::path driver = work.path() / "pep517_driver.py";
    const stdfs::path request_file = work.path() / "request.json";
    const stdfs::path result_file = work.path() / "result.json";
    const stdfs::path log_file = work.path() / "output.log";

    json request = {
        {"build_backend", call.build_system.backend},
        {"backend_path", call.build_system.backend_path},
        {"source_dir", util::utf8_of(stdfs::absolute(call.project))},
        {"config_settings", call.config_settings},
        {"isolated", call.isolated},
        {"wheel_directory", call.wheel_directory.empty()
                                ? json()
                                : json(util::utf8_of(stdfs::absolute(call.wheel_directory)))},
        {"metadata_directory", call.metadata_directory.empty()
                                   ? json()
                                   : json(util::utf8_of(stdfs::absolute(call.metadata_directory)))},
    };
    fs::write_file_atomic(driver, driver_script());
    fs::write_file_atomic(request_file, request.dump(2));

    const util::Environment base =
        runner.environment ? *runner.environment : util::current_environment();
    util::ProcessRequest process;
    process.argv = {util::utf8_of(runner.python), util::utf8_of(driver), hook_name,
                    util::utf8_of(request_file), util::utf8_of(result_file)};
    process.environment = backend_environment(base, call.environment, windows_host);
    process.working_directory = call.project;
    process.timeout = runner.timeout;
    process.output_limit = 1u << 20;  // the backend writes to the log; this is the driver's own

    // Without the log argument: a person rerunning the hook wants its output on the terminal.
    std::string reproduce = "cd " + shell_quote(util::utf8_of(stdfs::absolute(call.project))) +
                            " && " + environment_prefix(base, *process.environment);
    for (const auto& arg : process.argv)
        reproduce += " " + shell_quote(arg);

    process.argv.push_back(util::utf8_of(log_file));
    auto ran = util::run_process(process);

    auto fail = [&](const std::string& what, const std::string& hint, const std::string& extra) {
        std::string tail =
            last_lines(read_file_tail(log_file, log_tail_bytes) + extra, runner.tail_lines);
        stdfs::path kept = work.keep();
        std::string message = "building " + label + ": " + what;
        if (!tail.empty()) {
            message += "\n--- last lines of the backend's output (" +
                       util::utf8_of(kept / "output.log") + ") ---\n" + tail;
            if (message.back() != '\n') message += '\n';
        } else {
            message += '\n';
        }
        message += "--- to rerun the " + hook_name + " hook ---\n" + reproduce;
        throw BuildError(std::move(message), hint, std::move(tail), reproduce);
    };

    if (!ran) {
        fail("cannot run the build backend with " + util::utf8_of(runner.python) + ": " +
                 ran.error().message,
             "check that the interpreter exists and runs", "");
    }
    const util::ProcessResult& result = *ran;
    const std::string driver_output = result.out + result.err;
    if (result.end == util::ProcessEnd::timed_out) {
        fail("the backend's " + hook_name + " hook did not finish within " +
                 seconds_text(runner.timeout),
             "a larger time limit may help; a build that waits for input or the network stays "
             "stuck",
             driver_output);
    }

    std::error_code ec;
    json answer;
    if (stdfs::exists(result_file, ec)) {
        try {
            answer = json::parse(fs::read_file(result_file));
        } catch (const json::exception&) {
            answer = json();
        }
    }
    if (!answer.is_object()) {
        fail("the PEP 517 driver " + result.describe() + " without a result",
             "the interpreter may be broken or too old (Python 3.8 or later is needed)",
             driver_output);
    }
    if (!answer.value("ok", false)) {
        auto failure =
            describe_failure(answer.value("kind", std::string("hook-failed")),
                             answer.value("message", std::string("the hook failed")), call.hook);
        fail(failure.what, failure.hint, driver_output);
    }

    HookResult out;
    out.hook_missing = answer.value("hook_missing", false);
    const json& value = answer["value"];
    try {
        if (call.hook == Hook::get_requires_for_build_wheel ||
            call.hook == Hook::get_requires_for_build_editable) {
            out.requirements = value.get<std::vector<std::string>>();
        } else {
            out.name = value.get<std::string>();
            if (answer.contains("wheel")) out.fallback_wheel = answer["wheel"].get<std::string>();
        }
    } catch (const json::exception&) {
        fail("the PEP 517 driver answered something unexpected: " + answer.dump(),
             "the driver and aitk-env disagree; report this", driver_output);
    }
    out.output = read_file_tail(log_file, log_tail_bytes);
    return out;
}

}  // namespace aitk::build
