#include <algorithm>
#include <string>
#include <vector>

#include "aitk/lock/lock_floor.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/lock/yaml_scalar.hpp"
#include "lock_text.hpp"

namespace aitk::lock {

namespace {

// Block-style YAML, one line at a time. `item()` makes the next field the first of a sequence
// entry ("- key: value").
class YamlOut {
  public:
    void comment(std::string_view text) { line(0, "# " + std::string(text)); }

    void field(int indent, std::string_view key, std::string_view value) {
        field_raw(indent, key, yaml_scalar(value));
    }
    void field_raw(int indent, std::string_view key, std::string_view raw) {
        start(indent);
        const std::string rendered = yaml_scalar(key);
        if (rendered.size() > max_implicit_key) {
            // YAML readers stop looking for the ':' of a key after 1024 characters.
            text_ += "? " + rendered + '\n';
            text_.append(static_cast<std::size_t>(indent), ' ');
        } else {
            text_ += rendered;
        }
        text_ += ": ";
        text_ += raw;
        text_ += '\n';
    }
    void field_flow_list(int indent, std::string_view key, const std::vector<std::string>& items) {
        std::string raw = "[";
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i > 0) raw += ", ";
            raw += yaml_scalar(items[i], YamlContext::flow);
        }
        raw += ']';
        field_raw(indent, key, raw);
    }
    void header(int indent, std::string_view key) {
        start(indent);
        text_ += yaml_scalar(key);
        text_ += ":\n";
    }
    void entry(int indent, std::string_view value) { line(indent, "- " + yaml_scalar(value)); }
    void indented_comment(int indent, std::string_view text) {
        line(indent, "# " + std::string(text));
    }
    void map(int indent, std::string_view key, const std::map<std::string, std::string>& values) {
        if (values.empty()) return;
        header(indent, key);
        for (const auto& [name, value] : values)
            field(indent + 2, name, value);
    }
    // The next field starts a sequence entry whose keys sit at `indent` + 2.
    void item() { dash_ = true; }

    std::string take() { return std::move(text_); }

  private:
    static constexpr std::size_t max_implicit_key = 1000;

    void line(int indent, std::string_view content) {
        text_.append(static_cast<std::size_t>(indent), ' ');
        text_ += content;
        text_ += '\n';
    }
    void start(int indent) {
        if (dash_) {
            text_.append(static_cast<std::size_t>(indent - 2), ' ');
            text_ += "- ";
            dash_ = false;
        } else {
            text_.append(static_cast<std::size_t>(indent), ' ');
        }
    }

    std::string text_;
    bool dash_ = false;
};

std::vector<std::string> sorted_unique(std::vector<std::string> items) {
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    return items;
}

std::map<std::string, std::string> writable_variables(const std::map<std::string, std::string>& v) {
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : v) {
        if (!detail::reserved_variable(name)) out.emplace(name, value);
    }
    return out;
}

void write_file(YamlOut& out, int indent, const LockedFile& file) {
    out.header(indent, "wheel");
    out.field(indent + 2, "filename", file.filename);
    out.field(indent + 2, "url", detail::storable_url(file.url));
    out.field(indent + 2, "sha256", file.sha256);
    if (auto size = detail::known_size(file.size)) {
        out.field_raw(indent + 2, "size", std::to_string(*size));
    }
}

void write_source(YamlOut& out, int indent, const LockedSource& source) {
    out.header(indent, "source");
    out.field(indent + 2, "kind", to_string(source.kind));
    out.field(indent + 2, "url", detail::storable_url(source.url));
    if (!source.commit.empty()) out.field(indent + 2, "commit", source.commit);
    if (!source.sha256.empty()) out.field(indent + 2, "sha256", source.sha256);
    if (auto size = detail::known_size(source.size)) {
        out.field_raw(indent + 2, "size", std::to_string(*size));
    }
    if (!source.subdirectory.empty()) out.field(indent + 2, "subdirectory", source.subdirectory);
    if (!source.revision.empty()) out.field(indent + 2, "revision", source.revision);
    if (source.editable) out.field_raw(indent + 2, "editable", "true");
}

void write_package(YamlOut& out, int indent, const LockedPackage& package) {
    out.item();
    out.field(indent, "name", package.name);
    if (!package.version.empty()) out.field(indent, "version", package.version);
    if (package.requested) out.field_raw(indent, "requested", "true");
    if (!package.index.empty()) out.field(indent, "index", package.index);
    const auto extras = sorted_unique(package.extras);
    if (!extras.empty()) out.field_flow_list(indent, "extras", extras);
    const auto dependencies = sorted_unique(package.dependencies);
    if (!dependencies.empty()) out.field_flow_list(indent, "dependencies", dependencies);
    if (package.wheel) write_file(out, indent, *package.wheel);
    if (package.source) write_source(out, indent, *package.source);
}

// `glibc:` (Linux) or `macos:` (macOS): the cap the lock was made under and the floor its
// wheels set.
void write_floor(YamlOut& out, int indent, const LockedTarget& target) {
    const std::string_view key = floor_key(target.os);
    if (key.empty() || (target.os_cap.empty() && !target.os_floor)) return;
    out.header(indent, key);
    if (!target.os_cap.empty()) out.field(indent + 2, "cap", target.os_cap);
    if (target.os_floor) {
        out.field(indent + 2, "floor", target.os_floor->version);
        out.field_flow_list(indent + 2, "set-by", sorted_unique(target.os_floor->packages));
    }
}

void write_target(YamlOut& out, int indent, const LockedTarget& target) {
    out.item();
    out.field(indent, "id", target.id);
    out.field(indent, "os", target.os);
    out.field(indent, "arch", target.arch);
    out.field(indent, "backend", target.backend);
    out.field(indent, "python", target.python);
    write_floor(out, indent, target);
    out.map(indent, "marker-environment", target.marker_environment);
    out.map(indent, "variables", writable_variables(target.variables));
    std::vector<const LockedPackage*> packages;
    for (const auto& package : target.packages)
        packages.push_back(&package);
    std::stable_sort(packages.begin(), packages.end(),
                     [](const auto* a, const auto* b) { return a->name < b->name; });
    if (packages.empty()) return;
    out.header(indent, "packages");
    for (const auto* package : packages)
        write_package(out, indent + 4, *package);
}

void write_dependencies(YamlOut& out, const Lockfile& lock, const LockedTarget* target) {
    out.header(0, "dependencies");
    if (target == nullptr) {
        out.entry(2, "pip");
        return;
    }
    out.entry(2, "python=" + target->python);
    out.entry(2, "pip");
    const PipSection pip = pip_section(lock, *target);
    if (pip.lines.empty()) return;
    out.item();
    out.header(4, "pip");
    if (!pip.left_out.empty()) {
        std::string names;
        for (const auto& name : pip.left_out)
            names += (names.empty() ? "" : ", ") + name;
        out.indented_comment(6, "not here, as pip cannot check them by hash: " + names);
    }
    for (const auto& line : pip.lines)
        out.entry(6, line);
}

}  // namespace

std::string write_lockfile(const Lockfile& lock) {
    std::vector<const LockedTarget*> targets;
    for (const auto& target : lock.targets)
        targets.push_back(&target);
    std::stable_sort(targets.begin(), targets.end(),
                     [](const auto* a, const auto* b) { return a->id < b->id; });
    const LockedTarget* default_target = lock.find_target(lock.default_target);

    YamlOut out;
    out.comment("aitk-env lockfile: an environment.yml for conda and micromamba; `" +
                std::string(extension_key) + "` holds every target.");
    out.comment("Generated: change the inputs and run `aitk-env lock` rather than editing it.");
    out.field(0, "name", lock.name);
    if (lock.channels.empty()) {
        out.field_raw(0, "channels", "[]");
    } else {
        out.header(0, "channels");
        for (const auto& channel : lock.channels)
            out.entry(2, channel);
    }
    write_dependencies(out, lock, default_target);
    if (default_target != nullptr)
        out.map(0, "variables", writable_variables(default_target->variables));

    out.header(0, extension_key);
    out.field_raw(2, "format", std::to_string(lock.format));
    out.field(2, "generator", lock.generator);
    out.field(2, "input-hash", lock.input_hash);
    if (!lock.python_requires.empty()) out.field(2, "python-requires", lock.python_requires);
    out.field(2, "default-target", lock.default_target);
    if (!lock.indexes.empty()) {
        out.header(2, "indexes");
        for (const auto& index : lock.indexes) {
            out.item();
            out.field(6, "name", index.name);
            out.field(6, "url", detail::storable_url(index.url));
            out.field(6, "kind", to_string(index.kind));
        }
    }
    if (targets.empty()) {
        out.field_raw(2, "targets", "[]");
    } else {
        out.header(2, "targets");
        for (const auto* target : targets)
            write_target(out, 6, *target);
    }
    return out.take();
}

}  // namespace aitk::lock
