// TLS trust (custom CA accepted, unknown CA refused, never switched off), credentials from URL
// userinfo and .netrc, and the promise that credentials never show in results or errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>

#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/net/tls.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "http_server.hpp"
#include "net_test_helpers.hpp"
#include "portable_env.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk;
using test::HttpServer;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const test::NoProxyEnvironment no_proxy;
constexpr const char* password = "s3cret-Pa55";
constexpr const char* user = "alice-user";

// The file name OpenSSL looks for in a CA folder: the certificate's subject hash, in hex.
std::string subject_hash_of(const std::filesystem::path& pem) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_file(util::utf8_of(pem).c_str(), "r"),
                                                  &BIO_free);
    std::unique_ptr<X509, decltype(&X509_free)> cert(
        bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr, &X509_free);
    if (!cert) throw std::runtime_error("cannot read " + util::utf8_of(pem));
    char name[16];
    std::snprintf(name, sizeof name, "%08lx", X509_subject_name_hash(cert.get()));
    return name;
}

class TlsTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        pki_dir = new fs::TempDir(fs::TempDir::create("aitk-net-pki"));
        pki = test::TestPki::generate(pki_dir->path());
    }
    static void TearDownTestSuite() {
        delete pki_dir;
        pki_dir = nullptr;
    }
    static test::ServerOptions https_options() {
        test::ServerOptions options;
        options.https = true;
        options.cert_file = pki.server_cert;
        options.key_file = pki.server_key;
        return options;
    }

    static inline fs::TempDir* pki_dir = nullptr;
    static inline test::TestPki pki;

    fs::TempDir dir = fs::TempDir::create("aitk-net-tls");
    HttpServer server{https_options()};
    std::shared_ptr<test::FakeClock> clock = std::make_shared<test::FakeClock>();

    net::FileRequest request_for(const std::string& path, const std::string& content) {
        server.add_file(path, content);
        net::FileRequest request;
        request.url = server.url(path);
        request.destination = dir.path() / path.substr(1);
        request.expected_sha256 = fs::sha256_hex(content);
        return request;
    }
};

TEST_F(TlsTest, TrustsAServerSignedByTheConfiguredCa) {
    auto options = test::test_options();
    options.ca_file = pki.ca_cert;
    net::Downloader downloader(options, clock);
    const auto content = test::random_bytes(200'000, 1);
    const auto request = request_for("/secure.whl", content);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(test::read_file(request.destination), content);
    EXPECT_THAT(request.url, ::testing::StartsWith("https://127.0.0.1:"));
}

TEST_F(TlsTest, ParallelTransfersOverHttp1TlsDoNotQueueBehindOneConnection) {
    // The server speaks HTTP/1.1 only: waiting for a multiplexed connection must not serialise
    // transfers. /a is held until /c is requested, which needs a second connection.
    auto options = test::test_options(2);
    options.ca_file = pki.ca_cert;
    net::Downloader downloader(options, clock);
    const std::vector<net::FileRequest> requests = {request_for("/a", test::random_bytes(9, 1)),
                                                    request_for("/b", test::random_bytes(9, 2)),
                                                    request_for("/c", test::random_bytes(9, 3))};
    server.set_fault("/a", test::Fault::hold_until("/c"));

    const auto outcomes = downloader.download(requests);

    for (const auto& outcome : outcomes)
        ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_FALSE(server.requests_for("/a").at(0).hold_timed_out);
    EXPECT_EQ(outcomes[0]->http_version, 11);
}

TEST_F(TlsTest, RefusesAServerItCannotVerify) {
    net::Downloader downloader(test::test_options(), clock);  // system CAs only
    const auto request = request_for("/secure.whl", "payload");

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::tls);
    // A certificate problem is not retried: the attempt that meets it is the last. (Under a
    // loaded Wine an earlier attempt can time out in the handshake and be retried, so the count
    // is not always 1; it never reaches the limit.)
    EXPECT_LT(outcome.error().attempts, test::test_options().retry.max_attempts);
    EXPECT_THAT(outcome.error().message, ::testing::StartsWith("GET " + request.url + " failed"));
    EXPECT_THAT(outcome.error().message, HasSubstr("SSL certificate problem"));
    EXPECT_THAT(outcome.error().message, HasSubstr("SSL_CERT_FILE"));
    EXPECT_FALSE(std::filesystem::exists(request.destination));
    EXPECT_TRUE(server.requests().empty());
}

TEST_F(TlsTest, SslCertFileAndRequestsCaBundleAreHonoured) {
    const auto content = test::random_bytes(1'000, 2);
    const auto request = request_for("/env.whl", content);
    for (const char* variable : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"}) {
        ::setenv(variable, util::utf8_of(pki.ca_cert).c_str(), 1);
        net::Downloader downloader(test::test_options(), clock);
        const auto outcome = downloader.download(request);
        ::unsetenv(variable);
        EXPECT_TRUE(outcome) << variable << ": " << outcome.error().message;
    }
}

// SSL_CERT_DIR alone: a folder of CA certificates named by their subject hash (the layout
// `openssl rehash` makes) verifies the server, and libcurl's own bundle is not needed.
TEST_F(TlsTest, SslCertDirIsHonoured) {
    const auto folder = dir.path() / "certs";
    std::filesystem::create_directories(folder);
    std::filesystem::copy_file(pki.ca_cert, folder / (subject_hash_of(pki.ca_cert) + ".0"));
    const auto content = test::random_bytes(1'000, 3);
    const auto request = request_for("/dir.whl", content);
    ::setenv("SSL_CERT_DIR", util::utf8_of(folder).c_str(), 1);
    net::Downloader downloader(test::test_options(), clock);
    const auto outcome = downloader.download(request);
    ::unsetenv("SSL_CERT_DIR");
    EXPECT_TRUE(outcome) << outcome.error().message;
}

TEST_F(TlsTest, ATrustedCaOfAnotherServerDoesNotHelp) {
    const auto other = test::TestPki::generate(dir.path() / "other");
    auto options = test::test_options();
    options.ca_file = other.ca_cert;
    net::Downloader downloader(options, clock);

    const auto outcome = downloader.download(request_for("/x.whl", "x"));

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::tls);
}

TEST_F(TlsTest, HttpsWithBasicAuthInTheUrl) {
    test::ServerOptions options = https_options();
    options.basic_auth = std::make_pair(std::string(user), std::string(password));
    HttpServer private_server(options);
    const auto content = test::random_bytes(5'000, 3);
    private_server.add_file("/p.whl", content);
    auto downloader_options = test::test_options();
    downloader_options.ca_file = pki.ca_cert;
    net::Downloader downloader(downloader_options, clock);
    net::FileRequest request;
    request.url = private_server.url_with_credentials(user, password, "/p.whl");
    request.destination = dir.path() / "p.whl";

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->url,
              "https://***@127.0.0.1:" + std::to_string(private_server.port()) + "/p.whl");
    EXPECT_EQ(private_server.requests().back().auth_user, user);
}

TEST(CaBundle, OptionBeatsSslCertFileBeatsRequestsCaBundle) {
    auto dir = fs::TempDir::create("aitk-net-ca");
    for (const char* name : {"a.pem", "b.pem", "c.pem"})
        test::write_file(dir.path() / name, "x");
    std::map<std::string, std::string> env = {
        {"SSL_CERT_FILE", (dir.path() / "b.pem").string()},
        {"REQUESTS_CA_BUNDLE", (dir.path() / "c.pem").string()}};
    const net::EnvLookup lookup = [&](const char* name) -> std::optional<std::string> {
        const auto it = env.find(name);
        if (it == env.end() || it->second.empty()) return std::nullopt;
        return it->second;
    };
    net::DownloaderOptions options;
    options.ca_file = dir.path() / "a.pem";
    EXPECT_EQ(net::resolve_ca_bundle(options, lookup)->source, "--cert");
    options.ca_file.reset();
    EXPECT_EQ(net::resolve_ca_bundle(options, lookup)->path, dir.path() / "b.pem");
    EXPECT_EQ(net::resolve_ca_bundle(options, lookup)->source, "SSL_CERT_FILE");
    env["SSL_CERT_FILE"] = "";
    EXPECT_EQ(net::resolve_ca_bundle(options, lookup)->source, "REQUESTS_CA_BUNDLE");
    // SSL_CERT_DIR adds a folder to the file, as OpenSSL reads both.
    env["SSL_CERT_DIR"] = util::utf8_of(dir.path());
    EXPECT_EQ(net::resolve_ca_bundle(options, lookup)->folder, dir.path());
    EXPECT_EQ(net::resolve_ca_bundle(options, lookup)->source, "REQUESTS_CA_BUNDLE");
    env.clear();
    const net::FileCheck nothing = [](const std::filesystem::path&) { return false; };
    EXPECT_FALSE(net::resolve_ca_bundle(options, lookup, nothing));
    env["SSL_CERT_DIR"] = util::utf8_of(dir.path());
    const auto folder_alone = net::resolve_ca_bundle(options, lookup, nothing);
    ASSERT_TRUE(folder_alone);
    EXPECT_TRUE(folder_alone->path.empty());
    EXPECT_EQ(folder_alone->folder, dir.path());
}

// Without a bundle named by the user, the system's own, in the place its distribution keeps it:
// the portable binary's libcurl knows only Debian's.
TEST(CaBundle, TheSystemBundleIsFoundWhereEachDistributionKeepsIt) {
    const net::EnvLookup no_env = [](const char*) -> std::optional<std::string> {
        return std::nullopt;
    };
    const auto found_with = [&](std::set<std::string> present) {
        return net::resolve_ca_bundle({}, no_env, [present](const std::filesystem::path& path) {
            return present.count(path.generic_string()) > 0;
        });
    };
    if (net::trusts_system_store()) {
        // Windows: the certificate store, whatever files there are.
        EXPECT_FALSE(found_with({"/etc/ssl/certs/ca-certificates.crt"}));
        return;
    }
    const std::vector<std::pair<std::string, std::string>> distributions = {
        {"/etc/ssl/certs/ca-certificates.crt", "Debian"},
        {"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "Fedora"},
        {"/etc/pki/tls/certs/ca-bundle.crt", "RHEL"},
        {"/etc/ssl/ca-bundle.pem", "openSUSE"},
        {"/etc/ssl/cert.pem", "Alpine"}};
    for (const auto& [file, family] : distributions) {
        const auto bundle = found_with({file});
        ASSERT_TRUE(bundle) << file;
        EXPECT_EQ(bundle->path.generic_string(), file);
        EXPECT_EQ(bundle->source, "system");
        EXPECT_THAT(bundle->layout, HasSubstr(family));
    }
    // Arch has both Debian's name and /etc/ssl/cert.pem: the first in the list is taken.
    EXPECT_EQ(found_with({"/etc/ssl/cert.pem", "/etc/ssl/certs/ca-certificates.crt"})->path,
              std::filesystem::path("/etc/ssl/certs/ca-certificates.crt"));
    EXPECT_FALSE(found_with({}));
    // A bundle the user names is used even where the system has one.
    const net::EnvLookup cert_file = [](const char* name) -> std::optional<std::string> {
        if (std::string(name) == "SSL_CERT_FILE") return "/nonexistent/user.pem";
        return std::nullopt;
    };
    EXPECT_THROW(net::resolve_ca_bundle({}, cert_file, [](const auto&) { return true; }),
                 util::InputError);
}

TEST(CaBundle, AMissingCertFolderIsAnInputErrorNamingSslCertDir) {
    const net::EnvLookup env = [](const char* name) -> std::optional<std::string> {
        if (std::string(name) == "SSL_CERT_DIR") return "/nonexistent/certs";
        return std::nullopt;
    };
    try {
        net::resolve_ca_bundle({}, env);
        FAIL() << "expected an InputError";
    } catch (const util::InputError& error) {
        EXPECT_THAT(std::string(error.what()),
                    HasSubstr("'/nonexistent/certs' (from SSL_CERT_DIR)"));
    }
}

TEST(CaBundle, AMissingBundleIsAnInputErrorNamingItsSource) {
    ::setenv("SSL_CERT_FILE", "/nonexistent/ca.pem", 1);
    try {
        net::Downloader downloader;
        ::unsetenv("SSL_CERT_FILE");
        FAIL() << "expected an InputError";
    } catch (const util::InputError& error) {
        ::unsetenv("SSL_CERT_FILE");
        EXPECT_EQ(std::string(error.what()),
                  "the CA bundle '/nonexistent/ca.pem' (from SSL_CERT_FILE) does not exist or is "
                  "not a file");
    }
}

class AuthTest : public ::testing::Test {
  protected:
    static test::ServerOptions auth_options() {
        test::ServerOptions options;
        options.basic_auth = std::make_pair(std::string(user), std::string(password));
        return options;
    }

    fs::TempDir dir = fs::TempDir::create("aitk-net-auth");
    HttpServer server{auth_options()};
    std::shared_ptr<test::FakeClock> clock = std::make_shared<test::FakeClock>();
    std::string content = test::random_bytes(3'000, 9);

    void SetUp() override { server.add_file("/private/p.whl", content); }
    void TearDown() override { ::unsetenv("NETRC"); }

    net::FileRequest request(std::string url) {
        net::FileRequest r;
        r.url = std::move(url);
        r.destination = dir.path() / "p.whl";
        r.expected_sha256 = fs::sha256_hex(content);
        return r;
    }
};

// Nothing the caller gets back may contain the secret.
void expect_no_secret(const std::string& text) {
    EXPECT_THAT(text, Not(HasSubstr(password)));
    EXPECT_THAT(text, Not(HasSubstr(user)));
}

TEST_F(AuthTest, CredentialsFromUrlUserinfo) {
    net::Downloader downloader(test::test_options(), clock);
    const auto outcome =
        downloader.download(request(server.url_with_credentials(user, password, "/private/p.whl")));

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(server.requests().back().auth_user, user);
    expect_no_secret(outcome->url);
    EXPECT_EQ(outcome->url,
              "http://***@127.0.0.1:" + std::to_string(server.port()) + "/private/p.whl");
}

TEST_F(AuthTest, CredentialsFromNetrc) {
    const auto netrc = dir.path() / "netrc";
    test::write_file(netrc, std::string("machine 127.0.0.1\n  login ") + user + "\n  password " +
                                password + "\n");
    ::setenv("NETRC", util::utf8_of(netrc).c_str(), 1);
    net::Downloader downloader(test::test_options(), clock);

    const auto outcome = downloader.download(request(server.url("/private/p.whl")));

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(server.requests().back().auth_user, user);
    EXPECT_EQ(test::read_file(dir.path() / "p.whl"), content);
}

TEST_F(AuthTest, MissingCredentialsFailAt401WithoutRetry) {
    net::Downloader downloader(test::test_options(), clock);
    const auto outcome = downloader.download(request(server.url("/private/p.whl")));

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().http_status, 401);
    EXPECT_EQ(outcome.error().attempts, 1);
    EXPECT_THAT(outcome.error().message,
                HasSubstr("HTTP 401 Unauthorized (check the credentials in the URL or in .netrc)"));
}

TEST_F(AuthTest, WrongPasswordErrorsNeverShowCredentials) {
    net::Downloader downloader(test::test_options(), clock);
    const std::string bad = std::string(password) + "-wrong";
    const auto outcome =
        downloader.download(request(server.url_with_credentials(user, bad, "/private/p.whl")));

    ASSERT_FALSE(outcome);
    expect_no_secret(outcome.error().message);
    expect_no_secret(outcome.error().url);
    EXPECT_THAT(outcome.error().message, HasSubstr("http://***@127.0.0.1:"));
}

TEST_F(AuthTest, ConnectionErrorsNeverShowCredentials) {
    struct Collect : net::TransferObserver {
        std::string seen;
        void on_start(const net::TransferInfo& info) override { seen += info.url; }
        void on_retry(std::size_t, const net::RetryInfo& info) override { seen += info.reason; }
        void on_finish(std::size_t, const net::FinishInfo& info) override { seen += info.error; }
    } observer;
    auto options = test::test_options();
    options.retry.max_attempts = 2;
    net::Downloader downloader(options, clock);
    const auto port = std::to_string(test::unused_port());
    const auto url = std::string("http://") + user + ":" + password + "@127.0.0.1:" + port + "/p";

    const auto outcome = downloader.download(request(url), &observer);

    ASSERT_FALSE(outcome);
    expect_no_secret(outcome.error().message);
    expect_no_secret(observer.seen);
    EXPECT_THAT(outcome.error().message, HasSubstr("http://***@127.0.0.1:" + port + "/p"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
