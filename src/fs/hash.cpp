#include "aitk/fs/hash.hpp"

#include "aitk/fs/digest.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
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

std::map<std::string, std::string> file_digests_hex(const std::filesystem::path& path,
                                                    const std::vector<std::string>& algorithms) {
    using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;
    std::vector<std::pair<std::string, Context>> contexts;
    for (const auto& name : algorithms) {
        const EVP_MD* md = EVP_get_digestbyname(name.c_str());
        if (md == nullptr) throw std::invalid_argument("unknown digest algorithm " + name);
        Context ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
        if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1) {
            throw std::runtime_error("OpenSSL could not start a " + name + " computation");
        }
        contexts.emplace_back(name, std::move(ctx));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw util::Error(util::ExitCode::failure,
                          "cannot read " + util::utf8_of(path) + ": " + std::strerror(errno));
    }
    std::vector<char> buffer(1 << 16);
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        for (auto& [name, ctx] : contexts) {
            if (got > 0 && EVP_DigestUpdate(ctx.get(), buffer.data(), got) != 1) {
                throw std::runtime_error("OpenSSL " + name + " update failed");
            }
        }
    }
    if (in.bad()) throw util::Error(util::ExitCode::failure, "cannot read " + util::utf8_of(path));
    std::map<std::string, std::string> out;
    for (auto& [name, ctx] : contexts) {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) {
            throw std::runtime_error("OpenSSL " + name + " finish failed");
        }
        out[name] = util::to_hex(digest, length);
    }
    return out;
}

}  // namespace aitk::fs
