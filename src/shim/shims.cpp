#include "aitk/shim/shims.hpp"

#include "aitk/fs/file.hpp"
#include "renderers.hpp"

namespace aitk::shim {
namespace {

namespace stdfs = std::filesystem;

// `folder` relative to the prefix. Windows prefixes are handled as text, so they come out the
// same when rendered on a POSIX host (tests, bundles made elsewhere).
stdfs::path relative_to_prefix(const PrefixEnvironment& prefix, const stdfs::path& folder,
                               std::string_view fallback) {
    if (folder.empty()) return stdfs::path(fallback);
    std::u8string base = prefix.prefix.u8string();
    std::u8string text = folder.u8string();
    if (prefix.os == ShimOs::windows) {
        for (auto* s : {&base, &text}) {
            for (char8_t& c : *s) {
                if (c == u8'\\') c = u8'/';
            }
        }
        while (!base.empty() && base.back() == u8'/')
            base.pop_back();
        if (text.size() > base.size() + 1 && text.starts_with(base) && text[base.size()] == u8'/') {
            return stdfs::path(text.substr(base.size() + 1));
        }
        bool absolute = text.starts_with(u8'/') || (text.size() >= 2 && text[1] == u8':');
        return absolute ? folder : stdfs::path(text);
    }
    // A rooted POSIX folder ("/envs/p/bin") is relative to std::filesystem on a Windows host (it
    // has no drive), yet it lies inside the prefix just the same.
    if (!folder.has_root_directory() && !folder.has_root_name()) return folder;
    stdfs::path relative = folder.lexically_relative(prefix.prefix);
    if (relative.empty() || *relative.begin() == "..") return folder;
    return relative;
}

}  // namespace

std::vector<ShimFile> render_shims(const PrefixEnvironment& prefix,
                                   const std::filesystem::path& site_packages) {
    std::vector<ShimFile> files;
    if (prefix.os == ShimOs::posix) {
        stdfs::path scripts = relative_to_prefix(prefix, prefix.scripts, "bin");
        files.push_back({scripts / "aitk-run", detail::render_aitk_run_sh(prefix), true});
        files.push_back({scripts / "activate", detail::render_activate_sh(prefix), false});
        files.push_back({scripts / "activate.fish", detail::render_activate_fish(prefix), false});
        return files;
    }
    stdfs::path scripts = relative_to_prefix(prefix, prefix.scripts, "Scripts");
    stdfs::path site = relative_to_prefix(prefix, site_packages, "Lib/site-packages");
    files.push_back({scripts / "aitk-run.cmd", detail::render_aitk_run_cmd(prefix), false});
    files.push_back({scripts / "Activate.ps1", detail::render_activate_ps1(prefix), false});
    const auto names = site_packages_shim_files(true);
    files.push_back({site / names[0], detail::render_dll_paths_pth(), false});
    files.push_back({site / names[1], detail::render_dll_paths_module(prefix), false});
    return files;
}

std::vector<std::string> site_packages_shim_files(bool windows) {
    if (!windows) return {};
    return {"aitk_env_dll_paths.pth", "_aitk_env_dll_paths.py"};
}

std::vector<std::filesystem::path> write_shims(const PrefixEnvironment& prefix,
                                               const std::filesystem::path& site_packages) {
    std::vector<stdfs::path> written;
    for (const ShimFile& file : render_shims(prefix, site_packages)) {
        stdfs::path target = prefix.prefix / file.path;
        stdfs::create_directories(target.parent_path());
        fs::write_file_atomic(target, file.content);
#ifndef _WIN32
        if (file.executable) {
            stdfs::permissions(
                target,
                stdfs::perms::owner_exec | stdfs::perms::group_exec | stdfs::perms::others_exec,
                stdfs::perm_options::add);
        }
#endif
        written.push_back(std::move(target));
    }
    return written;
}

}  // namespace aitk::shim
