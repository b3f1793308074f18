"""Per-dtype facts live in one table (meancli/codegen/dtypes.py): the kernel
templates read its fields, never branch on a dtype's name, and stop at
generation on a family they do not know; the C status codes come from one
table (meancli/codegen/statuses.py, rendered into generated/tables.py) for C and Python alike."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import jinja2
import pytest

from meancli import kernels
from meancli.codegen import statuses
from meancli.codegen.dtypes import DTYPES
from meancli.codegen.render import make_environment

ROOT = Path(__file__).resolve().parents[1]
KERNEL_TEMPLATES = (
    "kernel_elem.c.j2",
    "kernel_exact.c.j2",
    "kernel_reduce.c.j2",
    "kernel_mean.c.j2",
    "kernel_partial.c.j2",
)


@pytest.mark.parametrize("template", KERNEL_TEMPLATES)
def test_templates_never_branch_on_dtype_names(template: str) -> None:
    text = (ROOT / "templates" / template).read_text()
    assert not re.search(r"\bn\s*==\s*['\"]", text)
    assert not re.search(r"dt\.name\s*==", text)


@pytest.mark.parametrize("template", ["kernel_elem.c.j2", "kernel_partial.c.j2"])
def test_unknown_family_fails_at_generation_with_its_location(template: str) -> None:
    odd = dataclasses.replace(DTYPES["int32"], name="int24", family="int24")
    env = make_environment(ROOT / "templates")
    with pytest.raises(jinja2.TemplateAssertionError) as info:
        env.get_template(template).render(dt=odd)
    assert info.value.name == template
    assert info.value.lineno and "family 'int24'" in info.value.message  # type: ignore[operator]
    line = (ROOT / "templates" / template).read_text().splitlines()[info.value.lineno - 1]
    assert "unknown_family" in line


def test_status_codes_in_c_are_the_table() -> None:
    text = (ROOT / "generated" / "kernels.c").read_text()
    for st in statuses.STATUSES:
        assert re.search(rf"MEANCLI_{st.name} = {st.value},", text), st


def test_status_messages_reach_python() -> None:
    with pytest.raises(Exception, match=kernels.BY_VALUE[3][2]):
        kernels._check(3, "probe")
