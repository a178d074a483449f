#pragma once
// Terms and incompatibilities as English clauses for the explanation: specifiers as written
// ("setuptools>=77"), root requirements with their origin ("setuptools==69.5.1 is required
// (requirements_base.txt:38)"), and what the source knows about missing versions.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aitk/resolve/resolver.hpp"
#include "incompatibility.hpp"
#include "package_table.hpp"

namespace aitk::resolve {

// "text (origin)", or the text alone when the origin is unknown: where a requirement was written.
std::string with_origin(const std::string& text, const std::string& origin);

class Describer {
  public:
    Describer(const std::vector<Incompatibility>& incompatibilities, PackageTable& table)
        : all_(incompatibilities), table_(table) {}

    // "foo>=2", "foo==1.0", "foo" (any version), "foo @ https://…".
    std::string term(const Term& term) const;
    // The same at the start of a sentence: "every version of foo" rather than a bare name.
    std::string subject(const Term& term) const;

    // The incompatibility as a clause: "foo==1.0 depends on bar>=2", "foo>=2 is forbidden".
    std::string clause(IncompatibilityId id);
    // Two incompatibilities joined for "Because … and …", merged where that reads better
    // ("foo==1.0 depends on bar>=2 which depends on baz<3"); `line_a`/`line_b` are the
    // numbers of lines that explained them.
    std::string pair(IncompatibilityId a, IncompatibilityId b, std::optional<int> line_a = {},
                     std::optional<int> line_b = {});

  private:
    struct Requires {
        const Term* subject;
        const Term* object;
        const char* verb;
    };
    // A "subject depends on / requires object" shape, when the incompatibility has one.
    std::optional<Requires> requires_shape(const Incompatibility& incompatibility) const;
    std::string derived_clause(const std::vector<Term>& terms) const;
    std::string no_versions_clause(const Term& term);
    std::string reasons(const Term& term);
    std::string ranges(const Term& term) const;
    const Term* non_root(const Incompatibility& incompatibility) const;

    const std::vector<Incompatibility>& all_;
    PackageTable& table_;
    std::map<std::pair<std::string, std::string>, std::string> source_notes_;
};

}  // namespace aitk::resolve
