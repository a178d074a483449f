#pragma once
// PEP 508 environment markers, following pypa/packaging's Marker: the same grammar (both quote
// styles, Python string escapes, the legacy `os.name` spellings), the same str() and the same
// evaluation rules (PEP 440 comparison when the right-hand side makes a valid specifier, Python
// string comparison otherwise, PEP 685 normalisation of extra names).
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/parsed.hpp"
#include "aitk/pep/specifier.hpp"

namespace aitk::pep {

// The PEP 508 environment variables, plus `extra`, plus PEP 751's two sets `extras` and
// `dependency_groups`, which only a lock file's markers may use (`'cu128' in extras`).
enum class MarkerVariable : std::uint8_t {
    implementation_name,
    implementation_version,
    os_name,
    platform_machine,
    platform_release,
    platform_system,
    platform_version,
    python_full_version,
    platform_python_implementation,
    python_version,
    sys_platform,
    extra,
    extras,             // PEP 751: the extras selected for an install from a lock file
    dependency_groups,  // PEP 751: the dependency groups selected likewise
};
// The variables with a string value, which a MarkerEnvironment holds: every one but the sets.
inline constexpr std::size_t marker_variable_count = 12;

// `extras` and `dependency_groups`: sets of names, defined only when installing from a lock file.
constexpr bool is_set_variable(MarkerVariable variable) noexcept {
    return variable == MarkerVariable::extras || variable == MarkerVariable::dependency_groups;
}

// The canonical spelling ("platform_python_implementation", "dependency_groups").
std::string_view marker_variable_name(MarkerVariable variable) noexcept;
// Canonical spellings of the string variables only; the legacy ones ("os.name") are accepted
// inside markers, not here, and the sets are not values an environment holds.
std::optional<MarkerVariable> marker_variable_from_name(std::string_view name) noexcept;

// The values markers are evaluated against. This layer does no I/O: a higher layer fills it from
// the target interpreter (or from a lockfile target). Every value starts empty, `extra` included.
class MarkerEnvironment {
  public:
    // A set variable has no string value: get() gives "" and set() ignores it.
    const std::string& get(MarkerVariable variable) const noexcept {
        const auto index = static_cast<std::size_t>(variable);
        return index < values_.size() ? values_[index] : none_;
    }
    void set(MarkerVariable variable, std::string value) {
        const auto index = static_cast<std::size_t>(variable);
        if (index < values_.size()) values_[index] = std::move(value);
    }
    // By canonical name; an unknown name is an error that lists the known ones.
    Parsed<MarkerVariable> set(std::string_view name, std::string value);

    friend bool operator==(const MarkerEnvironment&, const MarkerEnvironment&) = default;

  private:
    std::array<std::string, marker_variable_count> values_;
    static inline const std::string none_{};
};

// Every variable but `extra`, by canonical name: how a lockfile target and `python find --json`
// record the environment.
std::map<std::string, std::string> marker_map(const MarkerEnvironment& env);

enum class MarkerOp : std::uint8_t {
    less_equal,     // <=
    less,           // <
    not_equal,      // !=
    equal,          // ==
    greater_equal,  // >=
    greater,        // >
    compatible,     // ~=
    arbitrary,      // ===
    in,             // in
    not_in,         // not in
};

std::string_view marker_op_string(MarkerOp op) noexcept;

// One side of a comparison: an environment variable, or a literal string (escapes decoded).
struct MarkerOperand {
    std::optional<MarkerVariable> variable;
    std::string value;  // empty for a variable

    bool is_variable() const noexcept { return variable.has_value(); }
    friend bool operator==(const MarkerOperand&, const MarkerOperand&) = default;
};

struct MarkerComparison {
    MarkerOperand lhs;
    MarkerOp op = MarkerOp::equal;
    MarkerOperand rhs;
    // `op` + the right-hand literal as a PEP 440 specifier, when that parses: built once here
    // instead of at every evaluation.
    std::optional<Specifier> rhs_specifier;

    // `lhs op rhs` as str(Marker) writes it: `python_version >= "3.8"`.
    std::string to_string() const;
};

// Evaluation fails where packaging raises: a version comparison whose left side is not a valid
// version (`platform_release >= "5.0"` on "6.8.0-45-generic"), or `~=` / `===` between strings
// that are not versions. The error names the comparison.
// Two deliberate differences, where packaging's result is an accident of its implementation:
// two literals (`"a" < "b"`) compare with each other (packaging looks the right one up as a
// variable name and raises), and two variables compare their values (packaging compares the
// left value with the right variable's *name*).
using MarkerResult = util::Expected<bool, ParseError>;

// PEP 751: what an install from a lock file selected, the values of the set variables `extras`
// and `dependency_groups` (names compare normalised, as PEP 685 and PEP 735 say). Only
// `"NAME" in extras` and `"NAME" not in extras` (the same for dependency_groups) are defined;
// `extra` is not, in a lock file's markers.
struct LockFileSelection {
    std::span<const std::string> extras;
    std::span<const std::string> dependency_groups;
};

namespace detail {
class MarkerParser;
}

class Marker {
  public:
    // Parentheses nested deeper than this are rejected, so no input can exhaust the stack.
    static constexpr std::size_t max_nesting = 64;

    static Parsed<Marker> parse(std::string_view text);

    // `extra` takes the environment's value (empty when unset), normalised as PEP 685 says.
    MarkerResult evaluate(const MarkerEnvironment& env) const;
    // For requirements pulled in with several extras at once: each comparison involving `extra`
    // is true when it holds for any of `extras` (for `!=` and `not in`: for all of them); with no
    // extras, `extra` is "". The environment's own `extra` is ignored.
    MarkerResult evaluate(const MarkerEnvironment& env, std::span<const std::string> extras) const;
    // A lock file's marker (PEP 751), with the install's extras and groups as the two sets.
    // Outside this call `extras` and `dependency_groups` are undefined: evaluating a marker that
    // uses them is an error, as packaging raises.
    MarkerResult evaluate(const MarkerEnvironment& env, const LockFileSelection& selection) const;

    bool mentions(MarkerVariable variable) const noexcept;
    bool mentions_extra() const noexcept { return mentions(MarkerVariable::extra); }
    // The (normalised) extra names this marker compares `extra` with, sorted and unique.
    std::vector<std::string> referenced_extras() const;

    const std::vector<MarkerComparison>& comparisons() const noexcept { return comparisons_; }

    // packaging's str(Marker): double-quoted values, single spaces, the user's grouping kept
    // (redundant parentheses around a single item or the whole marker dropped). A value that
    // holds a double quote is single-quoted, and backslashes and control characters are escaped,
    // so the result always parses back to an equal marker.
    std::string to_string() const;

    // Equal when str() is equal, as packaging compares markers.
    friend bool operator==(const Marker& a, const Marker& b) {
        return a.to_string() == b.to_string();
    }

  private:
    friend class detail::MarkerParser;

    enum class EntryKind : std::uint8_t { comparison, open, close, op_and, op_or };
    // The marker in written order, like packaging's nested lists flattened: `a and (b or c)` is
    // [cmp a, and, open, cmp b, or, cmp c, close].
    struct Entry {
        EntryKind kind;
        // comparison: index into comparisons_; open: index of the matching close.
        std::uint32_t index = 0;
    };

    Marker() = default;

    // `extras` null: use the environment's `extra`; `selection` non-null: a lock file's marker.
    MarkerResult evaluate_impl(const MarkerEnvironment& env,
                               const std::span<const std::string>* extras,
                               const LockFileSelection* selection = nullptr) const;
    void render_sequence(std::size_t begin, std::size_t end, bool top, std::string& out) const;
    void render_atom(std::size_t at, bool top, std::string& out) const;
    std::size_t atom_end(std::size_t at) const noexcept;

    std::vector<Entry> entries_;
    std::vector<MarkerComparison> comparisons_;
};

}  // namespace aitk::pep
