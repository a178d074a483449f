// `setup -l LOCK --require-hashes` (app/hash_checks.hpp): a lock whose packages do not all install
// from one file with a sha256 is refused before anything is installed.
#include <gtest/gtest.h>

#include "hash_checks.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

lock::Lockfile lock_with(std::vector<lock::LockedPackage> packages) {
    lock::Lockfile lockfile;
    lock::LockedTarget target;
    target.id = "linux-x86_64-cpu";
    target.packages = std::move(packages);
    lockfile.targets.push_back(std::move(target));
    return lockfile;
}

lock::LockedPackage wheel_package(std::string name, std::string sha256) {
    lock::LockedPackage p;
    p.name = name;
    p.version = "1.0";
    p.wheel = lock::LockedFile{name + "-1.0-py3-none-any.whl",
                               "https://example.invalid/" + name + "-1.0-py3-none-any.whl",
                               std::move(sha256), 10};
    return p;
}

TEST(RequireHashesOnALock, EveryFileWithASha256Passes) {
    EXPECT_NO_THROW(refuse_unhashed_locked_files(
        lock_with({wheel_package("a", std::string(64, 'a'))}), "env.lock.yml"));
}

TEST(RequireHashesOnALock, GitSourcesAndFilesWithoutDigestsAreRefusedByName) {
    lock::LockedPackage git;
    git.name = "fromgit";
    git.source = lock::LockedSource{};
    git.source->kind = lock::SourceKind::vcs;
    git.source->url = "git+https://example.invalid/x.git";
    try {
        refuse_unhashed_locked_files(
            lock_with({wheel_package("a", std::string(64, 'a')), wheel_package("b", ""), git}),
            "env.lock.yml");
        FAIL() << "accepted";
    } catch (const util::InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("env.lock.yml: --require-hashes"), std::string::npos) << what;
        EXPECT_NE(what.find("linux-x86_64-cpu: b 1.0"), std::string::npos) << what;
        EXPECT_NE(what.find("linux-x86_64-cpu: fromgit"), std::string::npos) << what;
        EXPECT_EQ(what.find(": a 1.0"), std::string::npos) << what;
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
