// TLS trust and credentials through the real binary, against an HTTPS mirror on 127.0.0.1:
// certificates that must be refused (unknown CA, self-signed, expired, not yet valid, another
// host) with a message that says why and how to fix it and nothing installed; a private CA
// accepted through --cert, SSL_CERT_FILE and REQUESTS_CA_BUNDLE; and an index behind basic auth,
// reached with user:password in the URL or through ~/.netrc, by every command, verbose and
// --json, in success and failure, with the promise that the secret shows nowhere: not in what
// was printed, not in any file written (lockfile, exports, prefix, cache, bundle members, mirror),
// not in a cache file name. The same artifact is one cache entry with or without credentials.
// The lock's URLs carry no credentials, so `setup -r` and `bundle` fetch the files with the
// index's (same origin only), and a .netrc serves a bare `setup -l LOCK`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string python_bin = "/root/.pyenv/versions/3.11.7/bin";
constexpr const char* user = "tlsuser7";
constexpr const char* password = "Pw-9f3kQ2zX";

// Where a secret was found: "stderr of lock", "file cache/http/…".
struct Leak {
    std::string where;
    std::string needle;
};

std::ostream& operator<<(std::ostream& out, const Leak& leak) {
    return out << leak.where << " holds '" << leak.needle << "'";
}

// The forms a credential must never take in output: the password, and the user name as it
// appears in a URL's userinfo or in a sentence.
const std::vector<std::string>& secrets() {
    static const std::vector<std::string> all = {password, std::string(user) + ":",
                                                 std::string(user) + "@", user};
    return all;
}

void scan_text(const std::string& where, const std::string& text, std::vector<Leak>& leaks) {
    for (const auto& secret : secrets()) {
        if (text.find(secret) != std::string::npos) leaks.push_back({where, secret});
    }
}

// Every file name and every file's bytes under `root`; bundles are opened and each member is
// scanned too.
void scan_tree(const stdfs::path& root, std::vector<Leak>& leaks) {
    std::error_code ec;
    if (!stdfs::exists(root, ec)) return;
    for (auto it = stdfs::recursive_directory_iterator(root, ec);
         it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const auto& entry = *it;
        const auto relative = stdfs::relative(entry.path(), root).string();
        scan_text("file name " + relative, relative, leaks);
        if (!entry.is_regular_file() || entry.is_symlink()) continue;
        scan_text("file " + relative, fs::read_file(entry.path()), leaks);
        if (entry.path().string().ends_with(".tar.zst")) {
            auto reader = archive::Reader::open(entry.path());
            while (const auto* member = reader.next()) {
                const std::string name = relative + "!" + member->path;
                scan_text("member name " + name, member->path, leaks);
                scan_text("member " + name, reader.read_all(1ull << 30), leaks);
            }
        }
    }
}

// Relative paths of every file under `root` (cache layout comparisons).
std::set<std::string> file_names(const stdfs::path& root) {
    std::set<std::string> names;
    for (const auto& entry : stdfs::recursive_directory_iterator(root)) {
        if (entry.is_regular_file()) names.insert(stdfs::relative(entry.path(), root).string());
    }
    return names;
}

class TlsCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!stdfs::exists(python_bin + "/python3.11")) return;
        shared = new fs::TempDir(fs::TempDir::create("aitk-tls-cli-shared"));
        const auto& dir = shared->path();
        good = TestPki::generate(dir / "good");
        other = TestPki::generate(dir / "other");
        expired = TestPki::generate_expired(dir / "expired");
        not_yet_valid = TestPki::generate_not_yet_valid(dir / "not-yet-valid");
        other_host = TestPki::generate_for_host(dir / "other-host", "mirror.example.org");
        self_signed = TestPki::generate_self_signed(dir / "self-signed");
        auto scenario = nlohmann::json::parse(R"({
          "indexes": {"simple": {}},
          "wheels": [
            {"index": "simple", "name": "alpha", "version": "1.0", "requires_dist": ["beta>=2"],
             "console_scripts": ["alpha-cli = alpha:main"]},
            {"index": "simple", "name": "beta", "version": "2.0"}
          ]})");
        build_mirror(dir / "mirror", scenario);
    }
    static void TearDownTestSuite() {
        delete shared;
        shared = nullptr;
    }

    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.11")) GTEST_SKIP() << "no CPython 3.11.7";
        fs::write_file_atomic(work.path() / "requirements.txt", "alpha\n");
        stdfs::create_directories(work.path() / "home");
        stdfs::create_directories(work.path() / "xdg");
        stdfs::create_directories(work.path() / "etc");
        // `setup -r` writes its lock under the working folder (lockfiles/): keep it in the
        // scanned folder, and out of the checkout.
        previous_cwd = stdfs::current_path();
        stdfs::current_path(work.path());
    }
    void TearDown() override {
        if (!previous_cwd.empty()) stdfs::current_path(previous_cwd);
    }

    static std::unique_ptr<HttpServer> https_server(const TestPki& pki, bool auth = false) {
        ServerOptions options;
        options.https = true;
        options.cert_file = pki.server_cert;
        options.key_file = pki.server_key;
        if (auth) options.basic_auth = std::make_pair(std::string(user), std::string(password));
        auto server = std::make_unique<HttpServer>(options);
        server->serve_directory(shared->path() / "mirror", "/");
        return server;
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    // A clean environment: no proxy, no CA or index settings from this machine, HOME (and so
    // ~/.netrc) inside the test's folder. `more` adds or overrides NAME=value entries.
    std::vector<std::string> environment(const std::vector<std::string>& more = {}) const {
        std::vector<std::string> env = {"-u http_proxy",
                                        "-u https_proxy",
                                        "-u HTTPS_PROXY",
                                        "-u HTTP_PROXY",
                                        "-u ALL_PROXY",
                                        "-u SSL_CERT_FILE",
                                        "-u SSL_CERT_DIR",
                                        "-u REQUESTS_CA_BUNDLE",
                                        "-u CURL_CA_BUNDLE",
                                        "-u NETRC",
                                        "-u AITK_ENV_TORCH_BACKEND",
                                        "-u AITK_ENV_INDEX_URL",
                                        "-u AITK_ENV_EXTRA_INDEX_URL",
                                        "-u AITK_ENV_FIND_LINKS",
                                        "-u AITK_ENV_TORCH_INDEX_URL",
                                        "-u AITK_ENV_REWRITE_URL",
                                        "-u AITK_ENV_OFFLINE",
                                        "-u AITK_ENV_CACHE_DIR",
                                        "PATH=" + python_bin + ":/usr/bin:/bin",
                                        "PYENV_ROOT=/nonexistent",
                                        "HOME=" + path("home"),
                                        "XDG_CONFIG_HOME=" + path("xdg"),
                                        "AITK_ENV_SYSTEM_CONFIG_DIR=" + path("etc"),
                                        "AITK_ENV_NO_GPU=1",
                                        "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
                                        "AITK_ENV_NVIDIA_SMI=/nonexistent"};
        for (const auto& m : more)
            env.push_back(m);  // run_cli passes them as they are (no shell)
        return env;
    }

    CliResult run(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
        args.insert(args.begin(), "--no-progress");
        auto result = run_cli(args, "", environment(env));
        std::string shown;
        for (const auto& a : args)
            shown += " " + a;
        transcript.push_back({shown, result});
        return result;
    }

    std::vector<std::string> lock_args(const std::string& index, const std::string& lockfile,
                                       const std::string& cache) const {
        return {"--index-url",
                index,
                "--cache-dir",
                path(cache),
                "lock",
                "-r",
                path("requirements.txt"),
                "-o",
                path(lockfile),
                "--python",
                "3.11.7",
                "--target",
                "linux-x86_64-cpu"};
    }

    std::vector<std::string> setup_args(const std::string& index, const std::string& prefix,
                                        const std::string& cache) const {
        return {"--index-url",
                index,
                "--cache-dir",
                path(cache),
                "setup",
                "-r",
                path("requirements.txt"),
                "-p",
                path(prefix),
                "--python",
                python_bin + "/python3.11",
                "--no-smoke-test"};
    }

    // Every secret found in what the commands printed so far.
    std::vector<Leak> output_leaks() const {
        std::vector<Leak> leaks;
        for (const auto& [args, result] : transcript) {
            scan_text("stdout of" + args, result.out, leaks);
            scan_text("stderr of" + args, result.err, leaks);
        }
        return leaks;
    }

    std::vector<Leak> all_leaks() const {
        auto leaks = output_leaks();
        scan_tree(work.path(), leaks);
        return leaks;
    }

    std::string last_output() const {
        if (transcript.empty()) return {};
        const auto& [args, result] = transcript.back();
        return args + "\n-- exit " + std::to_string(result.exit_code) + "\n-- stdout\n" +
               result.out + "\n-- stderr\n" + result.err;
    }

    static inline fs::TempDir* shared = nullptr;
    static inline TestPki good, other, expired, not_yet_valid, other_host, self_signed;

    fs::TempDir work = fs::TempDir::create("aitk-tls-cli");
    stdfs::path previous_cwd;
    std::vector<std::pair<std::string, CliResult>> transcript;
};

// The leak scan itself: a secret in a file name, in a file, in a bundle member is found.
TEST(TlsCliScan, FindsTheSecretsWhereverTheyAre) {
    fs::TempDir dir = fs::TempDir::create("aitk-tls-cli-scan");
    std::vector<Leak> leaks;
    scan_tree(dir.path(), leaks);
    EXPECT_TRUE(leaks.empty());
    fs::write_file_atomic(dir.path() / "a.txt", std::string("see https://") + user + "@host/");
    fs::write_file_atomic(dir.path() / (std::string("x-") + password), "");
    archive::write_archive(
        dir.path() / "b.tar.zst", archive::Format::tar_zst,
        {archive::WriteEntry::file("lock.yml", std::string("token ") + password)}, {});
    scan_tree(dir.path(), leaks);
    std::set<std::string> where;
    for (const auto& leak : leaks)
        where.insert(leak.where + " " + leak.needle);
    // (The compressed bundle itself may show the member's bytes too: zstd keeps tiny blocks raw.)
    for (const std::string& expected :
         {"file a.txt " + std::string(user), "file a.txt " + std::string(user) + "@",
          "file name x-" + std::string(password) + " " + password,
          "member b.tar.zst!lock.yml " + std::string(password)}) {
        EXPECT_TRUE(where.count(expected)) << expected;
    }
}

// ---- trust --------------------------------------------------------------------------------

// No lockfile, no prefix: a refused certificate stops `lock` and `setup` before they write.
TEST_F(TlsCli, UntrustedCertificatesAreRefusedWithTheFix) {
    struct Case {
        const char* name;
        const TestPki* served;
        std::vector<std::string> trust;  // extra global options
    };
    const std::vector<Case> cases = {
        {"a CA that is not configured", &good, {}},
        {"a CA that is not configured (another one is)", &good, {"--cert", other.ca_cert.string()}},
        {"self-signed", &self_signed, {"--cert", self_signed.ca_cert.string()}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto server = https_server(*c.served);
        auto args = lock_args(server->url("/simple/"), "env.lock.yml", "cache");
        args.insert(args.begin(), c.trust.begin(), c.trust.end());
        auto locked = run(args);
        EXPECT_EQ(locked.exit_code, 1) << last_output();
        EXPECT_THAT(locked.err, HasSubstr("certificate is not trusted")) << last_output();
        EXPECT_THAT(locked.err, HasSubstr("--cert FILE")) << last_output();
        EXPECT_THAT(locked.err, HasSubstr("SSL_CERT_FILE")) << last_output();
        EXPECT_FALSE(stdfs::exists(path("env.lock.yml")));

        args = setup_args(server->url("/simple/"), "prefix", "cache");
        args.insert(args.begin(), c.trust.begin(), c.trust.end());
        auto set_up = run(args);
        EXPECT_EQ(set_up.exit_code, 1) << last_output();
        EXPECT_THAT(set_up.err, HasSubstr("certificate is not trusted")) << last_output();
        EXPECT_THAT(set_up.err, HasSubstr("--cert FILE")) << last_output();
        EXPECT_FALSE(stdfs::exists(path("prefix")));
        EXPECT_TRUE(server->requests().empty());  // no request got past the handshake
    }
}

// A lock made while the CA was trusted, installed where it is not: nothing is installed.
TEST_F(TlsCli, SetupFromALockRefusesAnUntrustedServerAndInstallsNothing) {
    auto server = https_server(good);
    auto args = lock_args(server->url("/simple/"), "env.lock.yml", "cache");
    args.insert(args.begin(), {"--cert", good.ca_cert.string()});
    ASSERT_EQ(run(args).exit_code, 0) << last_output();

    auto set_up =
        run({"--cache-dir", path("fresh-cache"), "setup", "-l", path("env.lock.yml"), "-p",
             path("prefix"), "--python", python_bin + "/python3.11", "--no-smoke-test"});

    EXPECT_EQ(set_up.exit_code, 1) << last_output();
    EXPECT_THAT(set_up.err, HasSubstr("certificate is not trusted")) << last_output();
    EXPECT_THAT(set_up.err, HasSubstr("alpha-1.0-py3-none-any.whl")) << last_output();
    const auto site = stdfs::path(path("prefix")) / "lib" / "python3.11" / "site-packages";
    EXPECT_FALSE(stdfs::exists(site / "alpha")) << last_output();
    EXPECT_FALSE(stdfs::exists(site / "beta")) << last_output();
    EXPECT_FALSE(stdfs::exists(site / "alpha-1.0.dist-info")) << last_output();
}

TEST_F(TlsCli, ExpiredNotYetValidAndOtherHostCertificatesAreRefusedEvenWithTheirCa) {
    struct Case {
        const TestPki* served;
        std::string says;
    };
    const std::vector<Case> cases = {
        {&expired, "the server's certificate has expired"},
        {&not_yet_valid, "the server's certificate is not valid yet: check this machine's clock"},
        {&other_host, "the server's certificate is for another host name"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.says);
        auto server = https_server(*c.served);
        auto args = lock_args(server->url("/simple/"), "env.lock.yml", "cache");
        args.insert(args.begin(), {"--cert", c.served->ca_cert.string()});
        auto locked = run(args);
        EXPECT_EQ(locked.exit_code, 1) << last_output();
        EXPECT_THAT(locked.err, HasSubstr(c.says)) << last_output();
        // Trusting another CA would not help: the message must not send the user there.
        EXPECT_THAT(locked.err, Not(HasSubstr("not trusted"))) << last_output();
        EXPECT_THAT(locked.err, Not(HasSubstr("--cert"))) << last_output();
        EXPECT_FALSE(stdfs::exists(path("env.lock.yml")));

        args = setup_args(server->url("/simple/"), "prefix", "cache");
        args.insert(args.begin(), {"--cert", c.served->ca_cert.string()});
        auto set_up = run(args);
        EXPECT_EQ(set_up.exit_code, 1) << last_output();
        EXPECT_THAT(set_up.err, HasSubstr(c.says)) << last_output();
        EXPECT_FALSE(stdfs::exists(path("prefix")));
        EXPECT_TRUE(server->requests().empty());
    }
}

TEST_F(TlsCli, APrivateCaIsTrustedThroughCertSslCertFileAndRequestsCaBundle) {
    auto server = https_server(good);
    const std::string ca = good.ca_cert.string();
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> ways = {
        {{"--cert", ca}, {}},
        {{}, {"SSL_CERT_FILE=" + ca}},
        {{}, {"REQUESTS_CA_BUNDLE=" + ca}},
        // The option wins over a variable naming a CA that did not sign the server.
        {{"--cert", ca}, {"SSL_CERT_FILE=" + other.ca_cert.string()}},
    };
    int n = 0;
    for (const auto& [options, env] : ways) {
        const std::string lockfile = "env-" + std::to_string(n++) + ".lock.yml";
        auto args = lock_args(server->url("/simple/"), lockfile, "cache-" + std::to_string(n));
        args.insert(args.begin(), options.begin(), options.end());
        auto locked = run(args, env);
        EXPECT_EQ(locked.exit_code, 0) << last_output();
        EXPECT_TRUE(stdfs::exists(path(lockfile))) << last_output();
    }
    // SSL_CERT_FILE wins over REQUESTS_CA_BUNDLE.
    auto args = lock_args(server->url("/simple/"), "env-both.lock.yml", "cache-both");
    auto both = run(args, {"SSL_CERT_FILE=" + other.ca_cert.string(), "REQUESTS_CA_BUNDLE=" + ca});
    EXPECT_EQ(both.exit_code, 1) << last_output();
    EXPECT_THAT(both.err, HasSubstr("certificate is not trusted")) << last_output();
    // A CA file that is not there is named with where it came from.
    auto missing = run(args, {"SSL_CERT_FILE=" + path("no-such-ca.pem")});
    EXPECT_EQ(missing.exit_code, 2) << last_output();
    EXPECT_THAT(missing.err, HasSubstr("no-such-ca.pem' (from SSL_CERT_FILE) does not exist"))
        << last_output();
}

// ---- credentials --------------------------------------------------------------------------

class TlsCredentialsCli : public TlsCli {
  protected:
    void SetUp() override {
        TlsCli::SetUp();
        if (IsSkipped()) return;
        server = https_server(good, true);
    }

    std::string index() const { return server->url_with_credentials(user, password, "/simple/"); }

    // Global options every command gets: trust, verbose.
    CliResult run_v(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
        args.insert(args.begin(), {"-v", "--cert", good.ca_cert.string()});
        return run(std::move(args), env);
    }

    // Every request the server answered (other than 401 challenges) came with the user.
    void expect_authenticated_requests() const {
        std::size_t authenticated = 0;
        for (const auto& r : server->requests()) {
            if (r.status == 401) continue;
            EXPECT_EQ(r.auth_user, user) << r.path;
            ++authenticated;
        }
        EXPECT_GT(authenticated, 0u);
    }

    void expect_no_leaks() const {
        const auto leaks = all_leaks();
        EXPECT_TRUE(leaks.empty()) << ::testing::PrintToString(leaks);
    }

    // Every command that reads a lock or a prefix (`lock` and `setup` were run by the caller).
    // `bundle_cache` empty: the bundle reuses `cache`; else it downloads into a fresh one.
    void run_every_command(const std::string& cache, const std::vector<std::string>& index_option,
                           const std::vector<std::string>& env = {},
                           const std::string& bundle_cache = {}) {
        auto with_index = [&](std::vector<std::string> args) {
            args.insert(args.begin(), index_option.begin(), index_option.end());
            args.insert(args.begin(), {"--cache-dir", path(cache)});
            return args;
        };
        const auto lockfile = path("env.lock.yml");
        auto synced =
            run_v(with_index({"sync", "-l", lockfile, "-p", path("prefix"), "--json"}), env);
        EXPECT_EQ(synced.exit_code, 0) << last_output();
        auto dry = run_v(
            with_index({"sync", "-l", lockfile, "-p", path("prefix"), "--dry-run", "--json"}), env);
        EXPECT_EQ(dry.exit_code, 0) << last_output();
        dry = run_v(with_index({"setup", "-l", lockfile, "-p", path("dry"), "--python",
                                python_bin + "/python3.11", "--dry-run", "--json"}),
                    env);
        EXPECT_EQ(dry.exit_code, 0) << last_output();
        EXPECT_EQ(run_v({"list", "-p", path("prefix"), "--json"}, env).exit_code, 0)
            << last_output();
        auto verified = run_v({"verify", "-p", path("prefix"), "-l", lockfile, "--json"}, env);
        EXPECT_EQ(verified.exit_code, 0) << last_output();
        EXPECT_EQ(run_v({"verify", "-p", path("prefix")}, env).exit_code, 0) << last_output();
        for (const std::string format : {"env-yml", "requirements", "pylock", "dockerfile"}) {
            stdfs::create_directories(path("exports/" + format));
            auto exported = run_v({"export", "-l", lockfile, "--format", format, "-o",
                                   path("exports/" + format + "/from-lock")},
                                  env);
            EXPECT_EQ(exported.exit_code, 0) << last_output();
            exported = run_v({"export", "-l", lockfile, "--format", format, "--json"}, env);
            EXPECT_EQ(exported.exit_code, 0) << last_output();
            exported = run_v({"export", "-p", path("prefix"), "--format", format}, env);
            EXPECT_EQ(exported.exit_code, 0) << last_output();
        }
        auto snap = run_v(with_index({"snapshot", "-p", path("prefix"), "-o",
                                      path("snapshot.lock.yml"), "--json"}),
                          env);
        EXPECT_EQ(snap.exit_code, 0) << last_output();
        auto bundle_args = with_index(
            {"bundle", "-l", lockfile, "-o", path("env.tar.zst"), "--no-python", "--json"});
        if (!bundle_cache.empty()) bundle_args[1] = path(bundle_cache);
        auto bundled = run_v(bundle_args, env);
        EXPECT_EQ(bundled.exit_code, 0) << last_output();
        auto mirrored = run_v(with_index({"mirror", "-l", lockfile, "-o", path("mirror"),
                                          "--base-url", "https://mirror.example.org/", "--json"}),
                              env);
        EXPECT_EQ(mirrored.exit_code, 0) << last_output();
        for (const bool json : {false, true}) {
            std::vector<std::string> args = with_index({"doctor", "-p", path("prefix")});
            if (json) args.push_back("--json");
            auto doctor = run_v(args, env);
            EXPECT_NE(doctor.exit_code, 2) << last_output();
            EXPECT_FALSE(doctor.out.empty()) << last_output();
        }
    }

    std::unique_ptr<HttpServer> server;
};

TEST_F(TlsCredentialsCli, UserAndPasswordInTheIndexUrlShowNowhere) {
    auto locked = run_v({"--index-url", index(), "--cache-dir", path("cache"), "lock", "-r",
                         path("requirements.txt"), "-o", path("env.lock.yml"), "--python", "3.11.7",
                         "--target", "linux-x86_64-cpu", "--json"});
    ASSERT_EQ(locked.exit_code, 0) << last_output();
    EXPECT_THAT(fs::read_file(path("env.lock.yml")),
                HasSubstr("--index-url " + server->url("/simple/")));
    // From requirements: the files are fetched with the credentials they were resolved with.
    auto direct = run_v({"--index-url", index(), "--cache-dir", path("cache-direct"), "setup", "-r",
                         path("requirements.txt"), "-p", path("direct"), "--python", "3.11",
                         "--no-smoke-test", "--json"});
    EXPECT_EQ(direct.exit_code, 0) << last_output();
    EXPECT_TRUE(stdfs::exists(path("direct/lib/python3.11/site-packages/beta-2.0.dist-info")));
    EXPECT_TRUE(stdfs::exists(path("lockfiles/requirements.lock.yml")));
    auto set_up = run_v({"--index-url", index(), "--cache-dir", path("cache"), "setup", "-l",
                         path("env.lock.yml"), "-p", path("prefix"), "--python",
                         python_bin + "/python3.11", "--no-smoke-test", "--json"});
    ASSERT_EQ(set_up.exit_code, 0) << last_output();
    EXPECT_TRUE(stdfs::exists(path("prefix/lib/python3.11/site-packages/alpha-1.0.dist-info")));

    // The bundle downloads its files again, into an empty cache, with the index's credentials
    // (the lock's URLs have none).
    server->clear_log();
    run_every_command("cache", {"--index-url", index()}, {}, "cache-bundle");
    EXPECT_EQ(server->requests_for("/files/simple/alpha/alpha-1.0-py3-none-any.whl").size(), 1u);
    // Sent elsewhere by a rewrite rule (a pull-through cache on another origin), the files go
    // without the index's credentials.
    auto elsewhere = https_server(good);
    auto rewritten =
        run_v({"--index-url", index(), "--cache-dir", path("cache-rewritten"), "bundle", "-l",
               path("env.lock.yml"), "-o", path("rewritten.tar.zst"), "--no-python"},
              {"AITK_ENV_REWRITE_URL=" + server->base_url() + "/=" + elsewhere->base_url() + "/"});
    EXPECT_EQ(rewritten.exit_code, 0) << last_output();
    EXPECT_EQ(elsewhere->requests().size(), 2u);
    for (const auto& r : elsewhere->requests())
        EXPECT_EQ(r.auth_user, "") << r.path;

    // Every kind of index option, each with the credentials.
    auto all_options = run_v({"--index-url",
                              index(),
                              "--extra-index-url",
                              server->url_with_credentials(user, password, "/other/"),
                              "--find-links",
                              server->url_with_credentials(user, password, "/files/simple/beta/"),
                              "--torch-index-url",
                              server->url_with_credentials(user, password, "/whl"),
                              "--cache-dir",
                              path("cache-all"),
                              "lock",
                              "-r",
                              path("requirements.txt"),
                              "-o",
                              path("all.lock.yml"),
                              "--python",
                              "3.11.7",
                              "--target",
                              "linux-x86_64-cpu",
                              "--json"});
    EXPECT_EQ(all_options.exit_code, 0) << last_output();
    // The same through the environment (as CI secrets are usually passed).
    auto env_lock =
        run_v({"--cache-dir", path("cache-env"), "lock", "-r", path("requirements.txt"), "-o",
               path("env-from-env.lock.yml"), "--python", "3.11.7", "--target", "linux-x86_64-cpu"},
              {"AITK_ENV_INDEX_URL=" + index()});
    EXPECT_EQ(env_lock.exit_code, 0) << last_output();

    expect_authenticated_requests();
    expect_no_leaks();
}

TEST_F(TlsCredentialsCli, NetrcCredentialsShowNowhereAndShareTheCacheLayout) {
    // HOME outside the scanned folder: the .netrc itself holds the password, of course.
    fs::TempDir home = fs::TempDir::create("aitk-tls-cli-home");
    fs::write_file_atomic(home.path() / ".netrc", std::string("machine 127.0.0.1\n  login ") +
                                                      user + "\n  password " + password + "\n");
    stdfs::permissions(home.path() / ".netrc",
                       stdfs::perms::owner_read | stdfs::perms::owner_write);
    const std::vector<std::string> env = {"HOME=" + home.path().string()};
    const std::string plain = server->url("/simple/");

    auto locked = run_v({"--index-url", plain, "--cache-dir", path("cache"), "lock", "-r",
                         path("requirements.txt"), "-o", path("env.lock.yml"), "--python", "3.11.7",
                         "--target", "linux-x86_64-cpu", "--json"},
                        env);
    ASSERT_EQ(locked.exit_code, 0) << last_output();
    // A lock alone is enough: its URLs need no index to be fetched.
    auto set_up =
        run_v({"--cache-dir", path("cache"), "setup", "-l", path("env.lock.yml"), "-p",
               path("prefix"), "--python", python_bin + "/python3.11", "--no-smoke-test", "--json"},
              env);
    ASSERT_EQ(set_up.exit_code, 0) << last_output();
    // The bundle downloads its files again, into an empty cache, with .netrc's credentials.
    server->clear_log();
    run_every_command("cache", {"--index-url", plain}, env, "cache-bundle");
    EXPECT_EQ(server->requests_for("/files/simple/alpha/alpha-1.0-py3-none-any.whl").size(), 1u);
    expect_authenticated_requests();
    expect_no_leaks();

    // The same lock and setup with the credentials in the URL fill another cache with the same
    // entries: the credentials are no part of any cache key.
    auto url_lock = run_v({"--index-url", index(), "--cache-dir", path("cache-url"), "lock", "-r",
                           path("requirements.txt"), "-o", path("url.lock.yml"), "--python",
                           "3.11.7", "--target", "linux-x86_64-cpu"});
    ASSERT_EQ(url_lock.exit_code, 0) << last_output();
    EXPECT_EQ(fs::read_file(path("url.lock.yml")), fs::read_file(path("env.lock.yml")));
    auto url_setup = run_v({"--index-url", index(), "--cache-dir", path("cache-url"), "setup", "-l",
                            path("url.lock.yml"), "-p", path("url-prefix"), "--python",
                            python_bin + "/python3.11", "--no-smoke-test"});
    ASSERT_EQ(url_setup.exit_code, 0) << last_output();
    auto netrc_only = run_v({"--index-url", plain, "--cache-dir", path("cache-netrc"), "lock", "-r",
                             path("requirements.txt"), "-o", path("netrc.lock.yml"), "--python",
                             "3.11.7", "--target", "linux-x86_64-cpu"},
                            env);
    ASSERT_EQ(netrc_only.exit_code, 0) << last_output();
    auto netrc_setup = run_v({"--index-url", plain, "--cache-dir", path("cache-netrc"), "setup",
                              "-l", path("netrc.lock.yml"), "-p", path("netrc-prefix"), "--python",
                              python_bin + "/python3.11", "--no-smoke-test"},
                             env);
    ASSERT_EQ(netrc_setup.exit_code, 0) << last_output();
    EXPECT_EQ(file_names(path("cache-url")), file_names(path("cache-netrc")));
    // And a run with credentials finds what a run without them cached: no download.
    server->clear_log();
    auto again = run_v({"--index-url", index(), "--cache-dir", path("cache-netrc"), "setup", "-l",
                        path("url.lock.yml"), "-p", path("again"), "--python",
                        python_bin + "/python3.11", "--no-smoke-test"});
    EXPECT_EQ(again.exit_code, 0) << last_output();
    for (const auto& r : server->requests())
        EXPECT_FALSE(r.path.ends_with(".whl")) << r.path;
    expect_no_leaks();
}

TEST_F(TlsCredentialsCli, FailuresNeverShowTheCredentials) {
    constexpr const char* wrong = "Wr0ng-Pa55word";
    const std::string wrong_index = server->url_with_credentials(user, wrong, "/simple/");
    auto denied = run_v({"--index-url", wrong_index, "--cache-dir", path("cache"), "lock", "-r",
                         path("requirements.txt"), "-o", path("env.lock.yml"), "--python", "3.11.7",
                         "--target", "linux-x86_64-cpu", "--json"});
    EXPECT_EQ(denied.exit_code, 1) << last_output();
    EXPECT_THAT(denied.err,
                HasSubstr("HTTP 401 Unauthorized (check the credentials in the URL or in .netrc)"))
        << last_output();
    EXPECT_EQ(denied.out.find(wrong), std::string::npos) << last_output();
    EXPECT_EQ(denied.err.find(wrong), std::string::npos) << last_output();
    auto denied_setup = run_v({"--index-url", wrong_index, "--cache-dir", path("cache"), "setup",
                               "-r", path("requirements.txt"), "-p", path("denied"), "--python",
                               python_bin + "/python3.11", "--no-smoke-test", "--json"});
    EXPECT_EQ(denied_setup.exit_code, 1) << last_output();
    EXPECT_THAT(denied_setup.err, HasSubstr("401")) << last_output();
    EXPECT_EQ(denied_setup.err.find(wrong), std::string::npos) << last_output();
    EXPECT_FALSE(stdfs::exists(path("denied")));

    // Without any credentials: 401 and the same hint.
    auto anonymous = run_v({"--index-url", server->url("/simple/"), "--cache-dir", path("cache"),
                            "lock", "-r", path("requirements.txt"), "-o", path("env.lock.yml")});
    EXPECT_EQ(anonymous.exit_code, 1) << last_output();
    EXPECT_THAT(anonymous.err, HasSubstr("check the credentials in the URL or in .netrc"));

    // A wheel the index lists but the server has lost.
    auto locked = run_v({"--index-url", index(), "--cache-dir", path("cache"), "lock", "-r",
                         path("requirements.txt"), "-o", path("env.lock.yml"), "--python", "3.11.7",
                         "--target", "linux-x86_64-cpu"});
    ASSERT_EQ(locked.exit_code, 0) << last_output();
    server->set_fault("/files/simple/beta/beta-2.0-py3-none-any.whl",
                      Fault::http_status(404, 1000));
    auto lost = run_v({"--index-url", index(), "--cache-dir", path("cache"), "setup", "-l",
                       path("env.lock.yml"), "-p", path("lost"), "--python",
                       python_bin + "/python3.11", "--no-smoke-test", "--json"});
    EXPECT_EQ(lost.exit_code, 1) << last_output();
    EXPECT_THAT(lost.err, HasSubstr("HTTP 404")) << last_output();
    EXPECT_THAT(lost.err, HasSubstr("beta-2.0-py3-none-any.whl")) << last_output();
    EXPECT_FALSE(stdfs::exists(path("lost/lib/python3.11/site-packages/alpha-1.0.dist-info")));
    auto lost_bundle =
        run_v({"--index-url", index(), "--cache-dir", path("cache-b"), "bundle", "-l",
               path("env.lock.yml"), "-o", path("lost.tar.zst"), "--no-python", "--json"},
              {"HOME=" + path("home")});
    EXPECT_EQ(lost_bundle.exit_code, 1) << last_output();
    EXPECT_FALSE(stdfs::exists(path("lost.tar.zst")));
    auto lost_mirror = run_v({"--index-url", index(), "--cache-dir", path("cache-m"), "mirror",
                              "-l", path("env.lock.yml"), "-o", path("lost-mirror"), "--json"});
    EXPECT_EQ(lost_mirror.exit_code, 1) << last_output();
    server->clear_faults();

    // The server gone: connection refused, said without the credentials.
    server->stop();
    const std::vector<std::string> no_retries = {"AITK_ENV_HTTP_RETRIES=0"};
    auto refused = run_v({"--index-url", index(), "--cache-dir", path("cache-gone"), "lock", "-r",
                          path("requirements.txt"), "-o", path("gone.lock.yml"), "--json"},
                         no_retries);
    EXPECT_EQ(refused.exit_code, 1) << last_output();
    EXPECT_THAT(refused.err, HasSubstr("https://***@127.0.0.1:" + std::to_string(server->port())))
        << last_output();
    EXPECT_THAT(refused.err, HasSubstr("Couldn't connect to server")) << last_output();
    auto refused_setup = run_v({"--index-url", index(), "--cache-dir", path("cache-gone"), "setup",
                                "-l", path("env.lock.yml"), "-p", path("gone"), "--python",
                                python_bin + "/python3.11", "--no-smoke-test", "--json"},
                               no_retries);
    EXPECT_EQ(refused_setup.exit_code, 1) << last_output();
    expect_no_leaks();
    std::vector<Leak> wrong_leaks;
    for (const auto& [args, result] : transcript) {
        if (result.out.find(wrong) != std::string::npos) wrong_leaks.push_back({args, wrong});
        if (result.err.find(wrong) != std::string::npos) wrong_leaks.push_back({args, wrong});
    }
    EXPECT_TRUE(wrong_leaks.empty()) << ::testing::PrintToString(wrong_leaks);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
