#include "generated_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "aitk/pep/name.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/version.hpp"
#include "torch_markers.hpp"

namespace aitk::test {
namespace {

// splitmix64: tiny, and the same sequence on every platform (std distributions are not).
class Rng {
  public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // 0 … n-1 (0 when n is 0).
    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
    // lo … hi, both included.
    std::size_t between(std::size_t lo, std::size_t hi) {
        return hi <= lo ? lo : lo + below(hi - lo + 1);
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return unit() < p; }
    template <class T>
    const T& pick(const std::vector<T>& items) {
        return items[below(items.size())];
    }

  private:
    std::uint64_t state_;
};

// Markers on dependencies: some hold on linux-x86_64, some do not, some depend on the Python.
const std::vector<std::string> dependency_markers = {
    "sys_platform == \"win32\"",
    "sys_platform == \"linux\"",
    "platform_system == \"Darwin\"",
    "python_version < \"3.11\"",
    "python_version >= \"3.12\"",
    "platform_machine == \"x86_64\"",
    "platform_machine == \"aarch64\"",
    "implementation_name == \"cpython\"",
    "python_full_version >= \"3.11.5\"",
    "os_name == \"nt\"",
    "sys_platform != \"win32\" and python_version >= \"3.11\"",
    "sys_platform == \"darwin\" or platform_machine == \"aarch64\"",
    "platform_python_implementation != \"PyPy\" and python_version < \"3.13\"",
};

const std::vector<std::string> root_markers = {
    "python_version >= \"3.11\"",
    "sys_platform == \"linux\"",
    "platform_system == \"Windows\"",
    "python_version < \"3.12\"",
};

const std::vector<std::string> extra_names = {"fast", "cli", "socks", "gpu", "test", "docs"};

struct DraftVersion {
    pep::Version parsed;
    GeneratedVersion out;
};

// A main-index project while its dependencies are chosen.
struct Draft {
    GeneratedProject project;
    bool native = false;
    bool abi3 = false;
    bool windows_only = false;
    bool prerelease_only = false;
    bool uses_torch = false;
    std::vector<std::string> extras;
    std::size_t extras_since = 0;  // first version index that provides the extras
    // Final, unyanked versions (ascending): what specifiers are anchored on.
    std::vector<std::string> anchors;
    // Per version: installable on linux-x86_64 for every tested CPython (wheels, Python).
    std::vector<bool> usable;
    std::optional<std::size_t> witness;  // see Generator::choose_witness
};

std::vector<std::string> final_versions(Rng& rng, std::size_t count) {
    enum class Scheme { three_part, two_part, calendar };
    const std::size_t roll = rng.below(10);
    const Scheme scheme =
        roll < 6 ? Scheme::three_part : (roll < 8 ? Scheme::two_part : Scheme::calendar);
    std::size_t a = 0, b = 0, c = 0;
    switch (scheme) {
        case Scheme::three_part:
            a = rng.below(3);
            b = rng.below(8);
            c = rng.below(3);
            break;
        case Scheme::two_part:
            a = rng.below(3);
            b = rng.below(10);
            break;
        case Scheme::calendar:
            a = 2021 + rng.below(3);
            b = 1 + rng.below(12);
            break;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < count; ++i) {
        if (scheme == Scheme::two_part) {
            out.push_back(std::to_string(a) + "." + std::to_string(b));
        } else {
            out.push_back(std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c));
        }
        const std::size_t step = rng.below(100);
        switch (scheme) {
            case Scheme::three_part:
                if (step < 50) {
                    ++c;
                } else if (step < 85) {
                    ++b;
                    c = 0;
                } else {
                    ++a;
                    b = 0;
                    c = 0;
                }
                break;
            case Scheme::two_part:
                if (step < 75) {
                    ++b;
                } else {
                    ++a;
                    b = 0;
                }
                break;
            case Scheme::calendar:
                b += 1 + rng.below(3);
                if (b > 12) {
                    ++a;
                    b -= 12;
                }
                break;
        }
        // Post releases fix a packaging mistake; they sort right after their release.
        if (rng.chance(0.05) && i + 1 < count) {
            out.push_back(out.back() + ".post1");
            ++i;
        }
    }
    return out;
}

// "1.4.2" -> "1.5.0rc1" style: the next minor release's prerelease.
std::string next_prerelease(const std::string& newest, Rng& rng) {
    auto parsed = pep::Version::parse(newest);
    const auto& release = parsed->release();
    std::string base = std::to_string(release[0]) + "." +
                       std::to_string((release.size() > 1 ? release[1] : 0) + 1);
    if (release.size() > 2) base += ".0";
    static const std::vector<std::string> suffixes = {"a1", "b1", "b2", "rc1", "rc2", ".dev0"};
    return base + rng.pick(suffixes);
}

pep::Version parse_version(const std::string& text) {
    auto parsed = pep::Version::parse(text);
    if (!parsed) throw std::logic_error("generated an invalid version " + text);
    return std::move(*parsed);
}

std::string published_name(const std::string& name, Rng& rng) {
    const std::size_t roll = rng.below(100);
    if (roll < 8) {  // "Pkg_017"
        std::string out = name;
        out[0] = 'P';
        std::replace(out.begin(), out.end(), '-', '_');
        return out;
    }
    if (roll < 12) {  // "pkg.017"
        std::string out = name;
        std::replace(out.begin(), out.end(), '-', '.');
        return out;
    }
    return name;
}

class Generator {
  public:
    explicit Generator(const UniverseOptions& options)
        : options_(options), rng_(options.seed * 0x2545F4914F6CDD1DULL + 0x1234567ULL) {
        if (options_.python_minors.empty()) throw std::invalid_argument("no python_minors");
        py_min_ = static_cast<std::size_t>(
            *std::min_element(options_.python_minors.begin(), options_.python_minors.end()));
        py_max_ = static_cast<std::size_t>(
            *std::max_element(options_.python_minors.begin(), options_.python_minors.end()));
        tested_min_ = std::min(std::max<std::size_t>(py_min_, 10), py_max_);
    }

    GeneratedUniverse run() {
        GeneratedUniverse universe;
        universe.options = options_;
        make_projects();
        if (options_.torch_family) {
            // Only projects from the first 60% depend on torch, whose own dependencies come
            // from the last quarter: no cycle can form.
            for (std::size_t i = 0; i < drafts_.size() * 6 / 10; ++i) {
                if (rng_.chance(0.12)) drafts_[i].uses_torch = true;
            }
        }
        decide_extras();
        choose_roots();
        if (options_.torch_family) make_torch_family(universe);
        for (std::size_t i = 0; i < drafts_.size(); ++i)
            make_dependencies(i);
        write_roots(universe);
        for (auto& d : drafts_)
            universe.projects.push_back(std::move(d.project));
        for (auto& p : extra_projects_)
            universe.projects.push_back(std::move(p));
        return universe;
    }

  private:
    // --- projects and their versions ----------------------------------------------------------

    void make_projects() {
        const std::size_t n = options_.projects;
        for (std::size_t i = 0; i < n; ++i) {
            Draft d;
            char name[32];
            std::snprintf(name, sizeof name, "pkg-%03zu", i);
            d.project.name = name;
            d.project.published = published_name(name, rng_);
            d.project.index = "simple";
            d.native = rng_.chance(options_.native_share);
            d.abi3 = d.native && rng_.chance(0.25);
            // Windows-only projects (pywin32-like) are needed behind a Windows marker only;
            // never among the first projects, which the roots favour.
            d.windows_only = options_.windows && i > n / 3 && rng_.chance(0.04);
            if (d.windows_only) d.native = true;
            d.prerelease_only = !d.windows_only && i > n / 3 && rng_.chance(0.02);
            make_versions(d);
            choose_witness(d);
            drafts_.push_back(std::move(d));
        }
    }

    std::vector<std::string> version_texts(const Draft& d) {
        const std::size_t count = rng_.between(options_.min_versions, options_.max_versions);
        if (d.prerelease_only) {
            static const std::vector<std::string> pres = {"0.1.0a1", "0.1.0a2", "0.1.0b1",
                                                          "0.1.0rc1", "0.1.0rc2"};
            return {pres.begin(),
                    pres.begin() + static_cast<std::ptrdiff_t>(std::min(count, pres.size()))};
        }
        auto texts = final_versions(rng_, count);
        if (rng_.chance(options_.prerelease_share)) {
            if (rng_.chance(0.6)) texts.push_back(next_prerelease(texts.back(), rng_));
            if (texts.size() > 2 && rng_.chance(0.5)) {
                // A prerelease before one of the releases ("1.2.0rc1" < "1.2.0").
                const std::string base = texts[1 + rng_.below(texts.size() - 1)];
                if (base.find(".post") == std::string::npos &&
                    !parse_version(base).is_prerelease()) {
                    texts.push_back(base + "rc1");
                }
            }
        }
        return texts;
    }

    void make_versions(Draft& d) {
        std::vector<DraftVersion> versions;
        for (const auto& t : version_texts(d)) {
            DraftVersion v{parse_version(t), {}};
            v.out.version = v.parsed.to_string();
            versions.push_back(std::move(v));
        }
        std::sort(versions.begin(), versions.end(),
                  [](const DraftVersion& a, const DraftVersion& b) { return a.parsed < b.parsed; });
        versions.erase(std::unique(versions.begin(), versions.end(),
                                   [](const DraftVersion& a, const DraftVersion& b) {
                                       return a.parsed == b.parsed;
                                   }),
                       versions.end());

        // A yanked version now and then, often the newest (a bad release pulled).
        std::vector<std::size_t> finals;
        for (std::size_t k = 0; k < versions.size(); ++k) {
            if (!versions[k].parsed.is_prerelease()) finals.push_back(k);
        }
        if (finals.size() >= 2 && rng_.chance(options_.yank_share)) {
            std::size_t k = rng_.chance(0.4) ? finals.back() : rng_.pick(finals);
            versions[k].out.yanked = rng_.chance(0.5) ? std::string() : "broken wheels";
        }

        // Requires-Python floors rise with the versions; some older ones carry a cap.
        const bool has_floor = rng_.chance(options_.requires_python_share);
        const bool capped_old = has_floor && rng_.chance(0.1);
        std::size_t floor = 6 + rng_.below(4);  // 3.6 … 3.9
        const bool linux_newest_missing = d.native && !d.windows_only && rng_.chance(0.05);
        const bool manylinux_2_28_newest = rng_.chance(0.3);
        const bool aarch64 = rng_.chance(0.5);
        const bool windows = options_.windows && (d.windows_only || rng_.chance(0.85));
        const bool macos = options_.macos && !d.windows_only && rng_.chance(0.7);
        const std::size_t n = versions.size();
        for (std::size_t k = 0; k < n; ++k) {
            auto& v = versions[k].out;
            if (k > 0 && rng_.chance(0.3)) floor = std::min<std::size_t>(floor + 1, 12);
            const bool capped = capped_old && k + 2 < n;
            if (has_floor) {
                v.requires_python = ">=3." + std::to_string(floor);
                if (capped) v.requires_python += ",<3.13";
            }
            // Whether pip and the lock can install it on linux-x86_64 for every tested Python.
            bool usable = (!has_floor || floor <= tested_min_) && !(capped && py_max_ >= 13);
            if (!d.native) {
                v.tags.push_back(rng_.chance(0.1) ? "py2.py3-none-any" : "py3-none-any");
                d.usable.push_back(usable);
                continue;
            }
            // Older releases have no wheels for the newest Pythons.
            const std::size_t age = n - 1 - k;
            std::size_t hi = py_max_ > py_min_ + age / 2 ? py_max_ - age / 2 : py_min_;
            const std::size_t lo = std::max(py_min_, has_floor ? floor : py_min_);
            if (capped) hi = std::min<std::size_t>(hi, 12);
            if (hi < lo) hi = lo;
            std::vector<std::string> platforms;
            const bool newest = k + 1 == n;
            const bool linux = !d.windows_only && !(newest && linux_newest_missing);
            if (linux) {
                platforms.push_back(newest && manylinux_2_28_newest
                                        ? "manylinux_2_28_x86_64"
                                        : "manylinux_2_17_x86_64.manylinux2014_x86_64");
                if (aarch64) platforms.push_back("manylinux_2_17_aarch64.manylinux2014_aarch64");
            }
            if (windows) platforms.push_back("win_amd64");
            if (macos) platforms.push_back("macosx_11_0_arm64");
            for (const auto& platform : platforms) {
                if (d.abi3) {
                    v.tags.push_back("cp3" + std::to_string(lo) + "-abi3-" + platform);
                    continue;
                }
                for (std::size_t m = lo; m <= hi; ++m) {
                    const std::string py = "cp3" + std::to_string(m);
                    v.tags.push_back(py + "-" + py + "-" + platform);
                }
            }
            usable = usable && linux && lo <= tested_min_ && (d.abi3 || hi >= py_max_);
            d.usable.push_back(usable);
        }
        for (auto& v : versions) {
            if (!v.parsed.is_prerelease() && !v.out.yanked) d.anchors.push_back(v.out.version);
            d.project.versions.push_back(std::move(v.out));
        }
        if (d.anchors.empty()) {  // prerelease-only: specifiers anchor on the prereleases
            for (const auto& v : d.project.versions)
                d.anchors.push_back(v.version);
        }
    }

    // The version every specifier naming `d` admits (in the versions that the witnesses of
    // the dependents pick): the universe's guaranteed solution. Often the newest usable one,
    // so the resolvers' newest-first search meets conflicts on the way to it.
    void choose_witness(Draft& d) {
        std::vector<std::size_t> candidates;
        for (std::size_t k = 0; k < d.project.versions.size(); ++k) {
            const auto& v = d.project.versions[k];
            const bool pre = parse_version(v.version).is_prerelease();
            if (d.usable[k] && !v.yanked && (!pre || d.prerelease_only)) candidates.push_back(k);
        }
        if (candidates.empty()) return;
        d.witness =
            rng_.chance(options_.newest_witness_share) ? candidates.back() : rng_.pick(candidates);
    }

    const std::string& witness_version(const Draft& d) const {
        return d.project.versions[*d.witness].version;
    }

    // --- specifiers ---------------------------------------------------------------------------

    static bool admits(const std::string& spec, const std::string& version) {
        auto set = pep::SpecifierSet::parse(spec);
        return set && set->contains(version, true);
    }

    // Whether `spec` admits one of `target`'s releases (prereleases for prerelease-only ones).
    static bool admits_some(const Draft& target, const std::string& spec) {
        auto set = pep::SpecifierSet::parse(spec);
        if (!set) return false;
        for (const auto& a : target.anchors) {
            if (set->contains(a, target.prerelease_only)) return true;
        }
        return false;
    }

    static std::string next_major(const std::string& version) {
        auto parsed = parse_version(version);
        const auto& r = parsed.release();
        if (r[0] == 0 && r.size() > 1) return "0." + std::to_string(r[1] + 1);
        return std::to_string(r[0] + 1);
    }

    static std::string compatible_prefix(const std::string& version) {
        auto parsed = parse_version(version);
        const auto& r = parsed.release();
        if (r.size() < 2) return version + ".0";
        return std::to_string(r[0]) + "." + std::to_string(r[1]);
    }

    enum class Form { bare, at_least, bounded, compatible, excluding, pinned, wildcard, below };

    // `style` (0…99) picks a form with these shares (roots are simpler than dependencies).
    Form form_for(std::size_t style, bool root) const {
        struct Share {
            Form form;
            std::size_t percent;
        };
        // The upper-bounding forms (bounded … below) share upper_bound_share among them.
        const double upper = root ? 0.24 : options_.upper_bound_share;
        auto part = [&](double weight) {
            return static_cast<std::size_t>(std::lround(upper * 100 * weight));
        };
        const Share shares[] = {{Form::bare, root ? 45u : 30u},
                                {Form::at_least, root ? 25u : 30u},
                                {Form::bounded, part(root ? 0.25 : 0.4)},
                                {Form::compatible, part(root ? 0.33 : 0.27)},
                                {Form::excluding, 6},
                                {Form::pinned, part(root ? 0.17 : 0.13)},
                                {Form::wildcard, part(0.125)},
                                {Form::below, part(0.125)}};
        for (const auto& share : shares) {
            if (style < share.percent) return share.form;
            style -= share.percent;
        }
        return Form::at_least;
    }

    // A specifier for `target` anchored at its release `a`, admitting at least one release.
    std::string specifier(const Draft& target, std::size_t a, std::size_t style, bool root) {
        const auto& anchors = target.anchors;
        a = std::min(a, anchors.size() - 1);
        const std::string& v = anchors[a];
        if (target.prerelease_only) return style < 50 ? std::string() : ">=" + anchors.front();
        std::string spec;
        switch (form_for(style, root)) {
            case Form::bare:
                break;
            case Form::at_least:
                spec = ">=" + v;
                break;
            case Form::bounded:
                if (a + 1 < anchors.size() && rng_.chance(0.5)) {
                    spec = ">=" + v + ",<" + anchors[a + 1 + rng_.below(anchors.size() - a - 1)];
                } else {
                    spec = ">=" + v + ",<" + next_major(v);
                }
                break;
            case Form::compatible:
                spec = "~=" + compatible_prefix(v);
                break;
            case Form::excluding:
                spec = ">=" + anchors.front() + ",!=" + rng_.pick(anchors);
                break;
            case Form::pinned:
                spec = "==" + v;
                break;
            case Form::wildcard:
                spec = "==" + compatible_prefix(v) + ".*";
                break;
            case Form::below:
                spec = "<" + (a + 1 < anchors.size() ? anchors[a + 1] : next_major(v));
                break;
        }
        if (!spec.empty() && !admits_some(target, spec)) spec = ">=" + v;
        return spec;
    }

    // The same, but also admitting `target`'s witness (for the witnesses' own dependencies).
    std::string witness_specifier(const Draft& target, std::size_t a, std::size_t style,
                                  bool root) {
        std::string spec = specifier(target, a, style, root);
        if (!target.witness || admits(spec, witness_version(target))) return spec;
        return rng_.chance(0.5) ? std::string() : ">=" + witness_version(target);
    }

    // A marker for a dependency on `target`: projects nothing can install on linux-x86_64
    // (Windows-only ones) are needed on Windows only.
    std::string marker_for(const Draft& target, double share) {
        if (!target.witness) {
            return rng_.chance(0.5) ? "sys_platform == \"win32\""
                                    : "platform_system == \"Windows\"";
        }
        return rng_.chance(share) ? rng_.pick(dependency_markers) : std::string();
    }

    std::string requirement_text(const Draft& target, const std::string& extras,
                                 const std::string& spec, const std::string& marker) const {
        std::string out = target.project.name;
        if (!extras.empty()) out += "[" + extras + "]";
        out += spec;
        if (!marker.empty()) out += "; " + marker;
        return out;
    }

    // The release a dependent's k-th of n versions needs at least: newer dependents need
    // newer releases.
    static std::size_t anchor_for(const Draft& target, std::size_t k, std::size_t n,
                                  double strength) {
        if (n <= 1) return 0;
        const double progress = static_cast<double>(k) / static_cast<double>(n - 1);
        const double at = progress * strength * static_cast<double>(target.anchors.size() - 1);
        return static_cast<std::size_t>(std::floor(at + 0.5));
    }

    std::size_t pick_later(std::size_t i) { return i + 1 + rng_.below(drafts_.size() - i - 1); }

    // --- dependencies and extras --------------------------------------------------------------

    // Extras of every project, before any dependency names one.
    void decide_extras() {
        for (auto& d : drafts_) {
            if (d.windows_only || d.prerelease_only || !rng_.chance(options_.extras_share)) {
                continue;
            }
            std::vector<std::string> pool = extra_names;
            const std::size_t count = 1 + rng_.below(2);
            for (std::size_t c = 0; c < count; ++c) {
                const std::size_t at = rng_.below(pool.size());
                d.extras.push_back(pool[at]);
                pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(at));
            }
            std::sort(d.extras.begin(), d.extras.end());
            if (rng_.chance(0.2)) d.extras_since = rng_.below(d.project.versions.size());
        }
    }

    void make_dependencies(std::size_t i) {
        Draft& d = drafts_[i];
        const std::size_t n = drafts_.size();
        const std::size_t nv = d.project.versions.size();
        struct Edge {
            std::size_t target;
            std::size_t style;
            double strength;
            std::size_t from;
            std::size_t until;  // exclusive
            std::string marker;
            std::string extra;  // requested extra of the target
        };
        std::vector<Edge> edges;
        std::set<std::size_t> used;
        const std::size_t wanted = i + 1 < n ? rng_.below(options_.max_dependencies + 1) : 0;
        for (std::size_t e = 0; e < wanted; ++e) {
            const std::size_t j = pick_later(i);
            if (!used.insert(j).second) continue;
            Edge edge{j, rng_.below(100), 0.3 + 0.7 * rng_.unit(), 0, nv, {}, {}};
            // Dependencies come and go between releases.
            if (rng_.chance(0.25)) edge.from = rng_.below(nv);
            if (rng_.chance(0.1) && edge.from + 1 < nv) {
                edge.until = rng_.between(edge.from + 1, nv - 1);
            }
            edge.marker = marker_for(drafts_[j], options_.marker_share);
            if (!drafts_[j].extras.empty() && rng_.chance(0.3)) {
                edge.extra = rng_.pick(drafts_[j].extras);
            }
            edges.push_back(std::move(edge));
        }

        // The extras' own dependencies: the same text in every version that provides them.
        struct ExtraEdge {
            std::string extra;
            std::string text;
        };
        std::vector<ExtraEdge> extra_edges;
        for (const auto& extra : d.extras) {
            const std::size_t count = 1 + rng_.below(2);
            for (std::size_t c = 0; c < count && i + 1 < n; ++c) {
                const Draft& t = drafts_[pick_later(i)];
                std::string marker = "extra == \"" + extra + "\"";
                const std::string condition = marker_for(t, 0.2);
                if (!condition.empty()) {
                    marker = rng_.chance(0.5) ? condition + " and " + marker
                                              : marker + " and " + condition;
                }
                const std::string spec =
                    witness_specifier(t, t.anchors.size() / 2, rng_.below(100), false);
                extra_edges.push_back({extra, requirement_text(t, "", spec, marker)});
            }
        }
        bool has_all = false;
        if (d.extras.size() >= 2 && rng_.chance(0.5)) {
            // "all" = the other extras, through a reference to the project itself.
            std::string list;
            for (const auto& e : d.extras)
                list += (list.empty() ? "" : ",") + e;
            extra_edges.push_back({"all", d.project.name + "[" + list + "]; extra == \"all\""});
            has_all = true;
        }

        const std::string torch_spec =
            d.uses_torch ? rng_.pick(std::vector<std::string>{"torch", "torch>=2.8", "torch>=2.9"})
                         : std::string();
        for (std::size_t k = 0; k < nv; ++k) {
            auto& v = d.project.versions[k];
            const bool witness = d.witness == k;
            for (const auto& edge : edges) {
                if (k < edge.from || k >= edge.until) continue;
                const Draft& t = drafts_[edge.target];
                const std::size_t a = anchor_for(t, k, nv, edge.strength);
                const std::string spec = witness ? witness_specifier(t, a, edge.style, false)
                                                 : specifier(t, a, edge.style, false);
                v.requires_dist.push_back(requirement_text(t, edge.extra, spec, edge.marker));
            }
            if (!torch_spec.empty() && k + 2 >= nv) v.requires_dist.push_back(torch_spec);
            if (k >= d.extras_since) {
                v.provides_extra = d.extras;
                if (has_all) v.provides_extra.push_back("all");
                for (const auto& e : extra_edges)
                    v.requires_dist.push_back(e.text);
            }
        }
    }

    // --- root requirements --------------------------------------------------------------------

    // Which projects the roots name, favouring the first ones (the DAG's sources); a pin now
    // and then, on a yanked release too (pip and PEP 592 allow that), which then becomes the
    // witness.
    void choose_roots() {
        const std::size_t n = drafts_.size();
        const std::size_t wanted = std::min(options_.roots, n);
        for (std::size_t attempt = 0; roots_.size() < wanted && attempt < wanted * 20; ++attempt) {
            const double u = rng_.unit();
            const auto i = static_cast<std::size_t>(std::floor(u * u * static_cast<double>(n)));
            if (i >= n || !drafts_[i].witness || drafts_[i].prerelease_only) continue;
            if (std::any_of(roots_.begin(), roots_.end(),
                            [&](const Root& r) { return r.project == i; })) {
                continue;
            }
            Root root{i, rng_.chance(0.1)};
            Draft& d = drafts_[i];
            if (root.pinned && rng_.chance(0.5)) {
                for (std::size_t k = 0; k < d.project.versions.size(); ++k) {
                    if (d.project.versions[k].yanked && d.usable[k]) d.witness = k;
                }
            }
            roots_.push_back(root);
        }
    }

    void write_roots(GeneratedUniverse& universe) {
        for (const auto& root : roots_) {
            const Draft& d = drafts_[root.project];
            const std::size_t a = rng_.below(d.anchors.size());
            const std::string spec = root.pinned ? "==" + witness_version(d)
                                                 : witness_specifier(d, a, rng_.below(100), true);
            std::string extras;
            if (!d.extras.empty() && rng_.chance(0.3)) extras = rng_.pick(d.extras);
            std::string marker;
            if (rng_.chance(0.1)) marker = rng_.pick(root_markers);
            universe.requirements.push_back(requirement_text(d, extras, spec, marker));
        }
        if (options_.torch_family) {
            universe.requirements.push_back(
                rng_.pick(std::vector<std::string>{"torch", "torch>=2.9", "torch>=2.8"}));
            if (rng_.chance(0.6)) {
                universe.requirements.push_back(rng_.pick(std::vector<std::string>{
                    "torchvision", "torchvision==0.24.0", "torchvision>=0.24"}));
            }
            if (rng_.chance(0.4)) universe.requirements.push_back("torchaudio");
            if (rng_.chance(0.3)) universe.requirements.push_back("torchao");
        }
    }

    // --- the torch family ---------------------------------------------------------------------

    struct TorchRelease {
        std::string torch, vision, audio, triton;
        std::vector<std::string> backends;
        std::size_t py_lo, py_hi;
        bool new_cuda_runtime;  // pins the newer nvidia-* releases
    };

    struct Runtime {
        std::string name, old_version, new_version, needs;
        bool windows;
    };

    // nvidia-* runtime wheels on the main index, two releases per CUDA major (pinned by torch).
    static const std::map<std::string, std::vector<Runtime>>& runtimes() {
        static const std::map<std::string, std::vector<Runtime>> table = {
            {"cu126",
             {{"nvidia-cuda-runtime-cu12", "12.6.68", "12.6.77", "", true},
              {"nvidia-cublas-cu12", "12.6.4.1", "12.6.4.2", "", true},
              {"nvidia-cudnn-cu12", "9.5.1.17", "9.10.2.21", "nvidia-cublas-cu12", true},
              {"nvidia-nccl-cu12", "2.26.2", "2.27.3", "", false}}},
            {"cu130",
             {{"nvidia-cuda-runtime", "13.0.48", "13.0.96", "", true},
              {"nvidia-cublas", "13.0.0.19", "13.1.0.3", "", true},
              {"nvidia-cudnn-cu13", "9.13.0.50", "9.13.1.26", "nvidia-cublas", true},
              {"nvidia-nccl-cu13", "2.27.7", "2.28.3", "", false}}},
        };
        return table;
    }

    void make_runtimes() {
        for (const auto& [backend, list] : runtimes()) {
            if (std::find(options_.backends.begin(), options_.backends.end(), backend) ==
                options_.backends.end()) {
                continue;
            }
            for (const auto& r : list) {
                GeneratedProject p;
                p.name = r.name;
                p.published = r.name;
                p.index = "simple";
                for (const auto& version : {r.old_version, r.new_version}) {
                    GeneratedVersion v;
                    v.version = version;
                    v.requires_python = ">=3";
                    v.tags = {"py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64"};
                    if (r.windows && options_.windows) v.tags.push_back("py3-none-win_amd64");
                    if (!r.needs.empty()) v.requires_dist.push_back(r.needs);
                    p.versions.push_back(std::move(v));
                }
                extra_projects_.push_back(std::move(p));
            }
        }
    }

    // torch's ordinary dependencies (filelock, sympy, … in the real one) come from the last
    // quarter of the projects, the DAG's sinks, with low floors: torch must not be what makes
    // a universe unsatisfiable.
    void torch_dependencies(std::vector<std::string>& torch_deps,
                            std::vector<std::string>& vision_deps) {
        const std::size_t n = drafts_.size();
        std::vector<std::size_t> tail;
        for (std::size_t i = n - std::max<std::size_t>(1, n / 4); i < n; ++i) {
            if (drafts_[i].witness && !drafts_[i].prerelease_only) tail.push_back(i);
        }
        if (tail.empty()) return;
        std::set<std::size_t> picked;
        for (std::size_t c = 0; c < 5; ++c)
            picked.insert(rng_.pick(tail));
        auto low_floor = [&](const Draft& t) {
            std::string spec = rng_.chance(0.5) ? std::string() : ">=" + t.anchors.front();
            return admits(spec, witness_version(t)) ? spec : std::string();
        };
        for (std::size_t j : picked)
            torch_deps.push_back(requirement_text(drafts_[j], "", low_floor(drafts_[j]), ""));
        torch_deps.push_back(
            requirement_text(drafts_[rng_.pick(tail)], "", "", "python_version >= \"3.12\""));
        torch_deps.push_back(
            requirement_text(drafts_[tail.front()], "", "", "extra == \"opt-einsum\""));
        const Draft& numpy_like = drafts_[rng_.pick(tail)];
        const Draft& pillow_like = drafts_[rng_.pick(tail)];
        vision_deps.push_back(requirement_text(numpy_like, "", low_floor(numpy_like), ""));
        // Like torchvision's "pillow!=8.3.*,>=5.3.0": one bad release excluded.
        std::string pillow_spec =
            ">=" + pillow_like.anchors.front() + ",!=" + pillow_like.anchors.back() + ".*";
        if (!admits(pillow_spec, witness_version(pillow_like))) pillow_spec.clear();
        vision_deps.push_back(requirement_text(pillow_like, "", pillow_spec, ""));
    }

    void make_torch_family(const GeneratedUniverse& universe) {
        std::vector<std::string> torch_deps, vision_deps;
        torch_dependencies(torch_deps, vision_deps);
        make_runtimes();
        // torch 2.9.0 is on every backend index: the witness of the family.
        const std::vector<TorchRelease> releases = {
            {"2.8.0", "0.23.0", "2.8.0", "3.4.0", {"cpu", "cu126"}, 9, 13, false},
            {"2.9.0", "0.24.0", "2.9.0", "3.5.0", {"cpu", "cu126", "cu130"}, 10, 13, true},
            {"2.10.0", "0.25.0", "2.10.0", "3.5.1", {"cpu", "cu126", "cu130"}, 10, 14, true},
        };
        for (const auto& backend : options_.backends) {
            const std::string index = universe.torch_index_base + "/" + backend;
            const bool cuda = runtimes().count(backend) > 0;
            std::map<std::string, GeneratedProject> family;
            auto add = [&](const std::string& name, GeneratedVersion v) {
                auto& p = family[name];
                p.name = name;
                p.published = name;
                p.index = index;
                p.versions.push_back(std::move(v));
            };
            auto cp_tags = [&](std::size_t lo, std::size_t hi) {
                std::vector<std::string> tags;
                for (std::size_t m = std::max(lo, py_min_); m <= std::min(hi, py_max_); ++m) {
                    const std::string py = "cp3" + std::to_string(m);
                    tags.push_back(py + "-" + py + "-manylinux_2_28_x86_64");
                    if (options_.windows) tags.push_back(py + "-" + py + "-win_amd64");
                }
                return tags;
            };
            std::set<std::string> tritons;
            for (const auto& r : releases) {
                if (std::find(r.backends.begin(), r.backends.end(), backend) == r.backends.end()) {
                    continue;
                }
                const std::string local = "+" + backend;
                const std::string py_floor = ">=3." + std::to_string(r.py_lo);
                GeneratedVersion torch;
                torch.version = r.torch + local;
                torch.requires_python = py_floor;
                torch.tags = cp_tags(r.py_lo, r.py_hi);
                torch.requires_dist = torch_deps;
                torch.provides_extra = {"opt-einsum"};
                if (cuda) {
                    for (const auto& rt : runtimes().at(backend)) {
                        torch.requires_dist.push_back(
                            rt.name +
                            "==" + (r.new_cuda_runtime ? rt.new_version : rt.old_version) + "; " +
                            linux_x86_marker);
                    }
                    torch.requires_dist.push_back("triton==" + r.triton + "; " + linux_x86_marker);
                    tritons.insert(r.triton);
                }
                add("torch", torch);

                GeneratedVersion vision;
                vision.version = r.vision + local;
                vision.requires_python = py_floor;
                vision.tags = cp_tags(r.py_lo, r.py_hi);
                vision.requires_dist = {"torch==" + r.torch};
                vision.requires_dist.insert(vision.requires_dist.end(), vision_deps.begin(),
                                            vision_deps.end());
                add("torchvision", vision);

                GeneratedVersion audio;
                audio.version = r.audio + local;
                audio.requires_python = py_floor;
                audio.tags = cp_tags(r.py_lo, r.py_hi);
                audio.requires_dist = {"torch==" + r.torch};
                add("torchaudio", audio);
            }
            for (const std::string version : {"0.13.0", "0.14.0"}) {
                GeneratedVersion ao;
                ao.version = version + "+" + backend;
                ao.requires_python = ">=3.9";
                ao.tags = {"cp39-abi3-manylinux_2_28_x86_64"};
                if (options_.windows) ao.tags.push_back("cp39-abi3-win_amd64");
                add("torchao", ao);
            }
            for (const auto& t : tritons) {
                GeneratedVersion triton;
                triton.version = t;
                triton.requires_python = ">=3.9,<3.15";
                for (std::size_t m = std::max<std::size_t>(9, py_min_); m <= py_max_; ++m) {
                    const std::string py = "cp3" + std::to_string(m);
                    triton.tags.push_back(py + "-" + py +
                                          "-manylinux_2_27_x86_64.manylinux_2_28_x86_64");
                }
                add("triton", triton);
            }
            for (auto& [name, project] : family)
                extra_projects_.push_back(std::move(project));
        }
    }

    struct Root {
        std::size_t project;
        bool pinned;
    };

    const UniverseOptions& options_;
    Rng rng_;
    std::size_t py_min_ = 0;
    std::size_t py_max_ = 0;
    std::size_t tested_min_ = 0;  // witnesses install on CPython 3.tested_min_ … 3.py_max_
    std::vector<Draft> drafts_;
    std::vector<Root> roots_;
    std::vector<GeneratedProject> extra_projects_;
};

}  // namespace

UniverseOptions ai_toolkit_sized_universe(std::uint64_t seed) {
    UniverseOptions o;
    o.seed = seed;
    o.projects = 260;
    o.min_versions = 3;
    o.max_versions = 14;
    o.max_dependencies = 5;
    o.roots = 56;
    // A working environment's requirements meet few conflicts.
    o.upper_bound_share = 0.08;
    o.newest_witness_share = 0.95;
    o.backends = {"cu130"};
    o.json = true;
    o.pep658 = true;
    return o;
}

GeneratedUniverse generate_universe(const UniverseOptions& options) {
    return Generator(options).run();
}

nlohmann::json GeneratedUniverse::mirror_description() const {
    nlohmann::json indexes = nlohmann::json::object();
    indexes[main_index] = {{"json", options.json}, {"pep658", options.pep658}};
    for (const auto& backend : options.backends) {
        if (options.torch_family)
            indexes[torch_index_base + "/" + backend] = {{"style", "pytorch"}};
    }
    nlohmann::json wheels = nlohmann::json::array();
    for (const auto& p : projects) {
        for (const auto& v : p.versions) {
            nlohmann::json w = {{"index", p.index},
                                {"name", p.published},
                                {"version", v.version},
                                {"tags", v.tags}};
            if (!v.requires_python.empty()) w["requires_python"] = v.requires_python;
            if (!v.requires_dist.empty()) w["requires_dist"] = v.requires_dist;
            if (!v.provides_extra.empty()) w["provides_extra"] = v.provides_extra;
            if (v.yanked) w["yanked"] = *v.yanked;
            wheels.push_back(std::move(w));
        }
    }
    return {{"indexes", std::move(indexes)}, {"wheels", std::move(wheels)}};
}

std::string GeneratedUniverse::requirements_text() const {
    std::string out;
    for (const auto& r : requirements)
        out += r + "\n";
    return out;
}

const GeneratedProject* GeneratedUniverse::find(std::string_view name,
                                                std::string_view index) const {
    const std::string wanted = pep::canonicalize_name(name);
    for (const auto& p : projects) {
        if (p.name == wanted && (index.empty() || p.index == index)) return &p;
    }
    return nullptr;
}

std::string GeneratedUniverse::describe(std::string_view name) const {
    const std::string wanted = pep::canonicalize_name(name);
    std::string out;
    for (const auto& p : projects) {
        if (p.name != wanted) continue;
        for (const auto& v : p.versions) {
            out += "  " + p.index + " " + p.published + " " + v.version;
            if (v.yanked) out += " [yanked]";
            if (!v.requires_python.empty()) out += " Requires-Python " + v.requires_python;
            out += " (" + std::to_string(v.tags.size()) + " wheels";
            if (!v.tags.empty()) out += ", " + v.tags.front() + (v.tags.size() > 1 ? ", …" : "");
            out += ")";
            if (!v.provides_extra.empty()) {
                out += " extras:";
                for (const auto& e : v.provides_extra)
                    out += " " + e;
            }
            out += "\n";
            for (const auto& r : v.requires_dist)
                out += "      Requires-Dist: " + r + "\n";
        }
    }
    if (out.empty()) out = "  " + wanted + ": not in the universe\n";
    return out;
}

std::size_t GeneratedUniverse::wheel_count() const {
    std::size_t n = 0;
    for (const auto& p : projects) {
        for (const auto& v : p.versions)
            n += v.tags.size();
    }
    return n;
}

MirrorBuilder build_universe_mirror(const std::filesystem::path& root,
                                    const GeneratedUniverse& universe) {
    return build_mirror(root, universe.mirror_description());
}

}  // namespace aitk::test
