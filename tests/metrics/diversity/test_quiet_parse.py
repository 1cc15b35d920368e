"""The diversity measures parse models' and people's programs without a warning about their
text: ``1if x else 2`` (an "invalid decimal literal" SyntaxWarning from the compiler) and
``"\\d"`` (an invalid escape sequence) are valid programs, and the main job printed one
warning line per such program before."""

import ast
import warnings

import pytest

from neocoder.metrics.diversity.normalise import normalise, parse_program
from neocoder.metrics.diversity.operations import operations
from neocoder.metrics.diversity.structure import shape

PROGRAMS = [
    "n = int(input())\nprint(1if n%2 else 2)\n",
    "import re\nprint(re.findall('\\d+', input())[0]if 1else 0)\n",
    'exec("x=1if 1 else 2;print(x)\\n"*int(input()))\n',
]


def warned(call) -> list[str]:
    """The warnings ``call()`` emits, every one of them recorded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def test_the_programs_do_warn_when_parsed_plainly():
    assert any("invalid decimal literal" in w for w in warned(lambda: ast.parse(PROGRAMS[0])))


@pytest.mark.parametrize("source", PROGRAMS)
def test_the_measures_parse_them_without_a_warning(source):
    assert warned(lambda: parse_program(source)) == []
    assert warned(lambda: normalise(source)) == []
    assert warned(lambda: operations(source)) == []
    assert warned(lambda: shape(source)) == []
    assert operations(source).ops, "the program parsed: its operations are not the empty set of a failure"
