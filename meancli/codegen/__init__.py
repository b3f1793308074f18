"""The code generator: ``spec/**/*.yaml`` -> ``generated/`` (run by ``make generate``).

Never imported at run time: it needs pyyaml and jinja2, which the installed
tool does not.
"""
