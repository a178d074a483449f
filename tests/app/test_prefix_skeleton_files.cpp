// install::PrefixSkeleton names the files other layers write into a prefix: every file and link
// of the venv python::venv_plan makes, and every shim shim::render_shims writes, on both
// layouts. (The install layer cannot see those layers, so this test keeps the lists together: a
// new shim or venv file that the rule misses fails here.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "aitk/install/layout.hpp"
#include "aitk/install/skeleton.hpp"
#include "aitk/python/venv.hpp"
#include "aitk/shim/shims.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

struct Case {
    const char* version;
    const char* executable;
    bool windows;
    bool free_threaded;
};

TEST(PrefixSkeletonFiles, EveryVenvFileAndEveryShimIsPartOfTheSkeleton) {
    for (const Case& c : {Case{"3.11.7", "/opt/py/bin/python3.11", false, false},
                          Case{"3.13.0", "/opt/py/bin/python3.13t", false, true},
                          Case{"3.13.0", "/opt/py/bin/python3.13", false, false},
                          Case{"3.12.1", "C:/Python312/python.exe", true, false}}) {
        SCOPED_TRACE(c.executable);
        const stdfs::path prefix = c.windows ? "C:/envs/p" : "/envs/p";
        const auto layout = install::PrefixLayout::for_venv(prefix, c.version, c.windows);
        const install::PrefixSkeleton skeleton(layout);

        python::Interpreter interp;
        interp.version = c.version;
        interp.executable = c.executable;
        interp.free_threaded = c.free_threaded;
        interp.sys_platform = c.windows ? "win32" : "linux";
        for (const auto& step : python::venv_plan({prefix, interp, c.windows, ""})) {
            if (step.kind == python::VenvStep::Kind::directory) continue;
            EXPECT_TRUE(skeleton.describe(util::generic_utf8_of(step.path)))
                << util::generic_utf8_of(step.path);
        }

        shim::PrefixEnvironment env;
        env.prefix = prefix;
        env.scripts = layout.scripts;
        env.os = c.windows ? shim::ShimOs::windows : shim::ShimOs::posix;
        for (const auto& file : shim::render_shims(env, layout.purelib)) {
            EXPECT_TRUE(skeleton.describe(util::generic_utf8_of(file.path)))
                << util::generic_utf8_of(file.path);
        }
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk
