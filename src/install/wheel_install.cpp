// install_wheel: plan every file of the verified tree first (so a bad wheel writes nothing: an
// unknown .data folder, or a file or script name over the prefix's skeleton, skeleton.hpp),
// then link or write them, then the script wrappers, the installer's files and RECORD.
#include "aitk/install/wheel_install.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <regex>
#include <system_error>

#include "aitk/install/entry_points.hpp"
#include "aitk/install/record.hpp"
#include "aitk/install/skeleton.hpp"
#include "aitk/install/windows_launcher.hpp"
#include "aitk/util/shell_quote.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "dist_info.hpp"
#include "folder.hpp"
#include "linker.hpp"

namespace aitk::install {
namespace {

namespace stdfs = std::filesystem;
using detail::fail;
using detail::Folder;

// Where a file goes: the lib folder for the wheel's root, or one of the .data/ schemes.
enum Target : std::uint8_t { lib, purelib, platlib, scripts, headers, data, target_count };

constexpr std::array<std::string_view, target_count> target_names = {
    "", "purelib", "platlib", "scripts", "headers", "data"};

enum class Action : std::uint8_t { link, write_script };

struct Planned {
    Target target = lib;
    Action action = Action::link;
    std::uint32_t offset = 0;  // where the target-relative path starts in the RECORD path
};

struct Script {
    std::string name;
    ScriptTarget call;
    bool gui = false;  // gui_scripts: a windows-subsystem launcher running pythonw.exe
};

// A RECORD path of the verified tree, checked again without allocating: relative, no '..',
// '.' or empty component, no backslash or drive letter.
bool is_plain_relative(std::string_view path) noexcept {
    if (path.empty() || path.front() == '/' || path.find('\\') != std::string_view::npos) {
        return false;
    }
    if (path.find(':') < path.find('/')) return false;  // "C:x"
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        std::string_view part = path.substr(start, end - start);
        if (part.empty() || part == "." || part == "..") return false;
        start = end + 1;
    }
    return true;
}

std::string find_dist_info(std::string_view label, const WheelInstallRequest& request) {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& entry : stdfs::directory_iterator(request.unpacked, ec)) {
        std::string name = util::utf8_of(entry.path().filename());
        if (name.ends_with(detail::dist_info_suffix) && entry.is_directory(ec)) {
            found.push_back(std::move(name));
        }
    }
    if (ec) {
        fail(label, "",
             "cannot read the unpacked tree " + util::utf8_of(request.unpacked) + ": " +
                 ec.message());
    }
    if (found.size() != 1) {
        fail(label, "",
             found.empty() ? std::string("has no .dist-info folder")
                           : "has " + std::to_string(found.size()) + " .dist-info folders");
    }
    if (!detail::dist_info_matches(found.front(), request.name, request.version)) {
        fail(label, "",
             "its folder '" + found.front() + "' does not match the requested " + request.name +
                 " " + request.version);
    }
    return found.front();
}

// WHEEL: "Key: value" lines. Returns Root-Is-Purelib; refuses a Wheel-Version other than 1.x.
bool read_wheel_file(std::string_view label, const std::string& path, const std::string& text) {
    std::string version;
    bool purelib = false;
    for (std::string_view line : util::split(text, '\n')) {
        std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view key = util::trim(line.substr(0, colon));
        std::string_view value = util::trim(line.substr(colon + 1));
        if (util::iequals(key, "Wheel-Version")) version = std::string(value);
        if (util::iequals(key, "Root-Is-Purelib")) purelib = util::iequals(value, "true");
    }
    if (version.empty()) fail(label, path, "has no Wheel-Version");
    if (!version.starts_with("1.") && version != "1") {
        fail(label, path,
             "has Wheel-Version " + version + "; aitk-env installs wheels of version 1.x");
    }
    return purelib;
}

// console_scripts and gui_scripts, with pip's versioned names for pip and easy_install (their
// wheels carry the names of the Python that built them).
std::vector<Script> read_scripts(std::string_view label, const std::string& path,
                                 const std::string& text, const std::string& python_xy) {
    auto parsed = parse_entry_points(text);
    if (!parsed) fail(label, path, parsed.error());
    static const std::regex versioned_pip(R"(pip(\d+(\.\d+)?)?)");
    static const std::regex versioned_easy_install(R"(easy_install(-\d+\.\d+)?)");
    const std::string major = python_xy.substr(0, python_xy.find('.'));
    std::vector<Script> out;
    auto add = [&](std::string name, const EntryPoint& ep) {
        const bool gui = ep.group == "gui_scripts";
        auto call = parse_script_target(ep.value);
        if (!call) {
            fail(label, path,
                 "line " + std::to_string(ep.line) + ": " + ep.group + " '" + ep.name +
                     "': " + call.error());
        }
        for (auto& s : out) {
            if (s.name == name) {
                s.call = std::move(*call);
                s.gui = gui;
                return;
            }
        }
        out.push_back({std::move(name), std::move(*call), gui});
    };
    for (const EntryPoint& ep : *parsed) {
        if (ep.group != "console_scripts" && ep.group != "gui_scripts") continue;
        if (!is_valid_script_name(ep.name)) {
            fail(label, path,
                 "line " + std::to_string(ep.line) + ": script name '" + ep.name +
                     "' cannot be a file name");
        }
        if (ep.group == "console_scripts" && ep.name == "pip") {
            add("pip", ep);
            add("pip" + major, ep);
            add("pip" + python_xy, ep);
        } else if (ep.group == "console_scripts" && ep.name == "easy_install") {
            add("easy_install", ep);
            add("easy_install-" + python_xy, ep);
        } else if (ep.group == "console_scripts" &&
                   (std::regex_match(ep.name, versioned_pip) ||
                    std::regex_match(ep.name, versioned_easy_install))) {
            continue;  // replaced by the names for this Python above
        } else {
            add(ep.name, ep);
        }
    }
    return out;
}

// The first line of a script for `python`: "#!<python>" when the kernel runs that as it is
// (printable, no space or tab, within its shebang limit), else the /bin/sh trampoline pip's
// distlib writes, with the path single-quoted (util::sh_quote) where distlib double-quotes it.
// The trampoline's second line is read twice: by sh as `exec '<python>' "$0" "$@"` and by
// Python as a '''string''' it ignores, so nothing in the path may mean anything to either ($,
// backticks and " act inside double quotes; a backslash would be an escape to Python). A plain
// shebang with a control character is no better: Python reads a '\r' in it as a line break.
std::string shebang(const stdfs::path& python, bool windows) {
    const std::string exe = util::utf8_of(python);
#ifdef __APPLE__
    constexpr std::size_t max_shebang = 512;
#else
    constexpr std::size_t max_shebang = 127;
#endif
    bool plain = exe.size() + 3 <= max_shebang;
    for (char c : exe) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte == 0x7f) plain = false;
    }
    if (windows || plain) return "#!" + exe + "\n";
    return "#!/bin/sh\n'''exec' " + util::sh_quote(exe) + " \"$0\" \"$@\"\n' '''\n";
}

// "../../../bin" for the scripts folder seen from site-packages; "" for site-packages itself.
std::string record_prefix(const stdfs::path& folder, const stdfs::path& lib_dir) {
    std::string rel = util::generic_utf8_of(folder.lexically_relative(lib_dir));
    if (rel == ".") return {};
    return rel + "/";
}

class Installer {
  public:
    Installer(const PrefixLayout& layout, const WheelInstallRequest& request)
        : layout_(layout),
          request_(request),
          label_(request.label.empty() ? request.name + "-" + request.version : request.label),
          source_(Folder::open(request.unpacked, false)),
          linker_(request.link_mode),
          skeleton_(layout) {}

    WheelInstallResult run() {
        dist_info_ = find_dist_info(label_, request_);
        const std::string wheel_path = dist_info_ + "/WHEEL";
        if (!source_.exists(wheel_path.c_str())) fail(label_, "", "has no " + wheel_path);
        const bool root_is_purelib =
            read_wheel_file(label_, wheel_path, source_.read(wheel_path.c_str()));
        const std::string record_path = dist_info_ + "/RECORD";
        if (!source_.exists(record_path.c_str())) fail(label_, "", "has no " + record_path);
        auto record = parse_record(source_.read(record_path.c_str()));
        if (!record) fail(label_, record_path, record.error());
        rows_ = std::move(*record);

        std::vector<Script> wrappers;
        const std::string entry_points = dist_info_ + "/entry_points.txt";
        if (source_.exists(entry_points.c_str())) {
            wrappers = read_scripts(label_, entry_points, source_.read(entry_points.c_str()),
                                    layout_.python_version);
        }

        paths_[lib] = root_is_purelib ? layout_.purelib : layout_.platlib;
        paths_[purelib] = layout_.purelib;
        paths_[platlib] = layout_.platlib;
        paths_[scripts] = layout_.scripts;
        paths_[headers] = layout_.headers / request_.name;
        paths_[data] = layout_.data;
        const stdfs::path prefix = stdfs::absolute(layout_.prefix).lexically_normal();
        for (int t = 0; t < target_count; ++t) {
            prefixes_[t] = record_prefix(paths_[t], paths_[lib]);
            const stdfs::path rel =
                stdfs::absolute(paths_[t]).lexically_normal().lexically_relative(prefix);
            if (!rel.empty() && *rel.begin() != "..") {
                in_prefix_[t] = rel == "." ? std::string() : util::generic_utf8_of(rel) + "/";
            }
        }
        python_ = stdfs::absolute(layout_.python);

        plan(record_path);
        refuse_scripts_over_the_skeleton(wrappers);
        files_.reserve(rows_.size() + wrappers.size() + 4);
        place_files();
        for (const auto& s : wrappers) {
            if (layout_.windows) {
                write_launcher(s);
            } else {
                write_file(scripts, s.name, script_text(s), true);
            }
        }
        write_file(lib, dist_info_ + "/INSTALLER", "aitk-env\n", false);
        if (request_.requested) write_file(lib, dist_info_ + "/REQUESTED", "", false);
        if (request_.direct_url) {
            write_file(lib, dist_info_ + "/direct_url.json", *request_.direct_url, false);
        }
        InstalledFile self;
        self.path = record_path;
        files_.push_back(std::move(self));
        try {
            folder(lib).write_replace(record_path.c_str(), format_record(files_));
        } catch (const util::Error& e) {
            fail(label_, record_path, e.what());
        }

        WheelInstallResult result;
        result.dist_info = paths_[lib] / dist_info_;
        result.files = std::move(files_);
        result.used = linker_.used();
        result.notes = std::move(notes_);
        return result;
    }

  private:
    // Decides where every RECORD row goes and refuses the wheel before anything is written.
    void plan(const std::string& record_path) {
        planned_.resize(rows_.size());
        const std::string installer = dist_info_ + "/INSTALLER";
        const std::string requested = dist_info_ + "/REQUESTED";
        const std::string direct_url = dist_info_ + "/direct_url.json";
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            const std::string& path = rows_[i].path;
            Planned& p = planned_[i];
            if (path == record_path || path == installer || path == requested ||
                (request_.direct_url && path == direct_url)) {
                p.target = target_count;  // written by the installer itself
                continue;
            }
            if (!is_plain_relative(path)) fail(label_, path, "RECORD lists an unsafe path");
            std::string_view top = std::string_view(path).substr(0, path.find('/'));
            if (top.size() < path.size() && top.ends_with(".data")) {
                std::size_t key_start = top.size() + 1;
                std::size_t key_end = path.find('/', key_start);
                std::string_view key = std::string_view(path).substr(
                    key_start,
                    key_end == std::string::npos ? std::string::npos : key_end - key_start);
                auto it = std::find(target_names.begin() + 1, target_names.end(), key);
                if (it == target_names.end()) {
                    fail(label_, path,
                         "is in an unknown folder '" + std::string(top) + "/" + std::string(key) +
                             "' (expected purelib, platlib, scripts, headers or data)");
                }
                if (key_end == std::string::npos) {
                    fail(label_, path, "is a file where a .data folder was expected");
                }
                p.target = static_cast<Target>(it - target_names.begin());
                p.offset = static_cast<std::uint32_t>(key_end + 1);
                if (p.target == scripts && needs_rewrite(path)) p.action = Action::write_script;
            }
            if (auto what = skeleton_file(p.target, std::string_view(path).substr(p.offset))) {
                fail(label_, path, PrefixSkeleton::refusal(*what), PrefixSkeleton::hint());
            }
        }
    }

    // What a file written at `destination` (relative to the target's folder) would replace of
    // the prefix's skeleton (skeleton.hpp), or nothing.
    std::optional<std::string> skeleton_file(Target target, std::string_view destination) const {
        if (!in_prefix_[target]) return std::nullopt;
        return skeleton_.describe(*in_prefix_[target] + std::string(destination));
    }

    // A console or GUI script named like the interpreter, an activation script or a shim
    // ("python3 = evil:main") is refused as a member over them would be.
    void refuse_scripts_over_the_skeleton(const std::vector<Script>& wrappers) const {
        for (const Script& s : wrappers) {
            const std::string file = layout_.windows ? s.name + ".exe" : s.name;
            if (auto what = skeleton_file(scripts, file)) {
                fail(label_, dist_info_ + "/entry_points.txt",
                     std::string(s.gui ? "gui_scripts '" : "console_scripts '") + s.name + "' " +
                         PrefixSkeleton::refusal(*what),
                     PrefixSkeleton::hint());
            }
        }
    }

    // Scripts whose first line is "#!python..." get this prefix's python; scripts that are not
    // executable in the cache are written fresh with the executable bit (as pip sets it).
    bool needs_rewrite(const std::string& path) const {
        return source_.read_head(path.c_str(), 8) == "#!python" ||
               !source_.is_executable(path.c_str());
    }

    void place_files() {
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            const Planned& p = planned_[i];
            if (p.target == target_count) continue;
            InstalledFile& row = rows_[i];
            const char* destination = row.path.c_str() + p.offset;
            std::string moved;  // the RECORD path of a file outside the wheel's lib folder
            if (p.target != lib) moved = prefixes_[p.target] + destination;
            const std::string& recorded = p.target == lib ? row.path : moved;
            const bool keep_later = request_.placed_by_later && request_.placed_by_later(recorded);
            try {
                Folder& to = folder(p.target);
                if (p.action == Action::link) {
                    if (!keep_later) {
                        to.make_parents(destination);
                        linker_.place(source_, row.path.c_str(), to, destination);
                    }
                } else {
                    std::string text = rewritten_script(source_.read(row.path.c_str()));
                    if (!keep_later) {
                        to.make_parents(destination);
                        to.write_new(destination, text, true);
                    }
                    row.hash = record_hash_of(text);
                    row.size = text.size();
                }
            } catch (const util::Error& e) {
                fail(label_, row.path, e.what());
            }
            if (p.target != lib) row.path = std::move(moved);
            files_.push_back(std::move(row));
        }
    }

    std::string rewritten_script(std::string text) const {
        if (!text.starts_with("#!python")) return text;
        std::size_t eol = text.find('\n');
        std::string rest = eol == std::string::npos ? std::string() : text.substr(eol + 1);
        return shebang(python_, layout_.windows) + rest;
    }

    std::string script_text(const Script& s) const {
        return shebang(python_, layout_.windows) +
               windows_launcher_script(s.call.module, s.call.attribute);
    }

    // `<name>.exe` (windows_launcher.hpp). Without launcher images the script is skipped with a
    // note instead of failing the install: the package itself works, only its command is missing.
    void write_launcher(const Script& s) {
        const WindowsLaunchers* images = request_.windows_launchers;
        const std::string* image =
            images == nullptr ? nullptr : (s.gui ? &images->gui : &images->console);
        const std::string file = s.name + ".exe";
        if (image == nullptr || image->empty()) {
            notes_.push_back(detail::wheel_message(
                label_, "",
                std::string(s.gui ? "GUI" : "console") + " script " + file + " (" + s.call.module +
                    ":" + s.call.attribute +
                    ") was not written: this aitk-env carries no Windows launcher programs "
                    "(Windows builds of aitk-env embed them)"));
            return;
        }
        std::string payload;
        try {
            payload = windows_launcher_payload(*image, launcher_python(s.gui), s.call.module,
                                               s.call.attribute);
        } catch (const util::Error& e) {
            fail(label_, file, e.what());
        }
        write_file(scripts, file, payload, true);
    }

    // The interpreter a launcher records: relative to Scripts when it is inside the prefix (a
    // venv's python.exe is in Scripts itself), so the prefix can be moved; absolute otherwise.
    // GUI scripts run pythonw.exe, the console-less twin beside python.exe.
    std::string launcher_python(bool gui) const {
        stdfs::path interpreter = python_;
        if (gui) {
            stdfs::path name = python_.stem();
            name += "w";
            name += python_.extension();
            interpreter.replace_filename(name);
        }
        const stdfs::path prefix = stdfs::absolute(layout_.prefix);
        const stdfs::path in_prefix = interpreter.lexically_relative(prefix);
        stdfs::path recorded = interpreter;
        if (!in_prefix.empty() && *in_prefix.begin() != "..") {
            recorded = interpreter.lexically_relative(stdfs::absolute(layout_.scripts));
        }
        const auto utf8 = recorded.generic_u8string();
        std::string text(utf8.begin(), utf8.end());
        std::replace(text.begin(), text.end(), '/', '\\');
        return text;
    }

    // Writes a file the installer makes, replacing an earlier RECORD row for the same path.
    void write_file(Target target, const std::string& relative, std::string_view content,
                    bool executable) {
        try {
            Folder& to = folder(target);
            to.make_parents(relative);
            to.write_new(relative.c_str(), content, executable);
        } catch (const util::Error& e) {
            fail(label_, relative, e.what());
        }
        std::string path = prefixes_[target] + relative;
        InstalledFile* row = nullptr;
        for (auto& f : files_) {
            if (f.path == path) row = &f;
        }
        if (row == nullptr) {
            files_.emplace_back();
            row = &files_.back();
            row->path = std::move(path);
        }
        row->hash = record_hash_of(content);
        row->size = content.size();
    }

    // Folders are opened (and created) on first use; one opened folder serves targets that
    // share a path (purelib and platlib in a venv).
    Folder& folder(int target) {
        if (!folders_[target]) {
            for (int t = 0; t < target_count; ++t) {
                if (folders_[t] && paths_[t] == paths_[target]) return *folders_[t];
            }
            folders_[target].emplace(Folder::open(paths_[target], true));
        }
        return *folders_[target];
    }

    const PrefixLayout& layout_;
    const WheelInstallRequest& request_;
    const std::string label_;
    Folder source_;
    detail::Linker linker_;
    const PrefixSkeleton skeleton_;
    std::string dist_info_;
    stdfs::path python_;
    std::array<stdfs::path, target_count> paths_;
    std::array<std::string, target_count> prefixes_;
    // Each target's folder relative to the prefix ("" for the prefix itself, else ending in
    // '/'); nothing for a folder outside it.
    std::array<std::optional<std::string>, target_count> in_prefix_;
    std::array<std::optional<Folder>, target_count> folders_;
    std::vector<InstalledFile> rows_;
    std::vector<Planned> planned_;
    std::vector<InstalledFile> files_;
    std::vector<std::string> notes_;
};

}  // namespace

std::optional<LinkMode> parse_link_mode(std::string_view text) {
    if (text == "auto") return LinkMode::automatic;
    if (text == "reflink") return LinkMode::reflink;
    if (text == "hardlink") return LinkMode::hardlink;
    if (text == "copy") return LinkMode::copy;
    return std::nullopt;
}

WheelInstallResult install_wheel(const PrefixLayout& layout, const WheelInstallRequest& request) {
    try {
        return Installer(layout, request).run();
    } catch (const WheelError&) {
        throw;
    } catch (const util::Error& e) {
        fail(request.label.empty() ? request.name + "-" + request.version : request.label, "",
             e.what());
    }
}

std::string posix_script_text(const std::filesystem::path& python, const std::string& module,
                              const std::string& function) {
    return shebang(python, false) + windows_launcher_script(module, function);
}

}  // namespace aitk::install
