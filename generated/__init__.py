# GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
# `make generate` (python -m meancli.codegen).
# Template: templates/init.py.j2
# Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
"""Code generated from spec/ by templates/ (the registry, validators and C kernel sources)."""
