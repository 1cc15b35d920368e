"""Help texts as a terminal shows them: whole sentences, no reStructuredText markup.

A command's help often comes from a docstring written for the source (a task class's,
for ``neocoder run TASK``): it is wrapped at any word, carries RST markup (````x````,
``:func:`x```) and points at "the module".  ``plain`` turns it into text to read;
``first_sentence`` is what a list of commands shows, whole, instead of click's cut at
45 characters with "...".  ``Commands`` is the click group that lists its commands so.
"""

from __future__ import annotations

import inspect
import re

import click

# ``x``; :role:`x` (a Sphinx role); `text <target>`_ and `x`_ (links); `x` (interpreted text)
_LITERAL = re.compile(r"``(.+?)``", re.S)
_ROLE = re.compile(r":[a-z][a-z:+-]*:`([^`<]*?)\s*(?:<([^`>]*)>)?`")
_LINK = re.compile(r"`([^`<]+?)\s*(?:<[^`>]*>)?`__?")
_DEVELOPER_NOTE = re.compile(r"\s*\(see the module\)")
# a sentence ends at . ! or ? followed by white space and a capital letter, a quote or an opening bracket
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(\[])")


def plain(text: str | None) -> str:
    """``text`` (a docstring) as help to read: indentation cleaned (``inspect.cleandoc``),
    each paragraph's lines joined into one, RST literals, roles and links reduced to their
    text, and "(see the module)" pointers to the source dropped; paragraphs stay apart (one
    blank line).  "" for None or blank text."""
    if not text or not text.strip():
        return ""
    text = inspect.cleandoc(text)
    text = _ROLE.sub(lambda m: m.group(1) or m.group(2) or "", text)  # :role:`title <target>`: the title
    text = _LITERAL.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _DEVELOPER_NOTE.sub("", text)
    paragraphs = [" ".join(line.strip() for line in block.splitlines()) for block in re.split(r"\n\s*\n", text)]
    return "\n\n".join(p for p in paragraphs if p)


def first_sentence(text: str | None) -> str:
    """The first sentence of ``plain(text)``'s first paragraph, whole (up to its ., ! or ?
    before a capital letter or a bracket; the whole paragraph when no such end is found)."""
    paragraph = plain(text).split("\n\n", 1)[0]
    return _SENTENCE_END.split(paragraph, 1)[0]


def short_help(command: click.Command) -> str:
    """What a list of commands shows for ``command``: its own ``short_help`` where it sets
    one, else the first sentence of its help (both ``plain``), whole."""
    return plain(command.short_help) if command.short_help else first_sentence(command.help)


class Commands(click.Group):
    """A click group whose command list shows each command's ``short_help`` whole
    (wrapped, never cut with "..."); its subgroups are ``Commands`` too."""

    group_class = type  # click: a group made with ``@this.group()`` is of this group's class

    def format_commands(self, ctx, formatter) -> None:
        """The "Commands" section: name and whole first sentence of every visible command."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, short_help(command)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
