# Script mode: writes OUT, a C++ file defining aitk::embedded::SYMBOL() as the bytes of IN.
file(READ ${IN} content HEX)
string(LENGTH "${content}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\n#include <string_view>\n"
    "namespace aitk::embedded {\nnamespace { constexpr char ${SYMBOL}_data[] = {${bytes} 0}; }\n"
    "std::string_view ${SYMBOL}() { return {${SYMBOL}_data, ${size}}; }\n}\n")
