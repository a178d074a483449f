#include "aitk/fs/hash.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::fs {

struct Sha256::State {
    EVP_MD_CTX* ctx = nullptr;
    State() : ctx(EVP_MD_CTX_new()) {
        if (ctx == nullptr || EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
            EVP_MD_CTX_free(ctx);
            throw std::runtime_error("OpenSSL could not start a SHA-256 computation");
        }
    }
    ~State() { EVP_MD_CTX_free(ctx); }
    State(const State&) = delete;
    State& operator=(const State&) = delete;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, std::size_t size) {
    if (size == 0) return;
    if (EVP_DigestUpdate(state_->ctx, data, size) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 update failed");
    }
}

Digest256 Sha256::finish() {
    Digest256 digest{};
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(state_->ctx, digest.data(), &length) != 1 || length != digest.size() ||
        EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 finish failed");
    }
    return digest;
}

std::string Sha256::finish_to_hex(const Digest256& digest) {
    return util::to_hex(digest.data(), digest.size());
}

std::string sha256_hex(std::string_view data) {
    Sha256 h;
    h.update(data);
    return h.finish_hex();
}

std::string sha256_file_hex(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw util::Error(util::ExitCode::failure,
                          "cannot read " + util::utf8_of(path) + ": " + std::strerror(errno));
    }
    Sha256 h;
    std::vector<char> buffer(1 << 16);
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        h.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw util::Error(util::ExitCode::failure, "cannot read " + util::utf8_of(path));
    return h.finish_hex();
}

std::string base64url_nopad(const std::uint8_t* data, std::size_t size) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    out.reserve((size * 4 + 2) / 3);
    std::size_t i = 0;
    for (; i + 3 <= size; i += 3) {
        std::uint32_t n =
            (std::uint32_t{data[i]} << 16) | (std::uint32_t{data[i + 1]} << 8) | data[i + 2];
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += alphabet[(n >> 6) & 63];
        out += alphabet[n & 63];
    }
    std::size_t rest = size - i;
    if (rest == 1) {
        std::uint32_t n = std::uint32_t{data[i]} << 16;
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
    } else if (rest == 2) {
        std::uint32_t n = (std::uint32_t{data[i]} << 16) | (std::uint32_t{data[i + 1]} << 8);
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += alphabet[(n >> 6) & 63];
    }
    return out;
}

}  // namespace aitk::fs
