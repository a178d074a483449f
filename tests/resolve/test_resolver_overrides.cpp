// uv's override-dependencies: an override replaces every requirement on its package, the roots'
// and the dependencies' alike, adds nothing by itself, and drops the package where none of its
// markers hold.
#include <gtest/gtest.h>

#include "memory_source.hpp"

namespace aitk::resolve {
namespace AITK_FILE_LOCAL {

using testing::MemorySource;
using testing::options;
using testing::pins;
using testing::roots;
using V = std::vector<std::string>;

TEST(ResolverOverrides, ReplaceWhatDependenciesAskFor) {
    MemorySource s;
    // descript-audiotools pins protobuf<3.20; fish-speech overrides it to >=3.20,<6.
    s.add("app", "1.0", {"audiotools"});
    s.add("audiotools", "1.0", {"protobuf<3.20", "opencv-python"});
    s.add("protobuf", "3.19.0").add("protobuf", "4.25.0").add("protobuf", "6.0.0");
    s.add("opencv-python", "4.0").add("unused", "1.0");
    auto o = options();
    o.overrides =
        roots({"protobuf>=3.20,<6", "opencv-python ; sys_platform == 'never'", "unused==1.0"},
              "pyproject.toml");
    auto r = resolve(s, roots({"app"}), o);
    EXPECT_EQ(pins(r), (V{"app==1.0", "audiotools==1.0", "protobuf==4.25.0"}));
    EXPECT_EQ(s.version_calls.count("unused"), 0u);
}

TEST(ResolverOverrides, ReplaceTheRootsToo) {
    MemorySource s;
    s.add("torch", "2.7.1").add("torch", "2.8.0");
    s.add("lib", "1.0", {"torch==2.8.0"});
    auto o = options();
    o.overrides = roots({"torch==2.7.1"}, "pyproject.toml");
    // Both the project's torch>=2.8 and lib's torch==2.8.0 give way.
    auto r = resolve(s, roots({"torch>=2.8", "lib"}), o);
    EXPECT_EQ(pins(r), (V{"lib==1.0", "torch==2.7.1"}));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::resolve
