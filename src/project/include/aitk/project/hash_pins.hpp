#pragma once
// pip's hash-checking mode over a ProjectInput. The mode is on with --require-hashes (in a file
// or on the command line) or as soon as any requirement or constraint line carries a --hash, as
// pip turns it on (a URL's `#sha256=` fragment counts as a pin but does not turn it on). Then, as
// pip 23.2 refuses them: every requirement line must be pinned (one
// `==` or `===` clause) or be a URL, nothing may be editable, a VCS URL or a local folder, and
// every package the resolution installs (dependencies included) needs a requirement line with
// hashes; a file may be installed only when one of its digests is among its project's hashes.
// One deliberate difference: pip 23.2 ignores a constraint's --hash, aitk-env checks it too (a
// file must then match the constraint's hashes as well), since a pin the user wrote must never
// be dropped silently.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/specifier.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/project/target.hpp"
#include "aitk/util/input_problem.hpp"

namespace aitk::project {

// The digests one project's files may have, from the input lines that name it.
struct HashPin {
    std::string name;  // normalised
    // "sha256:<hex>" (or sha384, sha512), lower-case, from every requirement line naming the
    // project (pip merges the lines' hashes).
    std::vector<std::string> allowed;
    // The same from constraint lines; empty when none gives any.
    std::vector<std::string> constrained;
    util::SourceLocation where;  // the first requirement line naming it with a hash
    std::string line;            // its requirement as written ("victim==1.0")
    // The versions the requirement lines naming it allow (every line's clauses): files of
    // other versions are none of the pins' business.
    pep::SpecifierSet specifier;

    // Whether a file with these digests (algorithm → lower-case hex) passes: allowed when one
    // of them is among the requirement lines' hashes (and the constraints', when they give
    // any), refused when the pins use one of these algorithms and none matches, unknown when
    // no pin uses any of them (the bytes must then be hashed with algorithms()).
    enum class Verdict { allowed, refused, unknown };
    Verdict judge(const std::map<std::string, std::string>& digests) const;
    Verdict judge_sha256(std::string_view hex) const {
        return judge({{"sha256", std::string(hex)}});
    }
    // Every algorithm any pin of this project uses ("sha256", "sha512"), sorted.
    std::vector<std::string> algorithms() const;
    // The pins as `--hash=…` options, for messages.
    std::string options_text() const;
};

struct HashChecking {
    bool on = false;
    // What turned it on: "--require-hashes in the requirements", "the --hash at
    // requirements.txt:3:1 turns it on, as in pip", "--require-hashes on the command line".
    std::string reason;
    std::map<std::string, HashPin, std::less<>> pins;  // by normalised name
    // The lines pip refuses in hash-checking mode (unpinned, editable, VCS, local folders),
    // each at its file:line:column.
    std::vector<util::InputProblem> problems;

    const HashPin* find(std::string_view name) const;
};

// The hash-checking state of `input` for `target` (its requirement lines for that target);
// `required_by_command_line` is --require-hashes given to the command.
HashChecking hash_checking_for(const ProjectInput& input, const Target& target,
                               bool required_by_command_line);

}  // namespace aitk::project
