#include "aitk/install/receipt.hpp"

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"

namespace aitk::install {

std::filesystem::path receipt_path(const std::filesystem::path& state_dir) {
    return state_dir / "receipt.json";
}

std::optional<Receipt> Receipt::read(const std::filesystem::path& state_dir) {
    std::error_code ec;
    const auto path = receipt_path(state_dir);
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    auto json = nlohmann::json::parse(fs::read_file(path), nullptr, false);
    if (json.is_discarded() || !json.is_object()) return std::nullopt;
    Receipt r;
    r.target = json.value("target", "");
    r.input_hash = json.value("input_hash", "");
    if (json.contains("wheel_sha256") && json["wheel_sha256"].is_object()) {
        for (const auto& [name, sha] : json["wheel_sha256"].items()) {
            if (sha.is_string()) r.wheel_sha256[name] = sha.get<std::string>();
        }
    }
    return r;
}

std::string Receipt::text() const {
    nlohmann::json json = {
        {"target", target}, {"input_hash", input_hash}, {"wheel_sha256", wheel_sha256}};
    return json.dump(2) + "\n";
}

void Receipt::write(const std::filesystem::path& state_dir) const {
    std::filesystem::create_directories(state_dir);
    fs::write_file_atomic(receipt_path(state_dir), text());
}

}  // namespace aitk::install
