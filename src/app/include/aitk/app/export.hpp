#pragma once
// `aitk-env export`: reads a lockfile (or the copy a prefix keeps), picks one target and writes
// it in another format (lock/export.hpp) to a file, atomically, or returns the text for stdout.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace aitk::app {

struct ExportRequest {
    std::optional<std::filesystem::path> lockfile;  // -l
    std::optional<std::filesystem::path> prefix;    // -p: its <prefix>/.aitk-env/lock.yml
    std::string format;                             // env-yml|requirements|pylock|dockerfile
    std::string target;  // "" = the prefix's target (with -p), else the lock's default target
    std::optional<std::filesystem::path> output;  // -o; none = the caller prints `text`
    std::filesystem::path cwd;  // relative paths, and the Docker build context without -o
    bool windows = false;       // how the prefix is laid out
};

struct ExportOutcome {
    std::string format;
    std::string target;
    std::string text;                            // what was (or is to be) written
    std::vector<std::filesystem::path> written;  // -o FILE, and its .dockerignore
    std::vector<std::string> left_out;           // packages the format cannot pin
    std::vector<std::string> notes;
    nlohmann::json to_json() const;
};

// Throws util::InputError (exit 2): no or both of lockfile/prefix, an unknown format (naming
// the allowed ones), a target the lock lacks (listing its targets), a prefix without a lock copy
// (hint: `aitk-env setup` or `snapshot`), a target no format can express (a Dockerfile for
// windows); util::Error for I/O.
ExportOutcome run_export(const ExportRequest& request);

}  // namespace aitk::app
