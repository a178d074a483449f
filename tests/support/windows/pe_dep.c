/* A DLL that another test DLL imports (doctor --scan finds it missing or present). */
__declspec(dllexport) int aitk_pe_dep_value(void) { return 42; }
