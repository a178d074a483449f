// `aitk-env self install` and `self uninstall`: the running executable copied into a per-user
// folder that is on PATH, and both taken away again.
#include <system_error>

#include "aitk/app/self.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "self_files.hpp"

namespace aitk::app {

namespace {

namespace stdfs = std::filesystem;

std::string env_value(const util::Environment& env, std::string_view name, bool windows) {
    return util::environment_lookup(env, name, windows).value_or(std::string());
}

platform::PathListStyle path_style(bool windows) {
    return windows ? platform::PathListStyle::windows : platform::PathListStyle::posix;
}

// Where a POSIX user puts a PATH line for the shell they log in with, and the line itself
// ($HOME spelt out as $HOME, so the line survives a renamed home).
struct ShellLine {
    std::string file;
    std::string line;
};

ShellLine shell_line_for(const std::string& dir, const util::Environment& env) {
    // Inside double quotes a shell still expands $, ` and \ (and " ends the text).
    auto escaped_for_shell = [](std::string_view text) {
        std::string out;
        for (char c : text) {
            if (c == '"' || c == '\\' || c == '`' || c == '$') out += '\\';
            out += c;
        }
        return out;
    };
    const std::string home = env_value(env, "HOME", false);
    std::string escaped;
    if (!home.empty() && home != "/" && dir.rfind(home + "/", 0) == 0) {
        escaped = "$HOME" + escaped_for_shell(dir.substr(home.size()));
    } else {
        escaped = escaped_for_shell(dir);
    }
    const std::string shell = env_value(env, "SHELL", false);
    const std::string name = shell.substr(shell.find_last_of('/') + 1);
    if (name == "fish") return {"~/.config/fish/config.fish", "fish_add_path \"" + escaped + "\""};
    const std::string line = "export PATH=\"" + escaped + ":$PATH\"";
    if (name == "zsh") return {"~/.zshrc", line};
    if (name == "bash") return {"~/.bashrc", line};
    return {"~/.profile", line};
}

struct PathState {
    bool on_path = false;  // new shells / processes find the folder on PATH
    bool changed = false;  // this command edited the user's PATH store
    std::string store;     // the store's location, "" when none
    ShellLine shell;       // what to add (or remove) by hand, when not done
};

nlohmann::json json_of(const PathState& state) {
    nlohmann::json j{{"on_path", state.on_path}, {"changed", state.changed}};
    j["store"] = state.store.empty() ? nlohmann::json(nullptr) : nlohmann::json(state.store);
    j["shell_file"] =
        state.shell.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(state.shell.file);
    j["line"] =
        state.shell.line.empty() ? nlohmann::json(nullptr) : nlohmann::json(state.shell.line);
    return j;
}

stdfs::path install_dir(const SelfInstallOptions& options) {
    stdfs::path dir =
        options.dir ? *options.dir : default_install_dir(options.environment, options.windows);
    std::error_code ec;
    stdfs::path absolute = stdfs::absolute(dir, ec);
    return (ec ? dir : absolute).lexically_normal();
}

// The folder made part of the user's PATH (install) or taken out of it (uninstall).
PathState update_user_path(const SelfInstallOptions& options, const std::string& dir, bool add) {
    PathState state;
    const auto style = path_style(options.windows);
    const std::string process_path = env_value(options.environment, "PATH", options.windows);
    if (options.user_path && options.modify_path) {
        state.store = options.user_path->location();
        auto value = options.user_path->read().value_or(platform::UserPathValue{});
        const std::string edited =
            add ? platform::path_list_with(value.text, dir, style, options.environment)
                : platform::path_list_without(value.text, dir, style, options.environment);
        if (edited != value.text) {
            value.text = edited;
            options.user_path->write(value);
            options.user_path->announce();
            state.changed = true;
        }
        state.on_path = add;
        return state;
    }
    state.on_path = platform::path_list_has(process_path, dir, style, options.environment);
    if (!options.windows) state.shell = shell_line_for(dir, options.environment);
    return state;
}

}  // namespace

stdfs::path default_install_dir(const util::Environment& env, bool windows) {
    if (windows) {
        if (auto local = util::windows_local_app_data(env); !local.empty()) {
            return util::path_from_utf8(local) / "Programs" / "aitk-env" / "bin";
        }
        throw util::InputError(
            "cannot choose an install folder: LOCALAPPDATA and USERPROFILE are not set",
            "pass --dir DIR");
    }
    // The XDG base directory rules ignore a relative value.
    if (auto bin = env_value(env, "XDG_BIN_HOME", false); !bin.empty() && bin.front() == '/') {
        return util::path_from_utf8(bin);
    }
    if (auto home = env_value(env, "HOME", false); !home.empty()) {
        return util::path_from_utf8(home) / ".local" / "bin";
    }
    throw util::InputError("cannot choose an install folder: neither XDG_BIN_HOME nor HOME is set",
                           "pass --dir DIR");
}

SelfReport self_install(const SelfInstallOptions& options) {
    const stdfs::path dir = install_dir(options);
    const stdfs::path target = dir / detail::executable_file_name(options.windows);
    const std::string dir_text = util::utf8_of(dir);
    if (options.executable.empty() || !stdfs::is_regular_file(options.executable)) {
        throw util::Error(util::ExitCode::failure,
                          "cannot find the running executable to copy (" +
                              util::utf8_of(options.executable) + ")",
                          "copy aitk-env into " + dir_text + " yourself");
    }
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    if (ec) {
        throw util::Error(util::ExitCode::failure,
                          "cannot create " + dir_text + ": " + ec.message(),
                          "pass --dir with a folder you can write to");
    }
    detail::remove_moved_aside(dir);

    bool copied = false;
    if (!detail::same_bytes(options.executable, target)) {
        const stdfs::path staged = fs::unique_temp_path(dir, "aitk-env-new");
        stdfs::copy_file(options.executable, staged, stdfs::copy_options::overwrite_existing, ec);
        if (ec) {
            std::error_code ignored;
            stdfs::remove(staged, ignored);
            throw util::Error(util::ExitCode::failure,
                              "cannot copy " + util::utf8_of(options.executable) + " into " +
                                  dir_text + ": " + ec.message());
        }
        try {
            detail::mark_executable(staged);
        } catch (...) {
            stdfs::remove(staged, ec);
            throw;
        }
        detail::replace_executable(staged, target);
        copied = true;
    }
    const PathState path = update_user_path(options, dir_text, true);

    SelfReport report;
    report.json = {{"dir", dir_text},
                   {"executable", util::utf8_of(target)},
                   {"copied", copied},
                   {"path", json_of(path)}};
    report.text = (copied ? "installed " : "already installed: ") + util::utf8_of(target) + "\n";
    if (path.changed) {
        report.text += "added " + dir_text + " to " + path.store +
                       "; programs started from now on (a new terminal) find aitk-env\n";
    } else if (path.on_path) {
        report.text += dir_text + " is on PATH already\n";
    } else if (!path.shell.line.empty()) {
        report.text += dir_text + " is not on PATH: add this line to " + path.shell.file +
                       " (aitk-env does not edit it for you), then open a new terminal:\n  " +
                       path.shell.line + "\n";
    } else {
        report.text += dir_text +
                       " is not on PATH: add it to your user Path (Settings, "
                       "\"Edit environment variables for your account\")\n";
    }
    return report;
}

SelfReport self_uninstall(const SelfInstallOptions& options) {
    const stdfs::path dir = install_dir(options);
    const stdfs::path target = dir / detail::executable_file_name(options.windows);
    const std::string dir_text = util::utf8_of(dir);
    std::error_code ec;
    const bool existed = stdfs::exists(target, ec);
    bool gone_now = true;
    if (existed) gone_now = detail::remove_executable(target);
    detail::remove_moved_aside(dir);
    const PathState path = update_user_path(options, dir_text, false);
    // Windows: the folder was made for aitk-env alone; elsewhere it is shared (~/.local/bin).
    if (options.windows && stdfs::is_empty(dir, ec) && !ec) {
        stdfs::remove(dir, ec);
        if (!ec && dir.parent_path().filename() == "aitk-env" &&
            stdfs::is_empty(dir.parent_path(), ec))
            stdfs::remove(dir.parent_path(), ec);
    }

    SelfReport report;
    report.json = {{"dir", dir_text},
                   {"executable", util::utf8_of(target)},
                   {"removed", existed},
                   {"pending", !gone_now},
                   {"path", json_of(path)}};
    if (!existed) {
        report.text = "nothing to remove: " + util::utf8_of(target) + " does not exist\n";
    } else if (gone_now) {
        report.text = "removed " + util::utf8_of(target) + "\n";
    } else {
        report.text = "removed " + util::utf8_of(target) +
                      " from its folder; Windows deletes the running copy when it restarts\n";
    }
    if (path.changed) {
        report.text += "removed " + dir_text + " from " + path.store + "\n";
    } else if (path.on_path && !path.shell.line.empty()) {
        report.text += dir_text +
                       " is still on PATH; if only aitk-env needed it, remove this "
                       "line from " +
                       path.shell.file + ":\n  " + path.shell.line + "\n";
    }
    return report;
}

}  // namespace aitk::app
