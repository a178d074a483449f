# The templates `aitk-env export --format dockerfile` fills in (templates/), compiled in so the
# executable writes them wherever it is installed. Each file becomes
# `std::string_view aitk::embedded::<symbol>()`.
aitk_embed(aitk_app export_dockerfile_in templates/Dockerfile.in)
aitk_embed(aitk_app export_dockerignore_in templates/dockerignore.in)
