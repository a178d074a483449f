// The libcuda child probe as its own program, for the platform tests (aitk-env runs the same
// function through `aitk-env doctor --libcuda-probe-child`).
#include <iostream>
#include <string>
#include <vector>

#include "aitk/platform/libcuda.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> candidates(argv + 1, argv + argc);
    return aitk::platform::libcuda_child_main(candidates, std::cout);
}
