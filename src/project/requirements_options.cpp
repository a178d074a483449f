#include "requirements_options.hpp"

#include <array>
#include <optional>

#include "aitk/util/strings.hpp"

namespace aitk::project::detail {
namespace {

struct OptionSpelling {
    std::string_view long_name;  // without "--"
    char short_name;             // 0 when none
    LineOption option;
    bool takes_value;
    std::string_view metavar;
};

// pip 23.2 req_file.py SUPPORTED_OPTIONS + SUPPORTED_OPTIONS_REQ, spelled as cmdoptions.py does.
constexpr std::array<OptionSpelling, 18> spellings{{
    {"index-url", 'i', LineOption::index_url, true, "URL"},
    {"pypi-url", 0, LineOption::index_url, true, "URL"},
    {"extra-index-url", 0, LineOption::extra_index_url, true, "URL"},
    {"no-index", 0, LineOption::no_index, false, ""},
    {"constraint", 'c', LineOption::constraint, true, "FILE"},
    {"requirement", 'r', LineOption::requirement, true, "FILE"},
    {"editable", 'e', LineOption::editable, true, "PATH-OR-VCS-URL"},
    {"find-links", 'f', LineOption::find_links, true, "URL-OR-PATH"},
    {"no-binary", 0, LineOption::no_binary, true, "NAMES"},
    {"only-binary", 0, LineOption::only_binary, true, "NAMES"},
    {"prefer-binary", 0, LineOption::prefer_binary, false, ""},
    {"require-hashes", 0, LineOption::require_hashes, false, ""},
    {"pre", 0, LineOption::pre, false, ""},
    {"trusted-host", 0, LineOption::trusted_host, true, "HOST"},
    {"use-feature", 0, LineOption::use_feature, true, "FEATURE"},
    {"global-option", 0, LineOption::global_option, true, "OPTION"},
    {"hash", 0, LineOption::hash, true, "ALGORITHM:DIGEST"},
    {"config-settings", 'C', LineOption::config_settings, true, "KEY=VALUE"},
}};

// Options of `pip install` that people put into requirements files, where pip refuses them.
constexpr std::array<std::string_view, 16> install_only_options{{
    "-U",
    "--upgrade",
    "--no-deps",
    "--user",
    "--force-reinstall",
    "-I",
    "--ignore-installed",
    "--no-cache-dir",
    "--no-build-isolation",
    "-t",
    "--target",
    "--upgrade-strategy",
    "--src",
    "--isolated",
    "--break-system-packages",
    "--no-dependencies",
}};

constexpr std::string_view accepted_options =
    "requirements files accept -r, -c, -e, -i/--index-url, --extra-index-url, --no-index, "
    "-f/--find-links, --pre, --only-binary, --no-binary, --prefer-binary, --require-hashes, "
    "--trusted-host, --use-feature, and after a requirement --hash, --global-option and "
    "--config-settings";

bool is_shell_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

struct Word {
    std::string text;
    std::size_t offset = 0;  // in the logical line
};

// Python's shlex.split(text) in POSIX mode, without comments, keeping where each word began.
util::Expected<std::vector<Word>, LineError> shell_split(std::string_view text, std::size_t base) {
    enum class State { between, word, single_quoted, double_quoted };
    std::vector<Word> words;
    State state = State::between;
    std::size_t quote_offset = 0;
    Word current;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (state == State::between) {
            if (is_shell_space(c)) continue;
            current = Word{{}, base + i};
            state = State::word;
        }
        switch (state) {
            case State::word:
                if (is_shell_space(c)) {
                    words.push_back(std::move(current));
                    state = State::between;
                } else if (c == '\'' || c == '"') {
                    quote_offset = base + i;
                    state = c == '\'' ? State::single_quoted : State::double_quoted;
                } else if (c == '\\') {
                    if (i + 1 == text.size()) {
                        return util::Unexpected(LineError{
                            base + i, "a backslash ends the options with nothing to escape",
                            "remove the backslash or quote the value"});
                    }
                    current.text += text[++i];
                } else {
                    current.text += c;
                }
                break;
            case State::single_quoted:
                if (c == '\'') {
                    state = State::word;
                } else {
                    current.text += c;
                }
                break;
            case State::double_quoted:
                if (c == '"') {
                    state = State::word;
                } else if (c == '\\' && i + 1 < text.size() &&
                           (text[i + 1] == '"' || text[i + 1] == '\\')) {
                    current.text += text[++i];
                } else {
                    current.text += c;
                }
                break;
            case State::between:
                break;
        }
    }
    if (state == State::single_quoted || state == State::double_quoted) {
        return util::Unexpected(
            LineError{quote_offset, "this quote is never closed", "close the quote, or remove it"});
    }
    if (state == State::word) words.push_back(std::move(current));
    return words;
}

std::string unknown_option_hint(std::string_view word) {
    for (auto install_only : install_only_options) {
        if (word == install_only) {
            return "'" + std::string(word) +
                   "' is an option of `pip install`, not of requirements files: remove it";
        }
    }
    return std::string(accepted_options);
}

// optparse's long option lookup: an exact name, else the only name it abbreviates.
util::Expected<const OptionSpelling*, LineError> find_long(std::string_view name,
                                                           std::size_t offset) {
    std::vector<const OptionSpelling*> matches;
    for (const auto& s : spellings) {
        if (s.long_name == name) return &s;
        if (!name.empty() && s.long_name.substr(0, name.size()) == name) matches.push_back(&s);
    }
    std::string written = "--" + std::string(name);
    if (matches.size() == 1) return matches.front();
    if (matches.empty()) {
        return util::Unexpected(
            LineError{offset, "unknown option '" + written + "'", unknown_option_hint(written)});
    }
    std::string candidates;
    for (std::size_t k = 0; k < matches.size(); ++k) {
        if (k > 0) candidates += k + 1 == matches.size() ? " or " : ", ";
        candidates += "--" + std::string(matches[k]->long_name);
    }
    return util::Unexpected(
        LineError{offset, "ambiguous option '" + written + "': it could be " + candidates,
                  "write the option in full"});
}

std::string usage(const OptionSpelling& s) {
    std::string name =
        s.short_name ? std::string{'-', s.short_name} : "--" + std::string(s.long_name);
    return name + " " + std::string(s.metavar);
}

}  // namespace

static_assert(static_cast<std::size_t>(LineOption::config_settings) == 16,
              "option_name() keeps one name per LineOption");

std::string_view option_name(LineOption option) {
    // Static storage: the spellings table holds string literals.
    static const auto names = [] {
        std::array<std::string, 17> out;
        for (const auto& s : spellings) {
            auto& slot = out[static_cast<std::size_t>(s.option)];
            if (slot.empty()) slot = "--" + std::string(s.long_name);
        }
        return out;
    }();
    return names[static_cast<std::size_t>(option)];
}

bool is_per_requirement(LineOption option) {
    return option == LineOption::hash || option == LineOption::global_option ||
           option == LineOption::config_settings;
}

util::Expected<SplitLine, LineError> split_line(std::string_view line) {
    // break_args_options: words are separated by single spaces; the first word that starts with
    // '-' begins the options.
    std::size_t options_start = std::string_view::npos;
    for (std::size_t p = 0; p < line.size();) {
        if (line[p] == '-') {
            options_start = p;
            break;
        }
        std::size_t space = line.find(' ', p);
        if (space == std::string_view::npos) break;
        p = space + 1;
    }
    SplitLine split;
    split.requirement = util::trim(line.substr(0, std::min(options_start, line.size())));
    if (options_start == std::string_view::npos) return split;

    auto words = shell_split(line.substr(options_start), options_start);
    if (!words) return util::Unexpected(std::move(words.error()));

    for (std::size_t k = 0; k < words->size(); ++k) {
        const Word& word = (*words)[k];
        std::string_view text = word.text;
        const OptionSpelling* spelling = nullptr;
        std::optional<std::string> inline_value;
        std::size_t value_offset = word.offset;
        if (text == "--") {
            if (k + 1 < words->size()) {
                const Word& next = (*words)[k + 1];
                return util::Unexpected(LineError{
                    next.offset, "unexpected '" + next.text + "' after '--'",
                    "pip ignores words after the options; put a requirement first on its line"});
            }
            break;
        }
        if (text.size() > 2 && text.substr(0, 2) == "--") {
            std::string_view name = text.substr(2);
            std::size_t equals = name.find('=');
            if (equals != std::string_view::npos) {
                inline_value = std::string(name.substr(equals + 1));
                value_offset = word.offset + 2 + equals + 1;
                name = name.substr(0, equals);
            }
            auto found = find_long(name, word.offset);
            if (!found) return util::Unexpected(std::move(found.error()));
            spelling = *found;
            if (!spelling->takes_value && inline_value) {
                return util::Unexpected(
                    LineError{word.offset,
                              "option '--" + std::string(spelling->long_name) + "' takes no value",
                              "write --" + std::string(spelling->long_name) + " alone"});
            }
        } else if (text.size() >= 2 && text[0] == '-') {
            for (const auto& s : spellings) {
                if (s.short_name != 0 && s.short_name == text[1]) spelling = &s;
            }
            if (spelling == nullptr) {
                std::string written(text.substr(0, 2));
                return util::Unexpected(LineError{word.offset, "unknown option '" + written + "'",
                                                  unknown_option_hint(written)});
            }
            if (text.size() > 2) {
                inline_value = std::string(text.substr(2));
                value_offset = word.offset + 2;
            }
        } else {
            return util::Unexpected(LineError{
                word.offset, "unexpected '" + word.text + "' after the options",
                "pip ignores words after the options on a line; write the requirement first "
                "(`name==1.0 --hash=...`) or give it a line of its own"});
        }

        OptionValue value{spelling->option, {}, word.offset, word.offset};
        if (spelling->takes_value) {
            if (inline_value) {
                value.value = std::move(*inline_value);
                value.value_offset = value_offset;
            } else if (k + 1 < words->size()) {
                ++k;
                value.value = (*words)[k].text;
                value.value_offset = (*words)[k].offset;
            } else {
                return util::Unexpected(
                    LineError{word.offset, "option '" + std::string(text) + "' needs a value",
                              "write " + usage(*spelling)});
            }
        }
        split.options.push_back(std::move(value));
    }
    return split;
}

}  // namespace aitk::project::detail
