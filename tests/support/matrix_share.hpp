#pragma once
// How much of a seeded matrix (the kill and fault matrices) a run covers. The whole matrix by
// default; AITK_TEST_MATRIX_SHARE=N runs the first 1/N of its rounds (at least one). CI's
// sanitizer run sets it: there every round runs the same code paths as the whole matrix in the
// g++ run, only slower, and the recovery runs are what ASan and UBSan look at.
#include <algorithm>
#include <cstdlib>

namespace aitk::test {

inline int matrix_share_divisor() {
    const char* text = std::getenv("AITK_TEST_MATRIX_SHARE");
    if (text == nullptr) return 1;
    const int divisor = std::atoi(text);
    return divisor >= 1 ? divisor : 1;
}

// `full` rounds, or this run's share of them.
inline int matrix_rounds(int full) {
    return std::max(1, full / matrix_share_divisor());
}

}  // namespace aitk::test
