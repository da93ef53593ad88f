"""Answer normalization: the official script's rules and each profile's variants.

``official.py`` holds the official normalization (``processPunctuation`` and
``processDigitArticle``) with every quirk named; the other modules hold the variants other
profiles use. Which steps run, and when, is decided by a :class:`~vqametrics.profiles.Profile`.
"""
