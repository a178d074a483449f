#pragma once
// An in-memory PackageSource for the resolver tests: packages, versions and Requires-Dist given
// as text, failures on demand, and a record of every question asked.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/resolve/source.hpp"

namespace aitk::resolve::testing {

inline pep::Version version(const std::string& text) {
    auto parsed = pep::Version::parse(text);
    if (!parsed) throw std::invalid_argument("bad test version " + text);
    return *parsed;
}

inline pep::Requirement requirement(const std::string& text) {
    auto parsed = pep::Requirement::parse(text);
    if (!parsed) throw std::invalid_argument("bad test requirement " + text);
    return *parsed;
}

class MemorySource : public PackageSource {
  public:
    // Adds `name` `version` with these Requires-Dist lines and Provides-Extra names.
    MemorySource& add(const std::string& name, const std::string& v,
                      const std::vector<std::string>& requires_dist = {},
                      const std::vector<std::string>& provides_extra = {}) {
        Entry entry;
        entry.candidate.version = version(v);
        for (const auto& r : requires_dist)
            entry.info.requires_dist.push_back(requirement(r));
        for (const auto& e : provides_extra)
            entry.info.provides_extra.push_back(e);
        projects_[pep::canonicalize_name(name)].push_back(std::move(entry));
        return *this;
    }
    MemorySource& yank(const std::string& name, const std::string& v,
                       const std::string& reason = {}) {
        auto& entry = find(name, version(v));
        entry.candidate.yanked = true;
        entry.candidate.yanked_reason = reason;
        return *this;
    }
    MemorySource& add_direct(const std::string& name, const std::string& url,
                             std::optional<std::string> v,
                             const std::vector<std::string>& requires_dist = {}) {
        DirectPackage package;
        if (v) package.version = version(*v);
        for (const auto& r : requires_dist) {
            package.dependencies.requires_dist.push_back(requirement(r));
        }
        directs_[{pep::canonicalize_name(name), url}] = std::move(package);
        return *this;
    }
    MemorySource& fail_versions(const std::string& name, const std::string& message) {
        version_failures_[name] = message;
        return *this;
    }
    MemorySource& fail_dependencies(const std::string& name, const std::string& v,
                                    const std::string& message) {
        dependency_failures_[{name, version(v).to_string()}] = message;
        return *this;
    }
    MemorySource& explanation(const std::string& name, const std::string& text) {
        explanations_[name] = text;
        return *this;
    }

    SourceResult versions(const std::string& name) override {
        ++version_calls[name];
        if (auto it = version_failures_.find(name); it != version_failures_.end()) {
            return util::Unexpected<std::string>(it->second);
        }
        std::vector<CandidateVersion> out;
        if (auto it = projects_.find(name); it != projects_.end()) {
            for (const auto& entry : it->second)
                out.push_back(entry.candidate);
        }
        return out;
    }

    DependencyResult dependencies(const std::string& name, const pep::Version& v) override {
        ++dependency_calls[{name, v.to_string()}];
        if (auto it = dependency_failures_.find({name, v.to_string()});
            it != dependency_failures_.end()) {
            return util::Unexpected<std::string>(it->second);
        }
        return find(name, v).info;
    }

    DirectResult direct(const std::string& name, const std::string& url) override {
        ++direct_calls[name];
        auto it = directs_.find({name, url});
        if (it == directs_.end()) {
            return util::Unexpected<std::string>("cannot read " + name + " @ " + url);
        }
        return it->second;
    }

    void prefetch(std::span<const pep::Requirement> upcoming) override {
        std::vector<std::string> batch;
        for (const auto& r : upcoming)
            batch.push_back(r.to_string());
        prefetches.push_back(std::move(batch));
    }

    std::string explain(const std::string& name, const std::string& specifier) override {
        (void)specifier;
        auto it = explanations_.find(name);
        return it == explanations_.end() ? std::string() : it->second;
    }

    std::map<std::string, int> version_calls;
    std::map<std::string, int> direct_calls;
    std::map<std::pair<std::string, std::string>, int> dependency_calls;
    std::vector<std::vector<std::string>> prefetches;

  private:
    struct Entry {
        CandidateVersion candidate;
        DependencyInfo info;
    };

    Entry& find(const std::string& name, const pep::Version& v) {
        for (auto& entry : projects_.at(pep::canonicalize_name(name))) {
            if (entry.candidate.version == v) return entry;
        }
        throw std::invalid_argument("no test package " + name + " " + v.to_string());
    }

    std::map<std::string, std::vector<Entry>> projects_;
    std::map<std::pair<std::string, std::string>, DirectPackage> directs_;
    std::map<std::string, std::string> version_failures_;
    std::map<std::pair<std::string, std::string>, std::string> dependency_failures_;
    std::map<std::string, std::string> explanations_;
};

// Root requirements from text, each with the origin "requirements.txt:<line>".
inline std::vector<RootRequirement> roots(const std::vector<std::string>& lines,
                                          const std::string& file = "requirements.txt") {
    std::vector<RootRequirement> out;
    int line = 0;
    for (const auto& text : lines) {
        ++line;
        out.push_back({requirement(text), file + ":" + std::to_string(line)});
    }
    return out;
}

inline pep::MarkerEnvironment environment(const std::string& sys_platform = "linux") {
    pep::MarkerEnvironment env;
    env.set(pep::MarkerVariable::implementation_name, "cpython");
    env.set(pep::MarkerVariable::implementation_version, "3.11.7");
    env.set(pep::MarkerVariable::platform_python_implementation, "CPython");
    env.set(pep::MarkerVariable::python_version, "3.11");
    env.set(pep::MarkerVariable::python_full_version, "3.11.7");
    env.set(pep::MarkerVariable::sys_platform, sys_platform);
    if (sys_platform == "win32") {
        env.set(pep::MarkerVariable::os_name, "nt");
        env.set(pep::MarkerVariable::platform_system, "Windows");
        env.set(pep::MarkerVariable::platform_machine, "AMD64");
    } else {
        env.set(pep::MarkerVariable::os_name, "posix");
        env.set(pep::MarkerVariable::platform_system, "Linux");
        env.set(pep::MarkerVariable::platform_machine, "x86_64");
    }
    return env;
}

inline ResolveOptions options(const std::string& sys_platform = "linux") {
    ResolveOptions o;
    o.environment = environment(sys_platform);
    return o;
}

// "name==version" for every resolved package, in order.
inline std::vector<std::string> pins(const Resolution& resolution) {
    std::vector<std::string> out;
    for (const auto& p : resolution.packages)
        out.push_back(p.name + "==" + p.version.to_string());
    return out;
}

// The explanation of an unsatisfiable resolution (fails the test when it resolves).
inline std::string failure(PackageSource& source, const std::vector<RootRequirement>& r,
                           const ResolveOptions& o) {
    try {
        (void)resolve(source, r, o);
        ADD_FAILURE() << "resolved unexpectedly";
        return {};
    } catch (const Unsatisfiable& e) {
        EXPECT_EQ(e.code(), util::ExitCode::unsatisfiable);
        return e.what();
    }
}

}  // namespace aitk::resolve::testing
