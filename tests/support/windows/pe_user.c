/* A DLL whose import table names aitk_pe_dep.dll. */
__declspec(dllimport) int aitk_pe_dep_value(void);
__declspec(dllexport) int aitk_pe_user_value(void) { return aitk_pe_dep_value() + 1; }
