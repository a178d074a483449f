// Hostile wheels and index responses through the real binary. A prefix is set up once with a
// harmless "victim 1.0"; each test then serves something hostile in its place and runs
// `aitk-env sync` (wheels) or `aitk-env lock` (index pages) against it. Every refusal must exit
// 1, name the file or URL, the place (member, key) and the problem, and change nothing: the
// prefix, the cache (its locks and staging aside) and the folders around them are compared
// entry by entry (type, mode, bytes, link target) before and after.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// Every occurrence of `from` replaced; false when there is none.
bool replace_all(std::string& text, const std::string& from, const std::string& to) {
    bool found = false;
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
        found = true;
    }
    return found;
}

class HostileWheels : public VictimWorldTest {
  protected:
    // A wheel named like a new release of the victim, with the members `edit` leaves.
    static BuiltArtifact hostile_wheel(
        const std::string& tag, const std::function<void(std::vector<archive::WriteEntry>&)>& edit,
        const std::string& version = "2.0") {
        WheelSpec spec;
        spec.name = "victim";
        spec.version = version;
        auto entries = wheel_entries(spec);
        edit(entries);
        return write_wheel("victim-" + version + "-py3-none-any.whl", std::move(entries),
                           world->path("mirror/files/hostile/" + tag));
    }

    // The victim's lock with `wheel` in its place (version, hash, size, URL), as a new file.
    static stdfs::path lock_for(const BuiltArtifact& wheel, const std::string& version) {
        std::string text = world->lock_text;
        const auto& v = world->victim;
        const std::string rel =
            wheel.path.lexically_relative(world->path("mirror")).generic_string();
        bool ok = replace_all(text, v.sha256, wheel.sha256) &&
                  replace_all(text, "/files/simple/victim/" + v.filename, "/" + rel) &&
                  replace_all(text, v.filename, wheel.filename) &&
                  replace_all(text, "victim==1.0", "victim==" + version) &&
                  replace_all(text, "version: \"1.0\"", "version: \"" + version + "\"") &&
                  replace_all(text, "size: " + std::to_string(v.size),
                              "size: " + std::to_string(wheel.size));
        EXPECT_TRUE(ok) << "the lock no longer has the expected shape:\n" << world->lock_text;
        static int counter = 0;
        auto out = world->path("hostile-" + std::to_string(counter++) + ".lock.yml");
        fs::write_file_atomic(out, text);
        return out;
    }

    // Runs `sync` with `wheel` in the lock: it must exit 1 with an error holding every one of
    // `parts`, and change nothing but the verified download in the cache.
    static void expect_refused(const BuiltArtifact& wheel, const std::vector<std::string>& parts,
                               const std::string& version = "2.0") {
        const auto lock = lock_for(wheel, version);
        const auto before = world->state();
        auto r = world->cli_with_index(
            {"sync", "-l", lock.string(), "-p", world->path("prefix").string()}, "");
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err;
        EXPECT_EQ(VictimWorld::changes(before, world->state(), wheel.sha256), "");
        stdfs::remove(lock);
    }
};

archive::WriteEntry file_entry(std::string path, std::string content) {
    return archive::WriteEntry::file(std::move(path), std::move(content));
}

// Adds a member and lists it correctly in RECORD, so only its path is wrong.
std::function<void(std::vector<archive::WriteEntry>&)> with_member(std::string path) {
    return [path](std::vector<archive::WriteEntry>& entries) {
        entries.insert(entries.begin(), file_entry(path, "pwned\n"));
        set_record(entries);
    };
}

TEST_F(HostileWheels, TheBaselineWheelInstalls) {
    // The corpus proves refusals only if the same path installs a well-formed wheel.
    auto good = hostile_wheel(
        "good", [](auto&) {}, "1.5");
    const auto lock = lock_for(good, "1.5");
    const auto prefix = world->path("prefix").string();
    auto r = world->cli_with_index({"sync", "-l", lock.string(), "-p", prefix}, "");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto listed = world->cli_with_index({"list", "-p", prefix}, "");
    EXPECT_NE(listed.out.find("1.5"), std::string::npos) << listed.out;
    // Back to victim 1.0 for the other tests.
    r = world->cli_with_index({"sync", "-l", world->path("env.lock.yml").string(), "-p", prefix},
                              "");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    stdfs::remove(lock);
}

TEST_F(HostileWheels, ZipSlipMembersAreRefused) {
    expect_refused(hostile_wheel("slip1", with_member("../x")),
                   {"wheel victim-2.0-py3-none-any.whl", "member '../x'", "'..' component"});
    expect_refused(
        hostile_wheel("slip2", with_member("victim/../../x")),
        {"wheel victim-2.0-py3-none-any.whl", "member 'victim/../../x'", "'..' component"});
}

TEST_F(HostileWheels, AbsoluteMemberPathsAreRefused) {
    const std::string tmp_target = "/tmp/aitk-hostile-" + std::to_string(::getpid()) + "-x";
    expect_refused(
        hostile_wheel("abs1", with_member(tmp_target)),
        {"wheel victim-2.0-py3-none-any.whl", "member '" + tmp_target + "'", "absolute path"});
    EXPECT_FALSE(stdfs::exists(tmp_target));
    expect_refused(
        hostile_wheel("abs2", with_member("C:\\x")),
        {"wheel victim-2.0-py3-none-any.whl", "member 'C:", "x': starts with a drive letter"});
    expect_refused(hostile_wheel("abs3", with_member("\\\\server\\x")),
                   {"wheel victim-2.0-py3-none-any.whl", "server", "x': is an absolute path"});
}

TEST_F(HostileWheels, SymlinkMembersAreRefused) {
    const std::string outside = world->path("outside").string();
    auto link = [](std::string path, std::string target, bool then_file) {
        return [=](std::vector<archive::WriteEntry>& entries) {
            entries.insert(entries.begin(), archive::WriteEntry::symlink(path, target));
            if (then_file) entries.insert(entries.begin() + 1, file_entry(path + "/x", "pwned\n"));
            set_record(entries);
        };
    };
    expect_refused(hostile_wheel("link1", link("victim/evil", outside + "/x", false)),
                   {"wheel victim-2.0-py3-none-any.whl", "member 'victim/evil'",
                    "is a symlink (to '" + outside + "/x'); links are not allowed"});
    expect_refused(hostile_wheel("link2", link("victim/evil", "../../../outside/x", false)),
                   {"wheel victim-2.0-py3-none-any.whl", "member 'victim/evil'",
                    "is a symlink (to '../../../outside/x'); links are not allowed"});
    // A member whose path goes through the link: written through it, it would land outside.
    expect_refused(
        hostile_wheel("link3", link("victim/dir", outside, true)),
        {"wheel victim-2.0-py3-none-any.whl", "member 'victim/dir'", "links are not allowed"});
}

TEST_F(HostileWheels, AMemberThatInflatesPastItsDeclaredSizeIsStopped) {
    // 64 MiB of zeros deflate to ~64 KiB; the headers claim 1000 bytes.
    auto wheel = hostile_wheel("bomb1", [](std::vector<archive::WriteEntry>& entries) {
        entries.insert(entries.begin(), file_entry("victim/bomb.bin", std::string(1000, '\0')));
        set_record(entries);
        entries.front().content = std::string(64u << 20, '\0');
    });
    patch_zip_declared_size(wheel.path, "victim/bomb.bin", 1000);
    wheel.sha256 = fs::sha256_file_hex(wheel.path);
    wheel.size = stdfs::file_size(wheel.path);
    expect_refused(wheel, {"wheel victim-2.0-py3-none-any.whl", "member 'victim/bomb.bin'",
                           "inflates past the 1000 bytes it declares"});
}

TEST_F(HostileWheels, AMemberClaimingFarMoreThanItHoldsIsRefused) {
    // An absurd ratio: 4 GB declared for a few compressed bytes.
    auto wheel = hostile_wheel("bomb2", [](std::vector<archive::WriteEntry>& entries) {
        entries.insert(entries.begin(), file_entry("victim/bomb.bin", "tiny"));
        set_record(entries);
    });
    patch_zip_declared_size(wheel.path, "victim/bomb.bin", 4'000'000'000u);
    wheel.sha256 = fs::sha256_file_hex(wheel.path);
    wheel.size = stdfs::file_size(wheel.path);
    expect_refused(wheel, {"wheel victim-2.0-py3-none-any.whl", "member 'victim/bomb.bin'",
                           "wrong size (read 4, expected 4000000000)"});
}

TEST_F(HostileWheels, AWheelDeclaringTooManyMembersIsRefusedBeforeAnyIsWritten) {
    auto wheel = hostile_wheel("many", [](auto&) {});
    patch_zip_declared_count(wheel.path, 1'000'000);
    wheel.sha256 = fs::sha256_file_hex(wheel.path);
    wheel.size = stdfs::file_size(wheel.path);
    expect_refused(wheel, {"wheel victim-2.0-py3-none-any.whl: declares 1000000 members, past the "
                           "limit of 500000 entries"});
}

TEST_F(HostileWheels, RecordMismatchesAreRefused) {
    expect_refused(hostile_wheel("rec-hash",
                                 [](std::vector<archive::WriteEntry>& entries) {
                                     entries.front().content = "__version__ = \"6.6\"\n";
                                 }),
                   {"wheel victim-2.0-py3-none-any.whl", "member 'victim/__init__.py'",
                    "RECORD says sha256="});
    expect_refused(
        hostile_wheel("rec-size",
                      [](std::vector<archive::WriteEntry>& entries) {
                          auto& record = entries.back().content;
                          auto line = record_line(entries.front().path, entries.front().content);
                          auto fixed = line;
                          fixed.replace(fixed.rfind(',') + 1, std::string::npos, "9999\n");
                          record.replace(record.find(line), line.size(), fixed);
                      }),
        {"wheel victim-2.0-py3-none-any.whl", "member 'victim/__init__.py'", "RECORD says 9999"});
    expect_refused(
        hostile_wheel("rec-unlisted",
                      [](std::vector<archive::WriteEntry>& entries) {
                          entries.insert(entries.begin(), file_entry("victim/extra.py", "x = 1\n"));
                      }),
        {"wheel victim-2.0-py3-none-any.whl", "member 'victim/extra.py'", "not listed in RECORD"});
    expect_refused(hostile_wheel("rec-absent",
                                 [](std::vector<archive::WriteEntry>& entries) {
                                     entries.back().content +=
                                         record_line("victim/ghost.py", "ghost = 1\n");
                                 }),
                   {"wheel victim-2.0-py3-none-any.whl", "member 'victim/ghost.py'",
                    "listed in RECORD but not in the wheel"});
}

TEST_F(HostileWheels, MetadataThatContradictsTheFileNameIsRefused) {
    auto edit_metadata = [](std::string from, std::string to) {
        return [=](std::vector<archive::WriteEntry>& entries) {
            for (auto& e : entries) {
                if (e.path.ends_with(".dist-info/METADATA")) {
                    e.content.replace(e.content.find(from), from.size(), to);
                }
            }
            set_record(entries);
        };
    };
    expect_refused(hostile_wheel("meta-name", edit_metadata("Name: victim", "Name: requests")),
                   {"wheel victim-2.0-py3-none-any.whl", "member 'victim-2.0.dist-info/METADATA'",
                    "names the project 'requests', but the wheel is victim 2.0"});
    expect_refused(hostile_wheel("meta-version", edit_metadata("Version: 2.0", "Version: 6.6")),
                   {"wheel victim-2.0-py3-none-any.whl", "member 'victim-2.0.dist-info/METADATA'",
                    "says version 6.6, but the wheel is victim 2.0"});
}

TEST_F(HostileWheels, AMissingOrUnknownWheelFileIsRefused) {
    expect_refused(hostile_wheel("no-wheel-file",
                                 [](std::vector<archive::WriteEntry>& entries) {
                                     std::erase_if(entries, [](const auto& e) {
                                         return e.path.ends_with(".dist-info/WHEEL");
                                     });
                                     set_record(entries);
                                 }),
                   {"wheel victim-2.0-py3-none-any.whl: has no victim-2.0.dist-info/WHEEL"});
    expect_refused(hostile_wheel("wheel-v2",
                                 [](std::vector<archive::WriteEntry>& entries) {
                                     for (auto& e : entries) {
                                         if (e.path.ends_with(".dist-info/WHEEL")) {
                                             e.content.replace(0, 18, "Wheel-Version: 2.0");
                                         }
                                     }
                                     set_record(entries);
                                 }),
                   {"wheel victim-2.0-py3-none-any.whl, member 'victim-2.0.dist-info/WHEEL'",
                    "has Wheel-Version 2.0; aitk-env installs wheels of version 1.x"});
}

TEST_F(HostileWheels, DuplicateMembersAreRefused) {
    expect_refused(hostile_wheel("dup",
                                 [](std::vector<archive::WriteEntry>& entries) {
                                     entries.insert(entries.begin() + 1,
                                                    file_entry(entries.front().path, "evil\n"));
                                 }),
                   {"wheel victim-2.0-py3-none-any.whl, member 'victim/__init__.py'",
                    "appears more than once in the archive"});
}

// Index pages. Each hostile page is served as the project page of an index of its own
// ("/hostile/<tag>/victim/"), its links pointing at the real victim wheel, and `aitk-env lock`
// resolves against it: a page that cannot be read is refused with exit 1 and the page's URL,
// and neither a lockfile nor anything in the cache appears.
class HostileIndex : public HostileWheels {
  protected:
    static std::string wheel_href() {
        return "/files/simple/victim/" + world->victim.filename + "#sha256=" + world->victim.sha256;
    }

    static std::string serve_page(const std::string& tag, std::string body,
                                  const std::string& content_type = "text/html") {
        world->server.add_file("/hostile/" + tag + "/victim/", std::move(body), content_type);
        return world->server.url("/hostile/" + tag + "/");
    }

    static CliResult lock_against(const std::string& index_url) {
        return world->cli_with_index({"lock", "-r", world->path("requirements.txt").string(), "-o",
                                      world->path("out.lock.yml").string(), "--python", "3.11.7",
                                      "--target", "linux-x86_64-cpu"},
                                     index_url);
    }

    static void expect_lock_refused(const std::string& index_url,
                                    const std::vector<std::string>& parts,
                                    bool page_is_valid = false) {
        SCOPED_TRACE(index_url);
        const auto before = world->state();
        auto r = lock_against(index_url);
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err.substr(0, 2000);
        EXPECT_EQ(VictimWorld::changes(before, world->state(), {}, page_is_valid), "");
    }

    // A page that is untidy but readable (as browsers and pip read it) locks the right file.
    static void expect_lock_reads(const std::string& index_url) {
        SCOPED_TRACE(index_url);
        auto r = lock_against(index_url);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const std::string lock = fs::read_file(world->path("out.lock.yml"));
        EXPECT_NE(lock.find("sha256: " + world->victim.sha256), std::string::npos) << lock;
        stdfs::remove(world->path("out.lock.yml"));
    }
};

// A server whose every answer is an HTML page that never ends: it writes until the client
// hangs up.
class EndlessServer {
  public:
    EndlessServer() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(fd_, 16) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error("EndlessServer: cannot listen");
        }
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~EndlessServer() {
        stopping_ = true;
        ::shutdown(fd_, SHUT_RDWR);
        ::close(fd_);
        thread_.join();
    }
    EndlessServer(const EndlessServer&) = delete;
    EndlessServer& operator=(const EndlessServer&) = delete;

    std::string url(const std::string& path) const {
        return "http://127.0.0.1:" + std::to_string(port_) + path;
    }
    std::uint64_t bytes_sent() const { return sent_; }

  private:
    void serve() {
        std::string chunk;
        while (chunk.size() < (1u << 20))
            chunk += "<a href=\"/x/victim-0.1-py3-none-any.whl\">victim-0.1-py3-none-any.whl</a>\n";
        while (!stopping_) {
            const int client = ::accept(fd_, nullptr, nullptr);
            if (client < 0) return;
            std::string request;
            char buffer[4096];
            while (request.find("\r\n\r\n") == std::string::npos) {
                const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
                if (n <= 0) break;
                request.append(buffer, static_cast<std::size_t>(n));
            }
            const std::string head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n<html>\n";
            ssize_t n = ::send(client, head.data(), head.size(), MSG_NOSIGNAL);
            while (!stopping_ && n > 0) {
                n = ::send(client, chunk.data(), chunk.size(), MSG_NOSIGNAL);
                if (n > 0) sent_ += static_cast<std::uint64_t>(n);
            }
            ::close(client);
        }
    }

    int fd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<std::uint64_t> sent_{0};
    std::thread thread_;
};

TEST_F(HostileIndex, UntidyHtmlIsReadAsBrowsersReadIt) {
    const std::string href = wheel_href();
    const std::string name = world->victim.filename;
    // Attributes without quotes are valid HTML.
    expect_lock_reads(serve_page("unquoted", "<a href=" + href + ">" + name + "</a>"));
    // Unclosed tags: the link is complete, the document is not.
    expect_lock_reads(serve_page("unclosed", "<html><body><div><a href=\"" + href + "\">" + name));
    // Bytes that are not text around the links are ignored.
    expect_lock_reads(serve_page("garbage", std::string("\xff\xfe\x00<<>><p>", 10) + "<a href=\"" +
                                                href + "\">x</a>" + "\x80\x81\xc3"));
}

TEST_F(HostileIndex, HtmlPagesWhoseOnlyLinksAreBrokenAreRefusedWithTheirUrl) {
    // Not "no version of victim is available": the page is broken, and the user is told how.
    const std::string file = "/files/simple/victim/" + world->victim.filename;
    auto url = serve_page("html-utf8",
                          "<a href=\"" + file + "\xff#sha256=" + world->victim.sha256 + "\">x</a>");
    expect_lock_refused(url, {url + "victim/: no file it lists is usable: the link is not "
                                    "valid UTF-8"});
    url = serve_page("html-fragment", "<a href=\"" + file + "#sha256=xyz\">x</a>");
    expect_lock_refused(url, {url + "victim/: no file it lists is usable:", "sha256"});
}

TEST_F(HostileIndex, MalformedJsonPagesAreRefusedWithTheirUrl) {
    const std::string json_type(pep691_json);
    const std::string file = "{\"filename\": \"" + world->victim.filename + "\", \"url\": \"" +
                             wheel_href().substr(0, wheel_href().find('#')) +
                             "\", \"hashes\": {\"sha256\": \"" + world->victim.sha256 + "\"}}";
    auto page = [&](const std::string& meta, const std::string& files) {
        return "{" + meta + "\"name\": \"victim\", \"files\": " + files + "}";
    };
    const std::string meta = "\"meta\": {\"api-version\": \"1.1\"}, ";
    // The control: this page is fine.
    expect_lock_reads(serve_page("json-ok", page(meta, "[" + file + "]"), json_type));

    auto url = serve_page(
        "json-v2", page("\"meta\": {\"api-version\": \"2.0\"}, ", "[" + file + "]"), json_type);
    expect_lock_refused(url, {url + "victim/: the page uses version '2.0' of the simple API"});
    url = serve_page("json-no-meta", page("", "[" + file + "]"), json_type);
    expect_lock_refused(url, {url + "victim/: the page has no \"meta\" object"});
    url = serve_page("json-files-text", page(meta, "\"nope\""), json_type);
    expect_lock_refused(url, {url + "victim/: the page has no \"files\" array"});
    std::string numeric = file;
    numeric.replace(numeric.find("\"" + world->victim.sha256 + "\""), 66, "5");
    url = serve_page("json-hash-number", page(meta, "[" + numeric + "]"), json_type);
    expect_lock_refused(url, {url + "victim/: no file it lists is usable: "
                                    "files[0].hashes.sha256 must be a string, not number"});
    std::string no_url = file;
    no_url.erase(no_url.find(", \"url\""), no_url.find(", \"hashes\"") - no_url.find(", \"url\""));
    url = serve_page("json-no-url", page(meta, "[" + no_url + "]"), json_type);
    expect_lock_refused(url, {url + "victim/: no file it lists is usable: files[0] has no url"});
    url = serve_page("json-cut", page(meta, "[" + file + "]").substr(0, 60), json_type);
    expect_lock_refused(url, {url + "victim/", "not valid JSON"});
    std::string bad_text = page(meta, "[" + file + "]");
    bad_text.replace(bad_text.find("\"victim\""), 8, "\"vic\xfftim\"");
    url = serve_page("json-utf8", bad_text, json_type);
    expect_lock_refused(url, {url + "victim/", "not valid JSON", "UTF-8"});
}

TEST_F(HostileIndex, AHugePageIsRefusedAtTheLimit) {
    std::string body = "<html><body>\n<a href=\"" + wheel_href() + "\">x</a>\n";
    const std::string filler(1u << 20, ' ');
    while (body.size() < (101u << 20))
        body += filler;
    const auto url = serve_page("huge", std::move(body));
    expect_lock_refused(url, {url + "victim/", "above the limit of 67108864 bytes"});
}

TEST_F(HostileIndex, AnEndlessPageIsCutOffAtTheLimit) {
    EndlessServer endless;
    const auto url = endless.url("/simple/");
    expect_lock_refused(url, {url + "victim/", "larger than the 268435456-byte limit"});
    // Cut off near the limit (in-memory bodies stop at 256 MiB), not read to the end of time.
    EXPECT_LT(endless.bytes_sent(), 2 * (256ull << 20));
}

TEST_F(HostileIndex, AMetadataFileThatDisagreesWithTheIndexOrTheFileNameIsRefused) {
    // A victim wheel of its own (metadata is cached by the wheel's hash) with a PEP 658 file
    // of the test's choosing beside it.
    auto serve = [](const std::string& tag, const std::string& metadata,
                    const std::string& claimed_sha256) {
        WheelSpec spec;
        spec.name = "victim";
        spec.version = "1.0";
        spec.summary = tag;
        const auto wheel = build_wheel(spec, world->path("mirror/files/hostile/" + tag));
        fs::write_file_atomic(wheel.path.string() + ".metadata", metadata);
        const std::string href = "/files/hostile/" + tag + "/" + wheel.filename;
        return std::make_pair(
            serve_page(tag, "<a href=\"" + href + "#sha256=" + wheel.sha256 +
                                "\" data-core-metadata=\"sha256=" + claimed_sha256 + "\">x</a>"),
            world->server.url(href + ".metadata"));
    };
    const std::string other = "Metadata-Version: 2.1\nName: requests\nVersion: 1.0\n";
    auto [url, metadata_url] = serve("meta-name", other, fs::sha256_hex(other));
    expect_lock_refused(url,
                        {"METADATA of " + world->victim.filename, "PEP 658 metadata file",
                         "describes requests 1.0, not what the filename says (victim 1.0)"},
                        true);
    const std::string newer = "Metadata-Version: 2.1\nName: victim\nVersion: 9.9\n";
    std::tie(url, metadata_url) = serve("meta-version", newer, fs::sha256_hex(newer));
    expect_lock_refused(url, {"describes victim 9.9, not what the filename says (victim 1.0)"},
                        true);
    const std::string garbage = std::string("\x1b[2J\0\xff", 6) + "garbage\n";
    std::tie(url, metadata_url) = serve("meta-garbage", garbage, fs::sha256_hex(garbage));
    expect_lock_refused(url, {"is not valid core metadata", "\\x1b[2J\\x00\\xffgarbage"}, true);
    const std::string same = wheel_metadata([] {
        WheelSpec spec;
        spec.name = "victim";
        spec.version = "1.0";
        spec.summary = "meta-hash";
        return spec;
    }());
    std::tie(url, metadata_url) = serve("meta-hash", same, std::string(64, 'a'));
    expect_lock_refused(url,
                        {"the sha256 of " + metadata_url + " is " + fs::sha256_hex(same) +
                         ", but the index says " + std::string(64, 'a')},
                        true);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
