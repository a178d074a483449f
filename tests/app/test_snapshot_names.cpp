// A snapshot writes into its lock only file names that are file names (issue 33, item 3): a
// direct_url.json whose URL ends in an encoded path is no wheel file of the lock.
#include "aitk/app/snapshot.hpp"

#include <gtest/gtest.h>

namespace aitk::app {
namespace AITK_FILE_LOCAL {

TEST(SnapshotNames, AWheelUrlWhoseFileNameIsAPathIsRefused) {
    auto parsed = parse_direct_url(
        R"({"archive_info": {"hashes": {"sha256": "cd34"}},
            "url": "https://files.example/x/..%2F..%2Fevil-1.0-py3-none-any.whl"})");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error(),
              "the file name '../../evil-1.0-py3-none-any.whl' of its URL "
              "https://files.example/x/..%2F..%2Fevil-1.0-py3-none-any.whl cannot name a file: it "
              "contains a path separator '/'");
    parsed = parse_direct_url(
        R"({"archive_info": {"hashes": {"sha256": "cd34"}},
            "url": "https://files.example/x/nul.whl"})");
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().find("'nul' is a device name on Windows"), std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
