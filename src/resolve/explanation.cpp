#include "explanation.hpp"

#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "describe.hpp"

namespace aitk::resolve {

namespace {

// The report walks the derivation graph depth first, as pub's does, but with an explicit work
// list instead of recursion: a graph learned over thousands of conflicts is deep.
class Writer {
  public:
    Writer(IncompatibilityId failure, const std::vector<Incompatibility>& all, PackageTable& table)
        : failure_(failure), all_(all), describe_(all, table) {}

    std::string run() {
        count_derivations();
        if (!derived(failure_)) {
            write(
                failure_,
                "Because " + describe_.clause(failure_) + ", the requirements cannot be satisfied.",
                false);
        } else {
            tasks_.push_back(Task{Task::visit, failure_, false, {}});
            while (!tasks_.empty()) {
                Task task = std::move(tasks_.back());
                tasks_.pop_back();
                switch (task.kind) {
                    case Task::visit:
                        visit(task.id, task.conclusion);
                        break;
                    case Task::write:
                        write(task.id, task.text(), task.conclusion);
                        break;
                    case Task::blank:
                        lines_.emplace_back(std::string(), std::nullopt);
                        break;
                }
            }
        }
        return render();
    }

  private:
    struct Task {
        enum Kind { visit, write, blank } kind;
        IncompatibilityId id;
        bool conclusion;  // visit: a conclusion line; write: give the line a number
        std::function<std::string()> text;
    };

    bool derived(IncompatibilityId id) const { return all_[id].cause == Cause::derived; }
    std::optional<int> line(IncompatibilityId id) const {
        auto it = numbers_.find(id);
        return it == numbers_.end() ? std::nullopt : std::optional<int>(it->second);
    }
    int derivations(IncompatibilityId id) const {
        auto it = derivations_.find(id);
        return it == derivations_.end() ? 0 : it->second;
    }

    // How many derived incompatibilities each one causes: one used twice gets a line number.
    void count_derivations() {
        std::vector<IncompatibilityId> stack{failure_};
        std::unordered_set<IncompatibilityId> seen{failure_};
        derivations_[failure_] = 1;
        while (!stack.empty()) {
            const IncompatibilityId id = stack.back();
            stack.pop_back();
            if (!derived(id)) continue;
            for (IncompatibilityId cause : all_[id].causes) {
                ++derivations_[cause];
                if (seen.insert(cause).second) stack.push_back(cause);
            }
        }
    }

    // Both causes external: the incompatibility is explained in one line.
    bool single_line(IncompatibilityId id) const {
        return !derived(all_[id].causes[0]) && !derived(all_[id].causes[1]);
    }

    // Explained by one derived cause without a number: that step can be folded into the next
    // line ("So, because a and b, …") instead of being written out.
    bool collapsible(IncompatibilityId id) const {
        if (derivations(id) > 1) return false;
        const auto& causes = all_[id].causes;
        const bool first = derived(causes[0]);
        const bool second = derived(causes[1]);
        if (first == second) return false;
        return !line(first ? causes[0] : causes[1]);
    }

    void later(Task task) { tasks_.push_back(std::move(task)); }

    void visit(IncompatibilityId id, bool conclusion) {
        const bool number = conclusion || derivations(id) > 1;
        const std::string conjunction = conclusion || id == failure_ ? "So," : "And";
        const IncompatibilityId a = all_[id].causes[0];
        const IncompatibilityId b = all_[id].causes[1];
        auto self = [this, id] { return describe_.clause(id); };

        // Tasks run last-in first-out: each branch below pushes its steps in reverse.
        if (derived(a) && derived(b)) {
            const auto line_a = line(a);
            const auto line_b = line(b);
            if (line_a && line_b) {
                write(id, "Because " + describe_.pair(a, b, line_a, line_b) + ", " + self() + ".",
                      number);
            } else if (line_a || line_b) {
                const IncompatibilityId with = line_a ? a : b;
                const IncompatibilityId without = line_a ? b : a;
                later({Task::write, id, number, [=, this] {
                           return conjunction + " because " + describe_.clause(with) + " (" +
                                  std::to_string(*line(with)) + "), " + self() + ".";
                       }});
                later({Task::visit, without, false, {}});
            } else if (single_line(a) || single_line(b)) {
                // The short one reads fine right before the conclusion, with no number.
                const IncompatibilityId first = single_line(b) ? a : b;
                const IncompatibilityId second = single_line(b) ? b : a;
                later({Task::write, id, number, [=] { return "Thus, " + self() + "."; }});
                later({Task::visit, second, false, {}});
                later({Task::visit, first, false, {}});
            } else {
                later({Task::write, id, number, [=, this] {
                           return conjunction + " because " + describe_.clause(a) + " (" +
                                  std::to_string(*line(a)) + "), " + self() + ".";
                       }});
                later({Task::visit, b, false, {}});
                later({Task::blank, id, false, {}});
                later({Task::visit, a, true, {}});
            }
        } else if (derived(a) || derived(b)) {
            const IncompatibilityId inner = derived(a) ? a : b;
            const IncompatibilityId external = derived(a) ? b : a;
            if (auto inner_line = line(inner)) {
                write(id,
                      "Because " + describe_.pair(external, inner, std::nullopt, inner_line) +
                          ", " + self() + ".",
                      number);
            } else if (collapsible(inner)) {
                const auto& causes = all_[inner].causes;
                const IncompatibilityId prior = derived(causes[0]) ? causes[0] : causes[1];
                const IncompatibilityId prior_external = derived(causes[0]) ? causes[1] : causes[0];
                later({Task::write, id, number, [=, this] {
                           return conjunction + " because " +
                                  describe_.pair(prior_external, external) + ", " + self() + ".";
                       }});
                later({Task::visit, prior, false, {}});
            } else {
                later({Task::write, id, number, [=, this] {
                           return conjunction + " because " + describe_.clause(external) + ", " +
                                  self() + ".";
                       }});
                later({Task::visit, inner, false, {}});
            }
        } else {
            write(id, "Because " + describe_.pair(a, b) + ", " + self() + ".", number);
        }
    }

    void write(IncompatibilityId id, std::string text, bool number) {
        if (number) {
            const int n = static_cast<int>(numbers_.size()) + 1;
            numbers_[id] = n;
            lines_.emplace_back(std::move(text), n);
        } else {
            lines_.emplace_back(std::move(text), std::nullopt);
        }
    }

    // Numbered lines start with "(n) "; the others are indented to match.
    std::string render() const {
        std::size_t width = 0;
        for (const auto& [text, n] : lines_) {
            if (n) width = std::max(width, std::to_string(*n).size() + 3);
        }
        std::string out;
        for (const auto& [text, n] : lines_) {
            if (!out.empty()) out += '\n';
            if (text.empty()) continue;
            std::string prefix = n ? "(" + std::to_string(*n) + ")" : std::string();
            prefix.resize(width, ' ');
            out += prefix + text;
        }
        return out;
    }

    IncompatibilityId failure_;
    const std::vector<Incompatibility>& all_;
    Describer describe_;
    std::unordered_map<IncompatibilityId, int> derivations_;
    std::unordered_map<IncompatibilityId, int> numbers_;
    std::vector<Task> tasks_;
    std::vector<std::pair<std::string, std::optional<int>>> lines_;
};

}  // namespace

std::string explain_failure(IncompatibilityId failure,
                            const std::vector<Incompatibility>& incompatibilities,
                            PackageTable& table) {
    return Writer(failure, incompatibilities, table).run();
}

}  // namespace aitk::resolve
