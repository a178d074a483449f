// Marker evaluation, following packaging's _evaluate_markers / _eval_op: every comparison is
// evaluated (no short-circuit, so a comparison packaging would fail on fails here too), then the
// `or`-separated runs of `and`-ed results are combined.
#include <algorithm>
#include <array>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/strings.hpp"
#include "marker_scanner.hpp"

namespace aitk::pep {
namespace {

bool is_specifier_op(MarkerOp op) noexcept {
    return op != MarkerOp::in && op != MarkerOp::not_in;
}

// `!=` and `not in` hold for a set of extras only when they hold for every one of them.
bool is_negative_op(MarkerOp op) noexcept {
    return op == MarkerOp::not_equal || op == MarkerOp::not_in;
}

util::Unexpected<ParseError> evaluation_error(const MarkerComparison& c, std::string message) {
    return util::Unexpected(ParseError{std::move(message), c.to_string(), ParseError::no_position});
}

// packaging's _eval_op: a PEP 440 comparison when `op` + rhs is a valid specifier (the left side
// must then be a valid version), else Python's string operators, which have no `~=` or `===`.
MarkerResult compare(const MarkerComparison& c, std::string_view lhs, std::string_view rhs) {
    if (is_specifier_op(c.op)) {
        const Specifier* specifier = nullptr;
        std::optional<Specifier> built;
        if (!c.rhs.is_variable()) {
            if (c.rhs_specifier) specifier = &*c.rhs_specifier;
        } else if (detail::may_be_specifier_version(c.op, rhs)) {
            std::string text(marker_op_string(c.op));
            text += rhs;
            if (auto parsed = Specifier::parse(text)) {
                built = std::move(*parsed);
                specifier = &*built;
            }
        }
        if (specifier) {
            auto version = Version::parse(lhs);
            if (!version) {
                return evaluation_error(
                    c, util::single_quoted(lhs) +
                           " is not a valid PEP 440 version, so it cannot be compared "
                           "with " +
                           std::string(marker_op_string(c.op)) + " " + util::single_quoted(rhs));
            }
            return specifier->contains(*version, true);
        }
    }
    switch (c.op) {
        case MarkerOp::less_equal:
            return lhs <= rhs;
        case MarkerOp::less:
            return lhs < rhs;
        case MarkerOp::not_equal:
            return lhs != rhs;
        case MarkerOp::equal:
            return lhs == rhs;
        case MarkerOp::greater_equal:
            return lhs >= rhs;
        case MarkerOp::greater:
            return lhs > rhs;
        case MarkerOp::in:
            return rhs.find(lhs) != std::string_view::npos;
        case MarkerOp::not_in:
            return rhs.find(lhs) == std::string_view::npos;
        case MarkerOp::compatible:
        case MarkerOp::arbitrary:
            break;
    }
    return evaluation_error(c, std::string(marker_op_string(c.op)) +
                                   " needs PEP 440 versions on both sides, got " +
                                   util::single_quoted(lhs) + " and " + util::single_quoted(rhs));
}

// An environment value as packaging sees it: a python_full_version ending in "+" (a build from
// a development checkout) gets "local" appended so that it still parses as a version.
std::string_view environment_value(const MarkerEnvironment& env, MarkerVariable variable,
                                   std::string& scratch) {
    const std::string& value = env.get(variable);
    if (variable == MarkerVariable::python_full_version && !value.empty() && value.back() == '+') {
        scratch = value + "local";
        return scratch;
    }
    return value;
}

// PEP 751's sets: `"NAME" in extras` is set membership of the normalised name; no other form
// means anything (packaging asserts a string left side and compares a string with a set).
MarkerResult evaluate_set_comparison(const MarkerComparison& c,
                                     const LockFileSelection* selection) {
    const MarkerVariable set =
        c.lhs.is_variable() && is_set_variable(*c.lhs.variable) ? *c.lhs.variable : *c.rhs.variable;
    const std::string name(marker_variable_name(set));
    if (selection == nullptr) {
        return evaluation_error(c, "'" + name +
                                       "' is defined only in the markers of a lock file "
                                       "(pylock.toml, PEP 751)");
    }
    if (c.lhs.is_variable() || (c.op != MarkerOp::in && c.op != MarkerOp::not_in)) {
        return evaluation_error(c, "'" + name +
                                       "' is a set of names: the only comparisons with it are "
                                       "'NAME' in " +
                                       name + " and 'NAME' not in " + name);
    }
    const auto names =
        set == MarkerVariable::extras ? selection->extras : selection->dependency_groups;
    const std::string wanted = canonicalize_name(c.lhs.value);
    const bool found = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
        return canonicalize_name(n) == wanted;
    });
    return c.op == MarkerOp::in ? found : !found;
}

bool mentions_set(const MarkerComparison& c) noexcept {
    return (c.lhs.variable && is_set_variable(*c.lhs.variable)) ||
           (c.rhs.variable && is_set_variable(*c.rhs.variable));
}

MarkerResult evaluate_comparison(const MarkerComparison& c, const MarkerEnvironment& env,
                                 const std::span<const std::string>* extras,
                                 const LockFileSelection* selection) {
    if (mentions_set(c)) return evaluate_set_comparison(c, selection);
    std::optional<MarkerVariable> key = c.lhs.is_variable() ? c.lhs.variable : c.rhs.variable;
    if (selection != nullptr && key == MarkerVariable::extra) {
        // packaging's lock_file context defines the sets and leaves `extra` undefined.
        return evaluation_error(c,
                                "'extra' is not defined in a lock file's markers; PEP 751 writes "
                                "'NAME' in extras");
    }
    std::string lhs_scratch;
    std::string rhs_scratch;
    if (key != MarkerVariable::extra) {
        std::string_view lhs =
            c.lhs.variable ? environment_value(env, *c.lhs.variable, lhs_scratch) : c.lhs.value;
        std::string_view rhs =
            c.rhs.variable ? environment_value(env, *c.rhs.variable, rhs_scratch) : c.rhs.value;
        return compare(c, lhs, rhs);
    }

    // PEP 685: both sides are compared as normalised names. Literals were normalised when the
    // marker was parsed.
    auto with_extra = [&](std::string_view extra) -> MarkerResult {
        auto side = [&](const MarkerOperand& operand, std::string& scratch) -> std::string_view {
            if (!operand.variable) return operand.value;
            scratch = canonicalize_name(operand.variable == MarkerVariable::extra
                                            ? extra
                                            : environment_value(env, *operand.variable, scratch));
            return scratch;
        };
        std::string_view lhs = side(c.lhs, lhs_scratch);
        std::string_view rhs = side(c.rhs, rhs_scratch);
        return compare(c, lhs, rhs);
    };
    if (extras == nullptr) return with_extra(env.get(MarkerVariable::extra));
    if (extras->empty()) return with_extra("");
    bool negative = is_negative_op(c.op);
    for (const std::string& extra : *extras) {
        auto result = with_extra(extra);
        if (!result) return result;
        if (*result != negative) return *result;
    }
    return negative;
}

}  // namespace

MarkerResult Marker::evaluate_impl(const MarkerEnvironment& env,
                                   const std::span<const std::string>* extras,
                                   const LockFileSelection* selection) const {
    // One level per open parenthesis; the parser bounds the nesting.
    struct Level {
        bool any = false;  // some finished `and`-run was true
        bool all = true;   // the current `and`-run is true so far
    };
    std::array<Level, max_nesting + 1> levels{};
    std::size_t depth = 0;
    for (const Entry& entry : entries_) {
        switch (entry.kind) {
            case EntryKind::comparison: {
                auto result =
                    evaluate_comparison(comparisons_[entry.index], env, extras, selection);
                if (!result) return result;
                levels[depth].all = levels[depth].all && *result;
                break;
            }
            case EntryKind::op_and:
                break;
            case EntryKind::op_or:
                levels[depth].any = levels[depth].any || levels[depth].all;
                levels[depth].all = true;
                break;
            case EntryKind::open:
                levels[++depth] = Level{};
                break;
            case EntryKind::close: {
                bool value = levels[depth].any || levels[depth].all;
                --depth;
                levels[depth].all = levels[depth].all && value;
                break;
            }
        }
    }
    return levels[0].any || levels[0].all;
}

MarkerResult Marker::evaluate(const MarkerEnvironment& env) const {
    return evaluate_impl(env, nullptr);
}

MarkerResult Marker::evaluate(const MarkerEnvironment& env,
                              std::span<const std::string> extras) const {
    return evaluate_impl(env, &extras);
}

MarkerResult Marker::evaluate(const MarkerEnvironment& env,
                              const LockFileSelection& selection) const {
    return evaluate_impl(env, nullptr, &selection);
}

}  // namespace aitk::pep
