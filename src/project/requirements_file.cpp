// Requirements files as pip 23.2 reads them (pip/_internal/req/req_file.py): logical lines,
// option lines that change the index settings, requirement lines with per-requirement options,
// and `-r` / `-c` includes read in place, relative to the including file.
//
// Where pip silently ignores something that is almost certainly a mistake (a file-wide option
// on a requirement line, words after the options, `--hash` without a requirement, a second
// `-e`), this reader reports a problem instead. Nested files of a `-c` file are constraints too.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "aitk/fs/input_file.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/project/requirements_file.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/text.hpp"
#include "aitk/util/utf8.hpp"
#include "requirements_entry.hpp"
#include "requirements_lines.hpp"
#include "requirements_options.hpp"
#include "requirements_source.hpp"

namespace aitk::project {

std::string RequirementLine::name() const {
    return requirement ? requirement->canonical_name() : std::string{};
}

namespace detail {
namespace {

// Nesting deeper than this is a runaway include (a.txt → sub/a.txt → sub/sub/a.txt …).
constexpr std::size_t max_include_depth = 32;

struct HashAlgorithm {
    std::string_view name;
    std::size_t hex_digits;
};
// pip's STRONG_HASHES (utils/hashes.py).
constexpr std::array<HashAlgorithm, 3> strong_hashes{{
    {"sha256", 64},
    {"sha384", 96},
    {"sha512", 128},
}};

// "sha256:<hex>" checked and lower-cased, or why not. `separator` is ':' for --hash and '=' for
// a URL fragment.
util::Expected<std::string, LineError> normalise_hash(std::string_view value, std::size_t offset,
                                                      char separator) {
    std::size_t split = value.find(separator);
    if (split == std::string_view::npos) {
        return util::Unexpected(LineError{
            offset, "--hash value '" + std::string(value) + "' is not a hash name and a digest",
            "write --hash=sha256:<64 hex digits>"});
    }
    std::string_view algorithm = value.substr(0, split);
    std::string_view digest = value.substr(split + 1);
    const HashAlgorithm* known = nullptr;
    for (const auto& h : strong_hashes) {
        if (h.name == algorithm) known = &h;
    }
    if (known == nullptr) {
        return util::Unexpected(
            LineError{offset, "hash algorithm '" + std::string(algorithm) + "' is not allowed",
                      "pip accepts sha256, sha384 and sha512"});
    }
    bool hex = digest.empty() || util::is_hex(digest);
    if (!hex || digest.size() != known->hex_digits) {
        return util::Unexpected(LineError{
            offset + split + 1,
            "'" + std::string(digest) + "' is not a " + std::string(algorithm) +
                " digest: expected " + std::to_string(known->hex_digits) + " hex digits, found " +
                std::to_string(digest.size()) + (hex ? "" : " characters that are not all hex"),
            "copy the digest again, e.g. from `pip hash FILE` or the index page"});
    }
    return std::string(algorithm) + ":" + util::to_lower(digest);
}

// pip's FormatControl.handle_mutual_excludes: `target` gains the names, `other` loses them;
// ":all:" replaces everything, ":none:" clears the target.
void apply_format_control(std::string_view value, std::vector<std::string>& target,
                          std::vector<std::string>& other) {
    std::vector<std::string_view> names = util::split(value, ',');
    std::size_t start = 0;
    while (true) {
        auto all = std::find(names.begin() + static_cast<std::ptrdiff_t>(start), names.end(),
                             std::string_view(":all:"));
        if (all == names.end()) break;
        other.clear();
        target.assign(1, ":all:");
        start = static_cast<std::size_t>(all - names.begin()) + 1;
        if (std::find(names.begin() + static_cast<std::ptrdiff_t>(start), names.end(),
                      std::string_view(":none:")) == names.end()) {
            return;
        }
    }
    for (std::size_t k = start; k < names.size(); ++k) {
        if (names[k] == ":none:") {
            target.clear();
            continue;
        }
        std::string name = pep::canonicalize_name(names[k]);
        other.erase(std::remove(other.begin(), other.end(), name), other.end());
        if (std::find(target.begin(), target.end(), name) == target.end()) target.push_back(name);
    }
}

void push_unique(std::vector<std::string>& list, std::string value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

// Whether `file` lies inside `root` (both made absolute and free of links, so a link in the
// input's folder that points at /etc/shadow counts as outside).
bool lies_inside(const std::filesystem::path& file, const std::filesystem::path& root) {
    std::error_code ec;
    const auto real_file =
        std::filesystem::weakly_canonical(std::filesystem::absolute(file, ec), ec);
    if (ec) return false;
    const auto relative = real_file.lexically_relative(root);
    return !relative.empty() && *relative.begin() != "..";
}

// Why the lines of a file on disk are not shown, or empty (fs::readable_by_everyone).
std::string private_file_reason(const std::filesystem::path& path) {
    return fs::readable_by_everyone(path) ? std::string()
                                          : "not everyone may read the file, so it stays private";
}

std::filesystem::path real_folder(const std::filesystem::path& folder) {
    std::error_code ec;
    auto absolute = std::filesystem::absolute(folder.empty() ? "." : folder, ec);
    auto real = std::filesystem::weakly_canonical(absolute, ec);
    return ec ? absolute.lexically_normal() : real;
}

class Parser {
  public:
    // `root`: the folder of the input the user named; lines of files outside it are never
    // shown.
    Parser(const RequirementsReadOptions& options, const std::filesystem::path& root)
        : options_(options), root_(real_folder(root)) {}

    // Parses one file's text; includes are read and parsed in place.
    std::optional<InputProblem> parse(std::string_view text, const RequirementsSource& source,
                                      bool constraint) {
        std::string decoded = decode_requirements_bytes(text);
        // Text embedded in another file (an environment.yml) was checked with that file.
        if (source.line_starts.empty()) {
            if (auto problem = util::check_text(decoded, source.label)) return problem;
        }
        LogicalLineReader reader(decoded, options_.environment);
        LogicalLine line;
        while (reader.next(line)) {
            for (const auto& expansion : line.expansions)
                util::add_concealed(result_.concealed, expansion);
            if (auto problem = handle_line(line, source, constraint, false)) return problem;
        }
        return std::nullopt;
    }

    // One logical line: a requirement, an editable requirement, or options.
    std::optional<InputProblem> handle_line(const LogicalLine& line,
                                            const RequirementsSource& source, bool constraint,
                                            bool single_requirement) {
        auto split = split_line(line.text);
        if (!split) return problem_at(source, line, std::move(split.error()));
        if (!split->requirement.empty()) {
            return requirement_line(line, source, *split, constraint);
        }
        auto editable =
            std::find_if(split->options.begin(), split->options.end(),
                         [](const OptionValue& o) { return o.option == LineOption::editable; });
        if (editable != split->options.end()) {
            return editable_line(line, source, *split, *editable, constraint);
        }
        if (single_requirement) {
            return problem_at(source, line,
                              LineError{0, "expected a requirement, found only options",
                                        "write one requirement such as name>=1.0"});
        }
        for (const auto& option : split->options) {
            if (auto problem = apply_option(line, source, option, constraint)) return problem;
        }
        return std::nullopt;
    }

    RequirementsFile& result() { return result_; }
    std::vector<std::string>& chain() { return chain_; }

  private:
    SourceLocation locate(const RequirementsSource& source, const LogicalLine& line,
                          std::size_t offset) const {
        TextOrigin origin = line.origin_at(offset);
        std::size_t number = origin.line;
        std::size_t column = origin.column;
        if (!source.line_starts.empty() && number >= 1 && number <= source.line_starts.size()) {
            auto [mapped_line, mapped_column] = source.line_starts[number - 1];
            number = mapped_line;
            column = mapped_column == 0 ? 0 : mapped_column + column - 1;
        }
        return SourceLocation{source.label, number, column};
    }

    InputProblem problem_at(const RequirementsSource& source, const LogicalLine& line,
                            LineError error) const {
        if (!source.hidden_because.empty()) {
            // What is wrong would quote the line; its place is what the user needs.
            return InputProblem{locate(source, line, error.offset),
                                "this line is not a valid requirement or option (its text is not "
                                "shown: " +
                                    source.hidden_because + ")",
                                "fix the line, or the -r/-c line that names " + source.label};
        }
        return InputProblem{locate(source, line, error.offset),
                            util::conceal(error.message, line.expansions),
                            util::conceal(error.hint, line.expansions)};
    }

    std::optional<InputProblem> requirement_line(const LogicalLine& line,
                                                 const RequirementsSource& source,
                                                 const SplitLine& split, bool constraint) {
        std::size_t start = static_cast<std::size_t>(split.requirement.data() - line.text.data());
        std::vector<std::string> hashes;
        for (const auto& option : split.options) {
            if (option.option == LineOption::hash) {
                auto hash = normalise_hash(option.value, option.value_offset, ':');
                if (!hash) return problem_at(source, line, std::move(hash.error()));
                push_unique(hashes, std::move(*hash));
            } else if (!is_per_requirement(option.option)) {
                std::string name(option_name(option.option));
                return problem_at(
                    source, line,
                    LineError{option.offset,
                              "option '" + name +
                                  "' applies to the whole file, and pip ignores it on a line "
                                  "with a requirement",
                              "move " + name + " to a line of its own"});
            }
        }
        auto entry = parse_requirement_entry(split.requirement, source.base_dir);
        if (!entry) {
            entry.error().offset += start;
            return problem_at(source, line, std::move(entry.error()));
        }
        entry->where = locate(source, line, start);
        entry->text = std::string(split.requirement);
        entry->hashes = std::move(hashes);
        if (auto problem = add_url_hash(*entry, line, source, start)) return problem;
        return add(std::move(*entry), line, source, start, constraint);
    }

    std::optional<InputProblem> editable_line(const LogicalLine& line,
                                              const RequirementsSource& source,
                                              const SplitLine& split, const OptionValue& editable,
                                              bool constraint) {
        for (const auto& option : split.options) {
            if (&option == &editable || option.option == LineOption::global_option ||
                option.option == LineOption::config_settings) {
                continue;
            }
            if (option.option == LineOption::editable) {
                return problem_at(source, line,
                                  LineError{option.offset, "a second -e on the same line",
                                            "pip reads only the first; give each -e a line"});
            }
            std::string name(option_name(option.option));
            return problem_at(
                source, line,
                LineError{option.offset,
                          "option '" + name + "' cannot go with -e (pip ignores it there)",
                          option.option == LineOption::hash
                              ? "editable requirements are built from source and cannot be "
                                "hash-checked: remove the --hash"
                              : "move " + name + " to a line of its own"});
        }
        auto entry = parse_editable_entry(editable.value, source.base_dir);
        if (!entry) {
            entry.error().offset += editable.value_offset;
            return problem_at(source, line, std::move(entry.error()));
        }
        entry->where = locate(source, line, 0);
        entry->text = editable.value;
        return add(std::move(*entry), line, source, editable.value_offset, constraint);
    }

    // A "#sha256=<hex>" fragment on a URL is a hash pip checks too.
    std::optional<InputProblem> add_url_hash(RequirementLine& entry, const LogicalLine& line,
                                             const RequirementsSource& source, std::size_t start) {
        if (entry.url.empty() || entry.vcs) return std::nullopt;
        for (std::string_view part : pep::split_fragment(entry.url).items()) {
            for (const auto& h : strong_hashes) {
                if (part.size() > h.name.size() && part.substr(0, h.name.size()) == h.name &&
                    part[h.name.size()] == '=') {
                    std::size_t offset = start + split_offset(entry.text, part);
                    auto normalised = normalise_hash(part, offset, '=');
                    if (!normalised) return problem_at(source, line, std::move(normalised.error()));
                    push_unique(entry.hashes, std::move(*normalised));
                }
            }
        }
        return std::nullopt;
    }

    static std::size_t split_offset(std::string_view text, std::string_view part) {
        std::size_t at = text.find(part);
        return at == std::string_view::npos ? 0 : at;
    }

    std::optional<InputProblem> add(RequirementLine entry, const LogicalLine& line,
                                    const RequirementsSource& source, std::size_t start,
                                    bool constraint) {
        if (!constraint) {
            result_.requirements.push_back(std::move(entry));
            return std::nullopt;
        }
        // pip's check_invalid_constraint_type.
        std::string message;
        std::string hint;
        if (!entry.requirement) {
            message = "unnamed requirements are not allowed as constraints";
            hint = "constraints name a project: name==1.0, or name @ URL";
        } else if (entry.editable) {
            message = "editable requirements are not allowed as constraints";
            hint = "remove -e, or move the line to a requirements file";
        } else if (!entry.requirement->extras().empty()) {
            message = "constraints cannot have extras";
            hint = "remove the [" + util::join(entry.requirement->extras(), ",") + "]";
        }
        if (!message.empty()) return problem_at(source, line, LineError{start, message, hint});
        result_.constraints.push_back(std::move(entry));
        return std::nullopt;
    }

    std::optional<InputProblem> apply_option(const LogicalLine& line,
                                             const RequirementsSource& source,
                                             const OptionValue& option, bool constraint) {
        RequirementsOptions& o = result_.options;
        switch (option.option) {
            case LineOption::index_url:
                o.index_url = option.value;
                break;
            case LineOption::extra_index_url:
                push_unique(o.extra_index_urls, option.value);
                break;
            case LineOption::no_index:
                o.no_index = true;
                break;
            case LineOption::find_links:
                push_unique(o.find_links,
                            has_url_scheme(option.value)
                                ? option.value
                                : util::utf8_of(join_relative(source.base_dir, option.value)));
                break;
            case LineOption::no_binary:
            case LineOption::only_binary: {
                if (!option.value.empty() && option.value.front() == '-') {
                    return problem_at(
                        source, line,
                        LineError{option.offset,
                                  "option '" + std::string(option_name(option.option)) +
                                      "' needs a list of names, not '" + option.value + "'",
                                  "write --only-binary :all: or --no-binary name1,name2"});
                }
                bool no = option.option == LineOption::no_binary;
                apply_format_control(option.value, no ? o.no_binary : o.only_binary,
                                     no ? o.only_binary : o.no_binary);
                break;
            }
            case LineOption::prefer_binary:
                o.prefer_binary = true;
                break;
            case LineOption::require_hashes:
                o.require_hashes = true;
                break;
            case LineOption::pre:
                o.pre = true;
                break;
            case LineOption::trusted_host:
                push_unique(o.trusted_hosts, option.value);
                break;
            case LineOption::requirement:
            case LineOption::constraint:
                return include(line, source, option,
                               constraint || option.option == LineOption::constraint);
            case LineOption::hash:
                return problem_at(source, line,
                                  LineError{option.offset, "--hash without a requirement",
                                            "put --hash after the requirement it checks, on the "
                                            "same line (end the line with \\ to continue it)"});
            case LineOption::use_feature:
            case LineOption::global_option:
            case LineOption::config_settings:
            case LineOption::editable:
                break;  // no effect on what gets installed (pip: features, build options)
        }
        return std::nullopt;
    }

    std::optional<InputProblem> include(const LogicalLine& line, const RequirementsSource& source,
                                        const OptionValue& option, bool constraint) {
        std::string flag = option.option == LineOption::constraint ? "-c" : "-r";
        std::filesystem::path target;
        if (has_url_scheme(option.value)) {
            auto local = file_url_to_path(option.value);
            if (!local) {
                return problem_at(
                    source, line,
                    LineError{option.value_offset,
                              "cannot include '" + option.value + "': only local files can be read",
                              "download the file and name it with " + flag + " and a path"});
            }
            target = *local;
        } else {
            target = std::filesystem::path(option.value);
        }
        std::filesystem::path path = join_relative(source.base_dir, target);
        std::string label = util::conceal(util::utf8_of(path), line.expansions);
        if (std::find(chain_.begin(), chain_.end(), label) != chain_.end()) {
            std::string cycle;
            auto first = std::find(chain_.begin(), chain_.end(), label);
            for (auto it = first; it != chain_.end(); ++it)
                cycle += *it + " -> ";
            cycle += label;
            return problem_at(
                source, line,
                LineError{option.offset, "requirements files include each other: " + cycle,
                          "remove one of the " + flag + " lines of the cycle"});
        }
        if (chain_.size() >= max_include_depth) {
            return problem_at(source, line,
                              LineError{option.offset,
                                        "requirements files nest more than " +
                                            std::to_string(max_include_depth) + " levels deep",
                                        "check the " + flag + " paths for a runaway include"});
        }
        auto text =
            options_.read ? options_.read(path) : fs::read_input_file(path, fs::requirements_file);
        if (!text) {
            std::string folder = source.base_dir.empty() ? "." : util::utf8_of(source.base_dir);
            return problem_at(
                source, line,
                LineError{option.value_offset,
                          "cannot read requirements file '" + label + "': " + text.error(),
                          "the path is relative to the folder of the file that names it (" +
                              folder + ")"});
        }
        if (std::find(result_.files.begin(), result_.files.end(), path) == result_.files.end()) {
            result_.files.push_back(path);
        }
        chain_.push_back(label);
        RequirementsSource nested{label, path.parent_path(), {}, hidden_because(path)};
        auto problem = parse(*text, nested, constraint);
        chain_.pop_back();
        return problem;
    }

    // Why lines of the file at `path`, included from the input, are not shown; empty: they are.
    std::string hidden_because(const std::filesystem::path& path) const {
        if (!lies_inside(path, root_)) {
            return "the file lies outside " + util::utf8_of(root_) + ", the folder of the input";
        }
        return options_.read ? std::string() : private_file_reason(path);
    }

    const RequirementsReadOptions& options_;
    std::filesystem::path root_;
    RequirementsFile result_;
    std::vector<std::string> chain_;  // files being read, outermost first
};

}  // namespace

Loaded<RequirementsFile> parse_requirements_source(std::string_view text,
                                                   const RequirementsSource& source,
                                                   const RequirementsReadOptions& options) {
    Parser parser(options, source.base_dir);
    parser.chain().push_back(util::utf8_of(std::filesystem::path(source.label).lexically_normal()));
    if (auto problem = parser.parse(text, source, false)) {
        return util::Unexpected(std::move(*problem));
    }
    return std::move(parser.result());
}

}  // namespace detail

Loaded<RequirementsFile> read_requirements_file(const std::filesystem::path& path,
                                                const RequirementsReadOptions& options) {
    auto text =
        options.read ? options.read(path) : fs::read_input_file(path, fs::requirements_file);
    if (!text) {
        return util::input_problem(SourceLocation{util::utf8_of(path), 0, 0},
                                   "cannot read requirements file: " + text.error(),
                                   "check the path");
    }
    detail::RequirementsSource source{
        util::utf8_of(path),
        path.parent_path(),
        {},
        options.read ? std::string() : detail::private_file_reason(path)};
    auto file = detail::parse_requirements_source(*text, source, options);
    if (!file) return file;
    file->files.insert(file->files.begin(), path);
    return file;
}

Loaded<RequirementsFile> parse_requirements_text(std::string_view text,
                                                 const std::filesystem::path& file,
                                                 const RequirementsReadOptions& options) {
    detail::RequirementsSource source{util::utf8_of(file), file.parent_path(), {}, {}};
    return detail::parse_requirements_source(text, source, options);
}

Loaded<RequirementLine> parse_requirement_line(std::string_view text, const SourceLocation& where,
                                               const std::filesystem::path& base_dir) {
    detail::LogicalLine line;
    std::string_view trimmed = util::trim(text);
    std::size_t lead = static_cast<std::size_t>(trimmed.data() - text.data());
    line.text = std::string(trimmed);
    line.first_line = 1;
    for (std::size_t k = 0; k < trimmed.size(); ++k)
        line.origins.push_back(detail::TextOrigin{1, static_cast<std::uint32_t>(lead + k + 1)});
    detail::RequirementsSource source{where.file, base_dir, {{where.line, where.column}}, {}};
    RequirementsReadOptions options;
    detail::Parser parser(options, base_dir);
    if (trimmed.empty()) {
        return util::input_problem(where, "expected a requirement, found nothing",
                                   "write one requirement such as name>=1.0");
    }
    if (auto problem = parser.handle_line(line, source, false, true)) {
        return util::Unexpected(std::move(*problem));
    }
    return std::move(parser.result().requirements.front());
}

}  // namespace aitk::project
