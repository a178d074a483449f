// A generated universe of 200 packages (seeded, so the same every run) that has a solution by
// construction: the resolver must find one, every requirement of the result must hold, and two
// runs must agree exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

#include "memory_source.hpp"

namespace aitk::resolve {
namespace AITK_FILE_LOCAL {

using testing::MemorySource;
using testing::options;

constexpr int package_count = 200;

struct Universe {
    MemorySource source;
    std::vector<RootRequirement> roots;
};

// std::mt19937's sequence is fixed by the standard; the distributions are not, so draws are
// reduced by hand.
class Draw {
  public:
    explicit Draw(std::uint32_t seed) : engine_(seed) {}
    int below(int n) { return static_cast<int>(engine_() % static_cast<std::uint32_t>(n)); }
    bool chance(int percent) { return below(100) < percent; }

  private:
    std::mt19937 engine_;
};

std::string name_of(int i) {
    std::string n = std::to_string(i);
    return "pkg-" + std::string(3 - n.size(), '0') + n;
}

std::string version_of(int k) {
    return std::to_string(1 + k / 3) + "." + std::to_string(k % 3);
}

// A specifier admitting version number `w` (an index into version_of) of a package with
// `count` versions, or, when `free`, any specifier at all.
std::string specifier(Draw& draw, int w, int count, bool free) {
    const int pick = free ? draw.below(count) : w;
    switch (draw.below(6)) {
        case 0:
            return ">=" + version_of(draw.below(pick + 1));
        case 1:
            return "<" + version_of(pick + 1 + draw.below(count - pick));
        case 2:
            return "==" + version_of(pick);
        case 3:
            return ">=" + version_of(draw.below(pick + 1)) + ",<" +
                   version_of(pick + 1 + draw.below(count - pick));
        case 4: {
            const int other = draw.below(count);
            return other == pick ? std::string() : "!=" + version_of(other);
        }
        default:
            return {};
    }
}

Universe generate(std::uint32_t seed) {
    Draw draw(seed);
    std::vector<int> counts(package_count);
    std::vector<int> witness(package_count);
    for (int i = 0; i < package_count; ++i) {
        counts[i] = 2 + draw.below(5);
        witness[i] = draw.below(counts[i]);
    }
    Universe u;
    for (int i = 0; i < package_count; ++i) {
        for (int k = 0; k < counts[i]; ++k) {
            const bool is_witness = k == witness[i];
            std::vector<std::string> requires_dist;
            const int deps = i + 1 < package_count ? draw.below(5) : 0;
            for (int d = 0; d < deps; ++d) {
                const int j = i + 1 + draw.below(std::min(25, package_count - i - 1));
                std::string line = name_of(j);
                if (draw.chance(15)) line += "[fast]";
                line += specifier(draw, witness[j], counts[j], !is_witness && draw.chance(40));
                if (draw.chance(10)) line += "; sys_platform == 'win32'";
                requires_dist.push_back(line);
            }
            // Every version has the extra; the witness's extra requirement admits a witness.
            if (i + 1 < package_count) {
                const int j = i + 1 + draw.below(std::min(25, package_count - i - 1));
                requires_dist.push_back(name_of(j) +
                                        specifier(draw, witness[j], counts[j], !is_witness) +
                                        "; extra == 'fast'");
            }
            u.source.add(name_of(i), version_of(k), requires_dist, {"fast"});
            if (!is_witness && draw.chance(10)) u.source.yank(name_of(i), version_of(k));
        }
        if (draw.chance(20)) u.source.add(name_of(i), version_of(counts[i]) + "rc1");
    }
    for (int r = 0; r < 20; ++r) {
        const int i = draw.below(50);
        u.roots.push_back(
            {testing::requirement(name_of(i) + specifier(draw, witness[i], counts[i], false)),
             "generated:" + std::to_string(r + 1)});
    }
    return u;
}

// Every requirement of every resolved package (with the extras it was resolved with) is met
// by the resolved versions, and nothing unneeded is in.
void expect_consistent(MemorySource& source, const std::vector<RootRequirement>& roots,
                       const Resolution& resolution) {
    std::map<std::string, const ResolvedPackage*> by_name;
    for (const auto& p : resolution.packages)
        by_name[p.name] = &p;
    const auto env = testing::environment();
    std::set<std::string> reached;
    std::vector<std::string> work;
    auto require = [&](const pep::Requirement& r, const std::string& who) {
        const std::string name = r.canonical_name();
        auto it = by_name.find(name);
        ASSERT_NE(it, by_name.end()) << who << " needs " << r.to_string();
        EXPECT_TRUE(r.specifier().contains(it->second->version, true))
            << who << " needs " << r.to_string() << ", got " << it->second->version.to_string();
        for (const auto& e : r.extras()) {
            const auto& extras = it->second->extras;
            EXPECT_NE(std::find(extras.begin(), extras.end(), e), extras.end())
                << who << " needs " << r.to_string();
        }
        if (reached.insert(name).second) work.push_back(name);
    };
    for (const auto& root : roots) {
        if (*root.requirement.applies(env, {})) require(root.requirement, root.origin);
    }
    while (!work.empty()) {
        const ResolvedPackage& p = *by_name.at(work.back());
        work.pop_back();
        EXPECT_FALSE(p.version.is_prerelease()) << p.name;
        auto info = source.dependencies(p.name, p.version);
        ASSERT_TRUE(info.has_value());
        std::vector<std::string> active{""};
        active.insert(active.end(), p.extras.begin(), p.extras.end());
        std::set<std::string> needs;
        for (const auto& r : info->requires_dist) {
            for (const auto& extra : active) {
                const std::vector<std::string> extras =
                    extra.empty() ? std::vector<std::string>{} : std::vector<std::string>{extra};
                if (r.marker() && extra.empty() == r.marker()->mentions_extra()) continue;
                if (!*r.applies(env, extras)) continue;
                require(r, p.name);
                needs.insert(r.canonical_name());
            }
        }
        needs.erase(p.name);
        EXPECT_EQ(p.dependencies, std::vector<std::string>(needs.begin(), needs.end())) << p.name;
    }
    EXPECT_EQ(reached.size(), resolution.packages.size()) << "unreachable packages resolved";
}

TEST(Generated, TwoHundredPackagesResolveConsistently) {
    for (std::uint32_t seed : {2u, 3u}) {
        Universe u = generate(seed);
        const Resolution first = resolve(u.source, u.roots, options());
        EXPECT_GT(first.packages.size(), 20u) << "seed " << seed;
        expect_consistent(u.source, u.roots, first);
        // Same input, same answer.
        Universe again = generate(seed);
        const Resolution second = resolve(again.source, again.roots, options());
        EXPECT_EQ(testing::pins(second), testing::pins(first));
        EXPECT_EQ(second.decisions, first.decisions);
        EXPECT_EQ(second.conflicts, first.conflicts);
        for (const auto& [name, calls] : u.source.version_calls)
            EXPECT_EQ(calls, 1) << name;
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::resolve
