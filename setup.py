"""Packages of minelab (everything else is in pyproject.toml).

The published numbers (data/published/) and the notebooks (notebooks/) ship inside the
package as `minelab._published` and `minelab._notebooks`, so a wheel install reads the
published numbers and can reproduce: mapped package directories, which pyproject.toml's
automatic package discovery cannot express.
"""
from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["minelab", "minelab.*"]) + ["minelab._published", "minelab._notebooks"],
    package_dir={"minelab._published": "data/published", "minelab._notebooks": "notebooks"},
)
