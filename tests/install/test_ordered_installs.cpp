// OrderedInstalls: wheels installed in the order their trees are ready, with the prefix ending
// as if they had been installed one after the other in the sync's order.
#include "aitk/install/ordered_installs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/record.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using namespace aitk::install;
using aitk::test::WheelSpec;

namespace {

class OrderedInstallsTest : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("ordered-installs-test");
    stdfs::path prefix = dir.path() / "venv";
    PrefixLayout layout = PrefixLayout::for_venv(prefix, "3.12.1", false);
    stdfs::path site = prefix / "lib/python3.12/site-packages";

    // nvidia-<name>: its own module under the shared nvidia/ and its own nvidia/__init__.py.
    WheelInstallRequest shared_wheel(const std::string& name) {
        WheelSpec spec;
        spec.name = "nvidia-" + name;
        spec.version = "1.0";
        spec.files = {{"nvidia/__init__.py", "# from " + name + "\n"},
                      {"nvidia/" + name + "/__init__.py", "NAME = '" + name + "'\n"}};
        return request(spec);
    }

    WheelInstallRequest request(const WheelSpec& spec) {
        auto built = aitk::test::build_wheel(spec, dir.path() / "wheels");
        const stdfs::path tree = dir.path() / "cache" / built.filename;
        unpack_wheel(built.path, tree);
        WheelInstallRequest r;
        r.unpacked = tree;
        r.name = spec.name;
        r.version = spec.version;
        return r;
    }

    std::string record_hash_in(const WheelInstallResult& result, const std::string& path) {
        for (const auto& file : result.files)
            if (file.path == path) return file.hash;
        return "(not listed)";
    }
};

TEST(TopLevelNames, LeaveDistInfoOutAndFoldDataFolders) {
    auto dir = aitk::fs::TempDir::create("top-level-names");
    for (const char* entry : {"nvidia", "tool-1.data", "tool-1.dist-info", "six.py"})
        stdfs::create_directories(dir.path() / entry);
    EXPECT_EQ(top_level_names(dir.path()), (std::vector<std::string>{".data", "nvidia", "six.py"}));
}

// The sync's order is a, b, c; the trees arrive c, a, b. c's nvidia/__init__.py must be the
// one left, as if a, b and c had been installed one after the other; every RECORD still lists
// the file with its own wheel's hash, as pip's would.
TEST_F(OrderedInstallsTest, ALaterWheelsSharedFileStaysWhenAnEarlierOneArrivesAfterIt) {
    std::vector<WheelInstallRequest> wheels = {shared_wheel("a"), shared_wheel("b"),
                                               shared_wheel("c")};
    OrderedInstalls order(wheels.size());
    const auto c = order.install(layout, 2, wheels[2]);
    const auto a = order.install(layout, 0, wheels[0]);
    const auto b = order.install(layout, 1, wheels[1]);

    EXPECT_EQ(aitk::fs::read_file(site / "nvidia/__init__.py"), "# from c\n");
    for (const char* name : {"a", "b", "c"}) {
        EXPECT_EQ(aitk::fs::read_file(site / "nvidia" / name / "__init__.py"),
                  std::string("NAME = '") + name + "'\n");
    }
    EXPECT_EQ(record_hash_in(a, "nvidia/__init__.py"), record_hash_of("# from a\n"));
    EXPECT_EQ(record_hash_in(b, "nvidia/__init__.py"), record_hash_of("# from b\n"));
    EXPECT_EQ(record_hash_in(c, "nvidia/__init__.py"), record_hash_of("# from c\n"));
}

TEST_F(OrderedInstallsTest, InOrderArrivalsOverwriteAsPipWould) {
    std::vector<WheelInstallRequest> wheels = {shared_wheel("a"), shared_wheel("b")};
    OrderedInstalls order(wheels.size());
    order.install(layout, 0, wheels[0]);
    order.install(layout, 1, wheels[1]);
    EXPECT_EQ(aitk::fs::read_file(site / "nvidia/__init__.py"), "# from b\n");
}

// From many threads in a scrambled order the last wheel of the order still wins, and wheels
// that share nothing (the numbered ones) install beside them.
TEST_F(OrderedInstallsTest, ConcurrentArrivalsEndAsTheOrderSays) {
    std::vector<WheelInstallRequest> wheels;
    for (const char* name : {"a", "b", "c", "d", "e", "f"})
        wheels.push_back(shared_wheel(name));
    for (int i = 0; i < 6; ++i) {
        WheelSpec spec;
        spec.name = "alone" + std::to_string(i);
        spec.version = "1.0";
        spec.files = {{spec.name + "/__init__.py", "X = " + std::to_string(i) + "\n"}};
        wheels.push_back(request(spec));
    }
    const std::vector<std::size_t> arrival = {5, 7, 0, 11, 3, 6, 1, 10, 4, 8, 2, 9};
    OrderedInstalls order(wheels.size());
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (std::size_t k = next++; k < arrival.size(); k = next++)
                order.install(layout, arrival[k], wheels[arrival[k]]);
        });
    }
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(aitk::fs::read_file(site / "nvidia/__init__.py"), "# from f\n");
    for (int i = 0; i < 6; ++i) {
        EXPECT_TRUE(stdfs::exists(site / ("alone" + std::to_string(i)) / "__init__.py"));
    }
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
