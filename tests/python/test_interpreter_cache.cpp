// The probe answers cache: an interpreter binary is asked once while its mtime and size stay
// the same, a launcher script is asked every time, and the file survives damage and merges.
#include "aitk/python/interpreter_cache.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>

#include "python_test_support.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::python;
using namespace aitk::python::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// How many times the fake at `dir` was run (each run appends a line to `dir`/runs).
std::size_t runs(const fs::path& dir) {
    std::string text = read_file_or_empty(dir / "runs");
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

DiscoveryOptions options_for(const TempDir& t) {
    DiscoveryOptions o;
    o.path_value = (t.path / "bin").string();
    o.system_dirs = std::vector<fs::path>{};
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    o.cache_file = default_interpreter_cache_file(t.path / "cache");
    return o;
}

TEST(InterpreterCache, LivesUnderTheCacheRoot) {
    EXPECT_EQ(default_interpreter_cache_file("/c"), fs::path("/c/v1/interpreters.json"));
}

TEST(InterpreterCache, AnInterpreterIsAskedOnceUntilItsFileChanges) {
    TempDir t;
    const std::string count = "echo run >> " + (t.path / "runs").string() + "\n";
    fake_python(t.path / "bin/python3.12", "3.12.1", "$0", count);
    auto o = options_for(t);

    auto first = discover_interpreters(o);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(runs(t.path), 1u);
    EXPECT_EQ(first[0].executable, t.path / "bin/python3.12");
    auto second = discover_interpreters(o);
    EXPECT_EQ(runs(t.path), 1u);
    EXPECT_EQ(second, first);

    // The file keys the answer by the real path, with its stamp and the probe's answer.
    auto doc = nlohmann::json::parse(read_file(o.cache_file));
    EXPECT_EQ(doc["version"], 1);
    auto entry = doc["interpreters"][(t.path / "bin/python3.12").string()];
    EXPECT_EQ(entry["size"], fs::file_size(t.path / "bin/python3.12"));
    EXPECT_EQ(entry["answer"]["version"], "3.12.1");

    // Another name for the same file uses the same answer.
    fs::create_symlink("bin/python3.12", t.path / "link");
    auto via_link = probe_interpreter(t.path / "link", o);
    ASSERT_TRUE(via_link) << via_link.error();
    EXPECT_EQ(via_link->path, t.path / "link");
    EXPECT_EQ(via_link->executable, t.path / "bin/python3.12");
    EXPECT_EQ(runs(t.path), 1u);

    // A reinstall changes the size: asked again.
    fake_python(t.path / "bin/python3.12", "3.12.2", "$0", count + "# upgraded\n");
    auto third = discover_interpreters(o);
    ASSERT_EQ(third.size(), 1u);
    EXPECT_EQ(third[0].version, "3.12.2");
    EXPECT_EQ(runs(t.path), 2u);
}

TEST(InterpreterCache, ALauncherScriptIsAskedEveryTime) {
    TempDir t;
    const std::string count = "echo run >> " + (t.path / "runs").string() + "\n";
    // Like a pyenv shim: it answers for an interpreter elsewhere.
    fake_python(t.path / "bin/python3", "3.12.1", "/opt/py/bin/python3.12", count);
    auto o = options_for(t);
    EXPECT_EQ(discover_interpreters(o).size(), 1u);
    EXPECT_EQ(discover_interpreters(o).size(), 1u);
    EXPECT_EQ(runs(t.path), 2u);
    EXPECT_FALSE(fs::exists(o.cache_file));
}

TEST(InterpreterCache, ADamagedFileIsEmptyAndRewritten) {
    TempDir t;
    fake_python(t.path / "bin/python3.12", "3.12.1", "$0");
    auto o = options_for(t);
    write_file(o.cache_file, "{not json");
    ASSERT_EQ(discover_interpreters(o).size(), 1u);
    auto doc = nlohmann::json::parse(read_file(o.cache_file));
    EXPECT_EQ(doc["interpreters"].size(), 1u);

    // Entries of the wrong shape are skipped, the others kept.
    write_file(o.cache_file,
               R"({"version": 1, "interpreters": {"/a": 5, "/b": {"mtime_ns": "x"}}})");
    InterpreterCache cache(o.cache_file);
    EXPECT_EQ(cache.size(), 0u);
    write_file(o.cache_file, R"({"version": 2, "interpreters": {}})");
    EXPECT_EQ(InterpreterCache(o.cache_file).size(), 0u);
}

TEST(InterpreterCache, SavingKeepsWhatAnotherProcessAdded) {
    TempDir t;
    fake_python(t.path / "a/python", "3.11.0", "$0");
    fake_python(t.path / "b/python", "3.12.0", "$0");
    auto file = t.path / "interpreters.json";
    auto a = stamp_of(t.path / "a/python");
    auto b = stamp_of(t.path / "b/python");
    ASSERT_TRUE(a && b);
    InterpreterCache one(file);
    InterpreterCache two(file);
    one.put(*a, R"({"implementation": "CPython", "version": "3.11.0"})");
    two.put(*b, R"({"implementation": "CPython", "version": "3.12.0"})");
    one.save();
    two.save();
    InterpreterCache both(file);
    EXPECT_EQ(both.size(), 2u);
    auto found = both.find(*a);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->version, "3.11.0");
    EXPECT_EQ(found->executable, t.path / "a/python");
    auto changed = *a;
    changed.mtime_ns += 1;
    EXPECT_FALSE(both.find(changed));

    // Entries of files that are gone are dropped when saving.
    fs::remove(t.path / "a/python");
    InterpreterCache later(file);
    later.put(*b, R"({"implementation": "CPython", "version": "3.12.0"})");
    later.save();
    EXPECT_EQ(InterpreterCache(file).size(), 1u);
}

TEST(InterpreterCache, StampNeedsARegularFile) {
    TempDir t;
    EXPECT_FALSE(stamp_of(t.path / "missing"));
    EXPECT_FALSE(stamp_of(t.path));
    write_file(t.path / "f", "12345");
    auto s = stamp_of(t.path / "f");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->size, 5u);
    EXPECT_EQ(s->real_path, fs::canonical(t.path / "f"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
