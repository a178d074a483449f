#include "aitk/shim/environment_policy.hpp"

#include <algorithm>
#include <array>

#include "aitk/util/strings.hpp"

namespace aitk::shim {
namespace {

// Every shim is rendered from these tables, so the shells and `aitk-env run` cannot drift apart.
constexpr std::array<std::string_view, 8> kScrubbedNames = {
    "PYTHONPATH",  "PYTHONHOME",   "PYTHONSTARTUP",     "PYTHONUSERBASE",
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_VERSION",
};
constexpr std::string_view kScrubbedPrefix = "PIP_";

// Needles over "/" + lower-cased entry with '\' as '/' + "/". A component starting "cuda"
// covers toolkits (cuda, cuda-12.4, CUDA\v12.4), conda's cudatoolkit and the cuda_* wheels;
// another environment's nvidia-* wheels and torch\lib carry the same runtimes.
constexpr std::array<std::string_view, 11> kShadowNeedles = {
    "/cuda",
    "cudnn",
    "nccl",
    "openmp",
    "/libomp",
    "/libiomp",
    "/oneapi/compiler/",
    "/site-packages/nvidia/",
    "/dist-packages/nvidia/",
    "/site-packages/torch/",
    "/dist-packages/torch/",
};
// The CUDA forward-compatibility package puts a newer libcuda (the driver) in .../compat; the
// wheels need it, so it is never dropped.
constexpr std::array<std::string_view, 1> kKeepNeedles = {"/compat/"};

bool is_name_char(char c) {
    return util::is_ascii_alnum(c) || c == '_';
}

std::string to_upper_ascii(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return out;
}

bool looks_absolute(std::string_view text, ShimOs os) {
    if (os == ShimOs::posix) return text.starts_with('/');
    if (text.starts_with('\\') || text.starts_with('/')) return true;
    return text.size() >= 3 && util::is_ascii_alpha(text[0]) && text[1] == ':' &&
           (text[2] == '\\' || text[2] == '/');
}

std::string utf8(const std::filesystem::path& path) {
    std::u8string text = path.u8string();
    return std::string(text.begin(), text.end());
}

// Entries in order, empty ones included ("a::b" has three).
std::vector<std::string> split_list(std::string_view value, char separator) {
    std::vector<std::string> entries;
    for (std::string_view entry : util::split(value, separator))
        entries.emplace_back(entry);
    return entries;
}

class ChangeBuilder {
  public:
    ChangeBuilder(const util::Environment& current, bool windows)
        : current_(current), windows_(windows) {}

    std::optional<std::string> lookup(std::string_view name) const {
        return util::environment_lookup(current_, name, windows_);
    }
    // The spelling `current` uses for `name` (Windows keeps "Path"), else `name`.
    std::string spelling(std::string_view name) const {
        if (windows_) {
            for (const auto& entry : current_) {
                if (util::iequals(entry.first, name)) return entry.first;
            }
        }
        return std::string(name);
    }
    // A change replaces any other spelling of the same name, so applying the map in key order
    // never removes what it just set.
    void set(const std::string& name, std::optional<std::string> value) {
        if (windows_) {
            std::erase_if(changes_, [&](const auto& entry) {
                return entry.first != name && util::iequals(entry.first, name);
            });
        }
        changes_[name] = std::move(value);
    }
    util::EnvironmentChanges take() { return std::move(changes_); }

  private:
    const util::Environment& current_;
    bool windows_;
    util::EnvironmentChanges changes_;
};

void scrub(const util::Environment& current, bool windows, ChangeBuilder& builder,
           std::vector<std::string>& notes) {
    for (const auto& [name, value] : current) {
        if (!is_scrubbed_variable(windows ? to_upper_ascii(name) : name)) continue;
        builder.set(name, std::nullopt);
        if (!util::iequals(name, "VIRTUAL_ENV")) notes.push_back("unset " + name);
    }
}

std::string prefixed_path(const PrefixEnvironment& prefix, const ChangeBuilder& builder,
                          std::vector<std::string>& notes) {
    const bool windows = prefix.os == ShimOs::windows;
    const char separator = windows ? ';' : ':';
    std::string scripts = scripts_text(prefix);
    std::vector<std::string> entries{scripts};
    std::optional<std::string> old = builder.lookup("PATH");
    if (old && !old->empty()) {
        for (std::string& entry : split_list(*old, separator)) {
            if (windows) {
                std::erase(entry, '"');
                if (entry.empty() || util::iequals(entry, scripts)) continue;
                if (is_shadowing_library_dir(entry)) {
                    notes.push_back("dropped " + entry + " from PATH");
                    continue;
                }
            } else if (entry == scripts) {
                continue;
            }
            entries.push_back(std::move(entry));
        }
    }
    return util::join(entries, std::string_view(&separator, 1));
}

void filter_library_path(ChangeBuilder& builder, std::vector<std::string>& notes) {
    std::optional<std::string> old = builder.lookup("LD_LIBRARY_PATH");
    if (!old) return;
    std::vector<std::string> kept;
    for (std::string& entry : split_list(*old, ':')) {
        if (entry.empty()) continue;
        if (is_shadowing_library_dir(entry)) {
            notes.push_back("dropped " + entry + " from LD_LIBRARY_PATH");
            continue;
        }
        kept.push_back(std::move(entry));
    }
    std::string joined = util::join(kept, ":");
    if (joined == *old) return;
    builder.set("LD_LIBRARY_PATH", kept.empty() ? std::nullopt : std::optional(joined));
}

}  // namespace

std::span<const std::string_view> shadowing_needles() {
    return kShadowNeedles;
}
std::span<const std::string_view> keeping_needles() {
    return kKeepNeedles;
}
std::span<const std::string_view> scrubbed_variable_names() {
    return kScrubbedNames;
}

bool is_portable_variable_name(std::string_view name) {
    if (name.empty() || util::is_ascii_digit(name.front())) return false;
    return std::all_of(name.begin(), name.end(), is_name_char);
}

bool is_scrubbed_variable(std::string_view name) {
    if (std::find(kScrubbedNames.begin(), kScrubbedNames.end(), name) != kScrubbedNames.end()) {
        return true;
    }
    return name.starts_with(kScrubbedPrefix) &&
           std::all_of(name.begin() + kScrubbedPrefix.size(), name.end(), is_name_char);
}

bool is_shadowing_library_dir(std::string_view entry) {
    std::string text;
    text.reserve(entry.size() + 2);
    text.push_back('/');
    for (char c : entry)
        text.push_back(c == '\\' ? '/' : util::to_ascii_lower(c));
    text.push_back('/');
    auto contains = [&](std::string_view needle) { return text.find(needle) != std::string::npos; };
    if (std::any_of(kKeepNeedles.begin(), kKeepNeedles.end(), contains)) return false;
    return std::any_of(kShadowNeedles.begin(), kShadowNeedles.end(), contains);
}

std::string prefix_text(const PrefixEnvironment& prefix) {
    return utf8(prefix.prefix);
}

std::string scripts_text(const PrefixEnvironment& prefix) {
    const bool windows = prefix.os == ShimOs::windows;
    std::string scripts = utf8(prefix.scripts);
    if (looks_absolute(scripts, prefix.os)) return scripts;
    if (scripts.empty()) scripts = windows ? "Scripts" : "bin";
    if (windows) std::replace(scripts.begin(), scripts.end(), '/', '\\');
    std::string base = prefix_text(prefix);
    const char separator = windows ? '\\' : '/';
    if (!base.empty() && base.back() != separator && !(windows && base.back() == '/')) {
        base.push_back(separator);
    }
    return base + scripts;
}

std::optional<std::string> lock_variable_problem(std::string_view name, std::string_view value,
                                                 ShimOs os) {
    if (!is_portable_variable_name(name)) {
        return "not a name every shell can set (letters, digits and '_' only)";
    }
    const bool windows = os == ShimOs::windows;
    std::string canonical = windows ? to_upper_ascii(name) : std::string(name);
    if (canonical == "PATH" || canonical == "LD_LIBRARY_PATH" || is_scrubbed_variable(canonical)) {
        return "the shim manages it";
    }
    if (windows && value.empty()) return "Windows cannot hold an empty value";
    return std::nullopt;
}

EnvironmentChange prefix_environment(const PrefixEnvironment& prefix,
                                     const util::Environment& current) {
    const bool windows = prefix.os == ShimOs::windows;
    EnvironmentChange result;
    ChangeBuilder builder(current, windows);

    scrub(current, windows, builder, result.notes);
    builder.set(builder.spelling("VIRTUAL_ENV"), prefix_text(prefix));
    std::string path = prefixed_path(prefix, builder, result.notes);
    builder.set(builder.spelling("PATH"), std::move(path));
    if (!windows) filter_library_path(builder, result.notes);

    for (const auto& [name, value] : prefix.variables) {
        if (auto problem = lock_variable_problem(name, value, prefix.os)) {
            result.notes.push_back("skipped lock variable " + name + ": " + *problem);
            continue;
        }
        if (builder.lookup(name)) {
            result.notes.push_back("kept " + name + " as already set");
            continue;
        }
        builder.set(name, value);
    }
    result.changes = builder.take();
    return result;
}

}  // namespace aitk::shim
