#pragma once
// The options part of a requirements-file line, read as pip reads it: the line is cut before its
// first word that starts with '-' (break_args_options), that part is split like Python's
// shlex.split() and parsed like optparse with pip's requirements-file options (long names may be
// abbreviated to a unique prefix; "--name=value", "--name value", "-xvalue", "-x value").
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/expected.hpp"

namespace aitk::project::detail {

enum class LineOption {
    index_url,
    extra_index_url,
    no_index,
    constraint,
    requirement,
    editable,
    find_links,
    no_binary,
    only_binary,
    prefer_binary,
    require_hashes,
    pre,
    trusted_host,
    use_feature,
    // Per requirement.
    global_option,
    hash,
    config_settings,
};

// "--index-url", the name messages use.
std::string_view option_name(LineOption option);
bool is_per_requirement(LineOption option);

struct OptionValue {
    LineOption option;
    std::string value;             // empty for flags
    std::size_t offset = 0;        // of the option's word in the logical line
    std::size_t value_offset = 0;  // of the value
};

// A problem at `offset` of the logical line.
struct LineError {
    std::size_t offset = 0;
    std::string message;
    std::string hint;
};

struct SplitLine {
    std::string_view requirement;      // the text before the options, trimmed; may be empty
    std::vector<OptionValue> options;  // in the order written
};

// Splits a logical line (already stripped) into its requirement and its options.
util::Expected<SplitLine, LineError> split_line(std::string_view line);

}  // namespace aitk::project::detail
