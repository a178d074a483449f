// install::plan_install's cheap check of installed files by their times: a file written after
// its distribution's RECORD was (an edit in place, of any size) is a changed file, and the
// distribution is reinstalled; a file that a later distribution put there (a shared path such as
// a namespace package's __init__.py) is that one's and changes nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/plan.hpp"

namespace aitk::install {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using Indexes = std::vector<std::size_t>;

class PlanTimes : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("aitk-plan-times");
    PrefixLayout layout = PrefixLayout::for_venv(dir.path() / "prefix", "3.12", false);
    stdfs::file_time_type installed_at =
        stdfs::file_time_type::clock::now() - std::chrono::hours(1);

    // Distribution `name` 1.0 with the files `files` (path -> content), RECORD written at
    // `installed_at + record_delay`, each file dated `installed_at`.
    InstalledDistribution install(const std::string& name,
                                  const std::vector<std::pair<std::string, std::string>>& files,
                                  std::chrono::seconds record_delay = std::chrono::seconds(0)) {
        InstalledDistribution d;
        d.name = name;
        d.version = "1.0";
        d.dist_info = layout.purelib / (name + "-1.0.dist-info");
        stdfs::create_directories(d.dist_info);
        for (const auto& [path, content] : files) {
            stdfs::create_directories((layout.purelib / path).parent_path());
            fs::write_file_atomic(layout.purelib / path, content);
            stdfs::last_write_time(layout.purelib / path, installed_at);
            d.record.push_back({path, "sha256=x", content.size()});
        }
        d.record.push_back({name + "-1.0.dist-info/RECORD", "", 0});
        fs::write_file_atomic(d.dist_info / "RECORD", "written\n");
        stdfs::last_write_time(d.dist_info / "RECORD", installed_at + record_delay);
        return d;
    }

    static WantedDistribution wanted(const std::string& name) {
        return {name, "1.0", "k-" + name, true, true};
    }
};

TEST_F(PlanTimes, AFileRewrittenInPlaceAfterItsRecordReinstalls) {
    auto a = install("a", {{"a/__init__.py", "x = 1\n"}});
    EXPECT_EQ(plan_install({wanted("a")}, {a}, std::nullopt, true, &layout).keep, Indexes{0});

    {  // The same size, another content, written now.
        std::fstream f(layout.purelib / "a" / "__init__.py",
                       std::ios::binary | std::ios::in | std::ios::out);
        f.write("y", 1);
    }
    stdfs::last_write_time(layout.purelib / "a" / "__init__.py",
                           installed_at + std::chrono::seconds(5));
    EXPECT_EQ(plan_install({wanted("a")}, {a}, std::nullopt, true, &layout).reinstall, Indexes{0});
}

TEST_F(PlanTimes, AFileALaterDistributionPutThereIsNotAChange) {
    // b installed after a, over a's copy of the shared namespace file.
    auto a = install("a", {{"ns/__init__.py", ""}, {"ns/a.py", "a\n"}});
    auto b = install("b", {{"ns/__init__.py", ""}, {"ns/b.py", "b\n"}}, std::chrono::seconds(10));
    stdfs::last_write_time(layout.purelib / "ns" / "__init__.py",
                           installed_at + std::chrono::seconds(5));

    const auto plan = plan_install({wanted("a"), wanted("b")}, {a, b}, std::nullopt, true, &layout);
    EXPECT_EQ(plan.keep, (Indexes{0, 1}));

    // Written after both RECORDs: changed, for each distribution that lists it.
    stdfs::last_write_time(layout.purelib / "ns" / "__init__.py",
                           installed_at + std::chrono::seconds(20));
    EXPECT_EQ(
        plan_install({wanted("a"), wanted("b")}, {a, b}, std::nullopt, true, &layout).reinstall,
        (Indexes{0, 1}));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::install
