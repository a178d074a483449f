#pragma once
// A forgiving scan of HTML for the few start tags an index page needs (<a>, <base>, <meta>),
// following the HTML tokenizer where real pages differ from XHTML: any letter case, single,
// double or no quotes, attributes without values, comments, <script>/<style> raw text, and
// character references (named, decimal, hex) in attribute values. Linear in the input, no
// recursion, never fails: broken markup yields fewer tags, not an error.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace aitk::index {

struct HtmlAttribute {
    std::string name;   // lower case
    std::string value;  // character references decoded; "" for an attribute without a value
};

struct HtmlStartTag {
    std::string name;                       // lower case
    std::vector<HtmlAttribute> attributes;  // in document order, duplicates kept
    std::size_t offset = 0;                 // of the '<' in the page

    // The first attribute of that (lower-case) name, as browsers do with duplicates.
    const HtmlAttribute* attribute(std::string_view name) const noexcept;
};

// Start tags whose (lower-case) name is one of `names`, in document order.
std::vector<HtmlStartTag> scan_start_tags(std::string_view html,
                                          std::initializer_list<std::string_view> names);

// Decodes character references as HTML does in attribute values: "&lt;" "&#60;" "&#x3C;" and
// the other named references of ASCII punctuation; "&lt" without ';' too unless followed by a
// letter, digit or '='; unknown or broken references stay as written; code points that are not
// characters (0, surrogates, above U+10FFFF) become U+FFFD.
std::string decode_html_entities(std::string_view text);

}  // namespace aitk::index
