// The probe script, its answer, and asking one executable.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <system_error>

#include "aitk/python/discovery.hpp"
#include "aitk/python/interpreter_cache.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "probe_answer.hpp"
#include "version_managers.hpp"

namespace aitk::python {

namespace {

util::Unexpected<util::ParseError> probe_error(std::string message, std::string_view input) {
    return util::Unexpected(
        util::ParseError{std::move(message), std::string(input), util::ParseError::no_position});
}

std::string string_field(const nlohmann::json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool is_three_numbers(std::string_view version) {
    auto parts = util::split(version, '.');
    if (parts.size() != 3) return false;
    return std::all_of(parts.begin(), parts.end(), [](std::string_view p) {
        return !p.empty() && p.size() <= 9 && std::all_of(p.begin(), p.end(), util::is_ascii_digit);
    });
}

}  // namespace

namespace detail {

util::Expected<Interpreter, util::ParseError> parse_probe_answer(std::string_view json_line) {
    if (util::trim(json_line).empty()) return probe_error("the probe printed no answer", json_line);
    auto doc = nlohmann::json::parse(json_line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return probe_error("the probe's answer is not a JSON object", json_line);
    }
    Interpreter interp;
    interp.implementation = std::string(util::trim(string_field(doc, "implementation")));
    interp.version = std::string(util::trim(string_field(doc, "version")));
    interp.executable = std::filesystem::path(string_field(doc, "executable"));
    if (interp.implementation.empty()) {
        return probe_error("the interpreter did not name its implementation", json_line);
    }
    if (!is_three_numbers(interp.version)) {
        return probe_error("the interpreter's version \"" + interp.version + "\" is not X.Y.Z",
                           json_line);
    }
    interp.sys_platform = string_field(doc, "sys_platform");
    interp.machine = string_field(doc, "machine");
    interp.prefix = string_field(doc, "prefix");
    interp.base_prefix = string_field(doc, "base_prefix");
    if (auto libc = doc.find("libc"); libc != doc.end() && libc->is_array() && libc->size() == 2 &&
                                      (*libc)[0].is_string() && (*libc)[1].is_string()) {
        interp.libc = (*libc)[0].get<std::string>();
        interp.libc_version = (*libc)[1].get<std::string>();
    }
    if (auto paths = doc.find("paths"); paths != doc.end() && paths->is_object()) {
        interp.paths.purelib = string_field(*paths, "purelib");
        interp.paths.platlib = string_field(*paths, "platlib");
        interp.paths.scripts = string_field(*paths, "scripts");
        interp.paths.include = string_field(*paths, "include");
    }
    if (auto ft = doc.find("free_threaded"); ft != doc.end() && ft->is_boolean()) {
        interp.free_threaded = ft->get<bool>();
    }
    if (auto bits = doc.find("is_64bit"); bits != doc.end() && bits->is_boolean()) {
        interp.is_64bit = bits->get<bool>();
    }
    if (auto markers = doc.find("markers"); markers != doc.end() && markers->is_object()) {
        for (const auto& [name, value] : markers->items()) {
            // Unknown names (a newer probe) and "extra" are not the interpreter's to say.
            if (!value.is_string() || name == "extra") continue;
            (void)interp.markers.set(name, value.get<std::string>());
        }
    }
    return interp;
}

}  // namespace detail

std::string_view probe_script() {
    // Python 2.7 and 3.x; json.dumps escapes every non-ASCII character, so the answer survives
    // any console encoding. libc_ver() reads the binary where confstr cannot answer: Linux only.
    return "import sys, os, platform, json\n"
           "try:\n"
           "    import sysconfig\n"
           "    p = sysconfig.get_paths()\n"
           "    gil = sysconfig.get_config_var('Py_GIL_DISABLED')\n"
           "except Exception:\n"
           "    p, gil = {}, 0\n"
           "def fv(i):\n"
           "    v = '%d.%d.%d' % (i[0], i[1], i[2])\n"
           "    if i[3] != 'final':\n"
           "        v += i[3][0] + str(i[4])\n"
           "    return v\n"
           "impl = getattr(sys, 'implementation', None)\n"
           "libc = ('', '')\n"
           "if sys.platform.startswith('linux'):\n"
           "    try:\n"
           "        libc = platform.libc_ver()\n"
           "    except Exception:\n"
           "        pass\n"
           "m = {\n"
           " 'implementation_name': impl.name if impl else '',\n"
           " 'implementation_version': fv(impl.version) if impl else '0',\n"
           " 'os_name': os.name,\n"
           " 'platform_machine': platform.machine(),\n"
           " 'platform_release': platform.release(),\n"
           " 'platform_system': platform.system(),\n"
           " 'platform_version': platform.version(),\n"
           " 'python_full_version': platform.python_version(),\n"
           " 'platform_python_implementation': platform.python_implementation(),\n"
           " 'python_version': '.'.join(platform.python_version_tuple()[:2]),\n"
           " 'sys_platform': sys.platform,\n"
           "}\n"
           "d = {\n"
           " 'implementation': platform.python_implementation(),\n"
           " 'version': '%d.%d.%d' % tuple(sys.version_info[:3]),\n"
           " 'executable': sys.executable or '',\n"
           " 'prefix': sys.prefix,\n"
           " 'base_prefix': getattr(sys, 'real_prefix', getattr(sys, 'base_prefix', "
           "sys.prefix)),\n"
           " 'sys_platform': sys.platform,\n"
           " 'machine': platform.machine(),\n"
           " 'libc': [libc[0] or '', libc[1] or ''],\n"
           " 'paths': dict((k, p.get(k, '')) for k in ('purelib', 'platlib', 'scripts', "
           "'include')),\n"
           " 'free_threaded': bool(gil),\n"
           " 'is_64bit': sys.maxsize > 2**32,\n"
           " 'markers': m,\n"
           "}\n"
           "sys.stdout.write('aitk-python-probe\\n' + json.dumps(d, sort_keys=True) + '\\n')\n";
}

namespace {

std::string_view without_cr(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

// The line after the marker; whatever a sitecustomize printed before the marker is skipped.
std::optional<std::string_view> find_answer(std::string_view output) {
    auto lines = util::split(output, '\n');
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (without_cr(lines[i]) != detail::probe_marker) continue;
        if (i + 1 == lines.size()) return std::nullopt;
        return without_cr(lines[i + 1]);
    }
    return std::nullopt;
}

}  // namespace

util::Expected<Interpreter, util::ParseError> parse_probe_output(std::string_view text) {
    auto answer = find_answer(text);
    if (!answer) return probe_error("not the interpreter probe's output", text);
    return detail::parse_probe_answer(*answer);
}

namespace {

std::string first_line(std::string_view text) {
    text = util::trim(text);
    return std::string(text.substr(0, std::min(text.find('\n'), std::size_t{200})));
}

}  // namespace

namespace detail {

std::optional<Interpreter> cached(const std::filesystem::path& candidate,
                                  const InterpreterCache& cache) {
    auto stamp = stamp_of(candidate);
    if (!stamp) return std::nullopt;
    auto hit = cache.find(*stamp);
    if (hit) hit->path = candidate;
    return hit;
}

Asked ask(const std::filesystem::path& candidate, const DiscoveryOptions& options) {
    Asked asked;
    std::error_code ec;
    if (!std::filesystem::exists(candidate, ec)) {
        asked.result = util::Unexpected(util::utf8_of(candidate) + " does not exist");
        return asked;
    }
    asked.stamp = stamp_of(candidate);
    // The real file is run: a venv's python symlink would report the venv, not the
    // interpreter behind it that a new prefix is made from.
    std::filesystem::path run_path = asked.stamp ? asked.stamp->real_path : candidate;
    util::ProcessRequest req;
    req.argv = {util::utf8_of(run_path), "-E", "-s", "-c", std::string(probe_script())};
    req.environment = options.environment;
    req.timeout = options.timeout;
    req.output_limit = 64 * 1024;
    auto run = util::run_process(req);
    if (!run) {
        asked.result = util::Unexpected(util::utf8_of(candidate) +
                                        " could not be run: " + run.error().message);
        return asked;
    }
    if (!run->succeeded()) {
        std::string why = util::utf8_of(candidate) + " " + run->describe();
        if (auto err = first_line(run->err); !err.empty()) why += ": " + err;
        asked.result = util::Unexpected(why);
        return asked;
    }
    auto parsed = parse_probe_output(run->out);
    if (!parsed) {
        asked.result =
            util::Unexpected(util::utf8_of(candidate) + " is not a Python interpreter (" +
                             parsed.error().message + ")");
        return asked;
    }
    Interpreter interp = std::move(*parsed);
    interp.path = candidate;
    if (interp.executable.empty()) interp.executable = run_path;
    auto real = std::filesystem::canonical(interp.executable, ec);
    if (!ec) interp.executable = real;
    // Only the binary itself is remembered: a launcher script may start another Python later.
    if (asked.stamp && interp.executable == asked.stamp->real_path) {
        asked.answer = std::string(*find_answer(run->out));
    }
    asked.result = std::move(interp);
    return asked;
}

void remember(InterpreterCache& cache, const Asked& asked) {
    if (asked.stamp && !asked.answer.empty()) cache.put(*asked.stamp, asked.answer);
}

}  // namespace detail

util::Expected<Interpreter, std::string> probe_interpreter(const std::filesystem::path& executable,
                                                           const DiscoveryOptions& options) {
    // A shim named here (--python ~/.pyenv/shims/python3) is answered by the file it would run.
    const auto target = detail::behind_shim(executable, options).value_or(executable);
    InterpreterCache cache(options.cache_file);
    std::optional<Interpreter> hit;
    if (!options.refresh) hit = detail::cached(target, cache);
    if (!hit) {
        auto asked = detail::ask(target, options);
        detail::remember(cache, asked);
        cache.save();
        if (!asked.result) return util::Unexpected(std::move(asked.result.error()));
        hit = std::move(*asked.result);
    }
    hit->path = executable;
    return std::move(*hit);
}

}  // namespace aitk::python
