#include "aitk/fs/hash.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/util/hex.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::fs;

TEST(Sha256, KnownVectors) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, StreamingEqualsOneShotAndRestarts) {
    Sha256 h;
    h.update("a");
    h.update("bc");
    EXPECT_EQ(h.finish_hex(), sha256_hex("abc"));
    h.update("abc");  // starts over after finish
    EXPECT_EQ(h.finish_hex(), sha256_hex("abc"));
}

TEST(Sha256, FileHashStreamsLargeFiles) {
    aitk::test::TempDir dir("hash");
    const auto path = dir.path / "large.bin";
    std::string content(300000, 'x');
    for (std::size_t i = 0; i < content.size(); i += 7)
        content[i] = static_cast<char>(i);
    aitk::test::write_file(path, content);
    EXPECT_EQ(sha256_file_hex(path), sha256_hex(content));
}

TEST(Base64Url, RecordDigestForm) {
    // RECORD uses urlsafe base64 without '=' padding.
    auto digest = Sha256();
    digest.update("");
    auto d = digest.finish();
    EXPECT_EQ(base64url_nopad(d.data(), d.size()), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
    const std::uint8_t bytes[] = {0xfb, 0xff};
    EXPECT_EQ(base64url_nopad(bytes, 1), "-w");
    EXPECT_EQ(base64url_nopad(bytes, 2), "-_8");
}

TEST(Sha256Hex, Validation) {
    EXPECT_TRUE(aitk::util::is_sha256_hex(sha256_hex("x")));
    EXPECT_FALSE(aitk::util::is_sha256_hex("ABC"));
    EXPECT_FALSE(aitk::util::is_sha256_hex(std::string(64, 'g')));
}

}  // namespace AITK_FILE_LOCAL
