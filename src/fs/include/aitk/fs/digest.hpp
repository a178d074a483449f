#pragma once
// Digests other than SHA-256, for the checks that need them: pip's hash-checking mode accepts
// --hash=sha384:… and sha512:… pins, which only the file's bytes can answer.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aitk::fs {

// The file's digest under each of `algorithms` ("sha256", "sha384", "sha512"), lower-case hex,
// in one read. Throws util::Error (exit 1) naming the path on a read error, std::invalid_argument
// for an algorithm OpenSSL does not know.
std::map<std::string, std::string> file_digests_hex(const std::filesystem::path& path,
                                                    const std::vector<std::string>& algorithms);

}  // namespace aitk::fs
