#pragma once
// SHA-256 behind a small class (OpenSSL's EVP stays out of every header), fed while streaming so
// a download or an unpacked file is hashed without a second read.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace aitk::fs {

using Digest256 = std::array<std::uint8_t, 32>;

class Sha256 {
  public:
    Sha256();
    ~Sha256();
    Sha256(Sha256&&) noexcept;
    Sha256& operator=(Sha256&&) noexcept;
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(const void* data, std::size_t size);
    void update(std::string_view data) { update(data.data(), data.size()); }
    // Ends the computation; the object starts over afterwards.
    Digest256 finish();
    std::string finish_hex() { return finish_to_hex(finish()); }

    static std::string finish_to_hex(const Digest256& digest);

  private:
    struct State;
    std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view data);
// Streams the file in blocks; throws util::Error (exit 1) naming the path on a read error.
std::string sha256_file_hex(const std::filesystem::path& path);

// RFC 4648 URL-safe base64 without padding: the digest form of a wheel's RECORD file.
std::string base64url_nopad(const std::uint8_t* data, std::size_t size);

}  // namespace aitk::fs
