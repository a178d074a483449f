// The decision for this machine: lock attempts from the project's torch, and the lockfile
// target whose locked torch build runs here.
#include "aitk/app/torch_choice.hpp"

#include <gtest/gtest.h>

#include "aitk/resolve/resolver.hpp"
#include "test_machine.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

platform::ReleaseKey key(const char* text) {
    return *platform::ReleaseKey::parse(text);
}

TEST(ReleaseConstraint, HoldsExactlyTheReleasesGiven) {
    auto m = test::cpu_machine();
    EXPECT_EQ(release_constraint({key("2.11"), key("2.10"), key("2.9"), key("2.8"), key("2.7")},
                                 m.tables),
              "torch>=2.7,<2.12");
    EXPECT_EQ(release_constraint({key("2.13"), key("2.11")}, m.tables),
              "torch>=2.11,<2.14,!=2.12.*");
    EXPECT_EQ(release_constraint({}, m.tables), "");
    EXPECT_EQ(release_constraint({key("1.9")}, m.tables), "") << "unknown releases limit nothing";
}

lock::LockedTarget target(const std::string& backend, const std::string& torch) {
    lock::LockedTarget t;
    t.id = "linux-x86_64-" + backend;
    t.os = "linux";
    t.arch = "x86_64";
    t.backend = backend;
    lock::LockedPackage p;
    p.name = "torch";
    p.version = torch;
    t.packages.push_back(p);
    return t;
}

lock::Lockfile lock_of(std::vector<lock::LockedTarget> targets) {
    lock::Lockfile l;
    l.targets = std::move(targets);
    return l;
}

TEST(LockTargets, StableBeforeExperimentalThenTheNewestCuda) {
    // torch 2.9: cu126 and cu128 stable, cu130 experimental.
    auto lock = lock_of({target("cpu", "2.9.0+cpu"), target("cu126", "2.9.0+cu126"),
                         target("cu128", "2.9.0+cu128"), target("cu130", "2.9.0+cu130")});
    auto judged = judge_lock_targets(lock, test::nvidia_machine("580.65.06", {"9.0"}));
    ASSERT_TRUE(judged.chosen);
    EXPECT_EQ(judged.targets[*judged.chosen].id, "linux-x86_64-cu128");
    EXPECT_FALSE(judged.targets[0].runs) << "no CPU build on a GPU machine";
    // Without a GPU, CPU torch is the build that runs.
    judged = judge_lock_targets(lock, test::cpu_machine());
    ASSERT_TRUE(judged.chosen);
    EXPECT_EQ(judged.targets[*judged.chosen].id, "linux-x86_64-cpu");
}

TEST(LockTargets, TheLockedReleaseDecidesCoverage) {
    // cu128 of torch 2.7 has no Volta kernels; cu128 of 2.8 has.
    auto volta = test::nvidia_machine("580.65.06", {"7.0"});
    auto old = judge_lock_targets(lock_of({target("cu128", "2.7.0+cu128")}), volta);
    EXPECT_FALSE(old.chosen);
    EXPECT_NE(old.reason.find("has no kernels for sm_70"), std::string::npos) << old.reason;
    auto newer = judge_lock_targets(lock_of({target("cu128", "2.8.0+cu128")}), volta);
    EXPECT_TRUE(newer.chosen) << newer.reason;
}

TEST(LockTargets, ATargetNamedIsHonouredOrRefused) {
    auto lock = lock_of({target("cu126", "2.13.0+cu126"), target("cu130", "2.13.0+cu130")});
    auto machine = test::nvidia_machine("570.124.06", {"8.6"});
    std::string reason;
    EXPECT_EQ(choose_lock_target(lock, machine, reason, std::string("linux-x86_64-cu126")).id,
              "linux-x86_64-cu126");
    try {
        choose_lock_target(lock, machine, reason, std::string("linux-x86_64-cu130"));
        ADD_FAILURE() << "cu130 needs driver 580";
    } catch (const resolve::Unsatisfiable& e) {
        EXPECT_NE(std::string(e.what()).find("needs driver ≥ 580"), std::string::npos) << e.what();
        EXPECT_NE(e.hint().find("--force"), std::string::npos) << e.hint();
    }
    machine.force = true;
    EXPECT_EQ(choose_lock_target(lock, machine, reason, std::string("linux-x86_64-cu130")).id,
              "linux-x86_64-cu130");
    EXPECT_NE(reason.find("with --force although"), std::string::npos) << reason;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
