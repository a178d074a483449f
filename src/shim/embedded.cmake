# The launch shims' templates (templates/), compiled in so every aitk-env writes the same shims
# wherever it is installed. Each file becomes `std::string_view aitk::embedded::<symbol>()`.
aitk_embed(aitk_shim shim_posix_environment_sh templates/posix-environment.sh)
aitk_embed(aitk_shim shim_aitk_run_sh templates/aitk-run.sh)
aitk_embed(aitk_shim shim_activate_sh templates/activate.sh)
aitk_embed(aitk_shim shim_activate_fish templates/activate.fish)
aitk_embed(aitk_shim shim_aitk_run_cmd templates/aitk-run.cmd)
aitk_embed(aitk_shim shim_activate_ps1 templates/Activate.ps1)
aitk_embed(aitk_shim shim_dll_paths_pth templates/aitk_env_dll_paths.pth)
aitk_embed(aitk_shim shim_dll_paths_py templates/_aitk_env_dll_paths.py)
