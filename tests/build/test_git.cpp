#include "aitk/build/git.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "aitk/fs/temp.hpp"
#include "build_test_support.hpp"

namespace aitk::build {
namespace AITK_FILE_LOCAL {

using test::git;
using test::read_file;
using test::read_file_or_empty;
using test::write_file;

// A repository with two commits on main, an annotated tag on the first, and a project in
// "sub/" besides the one at the root.
struct Repository {
    test::TempDir dir;
    std::filesystem::path path = dir.path / "origin";
    std::string first, second;

    Repository() {
        test::run({"git", "init", "--quiet", "-b", "main", path.string()});
        write_file(path / "pyproject.toml", "[build-system]\nrequires = []\n");
        write_file(path / "sub" / "pyproject.toml", "# the sub project\n");
        git(path, {"add", "-A"});
        git(path, {"commit", "--quiet", "-m", "first"});
        git(path, {"tag", "-a", "v1.0", "-m", "release 1.0"});
        first = git(path, {"rev-parse", "HEAD"});
        write_file(path / "CHANGES", "second\n");
        git(path, {"add", "-A"});
        git(path, {"commit", "--quiet", "-m", "second"});
        git(path, {"branch", "feature", first});
        second = git(path, {"rev-parse", "HEAD"});
    }
    std::string url(const std::string& rest = "") const {
        return "git+" + test::file_url(path) + rest;
    }
};

pep::VcsUrl parsed(const std::string& url) {
    auto u = parse_git_url(url);
    EXPECT_TRUE(u) << url << ": " << (u ? "" : u.error());
    return u ? *u : pep::VcsUrl{};
}

// A git that logs each command line before running the real one.
std::string logging_git(const std::filesystem::path& dir) {
    auto script = dir / "git-logged";
    write_file(script,
               "#!/bin/sh\necho \"$*\" >> '" + (dir / "git.log").string() + "'\nexec git \"$@\"\n");
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    return script.string();
}

TEST(GitUrl, ParsesRevisionAndSubdirectory) {
    auto u = parsed("git+https://github.com/org/repo.git@v1.2#egg=x&subdirectory=pkg/./inner/");
    EXPECT_EQ(u.repository, "https://github.com/org/repo.git");
    EXPECT_EQ(u.revision, "v1.2");
    EXPECT_EQ(u.subdirectory, "pkg/inner");
    EXPECT_EQ(u.to_string(), "git+https://github.com/org/repo.git@v1.2#subdirectory=pkg/inner");
}

TEST(GitUrl, AnAtInTheAuthorityIsNotARevision) {
    auto u = parsed("git+ssh://git@github.com/org/repo.git");
    EXPECT_EQ(u.repository, "ssh://git@github.com/org/repo.git");
    EXPECT_EQ(u.revision, "");
    auto with_rev = parsed("git+https://user:tok@host/r@refs/pull/12/head");
    EXPECT_EQ(with_rev.repository, "https://user:tok@host/r");
    EXPECT_EQ(with_rev.revision, "refs/pull/12/head");
    auto file = parsed("git+file:///tmp/some/repo@main");
    EXPECT_EQ(file.repository, "file:///tmp/some/repo");
    EXPECT_EQ(file.revision, "main");
}

TEST(GitUrl, RefusesWhatGitWouldMisread) {
    struct Case {
        const char* url;
        const char* error;
    };
    for (const Case& c : std::vector<Case>{
             {"https://host/r", "'https://host/r' is not a git+ URL"},
             {"git+foo://host/r",
              "git+foo URLs are not supported (use git+https, git+ssh or git+file)"},
             {"git+https://host/r@-uexploit", "the revision '-uexploit' starts with '-'"},
             {"git+https://host/r@a:b",
              "the revision 'a:b' contains ':', which git does not allow in a branch, tag or "
              "commit name"},
             {"git+https://host/r@", "the revision after '@' is empty"},
             {"git+https://host/r@a..b", "'a..b' is not a valid branch, tag or commit name"},
             {"git+https:///r", "'git+https:///r' names no host"},
             {"git+https://host/", "'git+https://host/' names no repository path"},
             {"git+https://host/r#subdirectory=../up",
              "#subdirectory=../up is not a folder inside the repository: has a '..' component (it "
              "would leave the destination)"},
         }) {
        auto u = parse_git_url(c.url);
        ASSERT_FALSE(u) << c.url;
        EXPECT_EQ(u.error(), c.error) << c.url;
    }
}

TEST(GitUrl, CanonicalRepository) {
    EXPECT_EQ(canonical_repository("https://User:Secret@GitHub.com/Org/Repo.git/"),
              "https://github.com/Org/Repo");
    EXPECT_EQ(canonical_repository("https://github.com/Org/Repo"), "https://github.com/Org/Repo");
    EXPECT_EQ(canonical_repository("file:///tmp/x.git"), "file:///tmp/x");
}

TEST(GitUrl, SourceIdNamesCanonicalRepositoryCommitAndSubdirectory) {
    auto u = parsed("git+https://tok@github.com/org/repo.git@main#subdirectory=py");
    EXPECT_EQ(git_source_id(u, std::string(40, 'A')),
              "git+https://github.com/org/repo@" + std::string(40, 'a') + "#subdirectory=py");
    EXPECT_TRUE(pep::is_full_commit_id(std::string(40, 'f')));
    EXPECT_TRUE(pep::is_full_commit_id(std::string(64, '0')));
    EXPECT_FALSE(pep::is_full_commit_id(std::string(39, 'f')));
    EXPECT_FALSE(pep::is_full_commit_id(std::string(40, 'g')));
}

TEST(GitEnvironment, DropsRepositoryVariablesAndNeverPrompts) {
    util::Environment base = {{"GIT_DIR", "/elsewhere/.git"},
                              {"GIT_WORK_TREE", "/elsewhere"},
                              {"GIT_INDEX_FILE", "/elsewhere/index"},
                              {"GIT_CONFIG_PARAMETERS", "'core.hooksPath'='/evil'"},
                              {"GIT_SSL_CAINFO", "/etc/ca.pem"},
                              {"HOME", "/home/u"},
                              {"PATH", "/usr/bin"}};
    util::Environment expected = {{"GIT_SSL_CAINFO", "/etc/ca.pem"},
                                  {"HOME", "/home/u"},
                                  {"PATH", "/usr/bin"},
                                  {"GIT_TERMINAL_PROMPT", "0"},
                                  {"GCM_INTERACTIVE", "never"},
                                  {"GIT_SSH_COMMAND", "ssh -o BatchMode=yes"}};
    EXPECT_EQ(git_environment(base), expected);
    base["GIT_SSH_COMMAND"] = "ssh -i key";
    EXPECT_EQ(git_environment(base).at("GIT_SSH_COMMAND"), "ssh -i key");
}

class GitCacheTest : public ::testing::Test {
  protected:
    Repository repo;
    test::TempDir cache_dir;
    cache::Cache store{cache_dir.path / "cache"};
};

TEST_F(GitCacheTest, ResolvesBranchesTagsAndCommits) {
    GitCache git(store);
    EXPECT_EQ(git.resolve(parsed(repo.url("@main"))), repo.second);
    EXPECT_EQ(git.resolve(parsed(repo.url("@feature"))), repo.first);
    EXPECT_EQ(git.resolve(parsed(repo.url("@v1.0"))), repo.first);  // annotated tag, peeled
    EXPECT_EQ(git.resolve(parsed(repo.url())), repo.second);        // the default branch
    EXPECT_EQ(git.resolve(parsed(repo.url("@" + repo.first.substr(0, 10)))), repo.first);
    std::string upper = repo.first;
    for (char& c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(git.resolve(parsed(repo.url("@" + upper))), repo.first);
    EXPECT_TRUE(std::filesystem::exists(git.mirror_dir(repo.url().substr(4)) / "HEAD"));
}

TEST_F(GitCacheTest, ABranchThatMovesIsFetchedAgain) {
    GitCache git(store);
    EXPECT_EQ(git.resolve(parsed(repo.url("@main"))), repo.second);
    write_file(repo.path / "THIRD", "3\n");
    test::git(repo.path, {"add", "-A"});
    test::git(repo.path, {"commit", "--quiet", "-m", "third"});
    std::string third = test::git(repo.path, {"rev-parse", "HEAD"});
    EXPECT_EQ(git.resolve(parsed(repo.url("@main"))), third);
}

TEST_F(GitCacheTest, UnknownRevisionSaysSo) {
    GitCache git(store);
    try {
        git.resolve(parsed(repo.url("@no-such-branch")));
        FAIL() << "resolved";
    } catch (const util::Error& e) {
        EXPECT_EQ(
            std::string(e.what()),
            test::file_url(repo.path) + " has no branch, tag or commit named 'no-such-branch'");
        EXPECT_EQ(e.hint(), "check the name after '@' (git ls-remote " + test::file_url(repo.path) +
                                " lists branches and tags)");
    }
    try {
        git.resolve(parsed(repo.url("@" + std::string(40, 'e'))));
        FAIL() << "resolved";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "commit " + std::string(40, 'e') + " is not in " + test::file_url(repo.path));
    }
}

TEST_F(GitCacheTest, UnreachableRepositoryNamesGitsReason) {
    GitCache git(store);
    try {
        git.resolve(parsed("git+" + test::file_url(repo.dir.path / "missing") + "@main"));
        FAIL() << "resolved";
    } catch (const util::Error& e) {
        std::string what = e.what();
        EXPECT_TRUE(what.starts_with("cannot fetch " + test::file_url(repo.dir.path / "missing") +
                                     ": git exited with status 128:\n"))
            << what;
        EXPECT_NE(what.find("does not appear to be a git repository"), std::string::npos) << what;
    }
}

TEST_F(GitCacheTest, ChecksOutACommitWithItsHistory) {
    GitCache git(store);
    auto url = parsed(repo.url("@v1.0"));
    auto checkout = git.checkout(url, git.resolve(url));
    EXPECT_EQ(checkout.commit, repo.first);
    EXPECT_EQ(checkout.tree, git.checkout_dir(url.repository, repo.first));
    EXPECT_EQ(checkout.project, checkout.tree);
    EXPECT_EQ(read_file(checkout.tree / "pyproject.toml"), "[build-system]\nrequires = []\n");
    EXPECT_FALSE(std::filesystem::exists(checkout.tree / "CHANGES"));  // second commit's file
    EXPECT_EQ(test::git(checkout.tree, {"rev-parse", "HEAD"}), repo.first);
    EXPECT_EQ(test::git(checkout.tree, {"describe", "--tags"}), "v1.0");
    EXPECT_EQ(test::git(checkout.tree, {"remote", "get-url", "origin"}), test::file_url(repo.path));
    EXPECT_EQ(test::git(checkout.tree, {"status", "--porcelain"}), "");
}

TEST_F(GitCacheTest, SubdirectoryIsTheProject) {
    GitCache git(store);
    auto url = parsed(repo.url("@main#subdirectory=sub"));
    auto checkout = git.checkout(url, git.resolve(url));
    EXPECT_EQ(checkout.project, checkout.tree / "sub");
    EXPECT_EQ(read_file(checkout.project / "pyproject.toml"), "# the sub project\n");

    auto missing = parsed(repo.url("@main#subdirectory=nowhere"));
    try {
        git.checkout(missing, repo.second);
        FAIL() << "checked out";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()), "git+" + test::file_url(repo.path) + "@" + repo.second +
                                             "#subdirectory=nowhere: the repository has no "
                                             "folder 'nowhere' at that commit");
    }
}

TEST_F(GitCacheTest, CachedCheckoutAndKnownCommitNeedNoRepository) {
    GitOptions options;
    options.git = logging_git(cache_dir.path);
    GitCache git(store, options);
    auto url = parsed(repo.url("@main"));
    const std::string commit = git.resolve(url);
    auto first = git.checkout(url, commit);
    std::string log = read_file_or_empty(cache_dir.path / "git.log");
    EXPECT_NE(log.find("fetch"), std::string::npos);
    EXPECT_NE(log.find("clone"), std::string::npos);

    std::filesystem::rename(repo.path, repo.dir.path / "moved-away");
    std::filesystem::remove(cache_dir.path / "git.log");
    auto again = git.checkout(url, commit);
    EXPECT_EQ(again.tree, first.tree);
    EXPECT_FALSE(std::filesystem::exists(cache_dir.path / "git.log"));  // git never ran

    // A full commit id already in the mirror is answered there, without a fetch.
    auto pinned = parsed(repo.url("@" + commit));
    EXPECT_EQ(git.resolve(pinned), commit);
    for (const auto& line : test::lines_of(read_file_or_empty(cache_dir.path / "git.log"))) {
        // (-c protocol.file.allow=always: only for file:// repositories, whose submodules
        // may be local too)
        EXPECT_TRUE(line.starts_with("-c protocol.file.allow=always rev-parse ")) << line;
    }
    // A branch must be fetched, so it fails now.
    EXPECT_THROW(git.resolve(url), util::Error);
}

TEST_F(GitCacheTest, CheckoutOfAnUnfetchedCommitFetchesIt) {
    GitCache git(store);
    auto url = parsed(repo.url());
    auto checkout = git.checkout(url, repo.first);  // no resolve() before
    EXPECT_EQ(test::git(checkout.tree, {"rev-parse", "HEAD"}), repo.first);
}

TEST_F(GitCacheTest, UserRepositoryVariablesAreIgnored) {
    GitOptions options;
    options.environment = util::current_environment();
    (*options.environment)["GIT_DIR"] = (cache_dir.path / "not-a-repo").string();
    (*options.environment)["GIT_WORK_TREE"] = cache_dir.path.string();
    GitCache git(store, options);
    auto url = parsed(repo.url("@main"));
    EXPECT_EQ(git.checkout(url, git.resolve(url)).commit, repo.second);
}

TEST_F(GitCacheTest, TwoAtOnceMakeOneCheckout) {
    auto url = parsed(repo.url("@main"));
    std::filesystem::path trees[2];
    std::string errors[2];
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
        threads.emplace_back([&, i]() {
            try {
                GitCache git(store);
                trees[i] = git.checkout(url, repo.second).tree;
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    }
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(errors[0], "");
    EXPECT_EQ(errors[1], "");
    EXPECT_EQ(trees[0], trees[1]);
    EXPECT_EQ(read_file(trees[0] / "CHANGES"), "second\n");
    // Nothing left in staging.
    std::size_t staged = 0;
    if (std::filesystem::exists(store.temp_dir())) {
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(store.temp_dir()))
            ++staged;
    }
    EXPECT_EQ(staged, 0u);
}

TEST_F(GitCacheTest, SubmodulesAreCheckedOut) {
    auto library = repo.dir.path / "library";
    test::run({"git", "init", "--quiet", "-b", "main", library.string()});
    write_file(library / "lib.txt", "library file\n");
    test::git(library, {"add", "-A"});
    test::git(library, {"commit", "--quiet", "-m", "lib"});
    test::git(repo.path, {"-c", "protocol.file.allow=always", "submodule", "add", "--quiet",
                          test::file_url(library), "third_party/lib"});
    test::git(repo.path, {"commit", "--quiet", "-m", "submodule"});
    std::string commit = test::git(repo.path, {"rev-parse", "HEAD"});

    GitCache git(store);
    auto checkout = git.checkout(parsed(repo.url()), commit);
    EXPECT_EQ(read_file(checkout.tree / "third_party" / "lib" / "lib.txt"), "library file\n");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::build
