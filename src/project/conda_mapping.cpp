// The conda → PyPI table (manifests/conda-pypi.yaml, compiled in): reading it and looking names
// up.
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <unordered_map>

#include "aitk/pep/name.hpp"
#include "aitk/project/conda_environment.hpp"

namespace aitk::embedded {
std::string_view conda_pypi_yaml();
}  // namespace aitk::embedded

namespace aitk::project {
namespace {

// Thrown inside this file only, and caught by parse_conda_mappings().
struct TableError {
    std::string message;
};

class TableReader {
  public:
    explicit TableReader(std::string_view file) : file_(file) {}

    [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
        const YAML::Mark mark = node.IsDefined() ? node.Mark() : YAML::Mark::null_mark();
        std::string where(file_);
        if (!mark.is_null()) {
            where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
        }
        throw TableError{where + ": " + what};
    }

    std::string scalar(const YAML::Node& node, const std::string& what) const {
        if (!node.IsScalar()) fail(node, what + " must be a string");
        return node.Scalar();
    }

    void add(std::vector<CondaMapping>& rows, const YAML::Node& where, CondaMapping row) {
        if (row.conda_name.empty()) fail(where, "a conda name is empty");
        if (!seen_.emplace(row.conda_name, rows.size()).second) {
            fail(where, "conda name '" + row.conda_name + "' is listed twice");
        }
        rows.push_back(std::move(row));
    }

    void names(std::vector<CondaMapping>& rows, const YAML::Node& groups, CondaRole role,
               const std::string& section) {
        if (!groups.IsSequence()) fail(groups, "`" + section + "` must be a list of groups");
        for (const auto& group : groups) {
            if (!group.IsMap())
                fail(group, "a group of `" + section + "` needs `note` and `names`");
            for (const auto& key : group) {
                std::string k = key.first.as<std::string>();
                if (k != "note" && k != "names") {
                    fail(key.first, "unknown key '" + k + "' (a group has `note` and `names`)");
                }
            }
            std::string note = scalar(group["note"], "`note`");
            const YAML::Node list = group["names"];
            if (!list.IsSequence()) fail(group, "`names` must be a list");
            for (const auto& name : list) {
                add(rows, name, CondaMapping{scalar(name, "a conda name"), role, "", note, ""});
            }
        }
    }

  private:
    std::string_view file_;
    std::unordered_map<std::string, std::size_t> seen_;
};

std::vector<CondaMapping> read_table(const YAML::Node& root, TableReader& reader) {
    if (!root.IsMap()) reader.fail(root, "the table must be a mapping");
    for (const auto& key : root) {
        std::string k = key.first.as<std::string>();
        if (k != "format" && k != "pypi" && k != "interpreter" && k != "backend" &&
            k != "provided" && k != "unmappable") {
            reader.fail(key.first, "unknown key '" + k +
                                       "' (expected format, pypi, interpreter, backend, "
                                       "provided, unmappable)");
        }
    }
    if (reader.scalar(root["format"], "`format`") != "1") {
        reader.fail(root["format"], "unsupported format (this aitk-env reads format 1)");
    }
    std::vector<CondaMapping> rows;
    const YAML::Node pypi = root["pypi"];
    if (!pypi.IsMap()) reader.fail(pypi, "`pypi` must map conda names to PyPI names");
    for (const auto& entry : pypi) {
        std::string target = reader.scalar(entry.second, "a PyPI name");
        if (!pep::is_valid_name(target))
            reader.fail(entry.second, "'" + target + "' is not a PyPI name");
        reader.add(rows, entry.first,
                   CondaMapping{reader.scalar(entry.first, "a conda name"), CondaRole::pypi,
                                pep::canonicalize_name(target), "", ""});
    }
    const YAML::Node interpreter = root["interpreter"];
    if (!interpreter.IsSequence()) reader.fail(interpreter, "`interpreter` must be a list");
    for (const auto& name : interpreter) {
        reader.add(rows, name,
                   CondaMapping{reader.scalar(name, "a conda name"), CondaRole::interpreter, "",
                                "the Python interpreter", ""});
    }
    const YAML::Node backend = root["backend"];
    if (!backend.IsSequence()) reader.fail(backend, "`backend` must be a list");
    for (const auto& row : backend) {
        if (!row.IsMap()) reader.fail(row, "a backend row is {conda, note[, backend]}");
        CondaMapping mapping{reader.scalar(row["conda"], "`conda`"), CondaRole::backend, "",
                             reader.scalar(row["note"], "`note`"), ""};
        if (row["backend"]) mapping.backend = reader.scalar(row["backend"], "`backend`");
        reader.add(rows, row, std::move(mapping));
    }
    reader.names(rows, root["provided"], CondaRole::provided, "provided");
    reader.names(rows, root["unmappable"], CondaRole::unmappable, "unmappable");
    return rows;
}

struct Table {
    std::vector<CondaMapping> rows;
    std::unordered_map<std::string, std::size_t> exact;
    std::vector<std::size_t> prefixes;  // rows whose name ends in '*'
};

const Table& table() {
    static const Table built = [] {
        auto rows = parse_conda_mappings(embedded::conda_pypi_yaml(), "manifests/conda-pypi.yaml");
        // The table is compiled in and tested; a broken one is a build defect.
        if (!rows) throw std::logic_error(rows.error());
        Table t;
        t.rows = std::move(*rows);
        for (std::size_t i = 0; i < t.rows.size(); ++i) {
            const std::string& name = t.rows[i].conda_name;
            if (name.back() == '*') {
                t.prefixes.push_back(i);
            } else {
                t.exact.emplace(name, i);
            }
        }
        return t;
    }();
    return built;
}

}  // namespace

util::Expected<std::vector<CondaMapping>, std::string> parse_conda_mappings(std::string_view yaml,
                                                                            std::string_view file) {
    TableReader reader(file);
    try {
        return read_table(YAML::Load(std::string(yaml)), reader);
    } catch (const TableError& e) {
        return util::Unexpected(e.message);
    } catch (const YAML::Exception& e) {
        std::string where(file);
        if (!e.mark.is_null()) {
            where +=
                ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
        }
        return util::Unexpected(where + ": " + e.msg);
    }
}

const std::vector<CondaMapping>& conda_mappings() {
    return table().rows;
}

const CondaMapping* find_conda_mapping(std::string_view conda_name) {
    const Table& t = table();
    if (auto it = t.exact.find(std::string(conda_name)); it != t.exact.end()) {
        return &t.rows[it->second];
    }
    const CondaMapping* best = nullptr;
    for (std::size_t i : t.prefixes) {
        const std::string& name = t.rows[i].conda_name;
        std::string_view prefix(name.data(), name.size() - 1);
        if (conda_name.substr(0, prefix.size()) == prefix &&
            (best == nullptr || name.size() > best->conda_name.size())) {
            best = &t.rows[i];
        }
    }
    return best;
}

}  // namespace aitk::project
