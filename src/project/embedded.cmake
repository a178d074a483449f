# The default manifest and the conda → PyPI name table, compiled in: the manifest is found
# relative to the executable's data, never the current directory (docs/cli.md).
aitk_embed(aitk_project ai_toolkit_manifest_yaml manifests/ai-toolkit.yaml)
aitk_embed(aitk_project conda_pypi_yaml manifests/conda-pypi.yaml)
