#pragma once
// What aitk-env installed last into a prefix (<prefix>/.aitk-env/receipt.json): the lock target,
// the lock's input hash, and per distribution the key it was installed from (a wheel's sha256,
// or a source's identity), so that a reinstall is decided by content, not only by version.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace aitk::install {

struct Receipt {
    std::string target;
    std::string input_hash;
    std::map<std::string, std::string> wheel_sha256;  // distribution → its key
    // nullopt when there is none or it cannot be read (the next sync rewrites it).
    static std::optional<Receipt> read(const std::filesystem::path& state_dir);
    void write(const std::filesystem::path& state_dir) const;
    std::string text() const;  // what write() puts in receipt.json
    friend bool operator==(const Receipt&, const Receipt&) = default;
};

// The receipt's path inside a prefix's state folder.
std::filesystem::path receipt_path(const std::filesystem::path& state_dir);

}  // namespace aitk::install
