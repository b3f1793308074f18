"""A toy input format and a toy engine, added from outside meancli (see test_extension_points)."""
