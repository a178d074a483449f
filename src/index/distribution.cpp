#include "aitk/index/distribution.hpp"

#include <array>

#include "aitk/index/url.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::index {

namespace {

struct KnownHash {
    std::string_view name;
    std::size_t hex_length;
};

// pip's set of fragment hashes, plus what PyPI's JSON API names.
constexpr std::array<KnownHash, 6> known_hashes = {{
    {"md5", 32},
    {"sha1", 40},
    {"sha224", 56},
    {"sha256", 64},
    {"sha384", 96},
    {"sha512", 128},
}};

const KnownHash* find_known(std::string_view algorithm) {
    for (const auto& k : known_hashes) {
        if (k.name == algorithm) return &k;
    }
    return nullptr;
}

bool has_unsafe_character(std::string_view filename) noexcept {
    for (char c : filename) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7F || c == '/' || c == '\\') return true;
    }
    return false;
}

std::string single_quoted(std::string_view text) {
    std::string out = "'";
    out.append(text);
    out += '\'';
    return out;
}

SkippedFile skip(const DistributionFile& draft, std::string reason) {
    return SkippedFile{draft.filename, draft.url, std::move(reason)};
}

}  // namespace

const std::string& DistributionFile::project() const noexcept {
    if (const auto* w = wheel()) return w->name;
    return std::get<pep::SdistFilename>(parsed).name;
}

const pep::Version& DistributionFile::version() const noexcept {
    if (const auto* w = wheel()) return w->version;
    return std::get<pep::SdistFilename>(parsed).version;
}

std::optional<std::string_view> DistributionFile::sha256() const {
    const auto it = hashes.find("sha256");
    if (it == hashes.end()) return std::nullopt;
    return std::string_view(it->second);
}

std::string DistributionFile::metadata_url() const {
    // PEP 658 appends to the path; a query (rare on indexes) stays after it.
    const auto query = url.find('?');
    if (query == std::string::npos) return url + ".metadata";
    return url.substr(0, query) + ".metadata" + url.substr(query);
}

std::optional<std::string> normalize_hash(std::string_view algorithm, std::string_view digest) {
    if (!util::is_hex(digest)) return std::nullopt;
    if (const auto* known = find_known(algorithm); known && digest.size() != known->hex_length) {
        return std::nullopt;
    }
    return util::to_lower(digest);
}

FragmentHashes hashes_from_fragment(std::string_view fragment) {
    FragmentHashes out;
    for (std::string_view item : pep::UrlFragment{{}, fragment}.items()) {
        const auto eq = item.find('=');
        if (eq == std::string_view::npos) continue;
        const std::string algorithm = util::to_lower(item.substr(0, eq));
        if (!find_known(algorithm)) continue;  // "egg=", "subdirectory=", ...
        const std::string_view digest = item.substr(eq + 1);
        auto normalized = normalize_hash(algorithm, digest);
        if (!normalized) {
            out.error = "the #" + algorithm + "= fragment is not " +
                        std::to_string(find_known(algorithm)->hex_length) +
                        " hex digits: " + single_quoted(digest.substr(0, 200));
            out.hashes.clear();
            return out;
        }
        out.hashes.emplace(algorithm, std::move(*normalized));
    }
    return out;
}

std::string link_scheme_problem(std::string_view page_url, std::string_view link_url) {
    const std::string scheme = util::to_lower(split_url(link_url).scheme);
    if (scheme == "http" || scheme == "https") return {};
    if (scheme == "file") {
        if (util::iequals(split_url(page_url).scheme, "file")) return {};
        return "a file: link on a remote page is not followed";
    }
    if (scheme.empty()) return "the link is not an absolute URL";
    return "the URL scheme '" + scheme + "' is not http, https or file";
}

std::variant<DistributionFile, SkippedFile> classify_file(DistributionFile draft,
                                                          std::string_view project) {
    const std::string_view name = draft.filename;
    if (name.empty()) return skip(draft, "the link has no filename");
    if (!is_valid_utf8(name)) return skip(draft, "the filename is not valid UTF-8");
    if (name == "." || name == ".." || has_unsafe_character(name)) {
        return skip(draft, "the filename " + single_quoted(name) +
                               " contains a path separator or control character");
    }
    if (name.ends_with(".whl")) {
        auto wheel = pep::WheelFilename::parse(name);
        if (!wheel) return skip(draft, "invalid wheel filename: " + wheel.error().message);
        draft.parsed = std::move(*wheel);
    } else if (name.ends_with(".tar.gz") || name.ends_with(".zip")) {
        auto sdist = pep::SdistFilename::parse(name);
        if (!sdist) return skip(draft, "invalid sdist filename: " + sdist.error().message);
        draft.parsed = std::move(*sdist);
    } else {
        for (std::string_view legacy : {".tar.bz2", ".tar.xz", ".tgz", ".tbz", ".tar"}) {
            if (name.ends_with(legacy)) {
                return skip(draft, "the sdist format '" + std::string(legacy) +
                                       "' is not supported (only .tar.gz and .zip, PEP 625)");
            }
        }
        return skip(draft, "not a wheel (.whl) or an sdist (.tar.gz, .zip)");
    }
    if (!project.empty() && draft.project() != project) {
        return skip(draft, "belongs to project " + single_quoted(draft.project()) + ", not " +
                               single_quoted(project));
    }
    return draft;
}

bool requires_python_allows(const DistributionFile& file, const pep::Version& python) {
    if (file.requires_python.empty()) return true;
    auto specifiers = pep::SpecifierSet::parse(file.requires_python);
    if (!specifiers) return true;  // pip ignores an invalid Requires-Python
    return specifiers->contains(python, /*prereleases=*/true);
}

std::vector<DistributionFile> filter_requires_python(const std::vector<DistributionFile>& files,
                                                     const pep::Version& python) {
    std::vector<DistributionFile> out;
    for (const auto& f : files) {
        if (requires_python_allows(f, python)) out.push_back(f);
    }
    return out;
}

std::vector<DistributionFile> without_yanked(const std::vector<DistributionFile>& files) {
    std::vector<DistributionFile> out;
    for (const auto& f : files) {
        if (!f.yanked) out.push_back(f);
    }
    return out;
}

}  // namespace aitk::index
