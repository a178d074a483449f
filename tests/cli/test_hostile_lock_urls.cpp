// A lockfile from someone else names where each file comes from. A file: URL (or a plain path)
// there must not read whatever this user can read (`file:///etc/shadow`, whose sha256 the hash
// check would then print): it is followed only under the lock's own folder or a folder the
// user passed (--find-links, a file: index). Everything else is refused with exit 2 naming the
// lock file:line, the URL, the rule and the fix, before anything is read or changed. And
// `mirror --base-url` with credentials keeps them out of the pages it writes, saying so once.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

class HostileLockUrls : public VictimWorldTest {
  protected:
    // The victim wheel's URL as the world's lock writes it.
    static std::string victim_url() {
        return world->server.url("/files/simple/victim/" + world->victim.filename);
    }

    // The world's lock with the victim wheel's URL replaced by `url`, written to `path`.
    static stdfs::path lock_naming(const std::string& url, const stdfs::path& path) {
        std::string text = world->lock_text;
        const auto from = victim_url();
        const auto at = text.find(from);
        EXPECT_NE(at, std::string::npos) << "the lock does not name " << from;
        if (at != std::string::npos) text.replace(at, from.size(), url);
        stdfs::create_directories(path.parent_path());
        fs::write_file_atomic(path, text);
        return path;
    }

    // The 1-based line of `needle` in `file`.
    static std::size_t line_of(const stdfs::path& file, const std::string& needle) {
        const auto text = fs::read_file(file);
        const auto at = text.find(needle);
        if (at == std::string::npos) return 0;
        return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
    }

    // `args` (run without an index: the lock's URLs are what is opened) must exit 2 naming
    // the lock and line, the URL, the rule and the fix, and change nothing.
    static void expect_refused(const std::vector<std::string>& args, const stdfs::path& lock,
                               const std::string& url,
                               const std::string& cache_sha256_allowed = {}) {
        const auto before = world->state();
        auto r = world->cli_with_index(args, "");
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
        std::string missing;
        const std::string where = lock.string() + ":" + std::to_string(line_of(lock, url)) + ":";
        EXPECT_TRUE(mentions_all(r.err,
                                 {where, url, "only under its own folder or a folder you passed",
                                  "--find-links DIR", "beside the lock"},
                                 missing))
            << "missing " << missing << "in:\n"
            << r.err;
        EXPECT_EQ(VictimWorld::changes(before, world->state(), cache_sha256_allowed), "");
    }

    static std::vector<std::string> sync_args(const stdfs::path& lock) {
        return {"sync", "-l", lock.string(), "-p", world->path("prefix").string()};
    }
};

// The lock names /etc/shadow as the victim's wheel: refused by sync, setup, mirror and bundle,
// and nothing of the file (its hash) is shown.
TEST_F(HostileLockUrls, AFileUrlToEtcShadowIsRefusedEverywhere) {
    const std::string url = "file:///etc/shadow";
    const auto lock = lock_naming(url, world->path("shadow/env.lock.yml"));
    expect_refused(sync_args(lock), lock, url);
    expect_refused({"setup", "-l", lock.string(), "-p", world->path("new-prefix").string(),
                    "--python", hostile_python, "--no-smoke-test"},
                   lock, url);
    expect_refused({"mirror", "-l", lock.string(), "-o", world->path("mirror-out").string()}, lock,
                   url);
    expect_refused(
        {"bundle", "-l", lock.string(), "-o", world->path("out.tar.zst").string(), "--no-python"},
        lock, url);
    // With a cache that does not hold the victim the file would be read: its sha256 (what
    // the hash check would print) appears nowhere.
    auto cold =
        cli_with_cache(*world, world->path("cold-shadow"),
                       {"mirror", "-l", lock.string(), "-o", world->path("mirror-cold").string()});
    EXPECT_EQ(cold.exit_code, 2) << cold.err;
    std::string shadow_sha;
    try {
        shadow_sha = fs::sha256_file_hex("/etc/shadow");
    } catch (...) {
        // Not readable here: nothing to leak.
    }
    if (!shadow_sha.empty()) {
        EXPECT_EQ(cold.err.find(shadow_sha), std::string::npos) << cold.err;
    }
}

// Plain paths, `..` out of the lock's folder and a symbolic link beside the lock that leads
// out are refused the same way.
TEST_F(HostileLockUrls, PathsDotDotAndLinksOutOfTheLocksFolderAreRefused) {
    const auto wheel = world->path("elsewhere") / world->victim.filename;
    stdfs::create_directories(wheel.parent_path());
    stdfs::copy_file(world->victim.path, wheel, stdfs::copy_options::overwrite_existing);

    const std::string plain = wheel.string();
    auto lock = lock_naming(plain, world->path("plain/env.lock.yml"));
    expect_refused(sync_args(lock), lock, plain);

    const std::string dotdot =
        "file://" + world->path("dotdot").string() + "/../elsewhere/" + world->victim.filename;
    lock = lock_naming(dotdot, world->path("dotdot/env.lock.yml"));
    expect_refused(sync_args(lock), lock, dotdot);

    const auto link = world->path("linked") / world->victim.filename;
    stdfs::create_directories(link.parent_path());
    stdfs::create_symlink(wheel, link);
    const std::string linked = "file://" + link.string();
    lock = lock_naming(linked, world->path("linked/env.lock.yml"));
    expect_refused(sync_args(lock), lock, linked);
}

// A wheel beside the lock, or in a folder passed with --find-links, is read: a new prefix is
// set up from it with a cache that has never seen it.
TEST_F(HostileLockUrls, AFileBesideTheLockOrUnderFindLinksIsRead) {
    const auto beside = world->path("beside") / world->victim.filename;
    stdfs::create_directories(beside.parent_path());
    stdfs::copy_file(world->victim.path, beside, stdfs::copy_options::overwrite_existing);
    const auto lock = lock_naming("file://" + beside.string(), world->path("beside/env.lock.yml"));
    auto made =
        cli_with_cache(*world, world->path("cold-1"),
                       {"setup", "-l", lock.string(), "-p", world->path("from-beside").string(),
                        "--python", hostile_python, "--no-smoke-test"});
    EXPECT_EQ(made.exit_code, 0) << made.err;

    const auto wheels = world->path("wheels") / world->victim.filename;
    stdfs::create_directories(wheels.parent_path());
    stdfs::copy_file(world->victim.path, wheels, stdfs::copy_options::overwrite_existing);
    const auto far_lock =
        lock_naming("file://" + wheels.string(), world->path("locks/env.lock.yml"));
    auto refused = cli_with_cache(
        *world, world->path("cold-2"),
        {"mirror", "-l", far_lock.string(), "-o", world->path("from-find-links").string()});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_FALSE(stdfs::exists(world->path("from-find-links")));
    auto passed =
        cli_with_cache(*world, world->path("cold-2"),
                       {"--find-links", world->path("wheels").string(), "mirror", "-l",
                        far_lock.string(), "-o", world->path("from-find-links").string()});
    EXPECT_EQ(passed.exit_code, 0) << passed.err;
    EXPECT_TRUE(stdfs::exists(world->path("from-find-links") / "files" / "victim" /
                              world->victim.filename));
}

// `mirror --base-url https://user:token@host/…` writes absolute links without the credentials
// (every reader of the pages would read them) and says so once, without showing them.
TEST_F(HostileLockUrls, MirrorBaseUrlCredentialsStayOutOfThePages) {
    const auto out = world->path("mirror-creds");
    auto r = world->cli_with_index(
        {"mirror", "-l", world->path("env.lock.yml").string(), "-o", out.string(), "--base-url",
         "https://mirror-user:t0ps3cret@mirror.example/pypi/"},
        "");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (auto it = stdfs::recursive_directory_iterator(out);
         it != stdfs::recursive_directory_iterator(); ++it) {
        if (!it->is_regular_file() || it->path().extension() == ".whl") continue;
        const auto text = fs::read_file(it->path());
        EXPECT_EQ(text.find("t0ps3cret"), std::string::npos) << it->path();
        EXPECT_EQ(text.find("mirror-user"), std::string::npos) << it->path();
    }
    const auto page = fs::read_file(out / "simple" / "victim" / "index.html");
    EXPECT_NE(page.find("https://mirror.example/pypi/files/victim/"), std::string::npos) << page;
    EXPECT_EQ(r.err.find("t0ps3cret"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("t0ps3cret"), std::string::npos) << r.out;
    const auto warning = r.err.find("warning: ");
    ASSERT_NE(warning, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("warning: ", warning + 1), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("credentials"), std::string::npos) << r.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
