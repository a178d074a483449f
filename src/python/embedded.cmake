# The standalone CPython builds aitk-env can install (docs/data-sources.md §7), compiled in.
aitk_embed(aitk_python python_builds_json manifests/python-builds.json)
