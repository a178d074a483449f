// environment.yml as `conda env export` writes it (and people edit it): the YAML document, its
// conda dependency strings and its `pip:` list, which becomes a requirements text read from the
// yml's folder, as conda runs `pip install -r` there.
#include "aitk/project/conda_environment.hpp"

#include <yaml-cpp/yaml.h>

#include "aitk/fs/input_file.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/text.hpp"
#include "aitk/util/utf8.hpp"
#include "conda_spec.hpp"
#include "requirements_source.hpp"

namespace aitk::project {
namespace {

// Thrown inside this file only, caught by parse_conda_environment().
struct EnvironmentProblem {
    InputProblem problem;
};

class EnvironmentReader {
  public:
    EnvironmentReader(std::string_view file, const std::filesystem::path& base_dir,
                      const RequirementsReadOptions& options)
        : file_(file), base_dir_(base_dir), options_(options) {}

    SourceLocation where(const YAML::Node& node) const {
        if (!node.IsDefined()) return SourceLocation{std::string(file_), 0, 0};
        YAML::Mark mark = node.Mark();
        if (mark.is_null()) return SourceLocation{std::string(file_), 0, 0};
        return SourceLocation{std::string(file_), static_cast<std::size_t>(mark.line) + 1,
                              static_cast<std::size_t>(mark.column) + 1};
    }

    [[noreturn]] void fail(SourceLocation at, std::string message, std::string hint) const {
        throw EnvironmentProblem{InputProblem{std::move(at), std::move(message), std::move(hint)}};
    }

    std::string scalar(const YAML::Node& node, const std::string& what) const {
        if (!node.IsScalar()) {
            fail(where(node), what + " must be a string",
                 "write it as plain text (quote it if it starts with a special character)");
        }
        return node.Scalar();
    }

    CondaEnvironment read(const YAML::Node& root) {
        CondaEnvironment env;
        env.file = std::string(file_);
        if (!root.IsDefined() || root.IsNull()) {
            fail(SourceLocation{env.file, 0, 0}, "the file is empty",
                 "an environment.yml lists its packages under `dependencies:`");
        }
        if (!root.IsMap()) {
            fail(where(root), "expected a mapping with name, channels and dependencies",
                 "the file should start like `name: myenv` on its own line");
        }
        bool has_dependencies = false;
        for (const auto& entry : root) {
            std::string key = scalar(entry.first, "a key");
            const YAML::Node& value = entry.second;
            if (key == "name") {
                if (!value.IsNull()) {
                    env.name = scalar(value, "`name`");
                    env.name_where = where(value);
                    // The lock is written to lockfiles/<name>.lock.yml, and conda makes
                    // envs/<name> of the lock's own `name:`.
                    if (auto problem = util::path_name_problem(env.name)) {
                        fail(env.name_where, "`name` cannot name a file: " + *problem,
                             std::string(util::path_name_rule));
                    }
                }
            } else if (key == "prefix") {
                if (!value.IsNull()) env.prefix = scalar(value, "`prefix`");
            } else if (key == "channels") {
                env.channels = strings(value, "`channels`");
            } else if (key == "variables") {
                variables(value, env);
            } else if (key == "dependencies") {
                has_dependencies = true;
                dependencies(value, env);
            }
            // conda warns about other keys and goes on; so does this reader, silently.
        }
        if (!has_dependencies) {
            fail(SourceLocation{env.file, 0, 0}, "no `dependencies:` list",
                 "list the packages under `dependencies:`, one `- name=version` per line");
        }
        env.pip = read_pip();
        return env;
    }

  private:
    std::vector<std::string> strings(const YAML::Node& node, const std::string& what) const {
        std::vector<std::string> out;
        if (node.IsNull()) return out;
        if (!node.IsSequence()) {
            fail(where(node), what + " must be a list", "write one `- item` per line");
        }
        for (const auto& item : node)
            out.push_back(scalar(item, "an item of " + what));
        return out;
    }

    void variables(const YAML::Node& node, CondaEnvironment& env) const {
        if (node.IsNull()) return;
        if (!node.IsMap()) {
            fail(where(node), "`variables` must map names to values",
                 "write `variables:` then `  NAME: value` lines");
        }
        for (const auto& entry : node) {
            std::string name = scalar(entry.first, "a variable name");
            env.variables[name] =
                entry.second.IsNull() ? std::string{} : scalar(entry.second, "variable " + name);
        }
    }

    void dependencies(const YAML::Node& node, CondaEnvironment& env) {
        if (node.IsNull()) return;
        if (!node.IsSequence()) {
            fail(where(node), "`dependencies` must be a list",
                 "write one `- name=version` per line");
        }
        for (const auto& item : node) {
            if (item.IsScalar()) {
                env.conda.push_back(conda_spec(item));
            } else if (item.IsMap()) {
                for (const auto& entry : item) {
                    std::string installer = scalar(entry.first, "an installer name");
                    if (installer != "pip") {
                        fail(where(entry.first), "unknown installer '" + installer + "'",
                             "only a `pip:` list can go inside `dependencies`");
                    }
                    if (entry.second.IsNull()) continue;
                    if (!entry.second.IsSequence()) {
                        fail(where(entry.second), "`pip` must be a list",
                             "write one `- requirement` per line under `- pip:`");
                    }
                    for (const auto& pip_item : entry.second) {
                        std::string text = scalar(pip_item, "a pip item");
                        pip_items_.push_back({std::move(text), where(pip_item)});
                    }
                }
            } else {
                fail(where(item), "a dependency must be a string or a `pip:` list",
                     "write `- name=version` or `- pip:`");
            }
        }
    }

    CondaSpec conda_spec(const YAML::Node& item) const {
        std::string text = item.Scalar();
        SourceLocation at = where(item);
        auto spec = detail::parse_conda_spec(text);
        if (!spec) {
            SourceLocation column = at;
            if (column.column != 0) column.column += spec.error().offset;
            fail(column, "invalid conda dependency '" + text + "': " + spec.error().message,
                 spec.error().hint);
        }
        spec->where = at;
        spec->text = text;
        return std::move(*spec);
    }

    // The pip items joined into one requirements text, each line mapped back to its item.
    RequirementsFile read_pip() const {
        detail::RequirementsSource source{std::string(file_), base_dir_, {}, {}};
        std::string text;
        for (const auto& item : pip_items_) {
            std::size_t k = 0;
            std::size_t start = 0;
            while (true) {
                std::size_t end = item.text.find('\n', start);
                source.line_starts.emplace_back(item.where.line + k,
                                                k == 0 ? item.where.column : 1);
                if (end == std::string::npos) break;
                start = end + 1;
                ++k;
            }
            text += item.text;
            text += '\n';
        }
        if (text.empty()) return RequirementsFile{};
        auto file = detail::parse_requirements_source(text, source, options_);
        if (!file) throw EnvironmentProblem{std::move(file.error())};
        return std::move(*file);
    }

    struct PipItem {
        std::string text;
        SourceLocation where;
    };

    std::string_view file_;
    std::filesystem::path base_dir_;
    const RequirementsReadOptions& options_;
    std::vector<PipItem> pip_items_;
};

}  // namespace

Loaded<CondaEnvironment> parse_conda_environment(std::string_view yaml, std::string_view file,
                                                 const std::filesystem::path& base_dir,
                                                 const RequirementsReadOptions& options) {
    if (auto problem = util::check_text(yaml, file)) {
        return util::Unexpected(std::move(*problem));
    }
    EnvironmentReader reader(file, base_dir, options);
    try {
        YAML::Node root = YAML::Load(std::string(yaml));
        return reader.read(root);
    } catch (const EnvironmentProblem& e) {
        return util::Unexpected(e.problem);
    } catch (const YAML::Exception& e) {
        SourceLocation at{std::string(file), 0, 0};
        if (!e.mark.is_null()) {
            at.line = static_cast<std::size_t>(e.mark.line) + 1;
            at.column = static_cast<std::size_t>(e.mark.column) + 1;
        }
        return util::input_problem(std::move(at), "invalid YAML: " + e.msg,
                                   "check the indentation and the quoting around this point");
    }
}

Loaded<CondaEnvironment> read_conda_environment(const std::filesystem::path& path,
                                                const RequirementsReadOptions& options) {
    auto text = options.read ? options.read(path) : fs::read_input_file(path, fs::environment_file);
    if (!text) {
        return util::input_problem(SourceLocation{util::utf8_of(path), 0, 0},
                                   "cannot read environment file: " + text.error(),
                                   "check the path");
    }
    return parse_conda_environment(*text, util::utf8_of(path), path.parent_path(), options);
}

}  // namespace aitk::project
