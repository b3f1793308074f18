"""The ``meancli`` command line: one module per command, composed in app.py."""
