// uv.lock read as uv reads it: every real lock we have, and a bad file of each kind named at
// file:line:column.
#include <gtest/gtest.h>

#include <filesystem>

#include "uv_lock_fixtures.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

std::size_t count_packages(const std::string& text) {
    std::size_t n = 0;
    for (auto at = text.find("[[package]]"); at != std::string::npos;
         at = text.find("[[package]]", at + 1))
        ++n;
    return n;
}

void expect_reads(const stdfs::path& path) {
    SCOPED_TRACE(path.string());
    const std::string text = test::read_file(path);
    auto parsed = parse_uv_lock(text, path.string());
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->packages.size(), count_packages(text));
    EXPECT_EQ(parsed->version, 1);
    EXPECT_FALSE(parsed->requires_python.empty());
    EXPECT_FALSE(parsed->roots().empty());
    for (const auto& p : parsed->packages) {
        for (const auto& d : p.dependencies)
            EXPECT_EQ(parsed->packages[d.package].name, d.name);
    }
}

TEST(UvLockParse, ReadsTheCopiedRealLocks) {
    for (const auto* name :
         {"nari-labs_dia__uv.lock", "karpathy_nanochat__uv.lock", "fishaudio_fish-speech__uv.lock"})
        expect_reads(uv_test::data(name));
}

// Every real uv.lock of /work/shared/realworld (workspaces, conflicts, git and URL sources,
// supported-markers, up to 627 packages).
TEST(UvLockParse, ReadsEveryRealLockOfTheSharedCorpus) {
    const auto shared = uv_test::shared_realworld();
    std::error_code ec;
    if (!stdfs::is_directory(shared / "uv", ec)) GTEST_SKIP() << "no " << shared.string();
    std::size_t read = 0;
    for (const auto& entry : stdfs::directory_iterator(shared / "uv")) {
        if (!entry.path().string().ends_with("__uv.lock")) continue;
        expect_reads(entry.path());
        ++read;
    }
    expect_reads(shared / "nari-labs_dia__uv.lock");
    EXPECT_GE(read, 15u);
}

TEST(UvLockParse, KeepsSourcesFilesEdgesAndMetadata) {
    const auto lock = uv_test::read(uv_test::data("karpathy_nanochat__uv.lock"));
    EXPECT_EQ(lock.revision, 3);
    EXPECT_EQ(lock.requires_python, ">=3.10");
    ASSERT_EQ(lock.conflicts.size(), 1u);
    EXPECT_EQ(uv_conflict_extra(lock.conflicts[0][0]), "extra-8-nanochat-cpu");
    EXPECT_EQ(uv_conflict_extra(lock.conflicts[0][1]), "extra-8-nanochat-gpu");
    const auto roots = lock.roots();
    ASSERT_EQ(roots.size(), 1u);
    const auto& root = lock.packages[roots[0]];
    EXPECT_EQ(root.name, "nanochat");
    EXPECT_EQ(root.source.kind, UvSource::Kind::virtual_);
    ASSERT_EQ(root.optional_dependencies.count("gpu"), 1u);
    const auto& gpu = root.optional_dependencies.at("gpu").front();
    EXPECT_EQ(lock.packages[gpu.package].version, "2.9.1+cu128");
    EXPECT_EQ(lock.packages[gpu.package].source.location, "https://download.pytorch.org/whl/cu128");
    EXPECT_EQ(root.dependency_groups.count("dev"), 1u);
    EXPECT_TRUE(root.metadata.present);
    EXPECT_EQ(root.metadata.provides_extras, (std::vector<std::string>{"cpu", "gpu"}));
    ASSERT_EQ(root.metadata.requires_dev.count("dev"), 1u);
    // Four torch packages (2.9.1 from PyPI and from the cpu index, +cpu, +cu128): which edge means
    // which is decided by version and source.
    EXPECT_EQ(lock.find("torch").size(), 4u);
    const auto& types = lock.packages[lock.find("annotated-types").front()];
    ASSERT_TRUE(types.sdist);
    EXPECT_EQ(types.sdist->hash,
              "sha256:aff07c09a53a08bc8cfccb9c85b05f1aa9a2a6f23728d790723543408344ce89");
    EXPECT_EQ(types.sdist->size, 16081u);
    ASSERT_EQ(types.wheels.size(), 1u);
    EXPECT_EQ(types.wheels[0].filename, "annotated_types-0.7.0-py3-none-any.whl");
    EXPECT_EQ(types.wheels[0].where.line, 42u);
    EXPECT_EQ(types.wheels[0].where.column, 5u);
}

TEST(UvLockParse, TakesGitSourcesApart) {
    auto git = parse_uv_git_url(
        "https://github.com/yuhezhang-ai/Megatron-LM.git?subdirectory=megatron%2Fcore%2Fsrc&rev="
        "455389c480af6b3acdca74c7830c68b3274eb083#455389c480af6b3acdca74c7830c68b3274eb083");
    ASSERT_TRUE(git) << git.error();
    EXPECT_EQ(git->repository, "https://github.com/yuhezhang-ai/Megatron-LM.git");
    EXPECT_EQ(git->subdirectory, "megatron/core/src");
    EXPECT_EQ(git->commit, "455389c480af6b3acdca74c7830c68b3274eb083");
    EXPECT_EQ(git->reference, "455389c480af6b3acdca74c7830c68b3274eb083");
    auto tag = parse_uv_git_url(
        "https://github.com/fanshiqing/grouped_gemm?tag=v1.1.4.post7#"
        "6dfaf60e6112166b8b82e9210b51c7f557956f0a");
    ASSERT_TRUE(tag);
    EXPECT_EQ(tag->reference, "v1.1.4.post7");
    EXPECT_FALSE(parse_uv_git_url("https://github.com/x/y.git?rev=main"));
    // A token in the URL never reaches a message.
    auto secret = parse_uv_git_url("https://user:s3cret@github.com/x/y.git?rev=main");
    ASSERT_FALSE(secret);
    EXPECT_EQ(secret.error().find("s3cret"), std::string::npos) << secret.error();
    EXPECT_FALSE(parse_uv_git_url("https://github.com/x/y.git#abc"));
}

const std::string small = R"(version = 1
revision = 3
requires-python = ">=3.10"

[[package]]
name = "demo"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "six" },
]

[[package]]
name = "six"
version = "1.17.0"
source = { registry = "https://pypi.org/simple" }
wheels = [
    { url = "https://files.example/six-1.17.0-py2.py3-none-any.whl", hash = "sha256:4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274", size = 11050 },
]
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("not in the text: " + from);
    return text.replace(at, from.size(), to);
}

std::string problem(const std::string& text) {
    auto parsed = parse_uv_lock(text, "uv.lock");
    return parsed ? "parsed" : parsed.error().describe();
}

TEST(UvLockParse, TheSmallLockReads) {
    EXPECT_EQ(problem(small), "parsed");
}

TEST(UvLockParse, MalformedTomlNamesLineAndColumn) {
    const auto text = replaced(small, "name = \"six\"\nversion", "name = \"six\nversion");
    EXPECT_EQ(problem(text).rfind("uv.lock:14:", 0), 0u) << problem(text);
    EXPECT_NE(problem(text).find("invalid TOML"), std::string::npos);
}

TEST(UvLockParse, ANewerMajorVersionIsRefused) {
    auto parsed = parse_uv_lock(replaced(small, "version = 1\n", "version = 2\n"), "uv.lock");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().describe(),
              "uv.lock:1:11: uv.lock version 2 is newer than the version this aitk-env reads (1)");
    EXPECT_NE(parsed.error().hint.find("uv lock"), std::string::npos);
}

TEST(UvLockParse, AnUnknownKeyIsNamed) {
    EXPECT_EQ(
        problem(replaced(small, "size = 11050", "size = 11050, mirror = \"x\"")).substr(0, 40),
        "uv.lock:18:166: unknown key `package[1].");
}

TEST(UvLockParse, AnEdgeToNoPackageIsRefused) {
    EXPECT_EQ(problem(replaced(small, "{ name = \"six\" }", "{ name = \"seven\" }")),
              "uv.lock:10:5: package `demo 0.1.0` depends on `seven`, which is not a package of "
              "the lock");
}

TEST(UvLockParse, AHashThatIsNotSha256IsRefused) {
    EXPECT_NE(problem(replaced(small, "sha256:4721", "md5:4721")).find("is not a sha256 hash"),
              std::string::npos);
}

TEST(UvLockParse, ABadMarkerIsNamed) {
    const auto text =
        replaced(small, "{ name = \"six\" }", "{ name = \"six\", marker = \"os_name ==\" }");
    EXPECT_EQ(problem(text).rfind("uv.lock:10:", 0), 0u) << problem(text);
    EXPECT_NE(problem(text).find("invalid marker"), std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
