"""Scoring profiles, registered by name like sacreBLEU's tokenizers.

A profile pins *everything* that decides a VQA score: which normalization steps run on the
prediction and on the answers, whether the official unanimity rule skips them, how the
leave-one-out is done and how the per-annotator values are averaged. ``official`` is the
default (``official.py``); ``peers.py`` reproduces other toolkits so that gaps between papers
can be explained. ``_profile.py`` defines :class:`Profile` and the registry.
"""

from __future__ import annotations

from . import official as _official  # noqa: F401  (registers official, official-2017, simple)
from . import peers as _peers  # noqa: F401  (registers the peer toolkits' profiles)
from ._profile import Profile, Step, get_profile, list_profiles, register_profile

__all__ = [
    "Profile",
    "Step",
    "get_profile",
    "list_profiles",
    "register_profile",
]
