// unsafe-first-match in the solver: a candidate's index rank (the position of the index it
// comes from) is tried before its version, so the first index's versions are exhausted before
// the next index's; without ranks the newest version wins as before, and a lockfile's version
// is still kept first.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "memory_source.hpp"

namespace aitk::resolve {
namespace AITK_FILE_LOCAL {

using testing::MemorySource;
using testing::options;
using testing::pins;
using testing::roots;
using V = std::vector<std::string>;

// A memory source whose versions carry the index rank set for them (0 otherwise).
class RankedSource : public MemorySource {
  public:
    RankedSource& rank(const std::string& name, const std::string& version, std::size_t rank) {
        ranks_[{name, testing::version(version).to_string()}] = rank;
        return *this;
    }
    SourceResult versions(const std::string& name) override {
        auto out = MemorySource::versions(name);
        if (!out) return out;
        for (auto& candidate : *out) {
            auto it = ranks_.find({name, candidate.version.to_string()});
            if (it != ranks_.end()) candidate.index_rank = it->second;
        }
        return out;
    }

  private:
    std::map<std::pair<std::string, std::string>, std::size_t> ranks_;
};

TEST(IndexRank, TheFirstIndexsVersionsAreTriedBeforeANewerOneOfTheNext) {
    RankedSource s;
    s.add("foo", "1.0").add("foo", "1.1").add("foo", "2.0");
    s.rank("foo", "2.0", 1);
    EXPECT_EQ(pins(resolve(s, roots({"foo"}), options())), (V{"foo==1.1"}));
    // None of the first index's fits: the next index's.
    EXPECT_EQ(pins(resolve(s, roots({"foo>=1.5"}), options())), (V{"foo==2.0"}));
}

TEST(IndexRank, AConflictMovesOnToTheNextIndex) {
    RankedSource s;
    s.add("app", "1.0", {"lib>=2"});
    s.add("lib", "1.0").add("lib", "2.5").add("lib", "3.0");
    s.rank("lib", "2.5", 1).rank("lib", "3.0", 2);
    // The first index has only lib 1.0, which app excludes; of the rest, the second index's
    // 2.5 comes before the third index's newer 3.0.
    EXPECT_EQ(pins(resolve(s, roots({"app"}), options())), (V{"app==1.0", "lib==2.5"}));
}

TEST(IndexRank, WithoutRanksTheNewestWinsAndALockedVersionIsKept) {
    RankedSource s;
    s.add("foo", "1.0").add("foo", "2.0");
    EXPECT_EQ(pins(resolve(s, roots({"foo"}), options())), (V{"foo==2.0"}));
    s.rank("foo", "1.0", 1);
    auto o = options();
    o.preferences["foo"] = testing::version("1.0");
    EXPECT_EQ(pins(resolve(s, roots({"foo"}), o)), (V{"foo==1.0"}));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::resolve
