#pragma once
// A test program that plays a second role: started again with `variable` set, it runs `role`
// instead of its tests and exits with what `role` returns. The tests that need another process
// (a lock holder, a second writer of one cache) start it through util::run_process, so one test
// drives fork/exec on POSIX and CreateProcessW on Windows, and a timeout kills it as a crash
// would (SIGKILL to its group, or the end of its job object).
//
// The role runs from a gtest environment's SetUp, after every static object of the program is
// constructed, and only when the started process runs at least one test (the request filters
// on the test that starts it).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::test {

class ChildRole : public ::testing::Environment {
  public:
    ChildRole(const char* variable, std::function<int(const std::string&)> role)
        : variable_(variable), role_(std::move(role)) {}

    void SetUp() override {
        const auto value = util::env_utf8(variable_);
        if (!value) return;
        int rc = 2;
        try {
            rc = role_(*value);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s role: %s\n", variable_, e.what());
        }
        std::fflush(nullptr);
        std::_Exit(rc);
    }

  private:
    const char* variable_;
    std::function<int(const std::string&)> role_;
};

// Registers the role (call it to initialise a namespace-scope constant).
inline bool register_child_role(const char* variable, std::function<int(const std::string&)> role) {
    ::testing::AddGlobalTestEnvironment(new ChildRole(variable, std::move(role)));
    return true;
}

// This test program in `variable`'s role with `value`, filtered on the running test.
inline util::ProcessRequest child_role_request(const char* variable, const std::string& value) {
    util::ProcessRequest request;
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    request.argv = {util::utf8_of(util::self_executable_path())};
    if (test != nullptr) {
        request.argv.push_back(std::string("--gtest_filter=") + test->test_suite_name() + "." +
                               test->name());
    }
    request.environment_changes[variable] = value;
    return request;
}

}  // namespace aitk::test
