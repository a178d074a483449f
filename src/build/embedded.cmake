# The PEP 517 driver (templates/pep517_driver.py), compiled in so every aitk-env runs the same
# driver wherever it is installed: `std::string_view aitk::embedded::build_pep517_driver_py()`.
aitk_embed(aitk_build build_pep517_driver_py templates/pep517_driver.py)
