"""What the simulated network CLIs share: the refusal of a command, keyword completion.

The CLIs modelled here accept a keyword abbreviated to any prefix that fits it alone:
`conf t` on Dell OS10 (OS10 User Guide, "CLI Basics"), `config term` on MLNX-OS (netmiko
4.6.0, mellanox_mlnxos_ssh.py), `int e22` on Arista EOS (the EOS 4.25.4M capture
eos_model.py names). A word typed in full is that keyword even when it also begins a
longer one. What each device prints for a prefix that fits several keywords, for an
unknown word and for a command cut short differs, so the caller gives those errors.

A grammar is a tree of keywords: each node maps a keyword to the node that follows it;
ARG in a node means the rest of the line is the handler's to parse, END that the
command may end there.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

ARG = "<arg>"  # the rest of the line is the handler's to parse
END = "<end>"  # the command may end here


class CommandError(Exception):
    """Printed as the device's error line; the command changes nothing."""


@dataclass(frozen=True)
class KeywordErrors:
    """How one CLI refuses a keyword: each builds the error the device prints."""

    ambiguous: Callable[[str], CommandError]  # the word fits several keywords
    unknown: Callable[[str], CommandError]  # the word fits none
    incomplete: Callable[[], CommandError]  # the line ends where a keyword must follow


def completions(word: str, choices: Collection[str], *, fold_case: bool = True) -> list[str]:
    """The keywords `word` may stand for: itself when it is one, else those it begins.

    With fold_case, a prefix typed in capitals matches too (`SH` for `show`).
    """
    if word in choices:
        return [word]
    prefix = word.lower() if fold_case else word
    return [choice for choice in choices if choice.startswith(prefix)]


def keyword(word: str, choices: Collection[str], errors: KeywordErrors) -> str:
    """One keyword, abbreviated or not; an ambiguous or unknown word is refused."""
    matches = completions(word, choices)
    if len(matches) != 1:
        raise errors.ambiguous(word) if matches else errors.unknown(word)
    return matches[0]


def parse(
    words: list[str], grammar: dict[str, Any], errors: KeywordErrors
) -> tuple[tuple[str, ...], list[str]]:
    """Expand unique keyword prefixes along `grammar`; return (keywords, the rest).

    A word that fits no keyword (or several) where the node takes ARG starts the rest;
    elsewhere it is refused, and so is a line that stops where no END is.
    """
    node, path = grammar, []
    for index, word in enumerate(words):
        keys = [k for k in node if k not in (ARG, END)]
        matches = completions(word, keys)
        if len(matches) == 1:
            path.append(matches[0])
            node = node[matches[0]]
            continue
        if ARG in node:
            return tuple(path), words[index:]
        raise errors.ambiguous(word) if matches else errors.unknown(word)
    if END not in node:
        raise errors.incomplete()
    return tuple(path), []
