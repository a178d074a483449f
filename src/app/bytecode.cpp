#include "aitk/app/bytecode.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "aitk/util/error.hpp"
#include "aitk/util/parallel.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

// Fewer files than this per worker cost more in interpreter start-up than they save.
constexpr std::size_t min_files_per_worker = 64;

// compileall prints this (with -q, to stdout) for every file it could not compile; any other
// exit 1 (no compileall module, a broken interpreter) means the interpreter did not do its job.
constexpr std::string_view compile_failure_marker = "*** Error compiling";

std::string last_lines(std::string_view text, std::size_t count) {
    text = util::trim(text);
    std::size_t pos = text.size();
    for (std::size_t n = 0; n < count && pos != std::string_view::npos && pos > 0; ++n) {
        pos = text.rfind('\n', pos - 1);
    }
    if (pos == std::string_view::npos) return std::string(text);
    return std::string(text.substr(pos + 1));
}

// One compileall run over `list` (newline-separated paths). Returns an error message, empty on
// success (syntax errors included).
std::string compile_chunk(const install::PrefixLayout& layout, std::string list,
                          std::size_t files) {
    util::ProcessRequest request;
    // -X utf8: the list on stdin and the file system names are both UTF-8 with surrogateescape,
    // so every path arrives byte for byte whatever the locale. -f as pip: the files are fresh,
    // and a .pyc shipped in the wheel must not be trusted by its timestamp.
    request.argv = {
        util::utf8_of(layout.python), "-X", "utf8", "-m", "compileall", "-q", "-f", "-i", "-"};
    // A PYTHONHOME or PYTHONPATH meant for another interpreter can stop this one from starting
    // or shadow its compileall.
    request.environment_changes = {{"PYTHONHOME", std::nullopt}, {"PYTHONPATH", std::nullopt}};
    // `-m` puts the working directory first on sys.path: the prefix root holds no modules.
    request.working_directory = layout.prefix;
    request.stdin_data = std::move(list);
    // Torch's ~4,000 modules take well under a minute on one core; a slow disk or an emulated
    // CPU must still never turn into a spurious failure.
    request.timeout = std::chrono::minutes(10) + std::chrono::milliseconds(200) * files;
    auto result = util::run_process(request);
    if (!result)
        return "cannot run " + util::utf8_of(layout.python) + ": " + result.error().message;
    if (result->succeeded()) return {};
    bool only_bad_files = result->end == util::ProcessEnd::exited && result->exit_code == 1 &&
                          result->out.find(compile_failure_marker) != std::string::npos;
    if (only_bad_files) return {};
    std::string tail = last_lines(result->err.empty() ? result->out : result->err, 5);
    return util::utf8_of(layout.python) + " -m compileall " + result->describe() +
           (tail.empty() ? std::string() : ":\n" + tail);
}

}  // namespace

BytecodeOutcome compile_bytecode(const install::PrefixLayout& layout,
                                 const std::vector<std::filesystem::path>& files,
                                 std::size_t jobs) {
    // compileall reads one path per line and strips it; a name with a line break cannot be
    // passed (nor imported: it is no module name), so it is left alone.
    std::vector<std::string> paths;
    paths.reserve(files.size());
    for (const auto& file : files) {
        auto s = util::utf8_of(file);
        if (s.find_first_of("\r\n") == std::string::npos) paths.push_back(std::move(s));
    }
    BytecodeOutcome outcome;
    outcome.files = paths.size();
    // With no names at all compileall would compile the whole sys.path.
    if (paths.empty()) return outcome;

    // compileall's -j applies to directories only (files in a list are compiled one by one),
    // so the list is split over several interpreters.
    std::size_t wanted = jobs != 0 ? jobs : std::max(1u, std::thread::hardware_concurrency());
    std::size_t workers = std::clamp<std::size_t>(paths.size() / min_files_per_worker, 1, wanted);
    std::vector<std::string> lists(workers);
    std::vector<std::size_t> counts(workers, 0);
    for (std::size_t i = 0; i < paths.size(); ++i) {
        // Round robin: neighbours in a list are often one package's big and small modules.
        lists[i % workers] += paths[i] + "\n";
        ++counts[i % workers];
    }

    std::vector<std::string> errors(workers);
    util::parallel_for(workers, workers, [&](std::size_t w) {
        errors[w] = compile_chunk(layout, lists[w], counts[w]);
    });
    for (const auto& error : errors) {
        if (!error.empty()) {
            throw util::Error(util::ExitCode::failure, "compiling bytecode failed: " + error,
                              "check that " + util::utf8_of(layout.python) +
                                  " runs, or set up again without --compile-bytecode");
        }
    }
    return outcome;
}

}  // namespace aitk::app
