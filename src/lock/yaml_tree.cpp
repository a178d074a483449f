#include "yaml_tree.hpp"

#include <optional>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "aitk/util/text.hpp"
#include "utf8.hpp"

namespace aitk::lock::detail {
namespace {

util::SourceLocation location(std::string_view file, const YAML::Mark& mark) {
    util::SourceLocation where{std::string(file), 0, 0};
    if (mark.line >= 0 && mark.column >= 0) {
        where.line = static_cast<std::size_t>(mark.line) + 1;
        where.column = static_cast<std::size_t>(mark.column) + 1;
    }
    return where;
}

// Builds the tree from the events of one document. The first problem is kept; after it, events
// are ignored (the parser still runs to the end of the document, which is harmless).
class TreeBuilder : public YAML::EventHandler {
  public:
    explicit TreeBuilder(std::string_view file) : file_(file) {}

    std::optional<YamlNode>& root() { return root_; }
    std::optional<util::InputProblem>& problem() { return problem_; }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
        add(node(YamlNode::Kind::null, mark));
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
        fail(mark, "YAML aliases (`*name`) are not allowed in a lockfile",
             "write the value out in full");
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                  const std::string& value) override {
        if (failed()) return;
        if (!valid_utf8(value)) {
            fail(mark, "invalid UTF-8", "save the file as UTF-8");
            return;
        }
        YamlNode n = node(YamlNode::Kind::scalar, mark);
        n.text = value;
        n.plain = tag == "?";
        add(std::move(n));
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        open(node(YamlNode::Kind::sequence, mark), mark);
    }
    void OnSequenceEnd() override { close(); }

    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        open(node(YamlNode::Kind::mapping, mark), mark);
    }
    void OnMapEnd() override { close(); }

  private:
    struct Frame {
        YamlNode* node;
        bool awaiting_value;  // mappings: a key was added, its value comes next
    };

    bool failed() const noexcept { return problem_.has_value(); }

    void fail(const YAML::Mark& mark, std::string message, std::string hint) {
        if (!failed()) {
            problem_ =
                util::InputProblem{location(file_, mark), std::move(message), std::move(hint)};
        }
    }

    static YamlNode node(YamlNode::Kind kind, const YAML::Mark& mark) {
        YamlNode n;
        n.kind = kind;
        if (mark.line >= 0 && mark.column >= 0) {
            n.line = static_cast<std::size_t>(mark.line) + 1;
            n.column = static_cast<std::size_t>(mark.column) + 1;
        }
        return n;
    }

    // Places `n` in the open container (or as the root) and returns where it now lives. Only
    // the innermost open container grows, so the pointers on the stack stay valid.
    YamlNode* add(YamlNode n) {
        if (failed()) return nullptr;
        if (stack_.empty()) {
            root_ = std::move(n);
            return &*root_;
        }
        Frame& top = stack_.back();
        if (top.node->kind == YamlNode::Kind::sequence) {
            top.node->items.push_back(std::move(n));
            return &top.node->items.back();
        }
        if (!top.awaiting_value) {
            top.node->entries.push_back(YamlEntry{std::move(n), {}});
            top.awaiting_value = true;
            return &top.node->entries.back().key;
        }
        top.awaiting_value = false;
        YamlEntry& entry = top.node->entries.back();
        if (n.kind == YamlNode::Kind::null) {
            // `key:` with nothing after it: yaml-cpp marks the next token; the key says more.
            n.line = entry.key.line;
            n.column = entry.key.column;
        }
        entry.value = std::move(n);
        return &entry.value;
    }

    void open(YamlNode n, const YAML::Mark& mark) {
        ++depth_;
        if (depth_ > max_yaml_depth) {
            fail(mark, "nesting deeper than " + std::to_string(max_yaml_depth) + " levels",
                 "a lockfile needs only a few levels");
        }
        YamlNode* placed = add(std::move(n));
        if (placed != nullptr) stack_.push_back(Frame{placed, false});
    }

    void close() {
        if (depth_ > 0) --depth_;
        if (!failed() && !stack_.empty()) stack_.pop_back();
    }

    std::string_view file_;
    std::optional<YamlNode> root_;
    std::optional<util::InputProblem> problem_;
    std::vector<Frame> stack_;
    std::size_t depth_ = 0;
};

// Counts what a second document would hold, to refuse it without building it.
class DocumentProbe : public YAML::EventHandler {
  public:
    void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}

    YAML::Mark start = YAML::Mark::null_mark();
};

}  // namespace

namespace {

// A lockfile is text aitk-env wrote: no NUL or terminal control bytes, short lines. Such bytes
// are refused where they are, before YAML sees them (yaml-cpp keeps a NUL in a scalar, and
// echoing a 50 MB line or an escape sequence helps nobody). Invalid UTF-8 is found per scalar.
std::optional<util::InputProblem> check_bytes(std::string_view text, std::string_view file) {
    util::TextRules rules;
    rules.require_utf8 = false;
    rules.allow_line_separators = false;
    rules.hint = "is this the lockfile aitk-env wrote? run `aitk-env lock` again";
    return util::check_text(text, file, rules);
}

}  // namespace

util::Loaded<YamlNode> load_yaml_tree(std::string_view text, std::string_view file) {
    if (auto problem = check_bytes(text, file)) return util::Unexpected(std::move(*problem));
    try {
        std::istringstream stream{std::string(text)};
        YAML::Parser parser(stream);
        TreeBuilder builder(file);
        const bool found = parser.HandleNextDocument(builder);
        if (builder.problem()) return util::Unexpected(std::move(*builder.problem()));
        if (!found || !builder.root()) {
            return util::input_problem({std::string(file), 0, 0}, "the file is empty");
        }
        DocumentProbe probe;
        if (parser.HandleNextDocument(probe)) {
            return util::input_problem(location(file, probe.start),
                                       "a second YAML document (after `---`)",
                                       "a lockfile holds one document: remove the second");
        }
        return std::move(*builder.root());
    } catch (const YAML::Exception& e) {
        return util::input_problem(location(file, e.mark), "invalid YAML: " + e.msg);
    } catch (const std::exception& e) {
        return util::input_problem({std::string(file), 0, 0},
                                   std::string("cannot read the YAML: ") + e.what());
    }
}

}  // namespace aitk::lock::detail
