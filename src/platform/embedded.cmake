# The platform layer's data tables, compiled in so the binary decides the same way wherever it is
# installed. Each file becomes `std::string_view aitk::embedded::<symbol>()`.
aitk_embed(aitk_platform cuda_drivers_yaml manifests/cuda-drivers.yaml)
aitk_embed(aitk_platform torch_variants_yaml manifests/torch-variants.yaml)
aitk_embed(aitk_platform cuda_archs_yaml manifests/cuda-archs.yaml)
aitk_embed(aitk_platform hardware_profiles_yaml manifests/hardware-profiles.yaml)
aitk_embed(aitk_platform gpu_models_yaml manifests/gpu-models.yaml)
