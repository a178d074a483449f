#include "aitk/cache/offline.hpp"

#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using namespace aitk::cache;

TEST(Offline, ReportsExactlyWhatIsMissing) {
    auto dir = aitk::fs::TempDir::create("cache-offline");
    Cache cache(dir.path() / "root");
    fs::path p = cache.staging_path("present.whl");
    aitk::fs::write_file_atomic(p, "present");
    std::string present = aitk::fs::sha256_hex("present");
    cache.insert_artifact(p, present, "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
    HttpEntry page;
    page.url = "https://pypi.org/simple/numpy/";
    page.body = "<html/>";
    cache.put_http(page);

    std::string absent = aitk::fs::sha256_hex("absent");
    std::vector<ArtifactRef> wanted = {
        {present, "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl",
         "https://files.example/numpy.whl"},
        {absent, "torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
         "https://user:pw@download.pytorch.org/whl/cu126/torch-2.9.0%2Bcu126.whl"},
    };
    std::vector<std::string> pages = {"https://pypi.org/simple/numpy/",
                                      "https://download.pytorch.org/whl/cu126/torch/"};
    OfflineReport report = check_offline(cache, wanted, pages);
    EXPECT_FALSE(report.complete());
    ASSERT_EQ(report.missing_artifacts.size(), 1u);
    EXPECT_EQ(report.missing_artifacts[0].sha256, absent);
    ASSERT_EQ(report.missing_pages.size(), 1u);
    EXPECT_EQ(report.missing_pages[0], "https://download.pytorch.org/whl/cu126/torch/");

    std::string text = report.describe(cache, wanted.size(), pages.size());
    EXPECT_NE(text.find("1 of 2 artifacts and 1 of 2 index pages are not in the cache at " +
                        cache.root().string()),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl (sha256 " +
                        absent + ") from https://download.pytorch.org/whl/cu126/"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("index page https://download.pytorch.org/whl/cu126/torch/"),
              std::string::npos);
    EXPECT_EQ(text.find("pw@"), std::string::npos);
    EXPECT_NE(text.find("without --offline"), std::string::npos);

    OfflineReport full = check_offline(cache, {wanted[0]}, {pages[0]});
    EXPECT_TRUE(full.complete());
    EXPECT_NE(full.describe(cache, 1, 1).find("everything needed"), std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
