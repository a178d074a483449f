#include "aitk/pep/version.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>

#include "aitk/util/strings.hpp"
#include "separators.hpp"

namespace aitk::pep {
namespace {

using util::is_ascii_alnum;
using util::is_ascii_digit;
using util::to_ascii_lower;

// A cursor over the version text. Matching is case-insensitive, as packaging's regex is.
class VersionScanner {
  public:
    explicit VersionScanner(std::string_view text) : text_(text) {}

    bool at_end() const noexcept { return pos_ >= text_.size(); }
    std::size_t pos() const noexcept { return pos_; }
    void reset(std::size_t pos) noexcept { pos_ = pos; }
    char peek(std::size_t ahead = 0) const noexcept {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    void advance(std::size_t n = 1) noexcept { pos_ += n; }

    bool digit_at(std::size_t ahead) const noexcept { return is_ascii_digit(peek(ahead)); }

    // Consumes `word` case-insensitively if it is next.
    bool take_word(std::string_view word) noexcept {
        if (text_.size() - pos_ < word.size()) return false;
        for (std::size_t i = 0; i < word.size(); ++i) {
            if (to_ascii_lower(text_[pos_ + i]) != word[i]) return false;
        }
        pos_ += word.size();
        return true;
    }

    // Reads [0-9]+ into `out`; false on overflow (the caller reports it).
    bool take_number(std::uint64_t& out) noexcept {
        out = 0;
        while (digit_at(0)) {
            auto d = static_cast<std::uint64_t>(text_[pos_] - '0');
            if (out > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
            out = out * 10 + d;
            ++pos_;
        }
        return true;
    }

  private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

struct Keyword {
    std::string_view word;
    PreKind kind;
};

// Longest spellings first: each keyword is always followed by a separator, digit, '+' or the
// end, so the longest match never steals what a shorter one would have left for a later part.
constexpr std::array<Keyword, 8> kPreKeywords{{
    {"preview", PreKind::rc},
    {"alpha", PreKind::alpha},
    {"beta", PreKind::beta},
    {"pre", PreKind::rc},
    {"rc", PreKind::rc},
    {"a", PreKind::alpha},
    {"b", PreKind::beta},
    {"c", PreKind::rc},
}};
constexpr std::array<std::string_view, 3> kPostKeywords{"post", "rev", "r"};

// Reads "[sep]?[digits]" after a keyword. packaging's pattern lets the separator stand without
// digits ("1.0a." is 1.0a0); every later part starts with an optional separator of its own, so
// taking it here never starves one. Missing digits mean 0.
bool take_optional_number(VersionScanner& s, std::uint64_t& out, bool& overflow) {
    out = 0;
    if (detail::is_separator(s.peek())) s.advance();
    if (!s.digit_at(0)) return true;
    if (!s.take_number(out)) {
        overflow = true;
        return false;
    }
    return true;
}

}  // namespace

std::string_view pre_kind_string(PreKind kind) noexcept {
    switch (kind) {
        case PreKind::alpha:
            return "a";
        case PreKind::beta:
            return "b";
        case PreKind::rc:
            return "rc";
    }
    return "rc";
}

Parsed<Version> Version::parse(std::string_view text) {
    std::string_view body = util::trim(text);
    const std::size_t offset = static_cast<std::size_t>(body.data() - text.data());
    VersionScanner s(body);
    auto fail = [&](std::string message, std::size_t at) {
        return parse_error("invalid version: " + message, text, offset + at);
    };
    auto overflow = [&](std::size_t at) { return fail("number is too large", at); };

    if (body.empty()) return parse_error("invalid version: empty string", text);
    if (s.peek() == 'v' || s.peek() == 'V') s.advance();

    Version v;
    v.release_.clear();
    if (!s.digit_at(0)) return fail("expected a release number such as 1.0", s.pos());

    // Epoch or first release component.
    std::uint64_t n = 0;
    std::size_t start = s.pos();
    if (!s.take_number(n)) return overflow(start);
    if (s.peek() == '!') {
        s.advance();
        v.epoch_ = n;
        if (!s.digit_at(0)) return fail("expected a release number after the epoch '!'", s.pos());
        start = s.pos();
        if (!s.take_number(n)) return overflow(start);
    }
    v.release_.push_back(n);
    while (s.peek() == '.' && s.digit_at(1)) {
        s.advance();
        start = s.pos();
        if (!s.take_number(n)) return overflow(start);
        v.release_.push_back(n);
    }
    v.update_significant();
    if (s.at_end()) {  // a plain release such as "2.7.0": the common case
        v.plain_ = true;
        return v;
    }

    bool too_large = false;
    // Pre-release: [sep]? (a|b|rc|alpha|beta|c|pre|preview) [sep]? [N]
    {
        std::size_t before = s.pos();
        if (detail::is_separator(s.peek())) s.advance();
        bool found = false;
        for (const Keyword& k : kPreKeywords) {
            if (s.take_word(k.word)) {
                std::uint64_t num = 0;
                if (!take_optional_number(s, num, too_large)) return overflow(before);
                v.pre_kind_ = static_cast<std::uint8_t>(static_cast<int>(k.kind) + 1);
                v.pre_number_ = num;
                found = true;
                break;
            }
        }
        if (!found) s.reset(before);
    }
    // Post-release: "-N" or [sep]? (post|rev|r) [sep]? [N]
    {
        std::size_t before = s.pos();
        if (s.peek() == '-' && s.digit_at(1)) {
            s.advance();
            std::uint64_t num = 0;
            if (!s.take_number(num)) return overflow(before);
            v.post_ = num;
            v.has_post_ = true;
        } else {
            if (detail::is_separator(s.peek())) s.advance();
            bool found = false;
            for (std::string_view word : kPostKeywords) {
                if (s.take_word(word)) {
                    std::uint64_t num = 0;
                    if (!take_optional_number(s, num, too_large)) return overflow(before);
                    v.post_ = num;
                    v.has_post_ = true;
                    v.has_post_ = true;
                    found = true;
                    break;
                }
            }
            if (!found) s.reset(before);
        }
    }
    // Development release: [sep]? dev [sep]? [N]
    {
        std::size_t before = s.pos();
        if (detail::is_separator(s.peek())) s.advance();
        if (s.take_word("dev")) {
            std::uint64_t num = 0;
            if (!take_optional_number(s, num, too_large)) return overflow(before);
            v.dev_ = num;
            v.has_dev_ = true;
        } else {
            s.reset(before);
        }
    }
    // Local label: + [a-z0-9]+ ([-_.][a-z0-9]+)*, normalised to lower case with '.' separators
    // and numeric segments without leading zeros.
    if (s.peek() == '+') {
        s.advance();
        std::size_t label_start = s.pos();
        std::string local;
        while (true) {
            std::size_t seg_start = s.pos();
            bool numeric = true;
            while (is_ascii_alnum(s.peek())) {
                numeric = numeric && is_ascii_digit(s.peek());
                s.advance();
            }
            if (s.pos() == seg_start) {
                return fail(s.pos() == label_start
                                ? "expected a local version label after '+'"
                                : "expected letters or digits after a separator in the local "
                                  "version label",
                            s.pos());
            }
            std::string_view seg = body.substr(seg_start, s.pos() - seg_start);
            if (!local.empty()) local += '.';
            if (numeric) {
                std::size_t nz = seg.find_first_not_of('0');
                local += nz == std::string_view::npos ? std::string_view("0") : seg.substr(nz);
            } else {
                for (char c : seg)
                    local += to_ascii_lower(c);
            }
            if (detail::is_separator(s.peek()) && is_ascii_alnum(s.peek(1))) {
                s.advance();
                continue;
            }
            break;
        }
        v.local_.assign(std::move(local));
    }
    if (!s.at_end()) {
        char c = s.peek();
        std::string what = c == '+' ? "a second '+' (only one local label is allowed)"
                                    : std::string("unexpected character '") + c + "'";
        return fail(what, s.pos());
    }
    v.plain_ = v.pre_kind_ == 0 && !v.has_post_ && !v.has_dev_ && v.local_.empty();
    return v;
}

namespace {

// Orders two local labels segment by segment: numbers compare numerically and sort after
// strings; a label that is a prefix of another sorts first.
std::strong_ordering compare_local(std::string_view a, std::string_view b) noexcept {
    auto next = [](std::string_view& rest) {
        std::size_t dot = rest.find('.');
        std::string_view seg = rest.substr(0, dot);
        rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
        return seg;
    };
    auto is_num = [](std::string_view seg) {
        return std::all_of(seg.begin(), seg.end(), [](char c) { return is_ascii_digit(c); });
    };
    while (!a.empty() && !b.empty()) {
        std::string_view sa = next(a);
        std::string_view sb = next(b);
        bool na = is_num(sa);
        bool nb = is_num(sb);
        if (na != nb) return na ? std::strong_ordering::greater : std::strong_ordering::less;
        if (na) {
            // Normalised numbers have no leading zeros: longer means larger.
            if (sa.size() != sb.size()) return sa.size() <=> sb.size();
        }
        int c = sa.compare(sb);
        if (c != 0) return c <=> 0;
    }
    return !a.empty() <=> !b.empty();
}

}  // namespace

std::strong_ordering Version::compare_after_release(const Version& a, const Version& b) noexcept {
    // Pre-release rank: a dev-only release (1.0.dev1) sorts before any pre-release of the same
    // release; a final or post release sorts after them.
    auto pre_rank = [](const Version& v) -> int {
        if (v.pre_kind_ != 0) return 1;
        if (!v.has_post_ && v.has_dev_) return 0;
        return 2;
    };
    int ra = pre_rank(a);
    int rb = pre_rank(b);
    if (auto c = ra <=> rb; c != 0) return c;
    if (ra == 1) {
        if (auto c = a.pre_kind_ <=> b.pre_kind_; c != 0) return c;
        if (auto c = a.pre_number_ <=> b.pre_number_; c != 0) return c;
    }
    // No post release sorts first.
    if (auto c = a.has_post_ <=> b.has_post_; c != 0) return c;
    if (a.has_post_) {
        if (auto c = a.post_ <=> b.post_; c != 0) return c;
    }
    // No dev release sorts last.
    if (auto c = b.has_dev_ <=> a.has_dev_; c != 0) return c;
    if (a.has_dev_) {
        if (auto c = a.dev_ <=> b.dev_; c != 0) return c;
    }
    return compare_local(a.local_.str(), b.local_.str());
}

std::uint64_t Version::make_order_key() const noexcept {
    constexpr unsigned field_bits = 20;
    constexpr std::uint64_t field_max = (std::uint64_t{1} << field_bits) - 1;
    // Bit 63: a non-zero epoch (all such versions sort after epoch 0; their order is decided
    // in full). Then three 20-bit release fields.
    if (epoch_ != 0) return std::uint64_t{1} << 63;
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        std::uint64_t n = i < release_.size() ? release_[i] : 0;
        bool saturated = n >= field_max;
        key |= (saturated ? field_max : n) << (field_bits * (2 - i));
        if (saturated) break;
    }
    return key;
}

std::size_t Version::hash() const noexcept {
    auto mix = [](std::size_t h, std::uint64_t x) {
        return h ^ (std::hash<std::uint64_t>{}(x) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    };
    std::size_t h = mix(0, epoch_);
    std::size_t n = significant_;
    for (std::size_t i = 0; i < n; ++i)
        h = mix(h, release_[i]);
    h = mix(h, pre_kind_);
    h = mix(h, pre_kind_ ? pre_number_ : 0);
    h = mix(h, has_post_ ? post_ + 1 : 0);
    h = mix(h, has_dev_ ? dev_ + 1 : 0);
    return mix(h, std::hash<std::string>{}(local_.str()));
}

std::string Version::public_string() const {
    std::string out;
    out.reserve(16);
    if (epoch_ != 0) {
        out += std::to_string(epoch_);
        out += '!';
    }
    for (std::size_t i = 0; i < release_.size(); ++i) {
        if (i) out += '.';
        out += std::to_string(release_[i]);
    }
    if (pre_kind_ != 0) {
        out += pre_kind_string(static_cast<PreKind>(pre_kind_ - 1));
        out += std::to_string(pre_number_);
    }
    if (has_post_) {
        out += ".post";
        out += std::to_string(post_);
    }
    if (has_dev_) {
        out += ".dev";
        out += std::to_string(dev_);
    }
    return out;
}

std::string Version::to_string() const {
    std::string out = public_string();
    if (!local_.empty()) {
        out += '+';
        out += local_.str();
    }
    return out;
}

std::string Version::base_version() const {
    return base().to_string();
}

Version Version::public_version() const {
    Version v = *this;
    v.local_.clear();
    v.plain_ = v.pre_kind_ == 0 && !v.has_post_ && !v.has_dev_;
    return v;
}

Version Version::base() const {
    Version v;
    v.epoch_ = epoch_;
    v.release_ = release_;
    v.significant_ = significant_;
    v.order_key_ = order_key_;
    v.plain_ = true;
    return v;
}

std::string canonicalize_version(std::string_view text, bool strip_trailing_zero) {
    auto parsed = Version::parse(text);
    if (!parsed) return std::string(text);
    Version v = *std::move(parsed);
    std::string out;
    if (v.epoch() != 0) out += std::to_string(v.epoch()) + "!";
    std::span<const std::uint64_t> release = v.release();
    std::size_t n = release.size();
    if (strip_trailing_zero) {
        while (n > 1 && release[n - 1] == 0)
            --n;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (i) out += '.';
        out += std::to_string(release[i]);
    }
    std::string full = v.to_string();
    // Everything after the release (pre/post/dev/local) is kept as normalised.
    std::string tail_src = v.base_version();
    out += full.substr(tail_src.size());
    return out;
}

}  // namespace aitk::pep
