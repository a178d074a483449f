#pragma once
#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::pep {

using util::ParseError;

// Every parser in this layer returns Parsed<T>: the value, or a ParseError naming what is wrong
// and the column where it was found.
template <class T>
using Parsed = util::Expected<T, ParseError>;

inline util::Unexpected<ParseError> parse_error(std::string message, std::string_view input,
                                                std::size_t position = ParseError::no_position) {
    return util::Unexpected<ParseError>(
        ParseError{std::move(message), std::string(input), position});
}

}  // namespace aitk::pep
