// Throwaway TLS material made with the OpenSSL API: a CA and the server certificate it signed
// (TestPki::generate), and server certificates with one flaw each, for tests that prove a
// client refuses them.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "http_server.hpp"

namespace aitk::test {
namespace {

struct PkeyDeleter {
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct X509Deleter {
    void operator()(X509* cert) const { X509_free(cert); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, PkeyDeleter>;
using CertPtr = std::unique_ptr<X509, X509Deleter>;

constexpr long day = 24L * 3600;

void check(bool ok, const char* what) {
    if (!ok) throw std::runtime_error(std::string("test PKI: ") + what + " failed");
}

KeyPtr make_key() {
    KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    check(key != nullptr, "EC key generation");
    return key;
}

void add_extension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str());
    check(ext != nullptr, "certificate extension");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
}

struct CertSpec {
    std::string common_name;
    long serial = 1;
    long not_before = -3600;  // seconds from now
    long not_after = 7 * day;
    bool is_ca = false;
    std::string subject_alt_names = "IP:127.0.0.1,DNS:localhost";
};

// `issuer` null: self-signed with `key`.
CertPtr make_certificate(const CertSpec& spec, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key) {
    CertPtr cert(X509_new());
    check(cert != nullptr, "X509_new");
    X509* x = cert.get();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), spec.serial);
    X509_gmtime_adj(X509_getm_notBefore(x), spec.not_before);
    X509_gmtime_adj(X509_getm_notAfter(x), spec.not_after);
    check(X509_set_pubkey(x, key) == 1, "X509_set_pubkey");
    X509_NAME* name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1,
                               -1, 0);
    X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : name);

    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : x, x, nullptr, nullptr, 0);
    add_extension(x, &ctx, NID_basic_constraints,
                  spec.is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
    add_extension(x, &ctx, NID_key_usage,
                  spec.is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
    add_extension(x, &ctx, NID_subject_key_identifier, "hash");
    add_extension(x, &ctx, NID_authority_key_identifier, "keyid:always");
    if (!spec.is_ca) {
        add_extension(x, &ctx, NID_subject_alt_name, spec.subject_alt_names);
        add_extension(x, &ctx, NID_ext_key_usage, "serverAuth");
    }
    check(X509_sign(x, issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0, "X509_sign");
    return cert;
}

void write_pem(const std::filesystem::path& path, X509* cert, EVP_PKEY* key) {
#ifdef _WIN32
    std::FILE* out = _wfopen(path.c_str(), L"wb");
#else
    std::FILE* out = std::fopen(path.c_str(), "wb");
#endif
    check(out != nullptr, "opening a PEM file");
    bool ok = true;
    if (cert != nullptr) ok = ok && PEM_write_X509(out, cert) == 1;
    if (key != nullptr) {
        ok = ok && PEM_write_PrivateKey(out, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
    }
    std::fclose(out);
    check(ok, "writing a PEM file");
}

// A fresh CA and a server certificate it signed from `server` (or a self-signed one).
TestPki generate_with(const std::filesystem::path& dir, CertSpec server, bool self_signed) {
    std::filesystem::create_directories(dir);
    const auto ca_key = make_key();
    CertSpec ca_spec;
    ca_spec.common_name = "aitk-env test CA";
    ca_spec.is_ca = true;
    const auto ca = make_certificate(ca_spec, ca_key.get(), nullptr, nullptr);
    const auto server_key = make_key();
    server.serial = 2;
    const auto server_cert =
        self_signed ? make_certificate(server, server_key.get(), nullptr, nullptr)
                    : make_certificate(server, server_key.get(), ca.get(), ca_key.get());
    TestPki pki{dir / "ca.pem", dir / "server.pem", dir / "server-key.pem"};
    write_pem(pki.ca_cert, ca.get(), nullptr);
    write_pem(pki.server_cert, server_cert.get(), nullptr);
    write_pem(pki.server_key, nullptr, server_key.get());
    return pki;
}

CertSpec server_spec() {
    CertSpec spec;
    spec.common_name = "127.0.0.1";
    return spec;
}

}  // namespace

TestPki TestPki::generate(const std::filesystem::path& dir) {
    return generate_with(dir, server_spec(), false);
}

TestPki TestPki::generate_expired(const std::filesystem::path& dir) {
    auto spec = server_spec();
    spec.not_before = -30 * day;
    spec.not_after = -day;
    return generate_with(dir, spec, false);
}

TestPki TestPki::generate_not_yet_valid(const std::filesystem::path& dir) {
    auto spec = server_spec();
    spec.not_before = day;
    spec.not_after = 30 * day;
    return generate_with(dir, spec, false);
}

TestPki TestPki::generate_for_host(const std::filesystem::path& dir, const std::string& host) {
    auto spec = server_spec();
    spec.common_name = host;
    spec.subject_alt_names = "DNS:" + host;
    return generate_with(dir, spec, false);
}

TestPki TestPki::generate_self_signed(const std::filesystem::path& dir) {
    return generate_with(dir, server_spec(), true);
}

}  // namespace aitk::test
