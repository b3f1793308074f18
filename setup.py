"""Only here because cffi's build hook (cffi_modules) has no pyproject.toml form."""

from setuptools import setup

setup(cffi_modules=["meancli/_ffi_build.py:ffibuilder"])
