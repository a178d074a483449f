// Input files that are not files (issue 33, item 4), through the real binary: a device, a FIFO,
// a folder or a sparse file of a terabyte named with -r, -f, -m, -l or included with -r. Each is
// refused at once (exit 2, naming the path and what it is) before a byte is read, and nothing
// changes. Every run has a time limit: a command that blocks on a FIFO or reads /dev/zero until
// it is killed fails its test instead of hanging the suite.
//
// /dev/null is refused like any device: it is no requirements file, and an empty one is what a
// user who means "nothing" writes.
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#ifndef _WIN32
#include <sys/stat.h>
#endif

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "hostile_run.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

class HostileInputFiles : public VictimWorldTest {
  protected:
    // `args` must exit 2 within 30 s with every one of `parts` in its error, and change nothing.
    static void expect_refused(const std::vector<std::string>& args,
                               const std::vector<std::string>& parts) {
        const auto before = world->state();
        HostileRun how;
        how.limit = std::chrono::seconds(30);
        auto r = run_in_world(*world, args, how);
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err.substr(0, 2000);
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err.substr(0, 2000);
        EXPECT_EQ(VictimWorld::changes(before, world->state()), "");
    }

    // Every way a file is named as an input, for `path`.
    static std::vector<std::vector<std::string>> commands(const std::string& path) {
        const std::string out = world->path("out.lock.yml").string();
        const std::string python = hostile_python_version;
        return {
            {"lock", "-r", path, "-o", out, "--python", python, "--target", hostile_target},
            {"lock", "-f", path, "-o", out, "--python", python, "--target", hostile_target},
            {"lock", "-m", path, "-o", out, "--python", python, "--target", hostile_target},
            {"setup", "-l", path, "-p", world->path("new-prefix").string(), "--python",
             hostile_python, "--no-smoke-test"},
            {"sync", "-l", path, "-p", world->path("prefix").string()},
            {"export", "-l", path, "--format", "requirements"},
        };
    }

    // A requirements file in the world that includes `path` with -r on its second line.
    static std::string including(const std::string& path) {
        const auto file = world->path("in/includes.txt");
        stdfs::create_directories(file.parent_path());
        // Forward slashes: in a requirements file, as in pip, a backslash escapes the next
        // character, so a Windows path is written C:/like/this.
        fs::write_file_atomic(file, "victim\n-r " + stdfs::path(path).generic_string() + "\n");
        return file.string();
    }

    // Outside the world: a terabyte file must never be hashed by state().
    fs::TempDir elsewhere = fs::TempDir::create("aitk-input-files");
};

TEST_F(HostileInputFiles, AFolderIsNoInputFile) {
    const std::string dir = elsewhere.path().string();
    for (const auto& args : commands(dir)) {
        SCOPED_TRACE(args[0] + " " + args[1]);
        expect_refused(args, {dir, "not a regular file (a directory)"});
    }
    const auto file = including(dir);
    expect_refused(commands(file).front(),
                   {file + ":2:4: cannot read requirements file '" + dir +
                    "': not a regular file (a directory); give a requirements file"});
}

#ifndef _WIN32
TEST_F(HostileInputFiles, DevicesAreRefusedBeforeAByteIsRead) {
    // Before: -r /dev/zero grew to 24 GB and was killed.
    for (const std::string device : {"/dev/zero", "/dev/null"}) {
        for (const auto& args : commands(device)) {
            SCOPED_TRACE(args[0] + " " + args[1] + " " + device);
            expect_refused(args, {device, "not a regular file (a character device)"});
        }
    }
    const auto file = including("/dev/zero");
    expect_refused(commands(file).front(),
                   {file + ":2:4: cannot read requirements file '/dev/zero': not a regular file "
                           "(a character device); give a requirements file"});
}

TEST_F(HostileInputFiles, AFifoIsRefusedWithoutWaitingForAWriter) {
    // Before: -r FIFO blocked until someone wrote to it, forever.
    const std::string fifo = (elsewhere.path() / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const auto& args : commands(fifo)) {
        SCOPED_TRACE(args[0] + " " + args[1]);
        expect_refused(args, {fifo, "not a regular file (a FIFO)"});
    }
    const auto file = including(fifo);
    expect_refused(commands(file).front(),
                   {file + ":2:4: cannot read requirements file '" + fifo +
                    "': not a regular file (a FIFO); give a requirements file"});
}

TEST_F(HostileInputFiles, AFileOverItsCapIsRefusedBySizeAlone) {
    // A sparse terabyte: no data on disk, and reading it would never end.
    const auto huge = elsewhere.path() / "huge.txt";
    fs::write_file_atomic(huge, "");
    stdfs::resize_file(huge, 1ull << 40);
    const std::string path = huge.string();
    const std::vector<std::string> kinds = {"a requirements file", "an environment.yml",
                                            "a manifest",          "a lockfile",
                                            "a lockfile",          "a lockfile"};
    const auto all = commands(path);
    for (std::size_t i = 0; i < all.size(); ++i) {
        SCOPED_TRACE(all[i][0] + " " + all[i][1]);
        expect_refused(all[i], {path, "1.0 TiB is over the 64.0 MiB limit for " + kinds[i]});
    }
    const auto file = including(path);
    expect_refused(commands(file).front(),
                   {file + ":2:4: cannot read requirements file '" + path +
                    "': 1.0 TiB is over the 64.0 MiB limit for a requirements file"});
}
#endif

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
