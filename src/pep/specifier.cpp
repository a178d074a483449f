#include "aitk/pep/specifier.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <span>
#include <stdexcept>
#include <utility>

#include "aitk/util/strings.hpp"

namespace aitk::pep {
namespace {

using util::is_ascii_digit;
using util::to_ascii_lower;

struct OperatorSpelling {
    std::string_view text;
    Operator op;
};

// Longest spellings first, so "===" is not read as "==" followed by "=".
constexpr std::array<OperatorSpelling, 8> kOperators{{
    {"===", Operator::arbitrary},
    {"~=", Operator::compatible},
    {"==", Operator::equal},
    {"!=", Operator::not_equal},
    {"<=", Operator::less_equal},
    {">=", Operator::greater_equal},
    {"<", Operator::less},
    {">", Operator::greater},
}};

bool accepts_local_and_wildcard(Operator op) noexcept {
    return op == Operator::equal || op == Operator::not_equal;
}

bool is_operator_char(char c) noexcept {
    return c == '=' || c == '<' || c == '>' || c == '!' || c == '~';
}

// The operator that `text` starts with, longest spelling first ("===" before "==").
const OperatorSpelling* match_operator(std::string_view text) noexcept {
    for (const OperatorSpelling& candidate : kOperators) {
        if (text.size() >= candidate.text.size() &&
            text.compare(0, candidate.text.size(), candidate.text) == 0) {
            return &candidate;
        }
    }
    return nullptr;
}

// Bytes that are certainly not whitespace: printable ASCII. Everything else is left to
// util's Python-compatible whitespace tests (which also know the Unicode spaces).
constexpr bool is_plain(char c) noexcept {
    return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
}

// util::trim, skipping its Unicode checks in the common case of nothing to trim.
std::string_view trim(std::string_view s) noexcept {
    if (!s.empty() && is_plain(s.front()) && is_plain(s.back())) return s;
    return util::trim(s);
}

bool space_at(std::string_view s, std::size_t i) noexcept {
    return !is_plain(s[i]) && util::leading_space_length(s.substr(i)) != 0;
}

// Offset of the first whitespace character (Python's definition, as for trimming), or npos.
std::size_t find_space(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (space_at(s, i)) return i;
    }
    return std::string_view::npos;
}

// Whether `s` is only a release, v?(N!)?N(.N)*: the one form that may precede ".*". `stop` is
// where the release form ends, for the error position.
bool is_release_only(std::string_view s, std::size_t& stop) noexcept {
    auto skip_digits = [&](std::size_t from) {
        while (from < s.size() && is_ascii_digit(s[from]))
            ++from;
        return from;
    };
    std::size_t i = 0;
    if (i < s.size() && (s[i] == 'v' || s[i] == 'V')) ++i;
    std::size_t j = skip_digits(i);
    if (j > i && j < s.size() && s[j] == '!') i = j + 1;
    j = skip_digits(i);
    if (j == i) {
        stop = i;
        return false;
    }
    i = j;
    while (i + 1 < s.size() && s[i] == '.' && is_ascii_digit(s[i + 1]))
        i = skip_digits(i + 1);
    stop = i;
    return i == s.size();
}

// PEP 440 ordering of the public parts (epoch, release, pre, post, dev), ignoring local labels.
// Written against the accessors so that it allocates nothing: it runs once per candidate and
// clause in the resolver.
int compare_release(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) noexcept {
    const std::size_t n = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t x = i < a.size() ? a[i] : 0;
        const std::uint64_t y = i < b.size() ? b[i] : 0;
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

template <class T>
int compare_values(const T& a, const T& b) noexcept {
    return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_public(const Version& a, const Version& b) noexcept {
    if (int c = compare_values(a.epoch(), b.epoch())) return c;
    if (int c = compare_release(a.release(), b.release())) return c;
    // A dev-only release (1.0.dev1) sorts before the pre-releases of its release; a final or
    // post release sorts after them.
    auto pre_rank = [](const Version& v) {
        if (v.pre()) return 1;
        return (!v.post() && v.dev()) ? 0 : 2;
    };
    if (int c = compare_values(pre_rank(a), pre_rank(b))) return c;
    if (a.pre() && b.pre()) {
        if (int c = compare_values(a.pre()->kind, b.pre()->kind)) return c;
        if (int c = compare_values(a.pre()->number, b.pre()->number)) return c;
    }
    // No post release sorts first; no dev release sorts last.
    if (int c = compare_values(a.post().has_value(), b.post().has_value())) return c;
    if (a.post() && b.post()) {
        if (int c = compare_values(*a.post(), *b.post())) return c;
    }
    if (int c = compare_values(b.dev().has_value(), a.dev().has_value())) return c;
    if (a.dev() && b.dev()) {
        if (int c = compare_values(*a.dev(), *b.dev())) return c;
    }
    return 0;
}

// packaging's Version(a.base_version) == Version(b.base_version).
bool same_base(const Version& a, const Version& b) noexcept {
    return a.epoch() == b.epoch() && compare_release(a.release(), b.release()) == 0;
}

// Prefix matching ("==1.2.*"): same epoch and the first `count` release numbers of `spec`, the
// candidate padded with zeros (1 matches 1.0.*). Pre/post/dev/local parts do not matter.
bool release_prefix_matches(const Version& candidate, const Version& spec,
                            std::size_t count) noexcept {
    if (candidate.epoch() != spec.epoch()) return false;
    std::span<const std::uint64_t> c = candidate.release();
    std::span<const std::uint64_t> s = spec.release();
    for (std::size_t i = 0; i < count && i < s.size(); ++i) {
        if ((i < c.size() ? c[i] : 0) != s[i]) return false;
    }
    return true;
}

// Compares `text` case-insensitively with str(v), the normalised form, piece by piece so that
// "===" needs no string built per candidate.
class NormalisedMatcher {
  public:
    explicit NormalisedMatcher(std::string_view text) : rest_(text) {}

    void literal(std::string_view piece) noexcept {
        if (!ok_ || rest_.size() < piece.size()) {
            ok_ = false;
            return;
        }
        for (std::size_t i = 0; i < piece.size(); ++i) {
            if (to_ascii_lower(rest_[i]) != to_ascii_lower(piece[i])) {
                ok_ = false;
                return;
            }
        }
        rest_.remove_prefix(piece.size());
    }
    void number(std::uint64_t n) noexcept {
        std::array<char, 24> buf{};
        auto result = std::to_chars(buf.data(), buf.data() + buf.size(), n);
        literal(std::string_view(buf.data(), static_cast<std::size_t>(result.ptr - buf.data())));
    }
    bool matched() const noexcept { return ok_ && rest_.empty(); }

  private:
    std::string_view rest_;
    bool ok_ = true;
};

bool equals_normalised(const Version& v, std::string_view text) noexcept {
    NormalisedMatcher m(text);
    if (v.epoch() != 0) {
        m.number(v.epoch());
        m.literal("!");
    }
    std::span<const std::uint64_t> release = v.release();
    for (std::size_t i = 0; i < release.size(); ++i) {
        if (i) m.literal(".");
        m.number(release[i]);
    }
    if (v.pre()) {
        m.literal(pre_kind_string(v.pre()->kind));
        m.number(v.pre()->number);
    }
    if (v.post()) {
        m.literal(".post");
        m.number(*v.post());
    }
    if (v.dev()) {
        m.literal(".dev");
        m.number(*v.dev());
    }
    if (v.has_local()) {
        m.literal("+");
        m.literal(v.local());
    }
    return m.matched();
}

// One clause against a candidate given as text (`parsed` is its Version, or null when the text
// is not a version). "===" compares the raw text; every other operator needs a version.
bool clause_contains(const Specifier& spec, std::string_view text, const Version* parsed,
                     bool allow_prereleases) {
    if (spec.op() == Operator::arbitrary) {
        if (parsed && parsed->is_prerelease() && !allow_prereleases) return false;
        return util::iequals(text, spec.version_text());
    }
    return parsed && spec.contains(*parsed, allow_prereleases);
}

// A total preorder on clauses whose ties are exactly packaging's Specifier equality: operator
// and canonicalize_version() of the text (trailing zeros kept for "~="). Versions compare as
// parsed, so nothing is built per comparison; text that is no version (a ".*" prefix, "===foo")
// compares as written, as canonicalize_version() leaves it unchanged.
int compare_clauses(const Specifier& a, const Specifier& b) noexcept {
    if (int c = compare_values(a.op(), b.op())) return c;
    const bool a_text = a.has_wildcard() || !a.version();
    const bool b_text = b.has_wildcard() || !b.version();
    if (int c = compare_values(a_text, b_text)) return c;
    if (a_text) return a.version_text().compare(b.version_text());
    const Version& va = *a.version();
    const Version& vb = *b.version();
    if (auto c = va <=> vb; c != 0) return c < 0 ? -1 : 1;
    if (a.op() == Operator::compatible) {
        return compare_values(va.release().size(), vb.release().size());
    }
    return 0;
}

// Orders clauses by their printed form (operator then version text) without printing them.
bool printed_before(const Specifier& a, const Specifier& b) noexcept {
    const std::string_view a1 = operator_string(a.op()), a2 = a.version_text();
    const std::string_view b1 = operator_string(b.op()), b2 = b.version_text();
    const std::size_t na = a1.size() + a2.size(), nb = b1.size() + b2.size();
    for (std::size_t i = 0; i < na && i < nb; ++i) {
        const auto ca = static_cast<unsigned char>(i < a1.size() ? a1[i] : a2[i - a1.size()]);
        const auto cb = static_cast<unsigned char>(i < b1.size() ? b1[i] : b2[i - b1.size()]);
        if (ca != cb) return ca < cb;
    }
    return na < nb;
}

// Moves the clauses named by `order` into place, in that order.
void reorder(std::vector<Specifier>& specs, std::span<const std::size_t> order) {
    bool identity = order.size() == specs.size();
    for (std::size_t i = 0; identity && i < order.size(); ++i)
        identity = order[i] == i;
    if (identity) return;
    std::vector<Specifier> sorted;
    sorted.reserve(order.size());
    for (std::size_t i : order)
        sorted.push_back(std::move(specs[i]));
    specs = std::move(sorted);
}

// Drops every clause equal to an earlier one (packaging keeps a frozenset, which keeps the
// first of equal members), then sorts the rest by their printed form. Works on indices, so each
// clause moves at most once.
void normalise_clauses(std::vector<Specifier>& specs) {
    const std::size_t n = specs.size();
    if (n < 2) return;
    auto printed = [&](std::size_t x, std::size_t y) { return printed_before(specs[x], specs[y]); };
    constexpr std::size_t kSmall = 16;
    if (n <= kSmall) {
        // Real sets have a handful of clauses: quadratic, but without allocating.
        std::array<std::size_t, kSmall> order{};
        std::size_t kept = 0;
        for (std::size_t i = 0; i < n; ++i) {
            bool duplicate = false;
            for (std::size_t k = 0; k < kept && !duplicate; ++k)
                duplicate = compare_clauses(specs[order[k]], specs[i]) == 0;
            if (!duplicate) order[kept++] = i;
        }
        std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), printed);
        reorder(specs, std::span<const std::size_t>(order.data(), kept));
        return;
    }
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        int c = compare_clauses(specs[x], specs[y]);
        return c != 0 ? c < 0 : x < y;
    });
    // In each run of equal clauses the first written comes first; drop the others.
    std::vector<bool> keep(n, true);
    for (std::size_t i = 1; i < n; ++i) {
        if (compare_clauses(specs[order[i - 1]], specs[order[i]]) == 0) keep[order[i]] = false;
    }
    order.erase(std::remove_if(order.begin(), order.end(), [&](std::size_t i) { return !keep[i]; }),
                order.end());
    std::sort(order.begin(), order.end(), printed);
    reorder(specs, order);
}

}  // namespace

std::string_view operator_string(Operator op) noexcept {
    for (const OperatorSpelling& spelling : kOperators) {
        if (spelling.op == op) return spelling.text;
    }
    return "==";
}

Parsed<Specifier> Specifier::parse(std::string_view text, std::optional<bool> prereleases) {
    const std::string_view body = trim(text);
    const std::size_t begin = static_cast<std::size_t>(body.data() - text.data());
    if (body.empty()) {
        return parse_error(
            "empty version specifier; expected an operator and a version such as "
            "'>=1.0'",
            text, begin);
    }

    // The operator.
    const OperatorSpelling* spelling = match_operator(body);
    if (spelling == nullptr) {
        auto typo = [&](std::string_view wrong, std::string_view right) {
            return parse_error(util::single_quoted(wrong) + " is not an operator; did you mean " +
                                   util::single_quoted(right) + "?",
                               text, begin);
        };
        if (body.starts_with("=>")) return typo("=>", ">=");
        if (body.starts_with("=<")) return typo("=<", "<=");
        if (body.starts_with("=")) return typo("=", "==");
        if (body.starts_with("~")) return typo("~", "~=");
        if (body.starts_with("!")) return typo("!", "!=");
        if (is_ascii_digit(body[0]) || body[0] == 'v' || body[0] == 'V') {
            const std::string shown = body.size() <= 40 ? std::string(body) : "1.0";
            return parse_error("missing comparison operator before the version; write e.g. '==" +
                                   shown + "' or '>=" + shown + "'",
                               text, begin);
        }
        return parse_error("expected a comparison operator (~=, ==, !=, <=, >=, <, >, ===)", text,
                           begin);
    }
    const Operator op = spelling->op;
    const std::string op_text(spelling->text);

    // The version, trimmed; `vbegin` is its offset in `text`.
    const std::string_view after_op = body.substr(spelling->text.size());
    const std::string_view version = trim(after_op);
    const std::size_t vbegin = static_cast<std::size_t>(version.data() - text.data());

    Specifier spec;
    spec.op_ = op;
    spec.prereleases_ = prereleases;

    if (op == Operator::arbitrary) {
        // Any text is allowed except what ends a specifier inside a requirement.
        std::size_t bad = find_space(version);
        bad = std::min(bad, version.find_first_of(";)"));
        if (bad != std::string_view::npos) {
            return parse_error("the version after '===' cannot contain whitespace, ';' or ')'",
                               text, vbegin + bad);
        }
        spec.version_text_ = std::string(version);
        // Decides the prerelease policy and equality; "===foo" names no version.
        if (auto parsed = Version::parse(version)) spec.version_ = *std::move(parsed);
        return spec;
    }

    if (version.empty()) {
        return parse_error("missing version after " + util::single_quoted(op_text), text, vbegin);
    }
    if (is_operator_char(version[0])) {
        std::string message = "expected a version after " + util::single_quoted(op_text) +
                              " but found " + util::single_quoted(version.substr(0, 1));
        if (version.data() != after_op.data()) {
            message += "; an operator is written without spaces inside it";
        }
        return parse_error(std::move(message), text, vbegin);
    }
    // One pass for what cannot be inside a version, reported where it first occurs.
    bool has_star = false;
    for (std::size_t i = 0; i < version.size(); ++i) {
        const char c = version[i];
        if (c == ',') {
            return parse_error(
                "a single specifier cannot contain ','; several clauses form a specifier set "
                "such as '>=1.0,<2'",
                text, vbegin + i);
        }
        if (c == ';') {
            return parse_error(
                "unexpected ';' in the version; separate clauses with ',' (in a requirement, "
                "';' starts the environment marker)",
                text, vbegin + i);
        }
        if (space_at(version, i)) {
            return parse_error(
                "unexpected whitespace inside the version; separate clauses with ','", text,
                vbegin + i);
        }
        has_star = has_star || c == '*';
    }

    // Prefix matching: "==1.2.*" / "!=1.2.*".
    const std::size_t star = has_star ? version.find(".*") : std::string_view::npos;
    if (star != std::string_view::npos) {
        if (star + 2 != version.size()) {
            return parse_error("'.*' must end the version; nothing may follow it", text,
                               vbegin + star + 2);
        }
        if (!accepts_local_and_wildcard(op)) {
            return parse_error("'.*' prefix matching is only allowed with '==' and '!=', not " +
                                   util::single_quoted(op_text),
                               text, vbegin + star);
        }
        const std::string_view release = version.substr(0, star);
        std::size_t stop = 0;
        if (!is_release_only(release, stop)) {
            std::string message =
                Version::parse(release)
                    ? "'.*' can only follow release numbers (as in '==1.2.*'), not a pre-, "
                      "post-, dev- or local part"
                    : "invalid version before '.*'; expected release numbers such as '1.2.*'";
            return parse_error(std::move(message), text, vbegin + stop);
        }
        auto parsed = Version::parse(release);
        if (!parsed) {
            return parse_error("invalid version before '.*'", text, vbegin);
        }
        spec.version_ = *std::move(parsed);
        spec.wildcard_ = true;
        spec.version_text_ = std::string(version);
        return spec;
    }

    auto parsed = Version::parse(version);
    if (!parsed) {
        const ParseError& inner = parsed.error();
        std::size_t at =
            inner.position == ParseError::no_position ? vbegin : vbegin + inner.position;
        std::string_view detail = inner.message;
        constexpr std::string_view kPrefix = "invalid version: ";
        if (detail.starts_with(kPrefix)) detail.remove_prefix(kPrefix.size());
        return parse_error(
            "invalid version after " + util::single_quoted(op_text) + ": " + std::string(detail),
            text, at);
    }
    if (parsed->has_local() && !accepts_local_and_wildcard(op)) {
        std::size_t plus = version.find('+');
        return parse_error(util::single_quoted(op_text) +
                               " does not accept a local version label ('+...'); only '==' "
                               "and '!=' do",
                           text, plus == std::string_view::npos ? vbegin : vbegin + plus);
    }
    if (op == Operator::compatible && parsed->release().size() < 2) {
        return parse_error(
            "'~=' needs a version with at least two release numbers, such as "
            "'~=1.4' (meaning >=1.4, ==1.*)",
            text, vbegin);
    }
    spec.version_ = *std::move(parsed);
    spec.version_text_ = std::string(version);
    return spec;
}

bool Specifier::prereleases() const noexcept {
    if (prereleases_) return *prereleases_;
    switch (op_) {
        case Operator::equal:
        case Operator::greater_equal:
        case Operator::less_equal:
        case Operator::compatible:
        case Operator::arbitrary:
            // For "==1.*" version_ is the bare release, which is never a prerelease.
            return version_ && version_->is_prerelease();
        default:
            return false;
    }
}

bool Specifier::contains(const Version& version, std::optional<bool> prereleases) const {
    const bool allow = prereleases ? *prereleases : this->prereleases();
    if (version.is_prerelease() && !allow) return false;

    if (op_ == Operator::arbitrary) return equals_normalised(version, version_text_);
    if (!version_) return false;
    const Version& spec = *version_;

    auto equal = [&] {
        if (wildcard_) return release_prefix_matches(version, spec, spec.release().size());
        // A clause without a local label ignores the candidate's label.
        if (spec.has_local()) return version == spec;
        return compare_public(version, spec) == 0;
    };

    switch (op_) {
        case Operator::compatible:
            // ~=1.4.2 is >=1.4.2, ==1.4.*.
            return compare_public(version, spec) >= 0 &&
                   release_prefix_matches(version, spec, spec.release().size() - 1);
        case Operator::equal:
            return equal();
        case Operator::not_equal:
            return !equal();
        case Operator::less_equal:
            return compare_public(version, spec) <= 0;
        case Operator::greater_equal:
            return compare_public(version, spec) >= 0;
        case Operator::less:
            if (compare_public(version, spec) >= 0) return false;
            // <3.1 excludes 3.1's own prereleases (3.1.dev0) unless it names a prerelease.
            return spec.is_prerelease() || !version.is_prerelease() || !same_base(version, spec);
        case Operator::greater:
            if (compare_public(version, spec) <= 0) return false;
            // >3.1 excludes 3.1's post releases unless it names one, and 3.1's local builds.
            if (!spec.is_postrelease() && version.is_postrelease() && same_base(version, spec)) {
                return false;
            }
            return !(version.has_local() && same_base(version, spec));
        case Operator::arbitrary:
            break;
    }
    return false;
}

bool Specifier::contains(std::string_view version, std::optional<bool> prereleases) const {
    auto parsed = Version::parse(version);
    const bool allow = prereleases ? *prereleases : this->prereleases();
    return clause_contains(*this, version, parsed ? &*parsed : nullptr, allow);
}

std::vector<std::string> Specifier::filter(const std::vector<std::string>& versions,
                                           std::optional<bool> prereleases) const {
    const bool allow = prereleases.value_or(true);
    const bool keep_prereleases = prereleases.value_or(false) || this->prereleases();
    std::vector<std::string> kept;
    std::vector<std::string> held_prereleases;
    for (const std::string& text : versions) {
        auto parsed = Version::parse(text);
        const Version* version = parsed ? &*parsed : nullptr;
        if (!clause_contains(*this, text, version, allow)) continue;
        if (version && version->is_prerelease() && !keep_prereleases) {
            held_prereleases.push_back(text);
        } else {
            kept.push_back(text);
        }
    }
    // PEP 440: prereleases are acceptable when nothing final matches.
    return kept.empty() ? held_prereleases : kept;
}

std::string Specifier::to_string() const {
    std::string out(operator_string(op_));
    out += version_text_;
    return out;
}

bool operator==(const Specifier& a, const Specifier& b) {
    return compare_clauses(a, b) == 0;
}

Parsed<SpecifierSet> SpecifierSet::parse(std::string_view text, std::optional<bool> prereleases) {
    SpecifierSet set;
    set.prereleases_ = prereleases;
    const auto commas = static_cast<std::size_t>(std::count(text.begin(), text.end(), ','));
    set.specifiers_.reserve(std::min<std::size_t>(commas + 1, 16));
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::size_t end = comma == std::string_view::npos ? text.size() : comma;
        const std::string_view piece = text.substr(start, end - start);
        // Empty clauses (",,", a trailing ",") are skipped, as packaging does.
        if (!trim(piece).empty()) {
            auto spec = Specifier::parse(piece);
            if (!spec) {
                ParseError error = std::move(spec).error();
                if (error.position != ParseError::no_position) error.position += start;
                error.input = std::string(text);
                return util::Unexpected<ParseError>(std::move(error));
            }
            set.specifiers_.push_back(*std::move(spec));
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    normalise_clauses(set.specifiers_);
    return set;
}

std::optional<bool> SpecifierSet::prereleases() const noexcept {
    if (prereleases_) return prereleases_;
    if (specifiers_.empty()) return std::nullopt;
    return std::any_of(specifiers_.begin(), specifiers_.end(),
                       [](const Specifier& s) { return s.prereleases(); });
}

bool SpecifierSet::contains(const Version& version, std::optional<bool> prereleases,
                            bool installed) const {
    const bool allow = prereleases ? *prereleases : this->prereleases().value_or(false);
    if (version.is_prerelease() && !allow) return false;
    // An installed prerelease that was allowed in is judged by its release (rare: copies).
    if (installed && version.is_prerelease()) return contains(version.base(), allow, false);
    return std::all_of(specifiers_.begin(), specifiers_.end(),
                       [&](const Specifier& s) { return s.contains(version, allow); });
}

bool SpecifierSet::contains(std::string_view version, std::optional<bool> prereleases,
                            bool installed) const {
    auto parsed = Version::parse(version);
    if (!parsed) {
        // Text that is not a version can only match "===" clauses, and never the empty set.
        return !specifiers_.empty() &&
               std::all_of(specifiers_.begin(), specifiers_.end(), [&](const Specifier& s) {
                   return clause_contains(s, version, nullptr, true);
               });
    }
    const bool allow = prereleases ? *prereleases : this->prereleases().value_or(false);
    if (parsed->is_prerelease() && !allow) return false;
    if (installed && parsed->is_prerelease()) return contains(parsed->base(), allow, false);
    return std::all_of(specifiers_.begin(), specifiers_.end(), [&](const Specifier& s) {
        return clause_contains(s, version, &*parsed, allow);
    });
}

std::vector<std::string> SpecifierSet::filter(const std::vector<std::string>& versions,
                                              std::optional<bool> prereleases) const {
    if (!prereleases) prereleases = this->prereleases();
    std::vector<std::string> kept;
    if (!specifiers_.empty()) {
        // packaging chains each clause's filter with a definite yes/no, so no fallback here.
        const bool allow = prereleases.value_or(false);
        for (const std::string& text : versions) {
            auto parsed = Version::parse(text);
            const Version* version = parsed ? &*parsed : nullptr;
            if (version && version->is_prerelease() && !allow) continue;
            if (std::all_of(specifiers_.begin(), specifiers_.end(), [&](const Specifier& s) {
                    return clause_contains(s, text, version, allow);
                })) {
                kept.push_back(text);
            }
        }
        return kept;
    }
    // The empty set keeps every version, prereleases only when allowed or when nothing final
    // is there.
    std::vector<std::string> held_prereleases;
    for (const std::string& text : versions) {
        auto parsed = Version::parse(text);
        if (!parsed) continue;
        if (parsed->is_prerelease() && !prereleases.value_or(false)) {
            if (kept.empty()) held_prereleases.push_back(text);
        } else {
            kept.push_back(text);
        }
    }
    if (kept.empty() && !prereleases) return held_prereleases;
    return kept;
}

std::string SpecifierSet::to_string() const {
    std::string out;
    for (const Specifier& s : specifiers_) {
        if (!out.empty()) out += ',';
        out += s.to_string();
    }
    return out;
}

SpecifierSet& SpecifierSet::operator&=(const SpecifierSet& other) {
    if (prereleases_ && other.prereleases_ && *prereleases_ != *other.prereleases_) {
        throw std::invalid_argument(
            "cannot combine specifier sets with true and false prerelease overrides");
    }
    if (!prereleases_) prereleases_ = other.prereleases_;
    // Clauses already here win over equal ones from `other`, as in packaging's set union.
    specifiers_.insert(specifiers_.end(), other.specifiers_.begin(), other.specifiers_.end());
    normalise_clauses(specifiers_);
    return *this;
}

bool operator==(const SpecifierSet& a, const SpecifierSet& b) {
    // Both hold distinct clauses: compare them as sets, ignoring spelling and order.
    const std::size_t n = a.specifiers_.size();
    if (b.specifiers_.size() != n) return false;
    std::vector<const Specifier*> xs, ys;
    xs.reserve(n);
    ys.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs.push_back(&a.specifiers_[i]);
        ys.push_back(&b.specifiers_[i]);
    }
    auto before = [](const Specifier* x, const Specifier* y) {
        return compare_clauses(*x, *y) < 0;
    };
    std::sort(xs.begin(), xs.end(), before);
    std::sort(ys.begin(), ys.end(), before);
    for (std::size_t i = 0; i < n; ++i) {
        if (compare_clauses(*xs[i], *ys[i]) != 0) return false;
    }
    return true;
}

}  // namespace aitk::pep
